"""WWP's parameters: the paper's where it gives them, our choices where it is silent.

Paper 004 section 2.2 fixes the payload (1 KB), the waves (W(i) = 12 i at levels 0-3)
and the receiver's level rule; it names BT, SEND_T and PROBE_T but gives no values, and
says the probe cycle's decision rules are "not yet completely standardized". Every
value chosen here is argued in docs/wwp.md and listed in the reproduction's assumptions.
"""

from dataclasses import dataclass

from wwanlab.core.errors import UsageError
from wwanlab.transports.wwp.segment import HEADER, MAX_LEVEL, SEQ_LIMIT

PAYLOAD_SIZE = 1024  # paper 004 2.2: "fixed-sized segment payload was set to 1KByte"
WAVE_UNIT = 12  # paper 004 2.2: W(i) = 12 x i
LEVELS = 3  # paper 004 2.2: "four wave levels, i=0, 1, 2, 3" (0 is the pause)
BASELINE_BPS = 125_000.0  # assumed BT, octets/s: 1 Mbit/s of payload (CLI default)
PROBE_T = 0.25  # assumed: s before a probe, CONN or FIN is sent again
SEND_T_SLACK = 3  # assumed: N-S_ACK due within 3 baseline wave times (the level-0 bound)
RTT_FLOOR = 0.010  # assumed: s; a 10 ms clock tick, as the x-kernel hosts' (HZ=100)
CLEAR_RTT = 2.0  # assumed: probe RTTs within 2 x the base RTT are clear
LOADED_RTT = 4.0  # assumed: within 4 x the base RTT, loaded; beyond it, pause
MAX_RETRIES = 64  # assumed: consecutive unanswered timer expiries before giving up
SETUP_RETRIES = 19  # assumed: unanswered CONNs resent before giving up: 127.75 s after
# the first CONN at PROBE_T 0.25 s, as Linux's TCP gives up a connect after 127 s (six SYN
# retries, RTO 1 s doubling); over UDP a closed port is reported at once by ICMP
WINDOW = 255  # segments from cum on the receiver buffers (the N-S_ACK list's bound)


@dataclass(frozen=True)
class WwpConfig:
    """One endpoint's parameters; sender and receiver must agree on the first three."""

    payload_size: int = PAYLOAD_SIZE
    wave_unit: int = WAVE_UNIT
    levels: int = LEVELS
    baseline_bps: float = BASELINE_BPS  # BT, payload octets per second
    initial_level: int = LEVELS  # assumed: the first wave at the top level
    probe_t: float = PROBE_T
    send_t_slack: float = SEND_T_SLACK
    rtt_floor: float = RTT_FLOOR
    max_retries: int = MAX_RETRIES
    setup_retries: int = SETUP_RETRIES
    # Ours, not the paper's: unanswered probes double PROBE_T (sender.MAX_BACKOFF times at most).
    # Paper 004 2.2-2.3 has the sender "immediately probe" and probing "continuously
    # monitor the network" during congestion; False probes every PROBE_T, as written.
    # CONN and FIN, which the paper leaves to its reference [3], back off either way.
    probe_backoff: bool = True

    def __post_init__(self) -> None:
        if not 1 <= self.payload_size < SEQ_LIMIT - HEADER:
            raise UsageError(f"payload size {self.payload_size} outside 1..{SEQ_LIMIT}")
        if not 1 <= self.levels <= MAX_LEVEL:
            raise UsageError(f"levels {self.levels} outside 1..{MAX_LEVEL}")
        if not 1 <= self.wave_unit * self.levels <= WINDOW:
            raise UsageError(f"wave unit {self.wave_unit} must be 1..{WINDOW // self.levels}")
        if not 0 <= self.initial_level <= self.levels:
            raise UsageError(f"initial level {self.initial_level} outside 0..{self.levels}")
        if not (self.baseline_bps > 0 and self.probe_t > 0 and self.rtt_floor > 0):
            raise UsageError("baseline throughput, PROBE_T and the RTT floor must be positive")
        if self.max_retries < 1 or self.setup_retries < 1:
            raise UsageError("max retries and set-up retries must be at least 1")

    def wave_size(self, level: int) -> int:
        """W(i) = unit x i (paper 004 2.2); W(0) = 0."""
        return self.wave_unit * level

    def baseline_time(self, segments: int) -> float:
        """B: seconds ``segments`` payloads take at the baseline throughput BT."""
        return segments * self.payload_size / self.baseline_bps
