"""Wave & Wait Protocol (paper 004): a sans-IO sender and receiver.

The sender sends fixed-size segments in waves of W(i) = 12 i at levels 0-3; the
receiver times each wave against a baseline throughput and sets the next level in the
N-S_ACK that also names the missing segments; when an N-S_ACK is late (SEND_T) or the
level is 0, the sender probes (PROBE1/PR1_ACK/PROBE2/PR2_ACK/PROBE3) and the receiver
sets the level from the two RTTs. Wire format and every choice the paper leaves open:
docs/wwp.md.
"""

from wwanlab.transports.wwp.config import WwpConfig
from wwanlab.transports.wwp.events import (
    Connected,
    DataReceived,
    Failed,
    Finished,
    LevelSet,
    StreamEnded,
    WwpEvent,
)
from wwanlab.transports.wwp.receiver import ReceiverState, WwpReceiver
from wwanlab.transports.wwp.segment import Kind, Segment, SegmentError, decode
from wwanlab.transports.wwp.sender import SenderState, WwpSender

__all__ = [
    "Connected",
    "DataReceived",
    "Failed",
    "Finished",
    "Kind",
    "LevelSet",
    "ReceiverState",
    "Segment",
    "SegmentError",
    "SenderState",
    "StreamEnded",
    "WwpConfig",
    "WwpEvent",
    "WwpReceiver",
    "WwpSender",
    "decode",
]
