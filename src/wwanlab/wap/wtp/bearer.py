"""WTP timers for a known bearer: the tuned profile's R from a link preset.

WTP 9.4.1 leaves the timer intervals to the bearer. Given the link a stack runs over,
``sized_retry`` gives the ``SizedRetry`` of one end: the line it sends on, and the
largest answer its peer sends back (a responder waits for an Ack; an initiator for an
Ack or the first packet of a Result, a full segment). The line time is serialization
with framing on rate stages and the mean service time of the GPRS radio (paper 002);
the round trip is the sum of both directions' delay p95, which for GPRS counts that
service time once more: a conservative R.
"""

from wwanlab.link.gprs_radio import GprsRadioStage
from wwanlab.link.presets import Preset
from wwanlab.link.rate import Rate, ServiceTime
from wwanlab.wap.wtp.timers import SAR_SEGM_SIZE, SizedRetry

IP_UDP_HEADERS = 20 + 8  # RFC 791 3.1 (no options) + RFC 768
SEGMENTED_RESULT_HEADER = 4  # WTP 9.3.2: a Segmented Result PDU's header, with the PSN
ACK_PDU = 3 + 2  # WTP 9.3.3: Ack header, and the PSN TPI of a group's Ack (WTP 9.3.5.4)
FULL_PACKET = SAR_SEGM_SIZE + SEGMENTED_RESULT_HEADER  # octets of WTP in a full packet
DIRECTIONS = ("down", "up")


def line_time(preset: Preset, direction: str, octets: int) -> float:
    """Seconds the link's rate stages are busy with one packet of ``octets`` octets of
    IP: serialization with framing on a ``Rate``, a mean service time on a ``ServiceTime``,
    the frame at the radio's rate on a ``GprsRadioStage``."""
    busy = 0.0
    for stage in preset.build(direction).stages:
        if isinstance(stage, Rate):
            busy += (octets + stage.overhead_bytes) * stage.bits_per_byte / stage.bps
        elif isinstance(stage, ServiceTime):
            busy += stage.service.mean
        elif isinstance(stage, GprsRadioStage):
            busy += stage.serialization(octets)
    return busy


def sized_retry(preset: Preset, sends: str, *, responder: bool) -> SizedRetry:
    """The sized R of the end that sends in direction ``sends`` (``down`` for the
    gateway, ``up`` for the phone) over ``preset``."""
    back = DIRECTIONS[1 - DIRECTIONS.index(sends)]
    answer = ACK_PDU if responder else FULL_PACKET
    packet = line_time(preset, sends, IP_UDP_HEADERS)
    return SizedRetry(
        octet_s=line_time(preset, sends, IP_UDP_HEADERS + 1) - packet,
        packet_s=packet,
        answer_s=line_time(preset, back, IP_UDP_HEADERS + answer),
        round_trip=sum(float(preset.configured[d]["delay_ms"]["p95"]) for d in DIRECTIONS) / 1000,
    )
