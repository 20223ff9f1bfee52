"""A drop-tail queue in front of a server (``Rate``, ``ServiceTime``, ``TraceRate``).

The queue wraps the server it feeds rather than sitting before it as a separate stage:
to know its backlog when a packet arrives it must know when each packet it admitted
leaves the server, and only the server can say. It remembers the departure time and
size of every admitted packet; at an arrival, those that have left are forgotten and
the rest are the backlog. The limits count every packet admitted and not yet fully
sent, the one on the line included (as a store-and-forward buffer holds a packet until
its last bit is out); ``bytes`` counts IP octets, not framing.
"""

import random
from collections import deque

from wwanlab.core.errors import UsageError
from wwanlab.link import checks
from wwanlab.link.base import Drop, Stage, Verdict


class DropTailQueue:
    """Admit a packet when the backlog stays within ``packets`` and ``bytes``, else drop it."""

    def __init__(
        self, server: Stage, *, packets: int | None = None, bytes: int | None = None
    ) -> None:
        if packets is None and bytes is None:
            raise UsageError("a drop-tail queue needs a limit in packets or bytes")
        self.server = server
        self.packets = None if packets is None else checks.count("packets", packets, minimum=1)
        self.bytes = None if bytes is None else checks.count("bytes", bytes, minimum=1)
        self._backlog: deque[tuple[float, int]] = deque()  # (departure, size), in order
        self._backlog_bytes = 0

    def backlog(self, t: float) -> tuple[int, int]:
        """Packets and bytes admitted and not yet departed at ``t``."""
        while self._backlog and self._backlog[0][0] <= t:
            self._backlog_bytes -= self._backlog.popleft()[1]
        return len(self._backlog), self._backlog_bytes

    def process(self, size: int, t: float, rng: random.Random) -> Verdict:
        backlog = self._backlog  # backlog(t), inline: this runs for every packet
        while backlog and backlog[0][0] <= t:
            self._backlog_bytes -= backlog.popleft()[1]
        limit = self.packets
        if limit is not None and len(backlog) + 1 > limit:
            return Drop("queue")
        limit = self.bytes
        if limit is not None and self._backlog_bytes + size > limit:
            return Drop("queue")
        verdict = self.server.process(size, t, rng)
        if type(verdict) is float or not isinstance(verdict, Drop):
            backlog.append((verdict, size))
            self._backlog_bytes += size
        return verdict

    def __repr__(self) -> str:
        return f"DropTailQueue({self.server!r}, packets={self.packets}, bytes={self.bytes})"
