"""The sans-IO contract every protocol endpoint in wwanlab follows.

An endpoint is a plain object that never touches a socket, a clock, a thread or the
global random module. Input arrives as calls carrying ``now`` (seconds, float); output
waits in queues until a driver collects it::

    endpoint.receive_datagram(data, addr, now)   # a datagram arrived from addr
    endpoint.handle_timer(now)                   # the time from get_timer() has come
    endpoint.get_timer() -> float | None         # absolute time of the next timer
    endpoint.datagrams_to_send(now) -> [(bytes, Address), ...]
    endpoint.next_event() -> Event | None        # what the user should learn

plus commands (``send_request(...)``, ``close()``...) that only change state and queue
output. Randomness comes from a ``random.Random`` handed in at construction.

Every driver (simulator, asyncio, emulator, the test ``Pair``) has the same shape:
after any input, drain the events, send the datagrams, re-arm the one timer.

Worked example: ``Pinger`` below sends numbered pings and retransmits each after a
timeout until ``Echoer`` answers. The whole protocol is ~40 lines and runs unchanged in
``wwanlab.core.pair.Pair``, on the simulator and on real UDP sockets::

    rng = random.Random(1)
    pair = Pair(Pinger(("10.0.0.2", 7), count=3), Echoer(), latency=0.25)
    pair.client.start(now=0.0)
    pair.run(until=10.0)
    [e.rtt for e in pair.client_events]   # -> [0.5, 0.5, 0.5]
"""

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from wwanlab.core.address import Address
from wwanlab.core.events import Event


@runtime_checkable
class Endpoint(Protocol):
    """What a driver may call on a sans-IO protocol endpoint."""

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        """Take one datagram that arrived from ``addr`` at ``now``."""

    def handle_timer(self, now: float) -> None:
        """Run whatever was due at or before ``now``."""

    def get_timer(self) -> float | None:
        """The absolute time of the next timer, or None when nothing is armed."""

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        """Queued output, emptied by the call."""

    def next_event(self) -> Event | None:
        """The oldest undelivered event, or None."""


# --- worked example -------------------------------------------------------------------

PING_TIMEOUT = 1.0  # seconds before a ping is sent again


@dataclass(frozen=True, slots=True)
class PongReceived(Event):
    seq: int
    rtt: float


class Pinger:
    """Sends ``count`` pings one at a time; resends a ping whose pong is late."""

    def __init__(self, peer: Address, count: int) -> None:
        self._peer = peer
        self._count = count
        self._seq = 0
        self._sent_at = 0.0
        self._timer: float | None = None
        self._out: list[tuple[bytes, Address]] = []
        self._events: list[Event] = []

    def start(self, now: float) -> None:
        self._send(now)

    def _send(self, now: float) -> None:
        self._sent_at = now
        self._out.append((self._seq.to_bytes(4, "big"), self._peer))
        self._timer = now + PING_TIMEOUT

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        if len(data) != 4 or int.from_bytes(data, "big") != self._seq:
            return  # a late pong for an earlier ping
        self._events.append(PongReceived(self._seq, now - self._sent_at))
        self._seq += 1
        self._timer = None
        if self._seq < self._count:
            self._send(now)

    def handle_timer(self, now: float) -> None:
        if self._timer is not None and now >= self._timer:
            self._send(now)

    def get_timer(self) -> float | None:
        return self._timer

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        out, self._out = self._out, []
        return out

    def next_event(self) -> Event | None:
        return self._events.pop(0) if self._events else None


class Echoer:
    """Answers every datagram with the same bytes."""

    def __init__(self) -> None:
        self._out: list[tuple[bytes, Address]] = []

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        self._out.append((data, addr))

    def handle_timer(self, now: float) -> None:
        pass

    def get_timer(self) -> float | None:
        return None

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        out, self._out = self._out, []
        return out

    def next_event(self) -> Event | None:
        return None
