"""Tiny link stages of the tests' own, so the simulator is tested on exact numbers."""

import random
from collections.abc import Callable

import pytest

from wwanlab.link.base import Direction, Drop, Verdict


class FixedDelay:
    def __init__(self, delay: float) -> None:
        self.delay = delay

    def process(self, size: int, t: float, rng: random.Random) -> Verdict:
        return t + self.delay


class Serializer:
    """A line of ``rate_bps``: a packet leaves when the line is free and it is sent."""

    def __init__(self, rate_bps: float) -> None:
        self.rate_bps = rate_bps
        self.free_at = 0.0

    def process(self, size: int, t: float, rng: random.Random) -> Verdict:
        self.free_at = max(t, self.free_at) + size * 8 / self.rate_bps
        return self.free_at


class CoinLoss:
    def __init__(self, p: float) -> None:
        self.p = p

    def process(self, size: int, t: float, rng: random.Random) -> Verdict:
        return Drop("loss:coin") if rng.random() < self.p else t


MakeDirection = Callable[..., Direction]


def make_direction(delay: float = 0.0, rate_bps: float | None = None, loss: float = 0.0):
    stages: list[FixedDelay | Serializer | CoinLoss] = []
    if rate_bps is not None:
        stages.append(Serializer(rate_bps))
    if loss:
        stages.append(CoinLoss(loss))
    stages.append(FixedDelay(delay))
    return Direction(stages)


@pytest.fixture
def direction() -> MakeDirection:
    """``direction(delay, rate_bps=None, loss=0.0)``: a fresh Direction of test stages."""
    return make_direction
