"""What WSP clients and servers tell their users: the S-* primitives as frozen events.

Headers are HTTP header lists ``[(name, value), ...]`` (``wsp.headers`` converts), the
content type of a body travelling among them as ``Content-Type``; statuses are HTTP
codes (``wsp.status`` converts). A request is named by the number the command
returned (client) or by ``handle`` (server), which ``reply`` takes back.
"""

from dataclasses import dataclass

from wwanlab.core.address import Address
from wwanlab.core.events import Event
from wwanlab.wap.wsp.capabilities import Capability

Headers = tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class WspEvent(Event):
    """Base of every WSP event."""


@dataclass(frozen=True, slots=True)
class Negotiated:
    """The capabilities a session runs with (WSP 8.3.2; defaults of 8.3.2 when unsaid)."""

    client_sdu_size: int = 1400  # 0: no limit
    server_sdu_size: int = 1400
    protocol_options: int = 0
    method_mor: int = 1
    push_mor: int = 1


# --- client side --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Connected(WspEvent):
    """S-Connect.cnf: the server accepted the session."""

    session_id: int
    capabilities: Negotiated
    headers: Headers


@dataclass(frozen=True, slots=True)
class Disconnected(WspEvent):
    """S-Disconnect.ind: the session is gone; ``reason`` is a WSP abort reason."""

    reason: int


@dataclass(frozen=True, slots=True)
class Suspended(WspEvent):
    """S-Suspend.ind: the session is suspended (by us, or because resuming failed)."""

    reason: int


@dataclass(frozen=True, slots=True)
class Resumed(WspEvent):
    """S-Resume.cnf: the suspended session runs again."""


@dataclass(frozen=True, slots=True)
class MethodResult(WspEvent):
    """S-MethodResult.ind: the reply to request ``request``."""

    request: int
    status: int
    headers: Headers
    body: bytes


@dataclass(frozen=True, slots=True)
class MethodAborted(WspEvent):
    """S-MethodAbort.ind: request ``request`` (client) or ``handle`` (server) ended
    without a reply; ``reason`` is a WSP abort reason or a WTP provider reason."""

    request: int
    reason: int


@dataclass(frozen=True, slots=True)
class RequestTimedOut(WspEvent):
    """Connectionless only: no Reply within the client's timeout."""

    request: int


# --- server side --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SessionConnected(WspEvent):
    """S-Connect.ind (accepted): a client opened session ``session``."""

    session: int
    peer: Address
    headers: Headers
    proposed: tuple[Capability, ...]
    capabilities: Negotiated


@dataclass(frozen=True, slots=True)
class SessionDisconnected(WspEvent):
    session: int
    reason: int


@dataclass(frozen=True, slots=True)
class SessionSuspended(WspEvent):
    session: int
    reason: int


@dataclass(frozen=True, slots=True)
class SessionResumed(WspEvent):
    """S-Resume.ind: the session continues, perhaps from a new address."""

    session: int
    peer: Address


@dataclass(frozen=True, slots=True)
class MethodInvoke(WspEvent):
    """S-MethodInvoke.ind / S-Unit-MethodInvoke.ind: answer with ``reply(handle, ...)``.

    ``session`` is None for connectionless WSP.
    """

    handle: int
    session: int | None
    peer: Address
    method: str
    uri: str
    headers: Headers
    body: bytes


@dataclass(frozen=True, slots=True)
class RequestRefused(WspEvent):
    """A Connect or method turned away: a WTP user abort (connection-oriented) or an
    error Reply (connectionless) carried ``reason``, a WSP abort reason (Table 35)."""

    peer: Address
    reason: int
    detail: str


@dataclass(frozen=True, slots=True)
class DatagramDropped(WspEvent):
    """Connectionless only: a datagram that was not a request this server can read
    (WSP 6.4 gives a server no way to answer it)."""

    peer: Address
    detail: str
    data: bytes = b""  # the datagram as it came: the evidence of whose bytes were wrong


@dataclass(frozen=True, slots=True)
class ReplyConfirmed(WspEvent):
    """S-MethodResult.cnf: the client acknowledged the reply to ``handle``."""

    handle: int
