"""Handshake, teardown, resets, delayed ACKs and the retransmission timer, pinned to
exact segments and exact times in the Pair harness (one-way latency 50 ms)."""

import itertools
import random

import pytest
from tests.tcp.tcp_harness import Lab, bulk, drop_client_data, flags, make_lab

from wwanlab.core.pair import CLIENT_ADDR, SERVER_ADDR, Pair, Side
from wwanlab.tcp import (
    ConnectionAborted,
    ConnectionClosed,
    ConnectionEstablished,
    ConnectionReset,
    DataReceived,
    PeerClosed,
    State,
    TcpConfig,
    TcpEndpoint,
    Variant,
)
from wwanlab.tcp.config import RTO_MIN_LINUX
from wwanlab.tcp.errors import ConnectionNotOpen, InvalidTransition
from wwanlab.tcp.rto import RtoEstimator
from wwanlab.tcp.segment import SYN, decode_segment, encode_segment, pseudo_header_sum
from wwanlab.tcp.state import Input, next_state


def log(lab: Lab) -> list[tuple[Side, float, str, int]]:
    out = []
    for s in lab.pair.log:
        seg = decode_segment(s.data)
        out.append((s.side, round(s.sent_at, 6), flags(seg), len(seg.payload)))
    return out


def test_request_response_handshake_and_teardown_segments() -> None:
    lab = make_lab(TcpConfig(time_wait=2.0))
    conn = lab.client.connect(SERVER_ADDR, 0.0)
    lab.client.send(conn, b"GET / HTTP/1.0\r\n\r\n")
    lab.pair.run(until=0.16)  # the request reached the server at 0.15
    lab.server.send(1, b"x" * 3000)
    lab.server.close(1)
    lab.pair.run(until=0.25)
    lab.client.close(conn)
    lab.pair.run()
    assert log(lab) == [
        ("client", 0.0, "S", 0),
        ("server", 0.05, "S.", 0),
        ("client", 0.1, "P.", 18),  # the handshake's ACK rides on the request
        ("server", 0.16, ".", 1460),  # the delayed ACK of the request rides on data
        ("server", 0.16, ".", 1460),
        ("server", 0.16, "FP.", 80),
        ("client", 0.21, ".", 0),  # second full-sized segment: ACK at once
        ("client", 0.21, ".", 0),  # the FIN is acknowledged at once
        ("client", 0.25, "F.", 0),
        ("server", 0.3, ".", 0),
    ]
    assert [type(e) for e in lab.pair.server_events] == [
        ConnectionEstablished,
        DataReceived,
        PeerClosed,
        ConnectionClosed,
    ]
    assert lab.pair.client_events[-2:] == [PeerClosed(1), ConnectionClosed(1)]
    assert lab.received("client") == b"x" * 3000
    # The server closed first, so it waited in TIME-WAIT for the configured 2 s.
    assert lab.server.stats(1).closed_at == pytest.approx(0.3)
    assert lab.pair.now == pytest.approx(2.3)
    assert lab.server.state(1) is State.CLOSED and lab.client.state(1) is State.CLOSED


def test_syn_options_are_negotiated() -> None:
    lab = make_lab(TcpConfig(mss=1000, window_scale=True, receive_buffer=1 << 20))
    bulk(lab, 100)
    lab.pair.run(until=0.2)
    syn = decode_segment(lab.pair.log[0].data)
    syn_ack = decode_segment(lab.pair.log[1].data)
    assert (syn.mss, syn.wscale, syn.sack_permitted) == (1000, 5, True)
    assert (syn_ack.mss, syn_ack.wscale, syn_ack.sack_permitted) == (1000, 5, True)
    assert syn.window == 0xFFFF  # RFC 7323 2.2: never scaled in a SYN
    data = decode_segment(lab.pair.log[2].data)
    assert data.window == (1 << 20) >> 5


def test_options_not_offered_by_the_peer_are_not_used() -> None:
    lab = make_lab(
        TcpConfig.for_variant("sack", window_scale=True),
        server_config=TcpConfig.for_variant("reno", mss=536),
    )
    conn, _ = bulk(lab, 100)
    lab.pair.run(until=0.2)
    syn_ack = decode_segment(lab.pair.log[1].data)
    assert (syn_ack.wscale, syn_ack.sack_permitted, syn_ack.mss) == (None, False, 536)
    assert lab.client.connection(conn).smss == 536


