"""An in-memory harness that connects two sans-IO endpoints on virtual time.

In the style of aioquic's tests: no sockets, no clock. Each direction has a one-way
latency, an optional serialization rate, an MTU above which datagrams are dropped,
an optional uniform extra delay per datagram (``jitter``, which reorders them), seeded
Bernoulli loss and a scripted ``drop`` hook for losing exact datagrams. Every
datagram that crossed, or was dropped, is kept in ``log`` for assertions.
"""

import heapq
import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from wwanlab.core.address import Address
from wwanlab.core.contract import Endpoint
from wwanlab.core.events import Event

Side = Literal["client", "server"]
CLIENT_ADDR: Address = ("10.0.0.1", 49152)
SERVER_ADDR: Address = ("10.0.0.2", 9201)

DropHook = Callable[[Side, int, bytes], bool]
"""(sending side, index of the datagram that side sent, its bytes) -> drop it?"""


@dataclass(slots=True)
class Sent:
    """One datagram as the harness saw it."""

    side: Side
    index: int
    sent_at: float
    data: bytes
    delivered_at: float | None  # None when dropped
    reason: str = ""


@dataclass
class Pair:
    client: Endpoint
    server: Endpoint
    latency: float = 0.0
    rate_bps: float | None = None
    mtu: int | None = None
    loss: float = 0.0
    jitter: float = 0.0  # s: each datagram is held a further uniform [0, jitter)
    drop: DropHook | None = None
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    client_addr: Address = CLIENT_ADDR
    server_addr: Address = SERVER_ADDR
    now: float = 0.0
    log: list[Sent] = field(default_factory=list)
    client_events: list[Event] = field(default_factory=list)
    server_events: list[Event] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._arrivals: list[tuple[float, int, Side, bytes]] = []
        self._order = itertools.count()
        self._sent_count: dict[Side, int] = {"client": 0, "server": 0}
        self._busy_until: dict[Side, float] = {"client": 0.0, "server": 0.0}

    def endpoint(self, side: Side) -> Endpoint:
        return self.client if side == "client" else self.server

    def flush(self) -> None:
        """Drain both endpoints' events and datagrams at the current time."""
        for side in ("client", "server"):
            self._drain(side)

    def _drain(self, side: Side) -> None:
        ep = self.endpoint(side)
        events = self.client_events if side == "client" else self.server_events
        while (event := ep.next_event()) is not None:
            events.append(event)
        for data, _addr in ep.datagrams_to_send(self.now):
            self._transmit(side, data)

    def _transmit(self, side: Side, data: bytes) -> None:
        index = self._sent_count[side]
        self._sent_count[side] += 1
        record = Sent(side, index, self.now, data, None)
        self.log.append(record)
        if self.mtu is not None and len(data) > self.mtu:
            record.reason = "mtu"
            return
        if self.drop is not None and self.drop(side, index, data):
            record.reason = "scripted"
            return
        if self.loss and self.rng.random() < self.loss:
            record.reason = "loss"
            return
        start = max(self.now, self._busy_until[side])
        if self.rate_bps:
            start += len(data) * 8 / self.rate_bps
            self._busy_until[side] = start
        record.delivered_at = start + self.latency
        if self.jitter:
            record.delivered_at += self.rng.uniform(0.0, self.jitter)
        heapq.heappush(self._arrivals, (record.delivered_at, next(self._order), side, data))

    def _next_time(self) -> float | None:
        times = [t for t in (self.client.get_timer(), self.server.get_timer()) if t is not None]
        if self._arrivals:
            times.append(self._arrivals[0][0])
        return min(times) if times else None

    def run(self, until: float = float("inf"), max_steps: int = 1_000_000) -> None:
        """Advance virtual time until nothing is pending or ``until`` is reached."""
        self.flush()
        for _ in range(max_steps):
            t = self._next_time()
            if t is None or t > until:
                self.now = until if t is not None else self.now
                return
            self.now = max(self.now, t)
            if self._arrivals and self._arrivals[0][0] <= self.now:
                _, _, sender, data = heapq.heappop(self._arrivals)
                receiver: Side = "server" if sender == "client" else "client"
                src = self.client_addr if sender == "client" else self.server_addr
                self.endpoint(receiver).receive_datagram(data, src, self.now)
                self._drain(receiver)
                continue
            for side in ("client", "server"):
                timer = self.endpoint(side).get_timer()
                if timer is not None and timer <= self.now:
                    self.endpoint(side).handle_timer(self.now)
                    self._drain(side)
        raise RuntimeError(f"Pair.run did not settle within {max_steps} steps")

    def sent(self, side: Side) -> list[Sent]:
        return [s for s in self.log if s.side == side]
