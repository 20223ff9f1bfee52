"""GPRS RLC at slot granularity: slot-error traces, ideal-erasure FEC, selective ARQ.

Paper 003 section 4.4 studies FEC against ARQ with trace-driven simulations: RLC blocks
recorded on a GPRS testbed with ARQ disabled, "sub-divided into slots" whose corruption
is known, then replayed under "various levels of FEC-based encodings and ARQ". The
paper's own unit: "If there are 100 slots to a block and the amount of FEC applied is
5%, then 5 out of these 100 slots are used to redundantly encode the remaining 95."

This module is that method:

- a ``SlotTrace`` lists, per RLC block, which of its slots were corrupted; it is saved
  and loaded as text so a user with real traces can feed them in;
- ``GilbertChannel`` synthesizes such traces (we have no testbed traces): slot errors
  in bursts from a two-state Gilbert chain of a given slot error rate and mean burst;
- FEC is an ideal erasure code: a block with ``r`` redundant slots is recovered when at
  most ``r`` of its slots are corrupted (any ``slots - r`` good slots rebuild it, and
  the receiver knows which slots are bad, as the paper's traces do);
- ``rlc_download`` is RLC acknowledged mode (3GPP TS 44.060 section 9): selective
  repeat with a window of 64 blocks, negative acknowledgements arriving one ARQ round
  trip after a block, and resends before new blocks; every transmission, first or
  resend, meets the channel of its own opportunity (the next block of the trace);
- ``stream_loss`` is unacknowledged mode: a block FEC cannot recover is lost.

Blocks go out in *opportunities*: the radio carries one RLC block per timeslot every
20 ms, so a '3+1' phone has 3 opportunities per 20 ms. The trace is indexed by
opportunity (time), whether or not a block was sent in it.
"""

from __future__ import annotations

import math
import random
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from wwanlab.core.errors import UsageError
from wwanlab.link import checks

SLOTS_PER_BLOCK = 100  # paper 003 4.4: "If there are 100 slots to a block ..."
BLOCK_PERIOD = 0.020  # 3GPP TS 45.002 6.3.2.2: a 240 ms 52-multiframe carries 12 radio
# blocks per timeslot (B0..B11), one every 20 ms on average
TDMA_FRAME = 0.120 / 26  # 3GPP TS 45.002 4.3.1: 26 TDMA frames last 120 ms (4.615 ms)
TIMESLOTS = 3  # paper 003 3: a '3+1' GPRS phone, 3 downlink timeslots
WINDOW_SIZE = 64  # 3GPP TS 44.060 9: "Window Size (WS): ... 64 in GPRS"
ARQ_ROUND_TRIP = 26 * TDMA_FRAME  # 3GPP TS 44.060 10.4.5: the polled mobile answers
# with its Packet Downlink Ack/Nack 13 to 26 TDMA frames after the poll (RRBP 0..3);
# we take the longest, 120 ms, since the network polls only every few blocks
PAPER_SLOT_ERRORS = (0.10, 0.042, 0.020, 0.009, 0.002, 0.00016)
"""Slot error rates of the six channel conditions (paper 003 Figures 6 and 7 legends:
"Error = 10%, 4.2%, 2.0%, 0.9%, 0.2%, 0.016%")."""

MEAN_BURST_SLOTS = 2.0
"""Assumed mean length of a run of corrupted slots (the paper gives no burst
statistics). GPRS CS-1..CS-3 are decoded by a Viterbi decoder of the constraint-length 5
convolutional code (3GPP TS 45.003 5.1), whose residual errors come in events about a
constraint length long: 5 bits, about two slots of a CS-2 block (268 bits / 100 slots).
``GilbertChannel.independent`` gives the burst-free channel for comparison."""

MAX_SLOTS = 10_000
"""Largest number of slots per block a trace file may declare (a bound on input)."""

TRACE_MAGIC = "# wwanlab rlc slot trace 1"


@dataclass(frozen=True)
class CodingScheme:
    """A GPRS channel coding scheme: its RLC data rate on one timeslot."""

    name: str
    rate_bps: float

    @property
    def block_bits(self) -> int:
        """Bits of RLC data one radio block carries (the rate over one block period)."""
        return round(self.rate_bps * BLOCK_PERIOD)