def test_state_table_rejects_unlisted_transitions() -> None:
    assert next_state(State.ESTABLISHED, Input.RCV_FIN) is State.CLOSE_WAIT
    with pytest.raises(InvalidTransition):
        next_state(State.TIME_WAIT, Input.CLOSE)


def test_segment_to_a_closed_port_is_reset() -> None:
    client = TcpEndpoint(*CLIENT_ADDR, TcpConfig(), random.Random(1))
    server = TcpEndpoint(*SERVER_ADDR, TcpConfig(), random.Random(2))  # not listening
    pair = Pair(client, server, latency=0.05)
    conn = client.connect(SERVER_ADDR, 0.0)
    pair.run()
    syn = decode_segment(pair.log[0].data)
    rst = decode_segment(pair.log[1].data)
    assert flags(rst) == "R."  # RFC 9293 3.10.7.1: <SEQ=0><ACK=SEG.SEQ+SEG.LEN><CTL=RST,ACK>
    assert (rst.seq, rst.ack) == (0, (syn.seq + 1) % 2**32)
    assert pair.client_events == [ConnectionReset(conn)]
    assert client.state(conn) is State.CLOSED


def test_lost_syn_is_resent_after_one_rto_and_rto_becomes_three_seconds() -> None:
    drops = iter([True])
    lab = make_lab(TcpConfig(), drop=lambda side, i, d: side == "client" and next(drops, False))
    conn, _ = bulk(lab, 10_000)
    lab.pair.run(until=1.2)
    times = [(t, flags(s)) for t, s in lab.segments("client")]
    assert times[:2] == [(0.0, "S"), (1.0, "S")]  # RFC 6298 2.1: initial RTO 1 s
    c = lab.client.connection(conn)
    assert c.stats.established_at == pytest.approx(1.1)
    assert c.rto.rto == 3.0  # RFC 6298 5.7: no sample (Karn), RTO re-initialised to 3 s
    assert c.rto.samples == 0
    # RFC 5681 3.1: after a lost SYN the initial window is one segment.
    assert [len(s.payload) for t, s in lab.segments("client") if s.payload] == [1460]


def test_delayed_ack_fires_after_200_ms_and_every_second_full_segment_is_acked() -> None:
    lab = make_lab(TcpConfig())
    conn = lab.client.connect(SERVER_ADDR, 0.0)
    lab.client.send(conn, b"a" * 100)
    lab.pair.run(until=1.0)
    acks = [(round(t, 9), flags(s)) for t, s in lab.segments("server")][1:]
    assert acks == [(0.35, ".")]  # RFC 1122 4.2.3.2: 0.15 + 0.2
    lab.pair.now = 1.0
    lab.client.send(conn, b"b" * (3 * 1460))  # three full-sized segments at 1.0
    lab.pair.run(until=2.0)
    times = [round(t, 9) for t, s in lab.segments("server")][2:]
    # The second segment is acknowledged on arrival, the third after the timer.
    assert times == [1.05, 1.25]


def test_delayed_ack_timer_is_configurable_and_can_be_disabled() -> None:
    for config, expected in [
        (TcpConfig(delayed_ack_timeout=0.1), 0.25),
        (TcpConfig(delayed_ack=False), 0.15),
    ]:
        lab = make_lab(config)
        conn = lab.client.connect(SERVER_ADDR, 0.0)
        lab.client.send(conn, b"a" * 100)
        lab.pair.run(until=1.0)
        assert [t for t, s in lab.segments("server")][1:] == [pytest.approx(expected)]


def test_out_of_order_segment_is_acked_at_once() -> None:
    hook, _ = drop_client_data([0])
    lab = make_lab(TcpConfig(mss=1000), drop=hook)
    bulk(lab, 2000)
    lab.pair.run(until=0.16)
    assert [round(t, 6) for t, s in lab.segments("server")][1:] == [0.15]  # RFC 5681 4.2


