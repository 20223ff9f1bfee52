"""Loss models: a packet reaching the stage at ``t`` is dropped, or leaves at ``t``.

Each model states its analytic long-run loss (``long_run_loss``) so presets can print
what they configured and tests can compare it with what they measure.
"""

import random
from collections.abc import Sequence
from enum import Enum
from pathlib import Path

from wwanlab.core.errors import UsageError
from wwanlab.link import checks
from wwanlab.link.base import Drop, Verdict
from wwanlab.link.delay import ConstantDelay, DelayDistribution


class BernoulliLoss:
    """Each packet is lost independently with probability ``p``."""

    def __init__(self, p: float) -> None:
        self.p = checks.probability("p", p)

    @property
    def long_run_loss(self) -> float:
        return self.p

    def process(self, size: int, t: float, rng: random.Random) -> Verdict:
        return Drop("loss:bernoulli") if rng.random() < self.p else t

    def __repr__(self) -> str:
        return f"BernoulliLoss({self.p})"


class GeState(Enum):
    GOOD = "good"
    BAD = "bad"


class GilbertElliott:
    """Two-state Markov loss with Linux netem's ``loss gemodel p r 1-h 1-k`` semantics.

    As netem's ``loss_gilb_ell`` (net/sched/sch_netem.c) does per packet: in the state
    the packet finds, first draw the transition (good->bad with ``p``, bad->good with
    ``r``), then draw the loss with the loss probability of the state the packet found
    (``1-k`` in good, ``1-h`` in bad). The chain starts in the good state, as netem's.
    The stationary loss is ``r/(p+r)*(1-k) + p/(p+r)*(1-h)``.
    """

    def __init__(
        self, p: float, r: float, one_minus_h: float = 1.0, one_minus_k: float = 0.0
    ) -> None:
        self.p = checks.probability("p", p)
        self.r = checks.probability("r", r)
        self.one_minus_h = checks.probability("one_minus_h", one_minus_h)
        self.one_minus_k = checks.probability("one_minus_k", one_minus_k)
        if self.p + self.r == 0:
            raise UsageError("p and r must not both be 0 (the chain would never move)")
        self.state = GeState.GOOD

    @property
    def long_run_loss(self) -> float:
        bad = self.p / (self.p + self.r)
        return (1 - bad) * self.one_minus_k + bad * self.one_minus_h

    def process(self, size: int, t: float, rng: random.Random) -> Verdict:
        found = self.state
        if found is GeState.GOOD:
            if rng.random() < self.p:
                self.state = GeState.BAD
            lost = rng.random() < self.one_minus_k
        else:
            if rng.random() < self.r:
                self.state = GeState.GOOD
            lost = rng.random() < self.one_minus_h
        return Drop("loss:gilbert-elliott") if lost else t

    def __repr__(self) -> str:
        return (
            f"GilbertElliott(p={self.p}, r={self.r}, one_minus_h={self.one_minus_h}, "
            f"one_minus_k={self.one_minus_k})"
        )


PhaseLength = float | DelayDistribution
"""A phase length in seconds: fixed, or drawn anew for each phase from a distribution."""


def _phase(name: str, length: PhaseLength) -> DelayDistribution:
    model = ConstantDelay(length) if isinstance(length, int | float) else length
    if not model.mean > 0:
        raise UsageError(f"{name} phase length must have a mean > 0, got {model.mean!r}")
    return model


class OnOffLoss:
    """Paper 004's VDELDROP: alternating On and Off phases that run on time.

    During an On phase each packet is dropped with probability ``p`` and a surviving
    one is held for a random ``delay``; during an Off phase packets pass untouched
    (paper 004, section 3: "drops segments at a constant rate specified for the
    duration of a test, and causes different delays for each segment", with "On/Off
    phases during which its actions are in effect and are suspended"). Phase lengths
    are fixed or random (Table 1: 10 s; Table 2: 4-10 s). By renewal-reward the
    long-run loss is ``E[on] / (E[on] + E[off]) * p`` for packets sent at a steady
    rate. Packets should reach the stage in time order; one reaching it earlier than
    the current phase began is judged by the current phase.
    """

    def __init__(
        self,
        p: float,
        on: PhaseLength,
        off: PhaseLength,
        *,
        delay: DelayDistribution | None = None,
        start_on: bool = True,
        start: float = 0.0,
    ) -> None:
        self.p = checks.probability("p", p)
        self.on = _phase("on", on)
        self.off = _phase("off", off)
        self.delay = delay
        self.is_on = start_on
        self._phase_end: float | None = None
        self._start = start

    @property
    def on_fraction(self) -> float:
        return self.on.mean / (self.on.mean + self.off.mean)

    @property
    def long_run_loss(self) -> float:
        return self.on_fraction * self.p

    def _advance(self, t: float, rng: random.Random) -> None:
        if self._phase_end is None:
            first = self.on if self.is_on else self.off
            self._phase_end = self._start + first.sample(rng)
        while t >= self._phase_end:
            self.is_on = not self.is_on
            self._phase_end += (self.on if self.is_on else self.off).sample(rng)

    def process(self, size: int, t: float, rng: random.Random) -> Verdict:
        self._advance(t, rng)
        if not self.is_on:
            return t
        if rng.random() < self.p:
            return Drop("loss:onoff")
        return t if self.delay is None else t + self.delay.sample(rng)

    def __repr__(self) -> str:
        return f"OnOffLoss(p={self.p}, on={self.on!r}, off={self.off!r}, delay={self.delay!r})"


class TraceLoss:
    """A per-packet loss trace: the i-th packet is lost when ``trace[i]`` is 1.

    With ``loop`` the trace repeats; without, packets past its end are delivered.
    """

    def __init__(self, trace: Sequence[int] | str | Path, *, loop: bool = True) -> None:
        pattern = load_loss_trace(trace) if isinstance(trace, str | Path) else list(trace)
        if not pattern:
            raise UsageError("loss trace must not be empty")
        if any(v not in (0, 1) for v in pattern):
            raise UsageError("loss trace values must be 0 (delivered) or 1 (lost)")
        self.trace = [bool(v) for v in pattern]
        self.loop = loop
        self._index = 0

    @property
    def long_run_loss(self) -> float:
        """The trace's loss fraction (the long-run loss when looping)."""
        return sum(self.trace) / len(self.trace)

    def process(self, size: int, t: float, rng: random.Random) -> Verdict:
        i = self._index
        self._index += 1
        if i >= len(self.trace):
            if not self.loop:
                return t
            i %= len(self.trace)
        return Drop("loss:trace") if self.trace[i] else t


def load_loss_trace(path: str | Path) -> list[int]:
    """0/1 values separated by white space (one per line is usual)."""
    text = checks.read_trace(path, "loss trace")
    values: list[int] = []
    for word in text.split():
        if word not in ("0", "1"):
            raise UsageError(f"loss trace {str(path)!r}: expected 0 or 1, got {word[:20]!r}")
        values.append(int(word))
    if not values:
        raise UsageError(f"loss trace {str(path)!r} is empty")
    return values
