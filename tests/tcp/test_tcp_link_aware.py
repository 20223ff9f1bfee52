"""The options for a sender that knows its link (TCP-WWAN, paper 003 4.3.1): a fixed
window, pacing, and a probe instead of a retransmission when the timer expires.

Pair harness, one-way latency 50 ms, MSS 1000, no delayed ACKs: the handshake ends at
0.1 s. Pacing at 80 kbit/s: a 1040-octet packet (1000 + TCP 20 + IP 20) every 0.104 s.
"""

import itertools

import pytest
from tests.tcp.tcp_harness import Lab, bulk, drop_client_data, make_lab

from wwanlab.core.errors import UsageError
from wwanlab.tcp import TcpConfig
from wwanlab.tcp.connection import Pacer

SEGMENT_TIME = 1040 * 8 / 80_000  # 0.104 s


def config(**overrides: object) -> TcpConfig:
    return TcpConfig.for_variant("sack", mss=1000, delayed_ack=False, **overrides)


def data_sends(lab: Lab) -> list[tuple[float, int]]:
    return [(round(t, 9), lab.client_offset(s)) for t, s in lab.segments("client") if s.payload]


def trace(lab: Lab) -> list[tuple[int, int, str]]:
    return [(s.cwnd, s.ssthresh, s.reason) for s in lab.trace]


def test_fixed_window_is_the_first_flight_and_never_grows() -> None:
    lab = make_lab(config(fixed_window=6000))
    _, data = bulk(lab, 30_000)
    lab.pair.run(until=0.15)  # before the first ACK (0.2 s)
    assert data_sends(lab) == [(0.1, o) for o in range(0, 6000, 1000)]  # not IW 4000
    lab.pair.run()
    assert lab.received("server") == data
    # one window per round trip, never more, never less
    assert [o for t, o in data_sends(lab) if t == pytest.approx(0.2)] == list(
        range(6000, 12000, 1000)
    )
    assert trace(lab) == [(6000, 1 << 30, "established")]  # no change, ever


def test_pacing_spaces_segments_one_segment_time_apart() -> None:
    lab = make_lab(config(fixed_window=6000, pacing_bps=80_000))
    _, data = bulk(lab, 12_000)
    lab.pair.run(until=0.35)
    sends = data_sends(lab)
    assert sends[:3] == [
        (0.1, 0),
        (round(0.1 + SEGMENT_TIME, 9), 1000),
        (round(0.1 + 2 * SEGMENT_TIME, 9), 2000),
    ]
    lab.pair.run()
    assert lab.received("server") == data
    times = [t for t, _ in data_sends(lab)]
    gaps = [b - a for a, b in itertools.pairwise(times)]
    assert len(times) == 12
    assert all(g == pytest.approx(SEGMENT_TIME) for g in gaps)  # the window never binds


def test_pacer_counts_ip_octets_and_holds_a_late_burst_back() -> None:
    pacer = Pacer(80_000)
    pacer.sent(1040, now=1.0)
    assert pacer.next_time == pytest.approx(1.104)
    pacer.sent(1040, now=1.0)  # sent anyway (a fast retransmit): the next waits longer
    assert pacer.next_time == pytest.approx(1.208)
    pacer.sent(540, now=5.0)  # idle: counting starts again from now
    assert pacer.next_time == pytest.approx(5.054)


def test_loss_does_not_halve_a_fixed_window() -> None:
    hook, _ = drop_client_data([2000])
    lab = make_lab(config(fixed_window=6000), drop=hook)
    conn, data = bulk(lab, 20_000)
    lab.pair.run()
    assert lab.received("server") == data
    stats = lab.client.stats(conn)
    assert (stats.fast_retransmits, stats.retransmissions, stats.timeouts) == (1, 1, 0)
    assert trace(lab) == [(6000, 1 << 30, "established"), (6000, 6000, "fast_retransmit")]


def test_timer_expiry_probes_and_the_answer_shows_the_data_arrived() -> None:
    """The server's ACKs of the only flight are lost: RTO 1 s after 0.1; a probe (an
    ACK for SND.UNA - 1) instead of a resend; its answer acknowledges everything."""
    lost_acks = {1, 2, 3, 4}  # the server's ACKs of the four segments (0 is its SYN-ACK)
    lab = make_lab(
        config(fixed_window=4000, probe_on_timeout=True),
        drop=lambda side, index, data: side == "server" and index in lost_acks,
    )
    conn, data = bulk(lab, 4000)
    lab.pair.run()
    assert lab.received("server") == data
    c = lab.client.connection(conn)
    probe = [(round(t, 6), s) for t, s in lab.segments("client") if t > 0.2]
    assert len(probe) == 1
    when, seg = probe[0]
    assert when == pytest.approx(1.1)  # the RTO (max(0.3, 1.0) s) after the flight
    assert not seg.payload and seg.seq == c.iss  # SND.UNA - 1, nothing acknowledged yet
    assert (c.stall_probes, c.stats.retransmissions, c.stats.timeouts) == (1, 0, 0)
    assert c.snd_una == c.snd_max


def test_probe_answered_without_the_data_resends_at_once() -> None:
    """The last segment is lost (no duplicate ACKs can follow): the probe's answer does
    not acknowledge it, so it is resent on that answer, with the window kept."""
    hook, _ = drop_client_data([3000])
    lab = make_lab(config(fixed_window=4000, probe_on_timeout=True), drop=hook)
    conn, data = bulk(lab, 4000)
    lab.pair.run()
    assert lab.received("server") == data
    sends = [(round(t, 6), s) for t, s in lab.segments("client") if t > 0.2]
    # the ACK of 3000 at 0.2 restarts the timer: due at 1.2; the answer at 1.3
    assert [(t, len(s.payload)) for t, s in sends] == [(1.2, 0), (1.3, 1000)]
    assert lab.client_offset(sends[1][1]) == 3000
    c = lab.client.connection(conn)
    assert (c.stall_probes, c.stats.retransmissions, c.stats.timeouts) == (1, 1, 0)
    assert c.cwnd == 4000


def test_options_are_checked() -> None:
    with pytest.raises(UsageError):
        TcpConfig(mss=1000, fixed_window=500)
    with pytest.raises(UsageError):
        TcpConfig(pacing_bps=-1.0)
