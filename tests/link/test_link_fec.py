"""BlockFec: binomial block loss, per-packet loss within 4 standard errors, code rate."""

import math
import random

import pytest

from wwanlab.core.errors import UsageError
from wwanlab.link import BlockFec, Drop


def test_block_loss_is_the_binomial_tail_beyond_the_redundant_slots() -> None:
    fec = BlockFec(0.02, 0.05, slots=100)
    assert fec.redundant == 5 and fec.code_rate == pytest.approx(0.95)
    tail = sum(math.comb(100, k) * 0.02**k * 0.98 ** (100 - k) for k in range(6, 101))
    assert fec.block_loss == pytest.approx(tail, rel=1e-9)
    assert BlockFec(0.02, 0.0).block_loss == pytest.approx(1 - 0.98**100)
    assert BlockFec(0.0, 0.0).block_loss == 0.0


def test_paper_003_five_percent_fec_removes_most_errors_at_0_9_percent() -> None:
    # Section 4.4.2: at a 0.9% channel error rate "5-6% FEC is useful to eliminate most
    # of the channel errors". Without FEC 60% of blocks fail; with 5%, under 0.1%.
    assert BlockFec(0.009, 0.0).block_loss == pytest.approx(1 - 0.991**100)
    assert BlockFec(0.009, 0.05).block_loss < 1e-3


def test_packet_loss_within_4_standard_errors() -> None:
    fec = BlockFec(0.03, 0.04)
    size = 470  # 16 CS-2 blocks
    assert fec.blocks(size) == 16
    expected = fec.packet_loss(size)
    n = 20_000
    rng = random.Random(6)
    lost = sum(isinstance(fec.process(size, 0.0, rng), Drop) for _ in range(n))
    assert abs(lost / n - expected) < 4 * math.sqrt(expected * (1 - expected) / n)


def test_bad_parameters_raise_usage_error() -> None:
    with pytest.raises(UsageError, match="slot_error"):
        BlockFec(1.5, 0.05)
    with pytest.raises(UsageError, match="fec_fraction"):
        BlockFec(0.01, 1.0)
    with pytest.raises(UsageError, match="slots"):
        BlockFec(0.01, 0.05, slots=0)
