"""Rate and ServiceTime: exact serialization, line-busy tracking, measured throughput."""

import math
import random

import pytest

from wwanlab.core.errors import UsageError
from wwanlab.link import Rate, ServiceTime, UniformDelay


def test_serialization_counts_overhead_and_async_bits() -> None:
    rate = Rate(9600, overhead_bytes=8, bits_per_byte=10)
    rng = random.Random(0)
    assert rate.process(100, 0.0, rng) == pytest.approx(108 * 10 / 9600)


def test_packets_wait_for_the_line_and_an_idle_line_starts_at_arrival() -> None:
    rate = Rate(8000)  # 1000 octets per second
    rng = random.Random(0)
    assert rate.process(500, 0.0, rng) == pytest.approx(0.5)
    assert rate.process(500, 0.1, rng) == pytest.approx(1.0)  # waited for the first
    assert rate.process(1000, 5.0, rng) == pytest.approx(6.0)  # line idle since 1.0


def test_measured_rate_of_a_saturated_line_is_the_configured_rate() -> None:
    rate = Rate(39_600, overhead_bytes=6)
    rng = random.Random(1)
    sizes = [random.Random(2).randint(40, 1500) for _ in range(2000)]
    last = 0.0
    for size in sizes:
        verdict = rate.process(size, 0.0, rng)
        assert isinstance(verdict, float)
        last = verdict
    assert (sum(sizes) + 6 * len(sizes)) * 8 / last == pytest.approx(39_600, rel=1e-9)


def test_service_time_mean_gives_packets_per_second_within_4_standard_errors() -> None:
    # n service times uniform on [0.08, 0.12]: the total has sd sqrt(n) * 0.04/sqrt(12).
    server = ServiceTime(UniformDelay(0.08, 0.12))
    rng = random.Random(3)
    n = 20_000
    last = 0.0
    for _ in range(n):
        verdict = server.process(470, 0.0, rng)
        assert isinstance(verdict, float)
        last = verdict
    se = math.sqrt(n) * 0.04 / math.sqrt(12)
    assert abs(last - n * 0.1) < 4 * se


@pytest.mark.parametrize(
    "kwargs",
    [
        {"bps": 0},
        {"bps": -1},
        {"bps": math.inf},
        {"bps": 9600, "overhead_bytes": -1},
        {"bps": 9600, "bits_per_byte": 0},
    ],
)
def test_bad_rate_parameters_raise_usage_error(kwargs: dict[str, float]) -> None:
    with pytest.raises(UsageError):
        Rate(**kwargs)  # type: ignore[arg-type]
