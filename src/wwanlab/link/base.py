"""The shape of every link model: a packet's size and arrival time in, a verdict out.

A link direction is a pipeline of small stateful models (rate or delivery trace,
queue, delay, loss, link-layer ARQ or FEC). Each ``Stage`` is given the time a packet
reaches it and answers the time the packet leaves it, or a ``Drop`` naming why. The
simulator and the real-time emulator both drive a ``Direction`` and nothing else, so a
model written once serves both.

Stages keep their own state (when the line is next free, which phase a loss process is
in) but never read a clock or the global random module: time and the ``random.Random``
are always passed in.
"""

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Drop:
    """A packet the link lost, and why (``"queue"``, ``"loss:bernoulli"``, ``"arq"``...)."""

    reason: str


Verdict = float | Drop
"""The time a packet leaves a stage (or is delivered), or why it was dropped."""


class Stage(Protocol):
    """One step of a direction's pipeline."""

    def process(self, size: int, t: float, rng: random.Random) -> Verdict:
        """``size`` octets of IP packet reach this stage at ``t``; when do they leave?"""
        ...


class Direction:
    """One direction of a link: stages applied in order to every packet.

    With ``fifo`` (the default, as a serial line or an LLC queue behaves) a packet is
    never delivered before one that entered earlier; without it, random delays may
    reorder packets as an IP cloud can.
    """

    def __init__(self, stages: Sequence[Stage], *, fifo: bool = True) -> None:
        self.stages = list(stages)
        self.fifo = fifo
        self._last_delivery = float("-inf")

    def transmit(self, size: int, now: float, rng: random.Random) -> Verdict:
        t = now
        for stage in self.stages:
            verdict = stage.process(size, t, rng)
            # Every packet passes here: test for the usual float before the rare Drop.
            if type(verdict) is float or not isinstance(verdict, Drop):
                t = verdict
            else:
                return verdict
        if self.fifo:
            last = self._last_delivery
            if last > t:  # max(t, last), which keeps t on a tie
                t = last
            self._last_delivery = t
        return t
