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


@dataclass(frozen=True, slots=True)
class RequestServed(WebEvent):
    """The origin queued a response of ``size`` body bytes for ``target``."""

    conn_id: int
    target: str
    status: int
    size: int
