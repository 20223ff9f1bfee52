"""A reliable, ordered message channel between two proxies: the seam that lets a
dual-proxy scheme (paper 003 section 2.1, 'explicit proxy mode') run over a TCP
connection or over a custom transport such as UDP-GPRS without knowing which.

Both ends are sans-IO endpoints (``wwanlab.core.contract``) with one more command,
``send_message``, and one more event, ``MessageReceived``: each message sent on one end
arrives whole, once and in order at the other, or the channel reports ``ChannelFailed``.
"""

from dataclasses import dataclass
from typing import Protocol

from wwanlab.core.address import Address
from wwanlab.core.events import Event


@dataclass(frozen=True, slots=True)
class ChannelEvent(Event):
    """Base of the channel's events."""


@dataclass(frozen=True, slots=True)
class MessageReceived(ChannelEvent):
    """One whole message, in the order it was sent."""

    data: bytes
    at: float


@dataclass(frozen=True, slots=True)
class ChannelFailed(ChannelEvent):
    """The channel gave up (peer gone, link dead); messages not yet delivered are lost."""

    reason: str
    at: float


class MessageChannel(Protocol):
    """One end of a message channel."""

    def send_message(self, data: bytes, now: float) -> None:
        """Queue ``data`` as one message to the other end."""

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None: ...

    def handle_timer(self, now: float) -> None: ...

    def get_timer(self) -> float | None: ...

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]: ...

    def next_event(self) -> Event | None: ...


class CarriedChannel:
    """A message channel end with no datagrams or timers of its own: something else
    carries its messages (another protocol's frames, a test), and hands what arrives to
    ``deliver`` or ``fail``. Subclasses write ``send_message``."""

    def __init__(self) -> None:
        self._events: list[Event] = []

    def send_message(self, data: bytes, now: float) -> None:
        raise NotImplementedError

    def deliver(self, data: bytes, now: float) -> None:
        self._events.append(MessageReceived(data, now))

    def fail(self, reason: str, now: float) -> None:
        self._events.append(ChannelFailed(reason, now))

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        pass

    def handle_timer(self, now: float) -> None:
        pass

    def get_timer(self) -> float | None:
        return None

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        return []

    def next_event(self) -> Event | None:
        return self._events.pop(0) if self._events else None
