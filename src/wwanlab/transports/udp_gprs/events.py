"""What a UDP-GPRS endpoint tells its user beyond the channel's own events
(``MessageReceived``, ``ChannelFailed`` in ``wwanlab.transports.channel``)."""

from dataclasses import dataclass

from wwanlab.transports.channel import ChannelEvent


@dataclass(frozen=True, slots=True)
class UdpGprsEvent(ChannelEvent):
    """Base of the events only UDP-GPRS reports."""


@dataclass(frozen=True, slots=True)
class LinkStalled(UdpGprsEvent):
    """Nothing heard from the peer for ``stall_after`` seconds (paper 003 4.3.2: "If such
    a link stall is detected, the client disconnects and re-attaches to the GPRS
    network"); the endpoint keeps probing with keep-alives and holds its data."""

    at: float
    silent_for: float


@dataclass(frozen=True, slots=True)
class LinkResumed(UdpGprsEvent):
    """The peer was heard again after a stall; outstanding data is being repaired."""

    at: float
    stalled_for: float
