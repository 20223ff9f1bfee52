"""Delay models: sample mean and quantiles against the analytic ones.

Tolerances: the sample mean within 4 standard errors (sd / sqrt(n), with the model's
analytic or sample sd); the fraction of draws below the model's quantile(q) within 4
binomial standard errors sqrt(q(1-q)/n) of q.
"""

import math
import random
import statistics

import pytest

from wwanlab.core.errors import UsageError
from wwanlab.link import (
    ConstantDelay,
    DelayDistribution,
    ExponentialDelay,
    HistogramDelay,
    TruncatedNormalDelay,
    UniformDelay,
)

N = 20_000


def _check_distribution(model: DelayDistribution, seed: int) -> None:
    rng = random.Random(seed)
    draws = [model.sample(rng) for _ in range(N)]
    sd = statistics.pstdev(draws)
    assert abs(statistics.fmean(draws) - model.mean) <= 4 * sd / math.sqrt(N) + 1e-12
    for q in (0.05, 0.5, 0.95):
        below = sum(d <= model.quantile(q) for d in draws) / N
        assert abs(below - q) < 4 * math.sqrt(q * (1 - q) / N)


@pytest.mark.parametrize(
    ("model", "mean"),
    [
        (UniformDelay(0.08, 0.12), 0.1),
        (ExponentialDelay(0.5), 0.5),
        (ExponentialDelay(0.5, shift=0.2), 0.5),
        (TruncatedNormalDelay(0.1, 0.02), 0.1),
        # Truncated on one side: mean = mu + sd*phi(a)/(1-Phi(a)), a = (0-0.05)/0.05 = -1.
        (TruncatedNormalDelay(0.05, 0.05, lo=0.0), 0.05 + 0.05 * 0.24197072 / 0.84134475),
        (HistogramDelay([0.0, 0.1, 0.2, 0.5], [1, 0, 3]), (0.05 + 3 * 0.35) / 4),
    ],
)
def test_distribution_mean_and_quantiles(model: DelayDistribution, mean: float) -> None:
    assert model.mean == pytest.approx(mean, rel=1e-6)
    _check_distribution(model, seed=11)


def test_delay_stage_adds_a_draw_to_the_arrival_time() -> None:
    rng = random.Random(0)
    assert ConstantDelay(0.3).process(100, 2.0, rng) == pytest.approx(2.3)
    t = UniformDelay(0.1, 0.2).process(100, 5.0, rng)
    assert isinstance(t, float) and 5.1 <= t <= 5.2


def test_exact_quantiles() -> None:
    assert UniformDelay(0.8, 2.0).quantile(0.95) == pytest.approx(1.94)
    assert ExponentialDelay(1.0).quantile(0.5) == pytest.approx(math.log(2))
    assert TruncatedNormalDelay(0.1, 0.02).quantile(0.95) == pytest.approx(
        0.1 + 1.6448536 * 0.02, rel=1e-6
    )
    # Histogram: the empty middle bin holds no probability mass.
    hist = HistogramDelay([0.0, 0.1, 0.2, 0.5], [1, 0, 3])
    assert hist.quantile(0.25) == pytest.approx(0.1)
    assert hist.quantile(0.5) == pytest.approx(0.3)


def test_truncated_normal_stays_in_bounds() -> None:
    model = TruncatedNormalDelay(0.1, 0.5, lo=0.05, hi=0.15)
    rng = random.Random(5)
    assert all(0.05 <= model.sample(rng) <= 0.15 for _ in range(2000))


@pytest.mark.parametrize(
    "build",
    [
        lambda: ConstantDelay(-1),
        lambda: UniformDelay(0.2, 0.1),
        lambda: UniformDelay(-0.1, 0.1),
        lambda: ExponentialDelay(0.1, shift=0.2),
        lambda: TruncatedNormalDelay(0.1, -0.01),
        lambda: TruncatedNormalDelay(0.1, 0.01, lo=5.0, hi=6.0),
        lambda: HistogramDelay([0.0, 0.1], [1, 2]),
        lambda: HistogramDelay([0.2, 0.1], [1]),
        lambda: HistogramDelay([0.0, 0.1], [0]),
        lambda: UniformDelay(0, 1).quantile(1.5),
    ],
)
def test_bad_parameters_raise_usage_error(build: object) -> None:
    with pytest.raises(UsageError):
        build()  # type: ignore[operator]
