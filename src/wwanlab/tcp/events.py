"""What a TCP endpoint tells its user, one frozen dataclass per kind."""

from dataclasses import dataclass

from wwanlab.core.address import Address
from wwanlab.core.events import Event


@dataclass(frozen=True, slots=True)
class TcpEvent(Event):
    """Base of every TCP event; ``conn_id`` names the connection on its endpoint."""

    conn_id: int


@dataclass(frozen=True, slots=True)
class ConnectionEstablished(TcpEvent):
    """The three-way handshake completed (RFC 9293 3.5)."""

    remote: Address


@dataclass(frozen=True, slots=True)
class DataReceived(TcpEvent):
    """In-order bytes delivered to the user (the application consumes them at once)."""

    data: bytes


@dataclass(frozen=True, slots=True)
class PeerClosed(TcpEvent):
    """The peer's FIN arrived in order: no more data will come (RFC 9293 3.6)."""


@dataclass(frozen=True, slots=True)
class ConnectionClosed(TcpEvent):
    """Both FINs are sent and acknowledged (TIME_WAIT or CLOSED reached)."""


@dataclass(frozen=True, slots=True)
class ConnectionReset(TcpEvent):
    """The peer reset the connection (RFC 9293 3.5.3) or refused the SYN."""


@dataclass(frozen=True, slots=True)
class ConnectionAborted(TcpEvent):
    """We gave up: too many retransmissions (RFC 9293 3.8.3 R2) or a user abort."""

    reason: str
