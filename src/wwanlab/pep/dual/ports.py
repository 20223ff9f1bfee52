"""The two sides as port endpoints (``web.fetcher.PortEndpoint``), so a host binds the
channel's port and, on the server side, the origin fetcher's ports beside it.

``ClientPorts`` is a ``Fetcher``: the browser downloads through the dual proxy as it
would through a ``DirectFetcher``. ``ServerPorts`` routes each arrival to the channel or
to the origin fetcher and hands the origin's answers to the ``ServerProxy``.
"""

from wwanlab.core.address import Address
from wwanlab.core.events import Event
from wwanlab.pep.dual.client import ClientProxy
from wwanlab.pep.dual.server import ServerProxy
from wwanlab.web.fetcher import PROTO_TCP, ConnectionOpened, Datagram, PortEndpoint


class ClientPorts:
    """The client side bound at ``(protocol, port)``. Over TCP the channel is one
    connection of the timeline (``ConnectionOpened`` to ``server`` with the first fetch:
    the SYN leaves with the first message); UDP-GPRS has no connection to show."""

    def __init__(self, proxy: ClientProxy, protocol: int, port: int, server: str) -> None:
        self.proxy = proxy
        self.protocol = protocol
        self.port = port
        self.server = server
        self._opened = False
        proxy.connection = port

    def ports(self) -> list[tuple[int, range]]:
        return [(self.protocol, range(self.port, self.port + 1))]

    def fetch(self, url: str, now: float) -> None:
        if not self._opened and self.protocol == PROTO_TCP:
            self._opened = True
            self.proxy.defer(ConnectionOpened(self.port, self.server, now))
        self.proxy.fetch(url, now)

    def receive(self, protocol: int, port: int, data: bytes, addr: Address, now: float) -> None:
        self.proxy.receive_datagram(data, addr, now)

    def handle_timer(self, now: float) -> None:
        self.proxy.handle_timer(now)

    def get_timer(self) -> float | None:
        return self.proxy.get_timer()

    def datagrams_to_send(self, now: float) -> list[Datagram]:
        return [
            Datagram(self.protocol, self.port, data, addr)
            for data, addr in self.proxy.datagrams_to_send(now)
        ]

    def next_event(self) -> Event | None:
        return self.proxy.next_event()


class ServerPorts:
    """The server side: its channel at ``(protocol, port)``, ``origin`` on its own."""

    def __init__(self, proxy: ServerProxy, origin: PortEndpoint, protocol: int, port: int) -> None:
        self.proxy = proxy
        self.origin = origin
        self.protocol = protocol
        self.port = port

    def ports(self) -> list[tuple[int, range]]:
        return [(self.protocol, range(self.port, self.port + 1)), *self.origin.ports()]

    def receive(self, protocol: int, port: int, data: bytes, addr: Address, now: float) -> None:
        if (protocol, port) == (self.protocol, self.port):
            self.proxy.receive_datagram(data, addr, now)
        else:
            self.origin.receive(protocol, port, data, addr, now)

    def handle_timer(self, now: float) -> None:
        for side in (self.proxy, self.origin):
            due = side.get_timer()
            if due is not None and due <= now:
                side.handle_timer(now)

    def get_timer(self) -> float | None:
        timers = (self.proxy.get_timer(), self.origin.get_timer())
        return min((t for t in timers if t is not None), default=None)

    def datagrams_to_send(self, now: float) -> list[Datagram]:
        channel = self.proxy.datagrams_to_send(now)  # takes the origin's answers first
        out = self.origin.datagrams_to_send(now)
        out += [Datagram(self.protocol, self.port, data, addr) for data, addr in channel]
        return out

    def next_event(self) -> Event | None:
        return self.proxy.next_event()
