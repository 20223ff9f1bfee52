"""Properties of the servers and the queue over arbitrary arrival sequences."""

import bisect
import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from wwanlab.link import Drop, DropTailQueue, Rate, TraceRate

arrivals = st.lists(
    st.tuples(st.floats(min_value=0.0, max_value=0.05), st.integers(min_value=1, max_value=4000)),
    min_size=1,
    max_size=60,
)


def _times(gaps_sizes: list[tuple[float, int]]) -> list[tuple[float, int]]:
    t, out = 0.0, []
    for gap, size in gaps_sizes:
        t += gap
        out.append((t, size))
    return out


@settings(max_examples=60, deadline=None)
@given(arrivals)
def test_rate_departures_are_ordered_and_never_early(gaps_sizes: list[tuple[float, int]]) -> None:
    rate = Rate(64_000, overhead_bytes=6)
    rng = random.Random(0)
    last = 0.0
    for t, size in _times(gaps_sizes):
        leave = rate.process(size, t, rng)
        assert isinstance(leave, float)
        assert leave >= max(t, last) + rate.serialization(size) - 1e-12
        last = leave


@settings(max_examples=60, deadline=None)
@given(arrivals, st.lists(st.integers(min_value=0, max_value=20), min_size=1, max_size=8))
def test_trace_never_carries_more_than_its_opportunities(
    gaps_sizes: list[tuple[float, int]], steps: list[int]
) -> None:
    schedule = list(itertools.accumulate(steps))
    if schedule[-1] == 0:
        schedule[-1] = 1
    link = TraceRate(schedule)
    rng = random.Random(0)
    departures: list[tuple[float, int]] = []
    for t, size in _times(gaps_sizes):
        leave = link.process(size, t, rng)
        assert isinstance(leave, float) and leave > t
        assert not departures or leave >= departures[-1][0]
        departures.append((leave, size))
    opportunities = [link.opportunity_time(n) for n in range(200 * len(schedule))]
    carried = 0
    for leave, size in departures:
        carried += size
        assert carried <= 1500 * bisect.bisect_right(opportunities, leave + 1e-12)


@settings(max_examples=60, deadline=None)
@given(arrivals, st.integers(min_value=1, max_value=5), st.integers(min_value=1, max_value=9000))
def test_queue_backlog_never_exceeds_its_limits(
    gaps_sizes: list[tuple[float, int]], packets: int, octets: int
) -> None:
    queue = DropTailQueue(Rate(100_000), packets=packets, bytes=octets)
    rng = random.Random(0)
    admitted: list[tuple[float, float, int]] = []  # (arrival, departure, size)
    for t, size in _times(gaps_sizes):
        verdict = queue.process(size, t, rng)
        if isinstance(verdict, Drop):
            assert verdict.reason == "queue"
            continue
        admitted.append((t, verdict, size))
        present = [(a, d, s) for a, d, s in admitted if a <= t < d]
        assert len(present) <= packets
        assert sum(s for _, _, s in present) <= octets
