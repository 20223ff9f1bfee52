"""What the HTTP client and origin tell their users."""

from dataclasses import dataclass

from wwanlab.core.events import Event


@dataclass(frozen=True, slots=True)
class WebEvent(Event):
    """Base of every web event."""


@dataclass(frozen=True, slots=True)
class ResponseReceived(WebEvent):
    """A complete response for ``target``; ``at`` is when its last byte arrived."""

    target: str
    status: int
    body: bytes
    at: float
    port: int  # the client's local port: which connection carried it
    host: str = ""  # the Host the request named
    headers: tuple[tuple[str, str], ...] = ()  # the response's header fields


@dataclass(frozen=True, slots=True)
class ConnectionStarted(WebEvent):
    """The client sent the SYN of a new connection from local ``port``."""

    port: int
    at: float


@dataclass(frozen=True, slots=True)
class ConnectionReady(WebEvent):
    """The three-way handshake of the connection on ``port`` completed."""

    port: int
    at: float


@dataclass(frozen=True, slots=True)
class ConnectionEnded(WebEvent):
    """The connection on ``port`` will carry no more responses (closed, reset, aborted)."""

    port: int
    at: float


@dataclass(frozen=True, slots=True)
class RequestWritten(WebEvent):
    """The request for ``target`` was handed to the connection on ``port``."""

    host: str
    target: str
    port: int
    at: float


@dataclass(frozen=True, slots=True)
class PageLoaded(WebEvent):
    """The main document and all its embedded objects have arrived."""

    main: str
    started: float
    at: float
    body_bytes: int


@dataclass(frozen=True, slots=True)
class RequestFailed(WebEvent):
    """The connection carrying ``target`` was reset or aborted before the response."""

    target: str
    reason: str
    host: str = ""  # the Host the request named


@dataclass(frozen=True, slots=True)
class RequestServed(WebEvent):
    """The origin queued a response of ``size`` body bytes for ``target``."""

    conn_id: int
    target: str
    status: int
    size: int
