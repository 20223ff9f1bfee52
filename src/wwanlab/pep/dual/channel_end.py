"""What both sides of the dual proxy share: the sans-IO contract, passed to the message
channel each side runs over, with the side's own ``_pump`` after every input."""

from wwanlab.core.address import Address
from wwanlab.core.events import Event
from wwanlab.transports.channel import MessageChannel


class ChannelEnd:
    """A proxy side over ``channel``; subclasses read its events in ``_pump``."""

    channel: MessageChannel
    _events: list[Event]

    def _pump(self, now: float) -> None:
        raise NotImplementedError

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        self.channel.receive_datagram(data, addr, now)
        self._pump(now)

    def handle_timer(self, now: float) -> None:
        self.channel.handle_timer(now)
        self._pump(now)

    def get_timer(self) -> float | None:
        return self.channel.get_timer()

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        self._pump(now)
        return self.channel.datagrams_to_send(now)

    def next_event(self) -> Event | None:
        return self._events.pop(0) if self._events else None