def test_rto_estimator_follows_rfc6298() -> None:
    est = RtoEstimator(TcpConfig(rto_min=0.2, rto_initial=1.0, clock_granularity=0.001))
    assert est.rto == 1.0
    est.sample(0.1)  # 2.2: SRTT = R, RTTVAR = R/2, RTO = SRTT + max(G, 4 RTTVAR)
    assert (est.srtt, est.rttvar, est.rto) == pytest.approx((0.1, 0.05, 0.3))
    est.sample(0.3)  # 2.3: RTTVAR = 3/4*0.05 + 1/4*|0.1-0.3|; SRTT = 7/8*0.1 + 1/8*0.3
    assert (est.srtt, est.rttvar) == pytest.approx((0.125, 0.0875))
    assert est.rto == pytest.approx(0.125 + 4 * 0.0875)
    est.backoff()
    assert est.rto == pytest.approx(2 * (0.125 + 4 * 0.0875))
    rfc = RtoEstimator(TcpConfig())
    rfc.sample(0.1)
    assert rfc.rto == 1.0  # 2.4: rounded up to 1 s


@pytest.mark.parametrize(
    ("config", "times"),
    [
        (TcpConfig(), [0.1, 1.1, 3.1, 7.1, 15.1]),  # RTO 1 s, doubled each time
        (TcpConfig(rto_min=RTO_MIN_LINUX), [0.1, 0.4, 1.0, 2.2, 4.6]),  # RTO 0.3 s
    ],
)
def test_rto_backs_off_exponentially(config: TcpConfig, times: list[float]) -> None:
    hook, _ = drop_client_data([0], times=4)
    lab = make_lab(config, drop=hook)
    conn, data = bulk(lab, 500)
    lab.pair.run(until=60)
    sent = [t for t, s in lab.segments("client") if s.payload]
    assert sent == pytest.approx(times)
    stats = lab.client.stats(conn)
    assert (stats.timeouts, stats.retransmissions) == (4, 4)
    assert lab.received("server") == data


def test_backed_off_rto_is_kept_until_a_fresh_sample_karn() -> None:
    hook, _ = drop_client_data([0, 500], times=2)
    lab = make_lab(TcpConfig(), drop=hook)
    conn, _ = bulk(lab, 500)
    lab.pair.run(until=10)  # 0.1, 1.1, 3.1 (delivered); delayed ACK arrives at 3.4
    lab.client.send(conn, b"z" * 500)
    lab.pair.run(until=60)
    sent = [t for t, s in lab.segments("client") if s.payload]
    # The ACK of a retransmission gives no sample: the next RTO is still 4 s, then 8 s.
    assert sent == pytest.approx([0.1, 1.1, 3.1, 3.4, 7.4, 15.4])


def test_rto_is_capped_at_rto_max_and_connection_aborts_after_max_retries() -> None:
    lab = make_lab(
        TcpConfig(max_retries=8),
        drop=lambda side, i, d: side == "client" and len(decode_segment(d).payload) > 0,
    )
    conn, _ = bulk(lab, 500)
    lab.pair.run()
    sent = [t for t, s in lab.segments("client") if s.payload]
    gaps = [round(b - a, 6) for a, b in itertools.pairwise(sent)]
    assert gaps == [1, 2, 4, 8, 16, 32, 60, 60]  # RFC 6298 2.5: maximum 60 s
    assert lab.pair.client_events[-1] == ConnectionAborted(conn, "retransmission limit")
    assert flags(lab.segments("client")[-1][1]) == "R."
    assert lab.pair.server_events[-1] == ConnectionReset(1)


def test_commands_on_closed_connections_raise() -> None:
    lab = make_lab(TcpConfig())
    conn, _ = bulk(lab, 10, close=True)
    lab.pair.run()
    with pytest.raises(ConnectionNotOpen):
        lab.client.send(conn, b"late")
    with pytest.raises(ConnectionNotOpen):
        lab.client.connection(99)


def test_many_connections_are_demultiplexed_by_remote_address() -> None:
    config = TcpConfig(time_wait=1.0)
    server = TcpEndpoint(*SERVER_ADDR, config, random.Random(2))
    server.listen()
    clients = [TcpEndpoint("10.0.0.1", port, config, random.Random(port)) for port in (1000, 1001)]
    out = []
    for i, c in enumerate(clients):
        conn = c.connect(SERVER_ADDR, 0.0)
        c.send(conn, bytes([65 + i]) * 3000)
        c.close(conn)
    # A tiny driver: deliver everything instantly until quiet.
    now = 0.0
    for _ in range(200):
        moved = False
        for c in clients:
            for data, _addr in c.datagrams_to_send(now):
                server.receive_datagram(data, c.local, now)
                moved = True
        for data, addr in server.datagrams_to_send(now):
            client = next(c for c in clients if c.local == addr)
            client.receive_datagram(data, SERVER_ADDR, now)
            moved = True
        if not moved:
            timers = [t for t in [server.get_timer(), *(c.get_timer() for c in clients)] if t]
            if not timers:
                break
            now = min(timers)
            for ep in (server, *clients):
                ep.handle_timer(now)
    while (event := server.next_event()) is not None:
        out.append(event)
    received: dict[int, bytes] = {}
    for e in out:
        if isinstance(e, DataReceived):
            received[e.conn_id] = received.get(e.conn_id, b"") + e.data
    assert received == {1: b"A" * 3000, 2: b"B" * 3000}
    assert server.connection(1).remote == ("10.0.0.1", 1000)
    assert all(server.state(i) is State.CLOSE_WAIT for i in (1, 2))


