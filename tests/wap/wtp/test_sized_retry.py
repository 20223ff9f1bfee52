"""The tuned profile's sized retry interval R: exact intervals, and the times a
transaction retransmits at on the Pair harness (latency 0.1 s each way)."""

import pytest
from tests.wap.wtp.test_sm_wtp import World

from wwanlab.link.presets import get_preset
from wwanlab.wap.wtp.bearer import FULL_PACKET, sized_retry
from wwanlab.wap.wtp.endpoint import WtpEndpoint
from wwanlab.wap.wtp.events import InvokeIndication, WtpEvent
from wwanlab.wap.wtp.pdu import Invoke, Result, SegmentedResult, encode
from wwanlab.wap.wtp.timers import SAR_SEGM_SIZE, SizedRetry, WtpConfig


def result_big(ep: WtpEndpoint, e: WtpEvent, now: float) -> None:
    """Server: a result of three full packets (one group) for any invoke."""
    if isinstance(e, InvokeIndication):
        ep.result(e.handle, bytes(3 * SAR_SEGM_SIZE), now)


SIZED = SizedRetry(octet_s=0.001, packet_s=0.1, answer_s=0.5, round_trip=0.2)


def test_interval_is_the_margin_over_what_was_sent_and_its_answer_doubled_per_retry():
    # 1.5 * (2 * 0.1 + 1500 * 0.001 + 0.5 + 0.2) = 3.6, then doubled per RCR
    assert SIZED.interval([1000, 500], 0) == pytest.approx(3.6)
    assert SIZED.interval([1000, 500], 2) == pytest.approx(14.4)
    assert SIZED.interval([], 0) == pytest.approx(1.05)  # 1.5 * (0.5 + 0.2)
    quick = SizedRetry(octet_s=0.0, packet_s=0.0, answer_s=0.01, round_trip=0.01)
    assert quick.interval([10], 0) == 0.5  # the floor
    assert quick.interval([10], 1) == 1.0


def test_a_lost_invoke_is_resent_after_its_own_sized_interval_backing_off():
    w = World(drop=lambda side, i, d: side == "server", client_cfg=WtpConfig(sized_retry=SIZED))
    w.invoke(b"request")
    w.run(until=30.0)
    sent = [(t, p) for t, p, _ in w.sent("client") if isinstance(p, Invoke)]
    # The Invoke is 4 + 7 octets: R = 1.5 * (0.1 + 0.011 + 0.5 + 0.2) = 1.2165 s, and the
    # RID resend doubles it each time (RCR 1, 2, ...).
    r = 1.2165
    assert [t for t, _ in sent] == pytest.approx([0.0, r, r + 2 * r, r + 6 * r, r + 14 * r])
    assert [p.rid for _, p in sent] == [False, True, True, True, True]


def test_a_result_group_waits_for_its_line_time_a_resent_packet_for_its_own():
    w = World(
        server_app=result_big,
        drop=lambda side, i, d: side == "client" and i >= 1,  # every Ack of the result lost
        server_cfg=WtpConfig(sized_retry=SIZED),
    )
    w.invoke()
    w.run(until=20.0)
    sent = [(t, p) for t, p, _ in w.sent("server") if isinstance(p, Result | SegmentedResult)]
    group = [len(encode(p)) for t, p in sent if t == 0.1]
    assert len(group) == 3
    resend = sent[3][1]
    assert isinstance(resend, SegmentedResult) and resend.psn == 2  # the group's last
    assert resend.rid
    r_group = SIZED.interval(group, 0)
    r_resend = SIZED.interval([len(encode(resend))], 1)
    assert r_group == pytest.approx(1.5 * (0.3 + sum(group) * 0.001 + 0.7))
    assert r_resend == pytest.approx(2 * 1.5 * (0.1 + len(encode(resend)) * 0.001 + 0.7))
    assert [t for t, _ in sent[3:5]] == pytest.approx([0.1 + r_group, 0.1 + r_group + r_resend])


def test_serial_9k6_sizes_r_from_its_line():
    preset = get_preset("serial-9k6")
    gateway = sized_retry(preset, "down", responder=True)
    phone = sized_retry(preset, "up", responder=False)
    # 960 octets/s, 8 PPP octets per packet, IP and UDP headers 28, no delay.
    assert gateway.octet_s == pytest.approx(1 / 960)
    assert gateway.packet_s == pytest.approx(36 / 960)
    assert gateway.answer_s == pytest.approx((5 + 36) / 960)  # a group's Ack
    assert phone.answer_s == pytest.approx((FULL_PACKET + 36) / 960)  # a Result packet
    assert gateway.round_trip == phone.round_trip == 0.0
    # A group of three full packets: the fixed R of the tuned profile before (6.814 s);
    # one resent packet 2.314 s; the phone's Connect (38 octets of WTP) 2.366 s.
    assert gateway.interval([FULL_PACKET] * 3, 0) == pytest.approx(6.814, abs=5e-4)
    assert gateway.interval([FULL_PACKET], 0) == pytest.approx(2.314, abs=5e-4)
    assert phone.interval([38], 0) == pytest.approx(2.366, abs=5e-4)
