"""The Windows 2000 sender profile: Microsoft's documented defaults, and what they do.

Setup as tests/tcp/test_tcp_recovery.py: MSS 1000, one ACK per segment (delayed ACK
off, to keep the arithmetic visible), one-way latency 50 ms, no rate limit; the
handshake ends at 0.1 s. The window is widened past 12 segments so that only the
congestion window limits the sender.
"""

from tests.tcp.tcp_harness import bulk, drop_client_data, make_lab

from wwanlab.tcp import InitialWindow, TcpConfig, Variant

INF = 1 << 30  # INITIAL_SSTHRESH


def test_documented_defaults() -> None:
    w2k = TcpConfig.windows2000()
    assert w2k.variant is Variant.SACK  # SackOpts 1
    assert w2k.initial_window is InitialWindow.TWO
    assert w2k.initial_cwnd(1460) == 2920
    assert (w2k.dup_thresh, w2k.receive_buffer, w2k.delayed_ack_timeout) == (2, 17520, 0.2)
    assert (w2k.rto_initial, w2k.rto_min, w2k.max_retries, w2k.syn_retries) == (3.0, 1.0, 5, 2)
    assert not (w2k.limited_transmit or w2k.byte_counting or w2k.timestamps or w2k.window_scale)
    assert TcpConfig.windows2000(rto_min=0.3).rto_min == 0.3


def test_two_segments_first_and_fast_retransmit_on_the_second_duplicate_ack() -> None:
    config = TcpConfig.windows2000(mss=1000, delayed_ack=False, receive_buffer=65000)
    hook, _ = drop_client_data([3000])
    lab = make_lab(config, drop=hook)
    conn, data = bulk(lab, 12000)
    lab.pair.run(until=60)
    assert lab.received("server") == data
    sends = [(round(t, 6), lab.client_offset(s)) for t, s in lab.segments("client") if s.payload]
    assert sends[:2] == [(0.1, 0), (0.1, 1000)]  # IW 2, not RFC 5681's 4 at MSS 1000
    # 3000 is lost at 0.2; at 0.3 the ACK of 3000 releases 6000 and 7000 (slow start,
    # one SMSS per ACK), the duplicates for 4000 and 5000 follow: the second one sends
    # 3000 again at once (TcpMaxDupAcks 2), no limited transmit before it.
    assert sends[2:9] == [
        (0.2, 2000),
        (0.2, 3000),
        (0.2, 4000),
        (0.2, 5000),
        (0.3, 6000),
        (0.3, 7000),
        (0.3, 3000),
    ]
    samples = [(round(s.time, 6), s.cwnd, s.ssthresh, s.reason) for s in lab.trace]
    assert samples[:5] == [
        (0.1, 2000, INF, "established"),
        (0.2, 3000, INF, "ack"),
        (0.2, 4000, INF, "ack"),
        (0.3, 5000, INF, "ack"),
        (0.3, 2500, 2500, "fast_retransmit"),  # FlightSize 5000 / 2 (RFC 2581 eq. 3)
    ]
    # after recovery, congestion avoidance per ACK: cwnd += SMSS*SMSS/cwnd (RFC 2581)
    assert samples[5:7] == [(0.5, 2900, 2500, "ack"), (0.5, 3244, 2500, "ack")]
    stats = lab.client.stats(conn)
    assert (stats.fast_retransmits, stats.retransmissions, stats.timeouts) == (1, 1, 0)


def test_rfc_default_waits_for_the_third_duplicate() -> None:
    """The same loss with the RFC's DupThresh of 3: the two duplicates of 0.3 are not
    enough, the third (for 6000) comes a round trip later and resends then."""
    config = TcpConfig.windows2000(mss=1000, delayed_ack=False, receive_buffer=65000, dup_thresh=3)
    hook, _ = drop_client_data([3000])
    lab = make_lab(config, drop=hook)
    bulk(lab, 12000)
    lab.pair.run(until=60)
    resend = [
        round(t, 6)
        for t, s in lab.segments("client")
        if s.payload and lab.client_offset(s) == 3000
    ]
    assert resend == [0.2, 0.4]
    fast = [(round(s.time, 6), s.reason) for s in lab.trace if s.reason == "fast_retransmit"]
    assert fast == [(0.4, "fast_retransmit")]
