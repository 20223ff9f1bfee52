"""Counters a WWP endpoint keeps; the reproduction and the CLI report them."""

from collections import Counter
from dataclasses import dataclass, field


@dataclass
class WwpStats:
    segments_sent: int = 0  # every datagram, data and control
    bytes_sent: int = 0  # WWP octets (headers included), every datagram
    data_sent: int = 0  # DATA segments, first copies and resends
    data_resent: int = 0
    waves: int = 0
    probe_cycles: int = 0
    pauses: int = 0  # N-S_ACKs that set level 0
    timeouts: int = 0  # SEND_T and PROBE_T expiries
    malformed: int = 0  # undecodable, from a stranger, or out of window: dropped
    repeated: int = 0  # DATA segments already received
    ignored: Counter[str] = field(default_factory=Counter)  # table rows that ignore, by row
