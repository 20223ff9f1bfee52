"""An endpoint that runs on top of another one: HTTP on TCP, a message channel on TCP,
a proxy on a message channel.

The driver talks to the upper endpoint only. Each input passes down to the lower
endpoint, then the upper one reads what the lower one produced (``_pump``); output is
pumped once more before it leaves, so commands given since the last input are sent."""

from wwanlab.core.address import Address
from wwanlab.core.contract import Endpoint
from wwanlab.core.events import Event


class Layer:
    """The sans-IO contract of an endpoint over ``_lower()``; subclasses write ``_pump``."""

    _events: list[Event]

    def _lower(self) -> Endpoint:
        raise NotImplementedError

    def _pump(self, now: float) -> None:
        raise NotImplementedError

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        self._lower().receive_datagram(data, addr, now)
        self._pump(now)

    def handle_timer(self, now: float) -> None:
        self._lower().handle_timer(now)
        self._pump(now)

    def get_timer(self) -> float | None:
        return self._lower().get_timer()

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        self._pump(now)
        return self._lower().datagrams_to_send(now)

    def next_event(self) -> Event | None:
        return self._events.pop(0) if self._events else None
