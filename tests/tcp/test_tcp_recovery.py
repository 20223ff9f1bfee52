"""Loss recovery pinned to the RFCs: one loss with three duplicate ACKs, and three
losses in one window under Reno, NewReno and SACK.

Setup for all: MSS 1000, no delayed ACKs (one ACK per segment keeps the arithmetic
visible), one-way latency 50 ms, no rate limit, IW 4 segments (RFC 5681 3.1, SMSS
<= 1095). The handshake ends at 0.1 s; the first flight leaves then.
"""

import pytest
from tests.tcp.tcp_harness import Lab, bulk, drop_client_data, make_lab

from wwanlab.tcp import TcpConfig

INF = 1 << 30  # INITIAL_SSTHRESH


def run(variant: str, offsets: list[int], size: int, **overrides: object) -> tuple[Lab, int]:
    config = TcpConfig.for_variant(variant, mss=1000, delayed_ack=False, **overrides)
    hook, _ = drop_client_data(offsets)
    lab = make_lab(config, drop=hook)
    conn, data = bulk(lab, size)
    lab.pair.run(until=60)
    assert lab.received("server") == data
    return lab, conn


def trace(lab: Lab) -> list[tuple[float, int, int, str]]:
    return [(round(s.time, 6), s.cwnd, s.ssthresh, s.reason) for s in lab.trace]


def data_sends(lab: Lab) -> list[tuple[float, int]]:
    return [(round(t, 6), lab.client_offset(s)) for t, s in lab.segments("client") if s.payload]


# Shared by all variants up to the third duplicate ACK: slow start from IW 4000 adds
# one SMSS per ACK (RFC 5681 eq. 2); segment 5000 is lost at 0.2; at 0.3 the ACK of
# 4000 arrives (cwnd 9000), then duplicates: the first two each release one new
# segment by limited transmit (RFC 3042), the third triggers fast retransmit with
# FlightSize = 16000 - 5000 = 11000, so ssthresh = 5500 (RFC 5681 eq. 4).
SLOW_START = [
    (0.1, 4000, INF, "established"),
    (0.2, 5000, INF, "ack"),
    (0.2, 6000, INF, "ack"),
    (0.2, 7000, INF, "ack"),
    (0.2, 8000, INF, "ack"),
    (0.3, 9000, INF, "ack"),
]
ONE_LOSS_SENDS = [
    *[(0.1, o) for o in range(0, 4000, 1000)],
    *[(0.2, o) for o in range(4000, 12000, 1000)],
    (0.3, 12000),  # ACK of 4000: two segments
    (0.3, 13000),
    (0.3, 14000),  # limited transmit, first duplicate ACK
    (0.3, 15000),  # limited transmit, second duplicate ACK
    (0.3, 5000),  # fast retransmit on the third duplicate ACK, one RTT after the loss
    *[(0.4, o) for o in range(16000, 20000, 1000)],
]


def test_reno_one_loss_exact_cwnd_and_retransmission() -> None:
    lab, conn = run("reno", [5000], 20000)
    assert trace(lab) == [
        *SLOW_START,
        (0.3, 8500, 5500, "fast_retransmit"),  # cwnd = ssthresh + 3 SMSS
        (0.3, 9500, 5500, "dupack"),  # dupacks 4-6 inflate cwnd by SMSS each
        (0.3, 10500, 5500, "dupack"),
        (0.3, 11500, 5500, "dupack"),
        (0.4, 12500, 5500, "dupack"),  # dupacks 7-10 (for 12000-15000) release 16000-19000
        (0.4, 13500, 5500, "dupack"),
        (0.4, 14500, 5500, "dupack"),
        (0.4, 15500, 5500, "dupack"),
        (0.4, 5500, 5500, "ack"),  # RFC 5681 3.2 step 6: deflate to ssthresh
    ]
    assert data_sends(lab) == ONE_LOSS_SENDS
    stats = lab.client.stats(conn)
    assert (stats.fast_retransmits, stats.retransmissions, stats.timeouts) == (1, 1, 0)
    assert stats.timer_retransmissions == 0
    assert stats.recovery_time == pytest.approx(0.1)


