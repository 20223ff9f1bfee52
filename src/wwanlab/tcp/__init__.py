"""Sans-IO TCP for the simulator: Reno, NewReno and SACK (RFC 9293, 5681, 6582, 6675)."""

from wwanlab.tcp.config import InitialWindow, TcpConfig, Variant
from wwanlab.tcp.endpoint import TcpEndpoint
from wwanlab.tcp.errors import ConnectionNotOpen, InvalidTransition, MalformedSegment, TcpError
from wwanlab.tcp.events import (
    ConnectionAborted,
    ConnectionClosed,
    ConnectionEstablished,
    ConnectionReset,
    DataReceived,
    PeerClosed,
    TcpEvent,
)
from wwanlab.tcp.state import State
from wwanlab.tcp.stats import CwndSample, TcpStats

__all__ = [
    "ConnectionAborted",
    "ConnectionClosed",
    "ConnectionEstablished",
    "ConnectionNotOpen",
    "ConnectionReset",
    "CwndSample",
    "DataReceived",
    "InitialWindow",
    "InvalidTransition",
    "MalformedSegment",
    "PeerClosed",
    "State",
    "TcpConfig",
    "TcpEndpoint",
    "TcpError",
    "TcpEvent",
    "TcpStats",
    "Variant",
]
