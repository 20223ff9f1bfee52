"""Block FEC on a lossy radio, as paper 003 section 4.4 studies it against ARQ.

The paper applies FEC "at the granularity of slots": a radio block has ``slots``
slots, of which a fraction ``fec_fraction`` carry redundancy, so a block survives when
no more slots are corrupted than there are redundant ones ("If there are 100 slots to a
block and the amount of FEC applied is 5%, then 5 out of these 100 slots are used to
redundantly encode the remaining 95"). Without ARQ, a block that cannot be recovered
loses the IP packet it carries (the streaming case of Figure 7). Slots are corrupted
independently with probability ``slot_error``.

The redundancy costs bandwidth: build the line as ``Rate(bps * fec.code_rate)``.
"""

import math
import random

from wwanlab.core.errors import UsageError
from wwanlab.link import checks
from wwanlab.link.base import Drop, Verdict

CS2_BLOCK_DATA_BYTES = 30
"""Octets of LLC data in one CS-2 RLC data block (GSM 04.60 / 3GPP TS 44.060: 33-octet
block less the MAC and RLC headers); the paper notes CS-2 is what most networks use."""


class BlockFec:
    """Drop a packet when any of the radio blocks it spans cannot be decoded."""

    def __init__(
        self,
        slot_error: float,
        fec_fraction: float,
        *,
        slots: int = 100,
        block_bytes: int = CS2_BLOCK_DATA_BYTES,
    ) -> None:
        self.slot_error = checks.probability("slot_error", slot_error)
        fraction = checks.probability("fec_fraction", fec_fraction)
        self.slots = checks.count("slots", slots, minimum=1)
        self.block_bytes = checks.count("block_bytes", block_bytes, minimum=1)
        self.redundant = math.floor(fraction * self.slots + 1e-9)
        if self.redundant >= self.slots:
            raise UsageError("fec_fraction must leave at least one data slot")
        # P(more than `redundant` of `slots` slots corrupted), a binomial tail.
        e = self.slot_error
        decodable = sum(
            math.comb(self.slots, k) * e**k * (1 - e) ** (self.slots - k)
            for k in range(self.redundant + 1)
        )
        self.block_loss = min(1.0, max(0.0, 1.0 - decodable))

    @property
    def code_rate(self) -> float:
        """The fraction of the radio's rate left for data."""
        return 1 - self.redundant / self.slots

    def blocks(self, size: int) -> int:
        return max(1, math.ceil(size / self.block_bytes))

    def packet_loss(self, size: int) -> float:
        """Analytic loss of a packet of ``size`` octets."""
        return 1 - (1 - self.block_loss) ** self.blocks(size)

    def process(self, size: int, t: float, rng: random.Random) -> Verdict:
        for _ in range(self.blocks(size)):
            if rng.random() < self.block_loss:
                return Drop("fec")
        return t

    def __repr__(self) -> str:
        return (
            f"BlockFec(slot_error={self.slot_error}, redundant={self.redundant}/"
            f"{self.slots}, block_bytes={self.block_bytes})"
        )
