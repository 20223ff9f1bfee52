"""Sorted, disjoint sequence ranges: the sender's SACK scoreboard (RFC 6675 3) and the
receiver's out-of-order queue with the SACK blocks it reports (RFC 2018 4).

Sequence numbers here are unwrapped integers, so plain comparisons are correct.
"""

from bisect import bisect_left


class Scoreboard:
    """SACKed ranges above the cumulative ACK point, as [start, end) pairs."""

    __slots__ = ("blocks",)

    def __init__(self) -> None:
        self.blocks: list[list[int]] = []

    def add(self, start: int, end: int) -> int:
        """Merge one SACK block; return how many octets were newly SACKed."""
        if end <= start:
            return 0
        blocks = self.blocks
        i = bisect_left(blocks, [start, start])
        if i > 0 and blocks[i - 1][1] >= start:
            i -= 1
        j = i
        covered = 0
        new_start, new_end = start, end
        while j < len(blocks) and blocks[j][0] <= end:
            b0, b1 = blocks[j]
            covered += min(b1, end) - max(b0, start) if min(b1, end) > max(b0, start) else 0
            new_start = min(new_start, b0)
            new_end = max(new_end, b1)
            j += 1
        blocks[i:j] = [[new_start, new_end]]
        return (end - start) - covered

    def advance(self, una: int) -> None:
        """Forget everything below the cumulative ACK ``una``."""
        blocks = self.blocks
        while blocks and blocks[0][1] <= una:
            del blocks[0]
        if blocks and blocks[0][0] < una:
            blocks[0][0] = una

    def clear(self) -> None:
        self.blocks.clear()

    def sacked_end(self, seq: int) -> int:
        """The end of the block containing ``seq``, or ``seq`` when it is not SACKed."""
        for b0, b1 in self.blocks:
            if b0 <= seq < b1:
                return b1
            if b0 > seq:
                break
        return seq

    def next_start(self, seq: int) -> int | None:
        """The start of the first block above ``seq``, or None."""
        for b0, _b1 in self.blocks:
            if b0 > seq:
                return b0
        return None

    def highest(self) -> int:
        """The end of the highest SACKed range (0 when empty)."""
        return self.blocks[-1][1] if self.blocks else 0


class ReorderQueue:
    """Out-of-order data held by the receiver, and the SACK blocks to report.

    RFC 2018 4: the first block names the range holding the segment that triggered the
    ACK; the rest repeat the most recently reported ranges, newest first.
    """

    __slots__ = ("_recent", "_segments")

    def __init__(self) -> None:
        self._segments: dict[int, bytes] = {}  # start -> data, non-overlapping
        self._recent: list[int] = []  # a start seq inside each recently reported range

    def __len__(self) -> int:
        return len(self._segments)

    def insert(self, seq: int, data: bytes) -> None:
        """Hold ``data`` at ``seq`` (above rcv_nxt), dropping octets already held."""
        segs = self._segments
        end = seq + len(data)
        for s in sorted(segs):
            e = s + len(segs[s])
            if e <= seq or s >= end:
                continue
            if s <= seq and e >= end:
                data = b""
                break
            if s <= seq:  # overlap at our front
                data = data[e - seq :]
                seq = e
            elif e >= end:  # overlap at our back
                data = data[: s - seq]
                end = s
            else:  # we cover it completely
                del segs[s]
        if data:
            segs[seq] = data
            end = seq + len(data)
        self._recent = [seq, *(r for r in self._recent if r != seq)]

    def pop_in_order(self, rcv_nxt: int) -> bytes:
        """Remove and return the data now contiguous with ``rcv_nxt``."""
        out = []
        segs = self._segments
        while rcv_nxt in segs:
            chunk = segs.pop(rcv_nxt)
            out.append(chunk)
            rcv_nxt += len(chunk)
        for s in [s for s in segs if s < rcv_nxt]:  # fully duplicate leftovers
            chunk = segs.pop(s)
            if s + len(chunk) > rcv_nxt:
                segs[rcv_nxt] = chunk[rcv_nxt - s :]
                return b"".join(out) + self.pop_in_order(rcv_nxt)
        return b"".join(out)

    def ranges(self) -> list[tuple[int, int]]:
        """Contiguous held ranges, ascending."""
        out: list[list[int]] = []
        for s in sorted(self._segments):
            e = s + len(self._segments[s])
            if out and out[-1][1] == s:
                out[-1][1] = e
            else:
                out.append([s, e])
        return [(a, b) for a, b in out]

    def sack_blocks(self, limit: int) -> list[tuple[int, int]]:
        """Up to ``limit`` blocks ordered as RFC 2018 4 asks."""
        ranges = self.ranges()
        blocks: list[tuple[int, int]] = []
        recent = []
        for r in self._recent:
            for a, b in ranges:
                if a <= r < b:
                    if (a, b) not in blocks:
                        blocks.append((a, b))
                        recent.append(r)
                    break
        self._recent = recent
        return blocks[:limit]
