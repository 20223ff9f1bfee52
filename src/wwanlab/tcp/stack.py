"""A host's TCP: many local ports behind one sans-IO endpoint.

``TcpEndpoint`` serves one local port. Clients that open several connections to the
same server (HTTP/1.0, N parallel connections) need one local port each, as a real
host picks ephemeral ports; ``TcpStack`` owns those endpoints and routes arriving
segments by their destination port (octets 2-3, RFC 9293 3.1). A driver binds the
stack to every port in ``ports``.
"""

import random

from wwanlab.core.address import Address
from wwanlab.core.events import Event
from wwanlab.tcp.config import TcpConfig
from wwanlab.tcp.endpoint import TcpEndpoint
from wwanlab.tcp.errors import ConnectionNotOpen
from wwanlab.tcp.events import TcpEvent
from wwanlab.tcp.stats import Recorder

EPHEMERAL_FIRST = 49152  # RFC 6335 6: the dynamic/private port range
EPHEMERAL_LAST = 65535

Handle = tuple[int, int]
"""A connection in a stack: (local port, connection id on that port's endpoint)."""


class TcpStack:
    """Client-side TCP for one IP address; ``open`` picks a fresh local port."""

    def __init__(
        self,
        local_ip: str,
        config: TcpConfig,
        rng: random.Random,
        first_port: int = EPHEMERAL_FIRST,
        max_ports: int = 64,
        recorder: Recorder | None = None,
    ) -> None:
        if not 0 < first_port <= first_port + max_ports - 1 <= EPHEMERAL_LAST:
            raise ValueError(f"ports {first_port}..+{max_ports} outside 1..65535")
        self.local_ip = local_ip
        self.ports = range(first_port, first_port + max_ports)
        self._config = config
        self._rng = rng
        self._recorder = recorder
        self._endpoints: dict[int, TcpEndpoint] = {}
        self._events: list[tuple[int, TcpEvent]] = []

    def open(self, remote: Address, now: float) -> Handle:
        """Connect from the next unused local port."""
        port = self.ports.start + len(self._endpoints)
        if port not in self.ports:
            raise ConnectionNotOpen(f"all {len(self.ports)} local ports are used")
        endpoint = TcpEndpoint(self.local_ip, port, self._config, self._rng, self._recorder)
        self._endpoints[port] = endpoint
        return port, endpoint.connect(remote, now)

    def endpoint(self, port: int) -> TcpEndpoint:
        return self._endpoints[port]

    def send(self, handle: Handle, data: bytes) -> None:
        self._endpoints[handle[0]].send(handle[1], data)

    def close(self, handle: Handle) -> None:
        self._endpoints[handle[0]].close(handle[1])

    def next_stack_event(self) -> tuple[int, TcpEvent] | None:
        """The oldest event with the local port it happened on."""
        self._collect()
        return self._events.pop(0) if self._events else None

    def _collect(self) -> None:
        for port, endpoint in self._endpoints.items():
            while (event := endpoint.next_event()) is not None:
                if isinstance(event, TcpEvent):
                    self._events.append((port, event))

    # --- the sans-IO contract ---------------------------------------------------------

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        endpoint = self._endpoints.get(int.from_bytes(data[2:4], "big")) if len(data) > 4 else None
        if endpoint is not None:
            endpoint.receive_datagram(data, addr, now)

    def handle_timer(self, now: float) -> None:
        for endpoint in self._endpoints.values():
            timer = endpoint.get_timer()
            if timer is not None and timer <= now:
                endpoint.handle_timer(now)

    def get_timer(self) -> float | None:
        timers = [t for e in self._endpoints.values() if (t := e.get_timer()) is not None]
        return min(timers) if timers else None

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        out: list[tuple[bytes, Address]] = []
        for endpoint in self._endpoints.values():
            out.extend(endpoint.datagrams_to_send(now))
        return out

    def next_event(self) -> Event | None:
        item = self.next_stack_event()
        return None if item is None else item[1]
