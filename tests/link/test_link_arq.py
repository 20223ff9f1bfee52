"""LinkArq: retries over a loss stage, residual loss p**tries, added delay per retry."""

import math
import random
import statistics

import pytest

from wwanlab.core.errors import UsageError
from wwanlab.link import BernoulliLoss, Drop, LinkArq, TraceLoss, UniformDelay


def test_each_failed_try_adds_the_per_try_delay() -> None:
    rng = random.Random(0)
    assert LinkArq(TraceLoss([1, 1, 0]), 2, 0.5).process(100, 1.0, rng) == pytest.approx(2.0)
    assert LinkArq(TraceLoss([0]), 2, 0.5).process(100, 1.0, rng) == 1.0


def test_all_tries_lost_is_an_arq_drop() -> None:
    rng = random.Random(0)
    arq = LinkArq(TraceLoss([1, 1, 1, 0]), 2, 0.5)
    assert arq.process(100, 0.0, rng) == Drop("arq")
    # The trace went on: the fourth try of the stage is the next packet's first.
    assert arq.process(100, 0.0, rng) == 0.0


def test_residual_loss_is_frame_loss_to_the_power_of_tries_within_4_standard_errors() -> None:
    p, retransmissions, n = 0.3, 2, 100_000
    arq = LinkArq(p, retransmissions, UniformDelay(0.18, 0.22))
    expected = p**3
    assert arq.long_run_loss == pytest.approx(expected)
    rng = random.Random(5)
    delays = []
    lost = 0
    for _ in range(n):
        verdict = arq.process(470, 0.0, rng)
        if isinstance(verdict, Drop):
            lost += 1
        else:
            delays.append(verdict)
    assert abs(lost / n - expected) < 4 * math.sqrt(expected * (1 - expected) / n)
    # Mean added delay of delivered packets against the analytic value.
    mean_added = arq.mean_added_delay
    assert mean_added is not None
    se = statistics.pstdev(delays) / math.sqrt(len(delays))
    assert abs(statistics.fmean(delays) - mean_added) < 4 * se


def test_paper_002_llc_residual_loss_under_independent_frame_loss() -> None:
    # Section IV.4: PER 2.3% with up to 2 retransmissions. Independent frame loss gives
    # 0.023**3 = 1.2e-5 (1.2e-3 %); the paper reports 5e-4 %. See docs/links.md.
    assert LinkArq(BernoulliLoss(0.023), 2, 0.1).long_run_loss == pytest.approx(1.2167e-5)


def test_bad_parameters_raise_usage_error() -> None:
    with pytest.raises(UsageError, match="max_retransmissions"):
        LinkArq(0.1, -1, 0.1)
    with pytest.raises(UsageError, match="p must be"):
        LinkArq(1.5, 2, 0.1)
    with pytest.raises(UsageError, match="delay"):
        LinkArq(0.1, 2, -0.1)