def test_newreno_one_loss_exits_with_rfc6582_cwnd() -> None:
    lab, _ = run("newreno", [5000], 20000)
    t = trace(lab)
    assert t[: len(SLOW_START) + 1] == [*SLOW_START, (0.3, 8500, 5500, "fast_retransmit")]
    # Full ACK of 16000 with 4000 in flight: cwnd = min(ssthresh, max(4000, SMSS) + SMSS).
    assert (0.4, 5000, 5500, "ack") in t
    assert data_sends(lab) == ONE_LOSS_SENDS


def test_sack_one_loss_uses_pipe_not_inflation() -> None:
    lab, _ = run("sack", [5000], 20000)
    # RFC 6675 5 step 4.2: cwnd = ssthresh = FlightSize / 2 on entering recovery.
    assert trace(lab) == [*SLOW_START, (0.3, 5500, 5500, "fast_retransmit")]
    assert data_sends(lab) == ONE_LOSS_SENDS


def test_three_losses_in_one_window_reno_needs_a_timeout() -> None:
    lab, conn = run("reno", [5000, 7000, 9000], 30000)
    s = lab.client.stats(conn)
    # The partial ACK of 7000 at 0.4 ends Reno's recovery with cwnd 5500 and 11000 in
    # flight; only two more duplicate ACKs follow, so 7000 waits for the RTO set at
    # 0.4 (1 s), and going back N resends 9000 and the already received 10000.
    assert (s.fast_retransmits, s.timeouts, s.retransmissions) == (1, 1, 4)
    # 5000 was data-driven (three duplicate ACKs); 7000, 9000 and 10000 the RTO's
    assert s.timer_retransmissions == 3
    assert [(t, o) for t, o in data_sends(lab) if o in (5000, 7000, 9000, 10000)][4:] == [
        (0.3, 5000),
        (1.4, 7000),
        (1.5, 9000),
        (1.5, 10000),
    ]


def test_three_losses_in_one_window_newreno_one_loss_per_rtt() -> None:
    lab, conn = run("newreno", [5000, 7000, 9000], 30000)
    s = lab.client.stats(conn)
    assert (s.fast_retransmits, s.partial_acks, s.timeouts, s.retransmissions) == (1, 2, 0, 3)
    retransmissions = [(t, o) for t, o in data_sends(lab) if o in (5000, 7000, 9000)][3:]
    assert retransmissions == [(0.3, 5000), (0.4, 7000), (0.5, 9000)]
    assert s.recovery_time == pytest.approx(0.3)  # three RTTs
    t = trace(lab)
    # RFC 6582 3.2 step 3: partial ACK of 2000 octets: deflate by 2000, add back SMSS.
    assert (0.4, 12500, 5500, "ack") in t
    assert (0.5, 13500, 5500, "ack") in t


def test_three_losses_in_one_window_sack_repairs_in_one_rtt_more() -> None:
    lab, conn = run("sack", [5000, 7000, 9000], 30000)
    s = lab.client.stats(conn)
    assert (s.fast_retransmits, s.timeouts, s.retransmissions) == (1, 0, 3)
    retransmissions = [(t, o) for t, o in data_sends(lab) if o in (5000, 7000, 9000)][3:]
    # 7000 and 9000 become IsLost once three segments are SACKed above them, and pipe
    # allows them out as the SACKs of 12000-15000 arrive at 0.4.
    assert retransmissions == [(0.3, 5000), (0.4, 7000), (0.4, 9000)]
    assert s.recovery_time == pytest.approx(0.2)
    assert trace(lab)[len(SLOW_START)] == (0.3, 5500, 5500, "fast_retransmit")


