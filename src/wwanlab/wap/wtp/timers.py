"""WTP timer intervals, counters and SAR sizes, each named and cited, in one config.

WTP (WAP-201, 11-June-1999) keeps one timer per transaction, started with one of
three intervals (section 9.4.1): the acknowledgement interval A, the retry interval R
and the wait-timeout interval W, with the counters RCR (retransmissions) and AEC
(acknowledgement expirations) bounded by MAX_RCR and AEC_MAX (section 9.4.2). The
spec leaves the values to Appendix A (bearer dependent, informative); the numbers
below are the ones Kannel 1.4.5 uses for IP bearers (``wap/wtp.h``, "for suggested
timers, see WTP, Appendix A"), which is the gateway our stack talks to.
"""

from collections.abc import Sequence
from dataclasses import dataclass

L_A_WITH_USER_ACK = 4.0  # s, acknowledgement interval A (WTP 9.4.1, App. A; Kannel wtp.h)
L_R_WITH_USER_ACK = 7.0  # s, retry interval R (WTP 9.4.1, App. A; Kannel wtp.h)
W_WITH_USER_ACK = 30.0  # s, wait-timeout interval W (WTP 9.4.1, App. A; Kannel wtp.h)
MAX_RCR = 8  # retransmissions before NORESPONSE (WTP 9.4.2, App. A; Kannel wtp.h)
AEC_MAX = 6  # acknowledgement-interval expiries before NORESPONSE (WTP 9.4.2; Kannel wtp.h)

SAR_SEGM_SIZE = 1400  # octets of user data per packet (WAP Forum recommendation; Kannel)
SAR_GROUP_LEN = 3  # packets per group; implementation specific (WTP 7.14; Kannel wtp_resp.h)
MAX_SEGMENTS = 256  # the PSN is one octet (WTP 8.3.3): at most 256 packets per message
TID_WINDOW = 1 << 14  # TID test window, half the 15-bit TID space (WTP 7.8.2.3)

RETRY_MARGIN = 1.5  # ours: head room of a sized R over the expected answer, for jitter
SIZED_R_MIN = 0.5  # s, ours: below this the event loop's and scheduler's jitter matter


@dataclass(frozen=True, slots=True)
class SizedRetry:
    """A retry interval sized at each start to what was just sent (ours, not WTP's).

    WTP 9.4.1 leaves the timer values to the bearer, and Appendix A gives one R per
    bearer. One R must then cover the largest thing R ever waits for, a whole group on
    the line and its Ack, so a lost Connect or a lost resent packet waits as long. This
    R is ``margin * (line time of the packets sent since the timer last ran + line time
    of the largest answer + round trip)``, at least ``floor``, doubled for each
    retransmission (RCR), as RFC 6298 5.5 backs off.
    """

    octet_s: float  # s per octet on the line towards the peer
    packet_s: float  # s per packet beyond its octets (IP and UDP headers, framing, radio)
    answer_s: float  # s the largest answer the peer sends back takes on the line
    round_trip: float  # s of delay both ways (p95)
    margin: float = RETRY_MARGIN
    floor: float = SIZED_R_MIN

    def interval(self, sent: Sequence[int], rcr: int) -> float:
        """R after sending PDUs of ``sent`` octets, at retransmission count ``rcr``."""
        busy = sum(self.packet_s + octets * self.octet_s for octets in sent)
        expected = self.margin * (busy + self.answer_s + self.round_trip)
        return max(self.floor, expected) * float(2**rcr)


@dataclass(frozen=True, slots=True)
class WtpConfig:
    """Every tunable of a WTP endpoint; the defaults are the cited constants."""

    ack_interval: float = L_A_WITH_USER_ACK
    retry_interval: float = L_R_WITH_USER_ACK
    wait_timeout: float = W_WITH_USER_ACK
    max_rcr: int = MAX_RCR
    aec_max: int = AEC_MAX
    segment_size: int = SAR_SEGM_SIZE
    group_size: int = SAR_GROUP_LEN
    max_segments: int = MAX_SEGMENTS
    tid_window: int = TID_WINDOW
    explicit_ack: bool = False  # class 2 responder: Ack each invoke at once (paper 000 2.2)
    sized_retry: SizedRetry | None = None  # ours: R sized per start instead of retry_interval

    def __post_init__(self) -> None:
        if self.segment_size < 1 or self.group_size < 1:
            raise ValueError("segment_size and group_size must be at least 1")
        if not 1 <= self.max_segments <= MAX_SEGMENTS:
            raise ValueError(f"max_segments must be in 1..{MAX_SEGMENTS}")