# 3GPP TS 45.003 5.1.1-5.1.4 and paper 003's references [9, 10]: data rates per timeslot
# of CS-1..CS-4 (181, 268, 312 and 428 bits per 20 ms radio block).
CODING_SCHEMES = {
    cs.name: cs
    for cs in (
        CodingScheme("CS-1", 9_050.0),
        CodingScheme("CS-2", 13_400.0),
        CodingScheme("CS-3", 15_600.0),
        CodingScheme("CS-4", 21_400.0),
    )
}
DEFAULT_CODING = "CS-2"  # paper 003 4.4: "Most current GPRS WWANs make use of the CS2 scheme"


def coding_scheme(name: str) -> CodingScheme:
    """The coding scheme ``name`` ("CS-1".."CS-4"); ``UsageError`` for any other."""
    try:
        return CODING_SCHEMES[name]
    except KeyError:
        known = ", ".join(CODING_SCHEMES)
        raise UsageError(f"unknown coding scheme {name!r} (known: {known})") from None


def redundant_slots(fec_percent: float, slots: int = SLOTS_PER_BLOCK) -> int:
    """Slots of a block given to FEC at ``fec_percent`` percent (rounded down)."""
    fraction = checks.probability("fec_percent / 100", fec_percent / 100)
    redundant = math.floor(fraction * slots + 1e-9)
    if redundant >= slots:
        raise UsageError(f"fec_percent {fec_percent!r} leaves no data slot in a block")
    return redundant


def recovered(corrupted: int, redundant: int) -> bool:
    """Whether an ideal erasure code with ``redundant`` slots rebuilds a block that
    lost ``corrupted`` slots."""
    return corrupted <= redundant


def effective_rate(
    coding: CodingScheme, fec_percent: float, *, timeslots: int = 1, slots: int = SLOTS_PER_BLOCK
) -> float:
    """The data rate (bit/s) of ``coding`` plus ``fec_percent``% dynamic FEC before any
    loss: the redundant slots carry no data."""
    r = redundant_slots(fec_percent, slots)
    return coding.rate_bps * (slots - r) / slots * timeslots


def data_blocks(size: int, coding: CodingScheme, redundant: int, slots: int) -> int:
    """RLC blocks needed for ``size`` octets when ``redundant`` slots per block are FEC."""
    per_block = coding.block_bits * (slots - redundant) / slots
    return max(1, math.ceil(8 * size / per_block))


class BlockSource(Protocol):
    """A channel as a sequence of blocks, one per transmission opportunity."""

    slots: int
    coding: str  # the coding scheme whose blocks the slots belong to

    def counts(self, n: int) -> list[int]:
        """How many slots are corrupted in each of the first ``n`` opportunities."""
        ...


class SlotTrace:
    """A recorded slot-error trace: per RLC block, its corrupted slots (0-based).

    Indexed by transmission opportunity; a trace shorter than a run loops.
    """

    def __init__(
        self,
        blocks: Sequence[Sequence[int]],
        *,
        slots: int = SLOTS_PER_BLOCK,
        coding: str = DEFAULT_CODING,
    ) -> None:
        self.slots = checks.count("slots", slots, minimum=1)
        if slots > MAX_SLOTS:
            raise UsageError(f"slots must be at most {MAX_SLOTS}, got {slots}")
        self.coding = coding_scheme(coding).name
        if not blocks:
            raise UsageError("a slot trace must have at least one block")
        self.blocks = [tuple(b) for b in blocks]
        for i, block in enumerate(self.blocks):
            if any(not 0 <= s < slots for s in block) or list(block) != sorted(set(block)):
                raise UsageError(
                    f"block {i}: slots must be distinct, increasing and below {slots}"
                )
        self._counts = [len(b) for b in self.blocks]

    def __len__(self) -> int:
        return len(self.blocks)

    def rotated(self, start: int) -> SlotTrace:
        """The same trace read from block ``start`` on (and looping to it)."""
        k = start % len(self.blocks)
        return SlotTrace(self.blocks[k:] + self.blocks[:k], slots=self.slots, coding=self.coding)

    def counts(self, n: int) -> list[int]:
        whole, part = divmod(n, len(self._counts))
        return self._counts * whole + self._counts[:part]

    @property
    def slot_error(self) -> float:
        """The fraction of the trace's slots that are corrupted."""
        return sum(self._counts) / (len(self._counts) * self.slots)

    def block_error(self, redundant: int) -> float:
        """The fraction of blocks FEC with ``redundant`` slots cannot recover."""
        return sum(not recovered(c, redundant) for c in self._counts) / len(self._counts)

    def save(self, path: str | Path) -> Path:
        """Write the trace as text (see ``load_slot_trace``)."""
        lines = [TRACE_MAGIC, f"# slots {self.slots}", f"# coding {self.coding}"]
        lines += [" ".join(map(str, b)) if b else "-" for b in self.blocks]
        path = Path(path)
        path.write_text("\n".join(lines) + "\n", encoding="ascii")
        return path