def test_limited_transmit_can_be_disabled() -> None:
    lab, _ = run("reno", [5000], 20000, limited_transmit=False)
    sends = data_sends(lab)
    # Without RFC 3042 nothing leaves on the first two duplicates: FlightSize at the
    # third is 14000 - 5000, so ssthresh = 4500; 14000 follows the retransmission once
    # inflation (4500 + 3000 + 3 x 1000 = 10500 above 5000) opens the window.
    assert sends[12:17] == [(0.3, 12000), (0.3, 13000), (0.3, 5000), (0.3, 14000), (0.4, 15000)]
    assert (0.3, 7500, 4500, "fast_retransmit") in trace(lab)


@pytest.mark.parametrize("variant", ["reno", "newreno", "sack"])
def test_congestion_avoidance_grows_one_smss_per_window(variant: str) -> None:
    lab, _ = run(variant, [], 200_000, initial_ssthresh=8000)
    growth = [(s.cwnd, s.ssthresh) for s in lab.trace if s.reason == "ack"]
    cwnds = [c for c, _ in growth]
    # Slow start to 8000, then +1000 once per cwnd of acknowledged bytes (RFC 5681 3.1).
    assert cwnds[:5] == [5000, 6000, 7000, 8000, 9000]
    assert cwnds[5:8] == [10000, 11000, 12000]
    gaps = [b.time - a.time for a, b in zip(lab.trace[5:], lab.trace[6:], strict=False)]
    assert all(g == pytest.approx(0.1) for g in gaps[:3])  # one step per RTT


def _resent(lab: Lab) -> list[tuple[float, int]]:
    seen: set[int] = set()
    out = []
    for t, offset in data_sends(lab):
        if offset in seen:
            out.append((t, offset))
        seen.add(offset)
    return out


# Four losses in one window: Reno's fast retransmit repairs 5000, the RTO at 1.4 the
# rest; going back N from 7000 resends 12000-14000, which the receiver already holds.
AFTER_TIMEOUT = [(0.3, 5000), (1.4, 7000), (1.5, 9000), (1.5, 10000)] + [
    (1.6, o) for o in range(11000, 15000, 1000)
]


def test_reno_without_recover_fast_retransmits_on_the_timeouts_duplicates() -> None:
    lab, conn = run("reno", [5000, 7000, 9000, 11000], 40000)
    # The three duplicates of 12000-14000 each draw a duplicate ACK: a second fast
    # retransmit at 1.7 resends 17000, which was never lost.
    assert _resent(lab) == [*AFTER_TIMEOUT, (1.7, 17000)]
    assert [x for x in trace(lab) if x[3] != "ack" and x[3] != "dupack"][-2:] == [
        (1.4, 1000, 5000, "timeout"),
        (1.7, 6000, 3000, "fast_retransmit"),
    ]
    s = lab.client.stats(conn)
    assert (s.fast_retransmits, s.timeouts, s.retransmissions) == (2, 1, 9)


def test_reno_with_ns2_recover_ignores_duplicates_below_the_timeouts_high_water() -> None:
    # ns-2 tcp-reno.cc (bugFix_): after the RTO at 1.4, recover = the highest octet sent
    # then; the duplicate ACKs of 1.7 acknowledge less, so no fast retransmit.
    lab, conn = run("reno", [5000, 7000, 9000, 11000], 40000, reno_recover=True)
    assert _resent(lab) == AFTER_TIMEOUT
    s = lab.client.stats(conn)
    assert (s.fast_retransmits, s.timeouts, s.retransmissions) == (1, 1, 8)


def test_reno_recover_still_allows_a_second_fast_retransmit_without_a_timeout() -> None:
    # ns-2's allow_fast_retransmit: after a fast retransmit (not a timeout) the guard is
    # off, so two separate losses give two fast retransmits, as plain Reno.
    for guard in (False, True):
        lab, conn = run("reno", [5000, 7000], 40000, reno_recover=guard)
        s = lab.client.stats(conn)
        assert (s.fast_retransmits, s.timeouts, s.retransmissions) == (2, 0, 2)