def test_corrupted_segment_is_dropped_and_counted() -> None:
    lab = make_lab(TcpConfig())
    lab.client.connect(SERVER_ADDR, 0.0)
    data = bytearray(lab.client.datagrams_to_send(0.0)[0][0])
    data[-1] ^= 0xFF
    lab.server.receive_datagram(bytes(data), CLIENT_ADDR, 0.0)
    assert lab.server.bad_segments == 1
    assert lab.server.datagrams_to_send(0.0) == []


def test_sack_endpoint_falls_back_to_newreno_with_a_peer_without_sack() -> None:
    lab = make_lab(TcpConfig.for_variant("sack"), server_config=TcpConfig.for_variant("reno"))
    conn, _ = bulk(lab, 100)
    lab.pair.run(until=1)
    assert lab.client.connection(conn).variant is Variant.NEWRENO
    assert lab.server.connection(1).variant is Variant.RENO


def test_new_syn_above_the_old_sequence_space_ends_time_wait() -> None:
    lab = make_lab(TcpConfig())  # TIME-WAIT 240 s
    conn = lab.client.connect(SERVER_ADDR, 0.0)
    lab.pair.run(until=0.2)
    lab.server.close(1)  # the server closes first and ends in TIME-WAIT
    lab.pair.run(until=0.5)
    lab.client.close(conn)
    lab.pair.run(until=1.0)
    old = lab.server.connection(1)
    assert old.state is State.TIME_WAIT
    pseudo = pseudo_header_sum(*[CLIENT_ADDR[0], SERVER_ADDR[0]])
    for seq, answered in [(old.rcv_nxt - 10, "."), (old.rcv_nxt + 1000, "S.")]:
        syn = encode_segment(
            CLIENT_ADDR[1], SERVER_ADDR[1], seq % 2**32, 0, SYN, 65535, b"", b"", pseudo
        )
        lab.server.receive_datagram(syn, CLIENT_ADDR, 1.0)
        (reply, _addr), *_ = lab.server.datagrams_to_send(1.0)
        assert flags(decode_segment(reply)) == answered
    assert lab.server.state(1) is State.CLOSED
    assert lab.server.state(2) is State.SYN_RECEIVED


def test_quick_acks_acknowledge_the_first_segments_at_once() -> None:
    lab = make_lab(TcpConfig(quick_acks=2, mss=1000))
    conn = lab.client.connect(SERVER_ADDR, 0.0)
    lab.client.send(conn, b"q" * 500)
    lab.pair.run(until=0.5)
    lab.pair.now = 1.0
    lab.client.send(conn, b"r" * 500)
    lab.pair.run(until=1.5)
    lab.pair.now = 2.0
    lab.client.send(conn, b"s" * 500)
    lab.pair.run(until=3.0)
    acks = [round(t, 9) for t, s in lab.segments("server")][1:]
    assert acks == [0.15, 1.05, 2.25]  # two quick ACKs, then the 200 ms timer


def test_linux_rto_floor_applies_to_the_variance_term() -> None:
    linux = RtoEstimator(TcpConfig.linux())
    rfc = RtoEstimator(TcpConfig(rto_min=RTO_MIN_LINUX))
    for est in (linux, rfc):
        for _ in range(40):
            est.sample(0.1)  # RTTVAR decays towards 0
    assert linux.rto == pytest.approx(0.1 + 0.2, abs=1e-6)  # SRTT + max(4 RTTVAR, 200 ms)
    assert rfc.rto == pytest.approx(0.2)  # max(SRTT + 4 RTTVAR, 200 ms)


