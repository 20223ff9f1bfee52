"""The send buffer: octets the user queued that the peer has not yet acknowledged.

It keeps the ``bytes`` objects ``send`` was given instead of copying them into one
``bytearray``: a segment's payload is then one slice of one of them, and an
acknowledgment forgets whole pieces. One big buffer costs a copy of everything sent
on the way in, a second copy per segment on the way out (a ``bytearray`` slice, then
``bytes``), and a copy of what is left each time acknowledgments shrink it to half.
Small sends are gathered into one piece, so that a segment seldom spans several.
"""

from collections import deque
from typing import Final

GATHER_BELOW: Final = 1 << 16  # octets: a smaller send joins a growing piece of this size


class SendBuffer:
    """A FIFO of octets: append at the end, read any range, drop from the front."""

    __slots__ = ("_pieces", "_skip", "size")

    def __init__(self) -> None:
        self._pieces: deque[bytes | bytearray] = deque()
        self._skip = 0  # octets of the first piece already dropped
        self.size = 0  # octets held

    def append(self, data: bytes) -> None:
        """Queue ``data`` after what is held (kept as it is when it is large ``bytes``)."""
        size = len(data)
        if not size:
            return
        self.size += size
        pieces = self._pieces
        if size >= GATHER_BELOW:
            pieces.append(data if type(data) is bytes else bytes(data))
            return
        if pieces:
            last = pieces[-1]
            if type(last) is bytearray and len(last) < GATHER_BELOW:
                last += data
                return
        pieces.append(bytearray(data))

    def read(self, start: int, stop: int) -> bytes:
        """The octets ``[start, stop)`` counted from the first one held."""
        offset = start + self._skip
        for piece in self._pieces:
            length = len(piece)
            if offset < length:
                end = offset + stop - start
                if end > length:
                    return self._gather(start + self._skip, stop - start)
                if isinstance(piece, bytes):  # its slice is bytes already: no second copy
                    return piece[offset:end]
                return bytes(piece[offset:end])
            offset -= length
        return b""

    def _gather(self, offset: int, count: int) -> bytes:
        """``count`` octets from ``offset``, counted from the first piece's first octet
        (dropped ones included), across piece boundaries."""
        parts = []
        for piece in self._pieces:
            length = len(piece)
            if offset >= length:
                offset -= length
                continue
            part = piece[offset : offset + count]
            parts.append(part)
            count -= len(part)
            offset = 0
            if count <= 0:
                break
        return b"".join(parts)

    def drop(self, count: int) -> None:
        """Forget the first ``count`` octets (they were acknowledged)."""
        count = min(count, self.size)
        self.size -= count
        skip = self._skip + count
        pieces = self._pieces
        while pieces and skip >= len(pieces[0]):
            skip -= len(pieces.popleft())
        self._skip = skip
