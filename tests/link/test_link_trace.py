"""TraceRate: mahimahi delivery-opportunity semantics, looping, rate, and trace files."""

import random
from pathlib import Path

import pytest

from wwanlab.core.errors import UsageError
from wwanlab.link import Drop, TraceRate
from wwanlab.link.rate import load_mahimahi_trace

RNG = random.Random(0)


def test_one_opportunity_carries_one_mtu_packet() -> None:
    link = TraceRate([1, 2, 3])
    assert link.process(1500, 0.0, RNG) == pytest.approx(0.001)
    assert link.process(1500, 0.0, RNG) == pytest.approx(0.002)


def test_large_packet_takes_opportunities_until_its_bytes_are_covered() -> None:
    link = TraceRate([1, 2, 3])
    assert link.process(3001, 0.0, RNG) == pytest.approx(0.003)


def test_surplus_of_an_opportunity_goes_to_the_next_queued_packet() -> None:
    link = TraceRate([1, 2, 3])
    assert [link.process(750, 0.0, RNG) for _ in range(3)] == pytest.approx([0.001, 0.001, 0.002])
    # The second opportunity still has 750 octets; a packet arriving after it cannot
    # use them (the opportunity was burnt) and waits for the third.
    assert link.process(500, 0.0025, RNG) == pytest.approx(0.003)


def test_a_packet_cannot_use_an_opportunity_at_its_own_arrival_time() -> None:
    link = TraceRate([1, 2, 3])
    assert link.process(100, 0.001, RNG) == pytest.approx(0.002)


def test_unused_opportunities_are_wasted_and_the_trace_loops_on_its_last_timestamp() -> None:
    link = TraceRate([1, 2, 3])
    # At 3.5 ms the next opportunities are 3+1 = 4 ms and 3+2 = 5 ms (second period).
    assert link.process(1500, 0.0035, RNG) == pytest.approx(0.004)
    assert link.process(1500, 0.0035, RNG) == pytest.approx(0.005)
    # Far ahead: 1000 periods later.
    assert link.process(1500, 3.0005, RNG) == pytest.approx(3.001)


def test_repeated_timestamps_are_several_opportunities() -> None:
    link = TraceRate([5, 5, 5, 10])
    assert [link.process(1500, 0.0, RNG) for _ in range(4)] == pytest.approx(
        [0.005, 0.005, 0.005, 0.010]
    )


def test_without_loop_packets_past_the_end_are_dropped() -> None:
    link = TraceRate([1, 2], loop=False)
    assert link.process(1500, 0.0, RNG) == pytest.approx(0.001)
    assert link.process(1500, 0.0, RNG) == pytest.approx(0.002)
    assert link.process(1500, 0.0, RNG) == Drop("trace-end")


def test_measured_rate_of_a_saturated_trace_is_its_mean_rate() -> None:
    # 3 opportunities every 4 ms at 1500 octets: 9 Mbit/s. Packets of 1000 octets
    # use exactly 2 opportunities per 3 packets, so over whole periods it is exact.
    schedule = [1, 1, 4]
    link = TraceRate(schedule)
    assert link.mean_bps == pytest.approx(9e6)
    n = 9000  # 6000 opportunities = 2000 periods
    last = 0.0
    for _ in range(n):
        verdict = link.process(1000, 0.0, RNG)
        assert isinstance(verdict, float)
        last = verdict
    assert last == pytest.approx(2000 * 0.004)
    assert n * 1000 * 8 / last == pytest.approx(link.mean_bps)


def test_trace_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "link.trace"
    path.write_text("1\n1\n4\n")
    assert load_mahimahi_trace(path) == [1, 1, 4]
    assert TraceRate(str(path)).process(1500, 0.0, RNG) == pytest.approx(0.001)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("1\nx\n", "line 2"),
        ("5\n3\n", "decrease"),
        ("0\n0\n", "nonzero"),
    ],
)
def test_bad_trace_files_name_the_file(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.trace"
    path.write_text(text)
    with pytest.raises(UsageError, match=message) as info:
        TraceRate(path)
    assert "bad.trace" in str(info.value)


def test_missing_trace_file_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"nope\.trace"):
        TraceRate(tmp_path / "nope.trace")