def test_flow_control_zero_window_probes_and_window_updates() -> None:
    """A reader that holds data closes the window; the sender probes with backoff
    (RFC 9293 3.8.6.1) and resumes at once when the reader frees space."""
    lab = make_lab(
        TcpConfig(mss=1000, delayed_ack=False),
        server_config=TcpConfig(
            mss=1000, delayed_ack=False, receive_buffer=4000, auto_consume=False
        ),
    )
    conn, data = bulk(lab, 10000)
    lab.pair.run(until=5.0)
    windows = [(round(t, 6), s.window) for t, s in lab.segments("server")]
    assert windows == [
        (0.05, 4000),
        (0.15, 3000),
        (0.15, 2000),
        (0.15, 1000),
        (0.15, 0),
        (1.25, 0),  # answers to the probes
        (3.25, 0),
    ]
    probes = [round(t, 6) for t, s in lab.segments("client") if not s.payload][1:]
    assert probes == [1.2, 3.2]  # RTO 1 s after the zero window, then doubled
    assert lab.client.stats(conn).window_probes == 2
    assert lab.client.stats(conn).timeouts == 0  # probing is not a congestion signal
    lab.pair.now = 5.0
    lab.server.acknowledge_received(1, 4000)
    lab.pair.run(until=5.5)
    assert [round(t, 6) for t, s in lab.segments("server")][7] == 5.0  # window update
    assert [round(t, 6) for t, s in lab.segments("client") if s.payload][4:8] == [5.05] * 4
    lab.pair.now = 6.0
    lab.server.acknowledge_received(1, 4000)
    lab.pair.run(until=7.0)
    assert lab.received("server") == data


@pytest.mark.parametrize(("every_ack", "samples"), [(False, 2), (True, 5)])
def test_rtt_sampling_once_per_window_or_on_every_ack(every_ack: bool, samples: int) -> None:
    # SYN sample, then four segments of IW 4 acknowledged one by one.
    lab = make_lab(TcpConfig(mss=1000, delayed_ack=False, rtt_every_ack=every_ack))
    conn, _ = bulk(lab, 4000)
    lab.pair.run(until=5)
    assert lab.client.stats(conn).rtt_samples == samples


def test_every_ack_sampling_obeys_karn() -> None:
    hook, _ = drop_client_data([0])
    lab = make_lab(TcpConfig(mss=1000, delayed_ack=False, rtt_every_ack=True), drop=hook)
    conn, _ = bulk(lab, 1000)
    lab.pair.run(until=5)
    c = lab.client.connection(conn)
    assert (c.stats.timeouts, c.stats.rtt_samples) == (1, 1)  # only the SYN's
    assert c.rto.rto == 2.0  # the backed-off RTO is kept


def test_simultaneous_close_passes_through_closing() -> None:
    lab = make_lab(TcpConfig(time_wait=2.0))
    conn = lab.client.connect(SERVER_ADDR, 0.0)
    lab.pair.run(until=0.2)
    lab.pair.now = 0.5
    lab.client.close(conn)
    lab.server.close(1)
    lab.pair.run(until=0.56)
    assert lab.client.state(conn) is State.CLOSING  # RFC 9293 Figure 5
    assert lab.server.state(1) is State.CLOSING
    lab.pair.run()
    fins = [(s.side, round(s.sent_at, 6), flags(decode_segment(s.data))) for s in lab.pair.log]
    assert fins[-4:-2] == [("client", 0.5, "F."), ("server", 0.5, "F.")]
    assert sorted(fins[-2:]) == [("client", 0.55, "."), ("server", 0.55, ".")]
    assert lab.client.stats(conn).closed_at == pytest.approx(0.6)  # TIME-WAIT entered
    assert lab.pair.now == pytest.approx(2.6)


def test_half_close_keeps_the_other_direction_open() -> None:
    lab = make_lab(TcpConfig(time_wait=1.0))
    conn = lab.client.connect(SERVER_ADDR, 0.0)
    lab.client.send(conn, b"request")
    lab.client.close(conn)  # HTTP/1.0 style: request, then FIN
    lab.pair.run(until=0.3)
    assert lab.client.state(conn) is State.FIN_WAIT_2
    assert lab.server.state(1) is State.CLOSE_WAIT
    lab.server.send(1, b"r" * 5000)  # the reply still flows
    lab.server.close(1)
    lab.pair.run()
    assert lab.received("client") == b"r" * 5000
    assert lab.received("server") == b"request"
    assert lab.client.state(conn) is State.CLOSED and lab.server.state(1) is State.CLOSED
