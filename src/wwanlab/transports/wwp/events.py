"""What a WWP endpoint tells its user."""

from dataclasses import dataclass

from wwanlab.core.address import Address
from wwanlab.core.events import Event


@dataclass(frozen=True, slots=True)
class WwpEvent(Event):
    """Base of every WWP event."""


@dataclass(frozen=True, slots=True)
class Connected(WwpEvent):
    peer: Address
    level: int  # the first wave's level, from CONN_ACK


@dataclass(frozen=True, slots=True)
class DataReceived(WwpEvent):
    """In-order octets, each delivered exactly once."""

    data: bytes


@dataclass(frozen=True, slots=True)
class StreamEnded(WwpEvent):
    """The receiver has every segment up to the LAST one and has delivered them."""

    size: int


@dataclass(frozen=True, slots=True)
class LevelSet(WwpEvent):
    """The sender took a new wave level from an N-S_ACK (``probed``: ending a probe cycle)."""

    wave: int
    level: int
    probed: bool


@dataclass(frozen=True, slots=True)
class Finished(WwpEvent):
    """The sender's whole stream is acknowledged and the FIN answered."""


@dataclass(frozen=True, slots=True)
class Failed(WwpEvent):
    """The sender gave up: ``max_retries`` timer expiries in a row went unanswered, or
    ``setup_retries`` CONNs (``setup``: no receiver ever answered)."""

    reason: str
    setup: bool = False
