"""Loss models: exact semantics with scripted random numbers, long-run loss within
stated tolerances of the analytic value."""

import math
import random
from collections.abc import Iterable
from pathlib import Path

import pytest

from wwanlab.core.errors import UsageError
from wwanlab.link import (
    BernoulliLoss,
    ConstantDelay,
    Drop,
    ExponentialDelay,
    GilbertElliott,
    OnOffLoss,
    TraceLoss,
)


class Scripted(random.Random):
    """A Random whose ``random()`` returns the given numbers in order."""

    def __init__(self, values: Iterable[float]) -> None:
        super().__init__(0)
        self._values = iter(values)

    def random(self) -> float:
        return next(self._values)


def _loss_fraction(stage: object, n: int, rng: random.Random, gap: float = 0.0) -> float:
    lost = 0
    for i in range(n):
        lost += isinstance(stage.process(100, i * gap, rng), Drop)  # type: ignore[attr-defined]
    return lost / n


def test_bernoulli_loss_within_4_standard_errors() -> None:
    n, p = 50_000, 0.1
    measured = _loss_fraction(BernoulliLoss(p), n, random.Random(1))
    assert abs(measured - p) < 4 * math.sqrt(p * (1 - p) / n)
    assert BernoulliLoss(0.0).process(1, 3.0, random.Random(0)) == 3.0
    assert BernoulliLoss(1.0).process(1, 3.0, random.Random(0)) == Drop("loss:bernoulli")


def test_gilbert_elliott_judges_loss_by_the_state_the_packet_found() -> None:
    # netem order per packet: transition draw, then loss draw with the found state's rate.
    ge = GilbertElliott(p=0.5, r=0.5, one_minus_h=1.0, one_minus_k=0.0)
    rng = Scripted([0.1, 0.9, 0.9, 0.5, 0.2, 0.99, 0.9, 0.0])
    verdicts = [ge.process(100, 0.0, rng) for _ in range(4)]
    assert verdicts == [0.0, Drop("loss:gilbert-elliott"), Drop("loss:gilbert-elliott"), 0.0]


def test_gilbert_elliott_stationary_loss_within_widened_4_standard_errors() -> None:
    p, r, lb, lg = 0.05, 0.3, 0.8, 0.01
    ge = GilbertElliott(p, r, one_minus_h=lb, one_minus_k=lg)
    expected = r / (p + r) * lg + p / (p + r) * lb
    assert ge.long_run_loss == pytest.approx(expected)
    n = 100_000
    measured = _loss_fraction(ge, n, random.Random(2))
    # Variance of the loss count of a two-state Markov-modulated Bernoulli sequence:
    # the per-packet Bernoulli part, plus the state part (lb-lg)^2 * piG*piB inflated by
    # (1+lam)/(1-lam), lam = 1-p-r the chain's lag-one correlation.
    pi_b = p / (p + r)
    lam = 1 - p - r
    per_packet = (1 - pi_b) * lg * (1 - lg) + pi_b * lb * (1 - lb)
    state = (lb - lg) ** 2 * pi_b * (1 - pi_b) * (1 + lam) / (1 - lam)
    se = math.sqrt((per_packet + state) / n)
    assert abs(measured - expected) < 4 * se


def test_onoff_phases_run_on_time() -> None:
    onoff = OnOffLoss(1.0, on=1.0, off=1.0)
    rng = random.Random(0)
    assert onoff.process(100, 0.5, rng) == Drop("loss:onoff")
    assert onoff.process(100, 1.0, rng) == 1.0  # Off from t = 1
    assert onoff.process(100, 1.9, rng) == 1.9
    assert onoff.process(100, 2.0, rng) == Drop("loss:onoff")
    assert onoff.process(100, 7.5, rng) == 7.5  # three phases skipped without packets


def test_onoff_delays_only_during_on() -> None:
    onoff = OnOffLoss(0.0, on=1.0, off=1.0, delay=ConstantDelay(0.2), start_on=False)
    rng = random.Random(0)
    assert onoff.process(100, 0.5, rng) == 0.5
    assert onoff.process(100, 1.5, rng) == pytest.approx(1.7)


def test_onoff_fixed_phases_long_run_loss_is_on_fraction_times_p() -> None:
    # 10 s On / 10 s Off (paper 004 Table 1), p = 0.1, a packet every 20 ms for 2000 s:
    # exactly half the packets arrive in On phases, so the only noise is binomial over
    # the n_on = n/2 On packets: se = sqrt(n_on p (1-p)) / n.
    onoff = OnOffLoss(0.1, on=10.0, off=10.0)
    assert onoff.long_run_loss == pytest.approx(0.05)
    n = 100_000
    measured = _loss_fraction(onoff, n, random.Random(3), gap=0.02)
    assert abs(measured - 0.05) < 4 * math.sqrt(n / 2 * 0.1 * 0.9) / n


def test_onoff_random_phases_long_run_loss_within_4_standard_errors() -> None:
    # Exponential On (mean 1 s) and Off (mean 3 s) phases, p = 0.5: f = 1/4, loss 1/8.
    # The on-fraction over c cycles has variance (delta method for a ratio of sums)
    # ((1-f)^2 Var(on) + f^2 Var(off)) / (c E[cycle]^2); to it adds the binomial
    # noise of the On packets.
    onoff = OnOffLoss(0.5, on=ExponentialDelay(1.0), off=ExponentialDelay(3.0))
    f, p = 0.25, 0.5
    assert onoff.long_run_loss == pytest.approx(f * p)
    gap, n = 0.1, 80_000
    cycles = n * gap / 4.0
    var_f = ((1 - f) ** 2 * 1.0 + f**2 * 9.0) / (cycles * 16.0)
    se = math.sqrt(p**2 * var_f + f * n * p * (1 - p) / n**2)
    measured = _loss_fraction(onoff, n, random.Random(4), gap=gap)
    assert abs(measured - f * p) < 4 * se


def test_trace_loss_loops_or_not(tmp_path: Path) -> None:
    rng = random.Random(0)
    looping = TraceLoss([0, 1, 1])
    got = [isinstance(looping.process(1, 0.0, rng), Drop) for _ in range(6)]
    assert got == [False, True, True, False, True, True]
    assert looping.long_run_loss == pytest.approx(2 / 3)
    path = tmp_path / "loss.txt"
    path.write_text("1\n0\n")
    once = TraceLoss(path, loop=False)
    got = [isinstance(once.process(1, 0.0, rng), Drop) for _ in range(4)]
    assert got == [True, False, False, False]


@pytest.mark.parametrize(
    "build",
    [
        lambda: BernoulliLoss(1.5),
        lambda: BernoulliLoss(-0.1),
        lambda: GilbertElliott(0.1, 2.0),
        lambda: GilbertElliott(0.0, 0.0),
        lambda: GilbertElliott(0.1, 0.2, one_minus_h=-1),
        lambda: OnOffLoss(0.1, on=0.0, off=1.0),
        lambda: OnOffLoss(1.1, on=1.0, off=1.0),
        lambda: TraceLoss([]),
        lambda: TraceLoss([0, 2]),
    ],
)
def test_bad_parameters_raise_usage_error(build: object) -> None:
    with pytest.raises(UsageError):
        build()  # type: ignore[operator]


def test_unreadable_loss_trace_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"missing\.txt"):
        TraceLoss(tmp_path / "missing.txt")
    bad = tmp_path / "bad.txt"
    bad.write_text("0 1 x\n")
    with pytest.raises(UsageError, match=r"bad\.txt"):
        TraceLoss(bad)
