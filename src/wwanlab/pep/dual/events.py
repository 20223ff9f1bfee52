"""What the dual proxy's two sides tell their users besides the fetcher's own events
(``web.fetcher.ObjectArrived`` and ``FetchFailed``)."""

from dataclasses import dataclass

from wwanlab.core.events import Event


@dataclass(frozen=True, slots=True)
class DualEvent(Event):
    """Base of every dual-proxy event."""


@dataclass(frozen=True, slots=True)
class MessageRefused(DualEvent):
    """A message that is malformed, or well formed but not possible now, was dropped."""

    reason: str
    at: float


@dataclass(frozen=True, slots=True)
class BodyRejected(DualEvent):
    """A body did not decode to its CHK (bad delta, missing base, corrupt deflate); the
    client asks for the whole object again."""

    url: str
    reason: str
    at: float
