"""Helpers the WTP and WSP state-machine tests share."""

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from wwanlab.core.address import Address
from wwanlab.core.contract import Endpoint
from wwanlab.core.events import Event

E = TypeVar("E", bound=Endpoint)


class Reactor(Generic[E]):
    """A sans-IO endpoint plus an application that answers each event the moment it is
    drained, so a test's peer behaves like a user sitting on the endpoint."""

    def __init__(self, ep: E, app: Callable[[E, Any, float], None]) -> None:
        self.ep, self.app, self.now = ep, app, 0.0

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        self.now = now
        self.ep.receive_datagram(data, addr, now)

    def handle_timer(self, now: float) -> None:
        self.now = now
        self.ep.handle_timer(now)

    def get_timer(self) -> float | None:
        return self.ep.get_timer()

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        return self.ep.datagrams_to_send(now)

    def next_event(self) -> Event | None:
        event = self.ep.next_event()
        if event is not None:
            self.app(self.ep, event, self.now)
        return event
