"""Link-layer ARQ: frame loss becomes residual loss plus added delay.

As GPRS LLC acknowledged mode in paper 002 (section IV.4: "allows until 2
retransmissions of a lost LLC frame"): a packet is tried up to
``1 + max_retransmissions`` times over a lossy channel; each failed try costs
``per_try_delay`` (the acknowledgement wait and the resend) before the next; when every
try is lost the packet is dropped ("arq"). With an independent frame loss ``p`` the
residual loss is ``p ** (1 + max_retransmissions)``. The stage does not hold the line
during retransmissions: put it after the server whose rate it shares.
"""

import random

from wwanlab.link import checks
from wwanlab.link.base import Drop, Stage, Verdict
from wwanlab.link.delay import ConstantDelay, DelayDistribution
from wwanlab.link.loss import BernoulliLoss


class LinkArq:
    """Retry a packet over ``loss`` (a loss stage, or a frame-loss probability)."""

    def __init__(
        self,
        loss: Stage | float,
        max_retransmissions: int,
        per_try_delay: float | DelayDistribution,
    ) -> None:
        self.loss: Stage = BernoulliLoss(loss) if isinstance(loss, int | float) else loss
        self.max_retransmissions = checks.count("max_retransmissions", max_retransmissions)
        if isinstance(per_try_delay, int | float):
            per_try_delay = ConstantDelay(per_try_delay)
        self.per_try_delay: DelayDistribution = per_try_delay

    @property
    def tries(self) -> int:
        return 1 + self.max_retransmissions

    @property
    def long_run_loss(self) -> float | None:
        """Residual loss ``p ** tries`` over independent (Bernoulli) frame loss, else None."""
        if isinstance(self.loss, BernoulliLoss):
            return self.loss.p**self.tries
        return None

    @property
    def mean_added_delay(self) -> float | None:
        """Mean delay ARQ adds to a delivered packet over Bernoulli frame loss, else None.

        A delivered packet failed ``k`` tries first with probability
        ``p**k * (1-p) / (1 - p**tries)``, ``k = 0 .. max_retransmissions``.
        """
        if not isinstance(self.loss, BernoulliLoss):
            return None
        p = self.loss.p
        delivered = 1 - p**self.tries
        if delivered == 0:
            return None
        failed = sum(k * p**k * (1 - p) for k in range(self.tries)) / delivered
        return failed * self.per_try_delay.mean

    def process(self, size: int, t: float, rng: random.Random) -> Verdict:
        for attempt in range(self.tries):
            verdict = self.loss.process(size, t, rng)
            if not isinstance(verdict, Drop):
                return verdict
            if attempt < self.max_retransmissions:
                t += self.per_try_delay.sample(rng)
        return Drop("arq")

    def __repr__(self) -> str:
        return (
            f"LinkArq({self.loss!r}, max_retransmissions={self.max_retransmissions}, "
            f"per_try_delay={self.per_try_delay!r})"
        )