def load_slot_trace(path: str | Path) -> SlotTrace:
    """Read a slot trace: ``# slots N`` and ``# coding CS-k`` header lines (defaults 100
    and CS-2; other ``#`` lines are comments), then one line per RLC block holding its
    corrupted slot numbers separated by spaces, or ``-`` for a clean block."""
    name = str(path)
    settings = {"slots": str(SLOTS_PER_BLOCK), "coding": DEFAULT_CODING}
    rows: list[tuple[int, str]] = []
    for number, line in enumerate(checks.read_trace(path, "slot trace").splitlines(), 1):
        words = line.split()
        if not words:
            continue
        if words[0] == "#":
            if len(words) == 3 and words[1] in settings:
                settings[words[1]] = words[2]
            continue
        rows.append((number, line))
    if not settings["slots"].isdigit() or len(settings["slots"]) > 6:
        raise UsageError(f"slot trace {name!r}: slots must be an integer up to {MAX_SLOTS}")
    slots = int(settings["slots"])
    blocks: list[list[int]] = []
    for number, line in rows:
        if line.strip() == "-":
            blocks.append([])
            continue
        words = line.split()
        if len(words) > slots or not all(w.isdigit() and len(w) <= 6 for w in words):
            raise UsageError(f"slot trace {name!r} line {number}: expected slot numbers or -")
        blocks.append([int(w) for w in words])
    try:
        return SlotTrace(blocks, slots=slots, coding=settings["coding"])
    except UsageError as exc:
        raise UsageError(f"slot trace {name!r}: {exc}") from None


