"""DropTailQueue: exact admission against the backlog, and long-run drop under overload."""

import math
import random

import pytest

from wwanlab.core.errors import UsageError
from wwanlab.link import Drop, DropTailQueue, Rate, TraceRate


def test_packet_limit_counts_the_packet_on_the_line() -> None:
    queue = DropTailQueue(Rate(8000), packets=3)  # 1000 octets take 1 s
    rng = random.Random(0)
    verdicts = [queue.process(1000, 0.0, rng) for _ in range(5)]
    assert verdicts == [1.0, 2.0, 3.0, Drop("queue"), Drop("queue")]
    assert queue.backlog(0.5) == (3, 3000)
    # At t = 1.0 the first packet has left: room for one more, after the third.
    assert queue.process(1000, 1.0, rng) == 4.0
    assert queue.process(1000, 1.5, rng) == Drop("queue")


def test_byte_limit_admits_a_small_packet_when_a_large_one_does_not_fit() -> None:
    queue = DropTailQueue(Rate(8000), bytes=2500)
    rng = random.Random(0)
    assert queue.process(1500, 0.0, rng) == 1.5
    assert queue.process(1500, 0.0, rng) == Drop("queue")
    assert queue.process(1000, 0.0, rng) == 2.5


def test_queue_in_front_of_a_trace_rate() -> None:
    queue = DropTailQueue(TraceRate([10, 20]), packets=1)
    rng = random.Random(0)
    assert queue.process(1500, 0.0, rng) == pytest.approx(0.010)
    assert queue.process(1500, 0.005, rng) == Drop("queue")
    assert queue.process(1500, 0.010, rng) == pytest.approx(0.020)


def test_overload_drops_the_excess_within_4_standard_errors() -> None:
    # Poisson arrivals at twice the line's capacity into a 20-packet buffer: in the long
    # run the line is always busy, so the delivered fraction is 1/2. Counted over
    # n = 40000 arrivals with a binomial standard error sqrt(0.25/n) (the buffer's
    # memory of 20 packets correlates drops only over a few dozen arrivals).
    queue = DropTailQueue(Rate(8000), packets=20)  # 1000-octet packets: 1 per second
    rng = random.Random(4)
    t, n, dropped = 0.0, 40_000, 0
    for _ in range(n):
        t += rng.expovariate(2.0)
        dropped += isinstance(queue.process(1000, t, rng), Drop)
    assert abs(dropped / n - 0.5) < 4 * math.sqrt(0.25 / n) * 2  # x2 for correlation


def test_a_queue_needs_a_positive_limit() -> None:
    with pytest.raises(UsageError):
        DropTailQueue(Rate(8000))
    with pytest.raises(UsageError, match="packets"):
        DropTailQueue(Rate(8000), packets=0)
    with pytest.raises(UsageError, match="bytes"):
        DropTailQueue(Rate(8000), bytes=-5)