class GilbertChannel:
    """Slot errors from a Gilbert chain: a good state without errors, a bad state where
    every slot is corrupted.

    Parametrized by the long-run ``slot_error`` and the mean length of a bad run,
    ``mean_burst``: the chain leaves bad with ``r = 1 / mean_burst`` per slot and
    enters it with ``p = r * slot_error / (1 - slot_error)``. It starts in its
    stationary distribution (so every prefix is unbiased), and is drawn run by run
    (geometric run lengths) lazily, block by block, so the same seed always gives the
    same channel however far it is read.
    """

    def __init__(
        self,
        slot_error: float,
        rng: random.Random,
        *,
        mean_burst: float = MEAN_BURST_SLOTS,
        slots: int = SLOTS_PER_BLOCK,
        coding: str = DEFAULT_CODING,
    ) -> None:
        self.slot_error = checks.probability("slot_error", slot_error)
        if self.slot_error == 1.0:
            raise UsageError("slot_error must be below 1")
        self.mean_burst = checks.positive("mean_burst", mean_burst)
        self.slots = checks.count("slots", slots, minimum=1)
        self.coding = coding_scheme(coding).name  # what the slots carry: labels the trace
        self.r = 1 / self.mean_burst
        self.p = self.r * self.slot_error / (1 - self.slot_error)
        if self.r > 1 or self.p > 1:
            raise UsageError(
                f"mean_burst {mean_burst!r} is too short for slot_error {slot_error!r}"
            )
        self._rng = rng
        self._bad = rng.random() < self.slot_error
        self._position = 0  # the first slot not yet drawn
        self._left = 0  # slots left in the current run (0: draw a new one)
        self._blocks: list[list[int]] = []

    @classmethod
    def independent(
        cls,
        slot_error: float,
        rng: random.Random,
        *,
        slots: int = SLOTS_PER_BLOCK,
        coding: str = DEFAULT_CODING,
    ) -> GilbertChannel:
        """Independent slot errors: the chain with ``p + r = 1``."""
        return cls(slot_error, rng, mean_burst=1 / (1 - slot_error), slots=slots, coding=coding)

    def _run(self, leave: float) -> int:
        """A geometric run length (>= 1) of a state left with probability ``leave``."""
        if leave >= 1:
            return 1
        if leave <= 0:  # an error-free channel never leaves the good state
            return 1 << 62
        return 1 + int(math.log(1.0 - self._rng.random()) / math.log(1.0 - leave))

    def _extend(self, block: int) -> None:
        """Draw the chain up to the end of block ``block``."""
        target = (block + 1) * self.slots
        while len(self._blocks) <= block:
            self._blocks.append([])
        while self._position < target:
            if self._left == 0:
                self._left = self._run(self.r if self._bad else self.p)
            step = min(self._left, target - self._position)
            if self._bad:
                for s in range(self._position, self._position + step):
                    self._blocks[s // self.slots].append(s % self.slots)
            self._position += step
            self._left -= step
            if self._left == 0:
                self._bad = not self._bad

    def counts(self, n: int) -> list[int]:
        if n * self.slots > self._position:
            self._extend(n - 1)
        return [len(b) for b in self._blocks[:n]]

    def trace(self, blocks: int) -> SlotTrace:
        """The channel's first ``blocks`` blocks as a trace (to save or replay)."""
        checks.count("blocks", blocks, minimum=1)
        self._extend(blocks - 1)
        return SlotTrace(self._blocks[:blocks], slots=self.slots, coding=self.coding)

    def __repr__(self) -> str:
        return (
            f"GilbertChannel(slot_error={self.slot_error}, mean_burst={self.mean_burst}, "
            f"slots={self.slots}, coding={self.coding!r})"
        )


@dataclass(frozen=True)
class Download:
    """How an RLC acknowledged-mode transfer went, in transmission opportunities."""

    complete: bool
    opportunities: int  # until the receiver held every block (or the limit)
    transmissions: int  # blocks sent, resends included
    resent: int  # blocks that needed at least one resend
    max_resend_delay: int  # opportunities from a block's first sending to its delivery,
    # beyond the one it takes, for the worst block (0 without resends)


def rlc_download(
    channel: BlockSource,
    blocks: int,
    redundant: int,
    *,
    feedback: int,
    window: int = WINDOW_SIZE,
    limit: int,
) -> Download:
    """Send ``blocks`` RLC data blocks with ``redundant`` FEC slots each in acknowledged
    mode (3GPP TS 44.060 9.1) over ``channel``.

    The sender learns whether the block it sent in opportunity ``i`` was recovered at
    opportunity ``i + 1 + feedback`` (the block's own time, then the ARQ round trip),
    resends negatively acknowledged blocks first (TS 44.060 9.1.3.2: blocks marked
    NACKED before new ones) and sends a new block only inside the window
    ``V(A) <= BSN < V(A) + WS``; otherwise the opportunity is idle. Gives up after
    ``limit`` opportunities.
    """
    checks.count("blocks", blocks, minimum=1)
    checks.count("window", window, minimum=1)
    horizon = min(limit, 2 * blocks)  # read the channel as far as needed, doubling
    counts = channel.counts(horizon)
    acked = bytearray(blocks)
    first_sent = [0] * blocks
    nacked: deque[int] = deque()
    pending: deque[tuple[int, int, bool]] = deque()  # (due, bsn, recovered)
    va = next_new = received = transmissions = resent = worst = 0
    for i in range(limit):
        if i == horizon:
            horizon = min(limit, 2 * horizon)
            counts = channel.counts(horizon)
        while pending and pending[0][0] <= i:
            _, bsn, ok = pending.popleft()
            if ok:
                acked[bsn] = 1
                while va < blocks and acked[va]:
                    va += 1
            else:
                nacked.append(bsn)
        if nacked:
            bsn = nacked.popleft()
        elif next_new < blocks and next_new < va + window:
            bsn = next_new
            next_new += 1
            first_sent[bsn] = i
        else:
            continue
        transmissions += 1
        ok = counts[i] <= redundant  # recovered(), inlined in the hot loop
        if ok:  # a block is only resent after it failed: each success is a new one
            received += 1
            delay = i - first_sent[bsn]
            if delay:
                resent += 1
                worst = max(worst, delay)
            if received == blocks:
                return Download(True, i + 1, transmissions, resent, worst)
        pending.append((i + 1 + feedback, bsn, ok))
    return Download(False, limit, transmissions, resent, worst)


def stream_loss(channel: BlockSource, blocks: int, redundant: int) -> int:
    """Blocks lost in unacknowledged mode when every one of the first ``blocks``
    opportunities carries data (full link utilization)."""
    return sum(not recovered(c, redundant) for c in channel.counts(blocks))
