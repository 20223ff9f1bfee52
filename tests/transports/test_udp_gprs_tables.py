"""UDP-GPRS's state table row by row: exact datagrams, exact timer values, and the
checks that keep forged or stray datagrams out."""

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wwanlab.core.events import Event
from wwanlab.core.pair import CLIENT_ADDR, SERVER_ADDR
from wwanlab.transports.channel import MessageChannel
from wwanlab.transports.udp_gprs import (
    ChannelFailed,
    Kind,
    LinkResumed,
    LinkStalled,
    MessageReceived,
    Packet,
    State,
    UdpGprsChannel,
    UdpGprsConfig,
    UdpGprsError,
    decode,
)
from wwanlab.transports.udp_gprs.config import CREDIT, NAK_INTERVAL
from wwanlab.transports.udp_gprs.endpoint import Input

SESSION = random.Random(7).getrandbits(32)
MAX = 1472


def client() -> UdpGprsChannel:
    return UdpGprsChannel.client(SERVER_ADDR, random.Random(7))


def sent(ch: UdpGprsChannel, now: float = 0.0) -> list[Packet]:
    out = ch.datagrams_to_send(now)
    assert all(addr == ch.peer for _, addr in out)
    return [decode(data, MAX) for data, _ in out]


def state(ch: UdpGprsChannel) -> State:
    """The state read through a call, so a checker does not narrow it across commands."""
    return ch.state


def events(ch: UdpGprsChannel) -> list[Event]:
    out = []
    while (e := ch.next_event()) is not None:
        out.append(e)
    return out


def data(seq: int, payload: bytes = b"m", *, ack: int = 0, end: bool = True) -> bytes:
    return Packet(Kind.DATA, SESSION, ack, CREDIT, seq, end, payload).encode()


def test_default_credit_is_the_3plus1_bdp_and_two_datagrams() -> None:
    # 39.6 kbit/s x 0.6 s = 2,970 octets (paper 003 section 3), plus 2 x 1,472
    assert UdpGprsConfig().credit == 2970 + 2 * 1472 == 5914
    assert pytest.approx(0.6 + (5914 + 1472) * 8 / 39600) == NAK_INTERVAL


def test_both_ends_are_message_channels() -> None:
    ends: list[MessageChannel] = [client(), UdpGprsChannel.server()]  # checked by mypy
    assert all(callable(end.send_message) for end in ends)


def test_idle_client_has_no_timer_and_sends_nothing() -> None:
    ch = client()
    assert state(ch) is State.IDLE and ch.get_timer() is None and sent(ch) == []
    ch.receive_datagram(data(0), SERVER_ADDR, 1.0)  # nothing can be its session's yet
    assert state(ch) is State.IDLE and ch.stats.stray == 1 and events(ch) == []


def test_first_datagram_carries_data_and_timers_are_exact() -> None:
    ch = client()
    ch.send_message(b"GET /", 10.0)
    assert state(ch) is State.OPEN
    assert sent(ch) == [Packet(Kind.DATA, SESSION, 0, CREDIT, 0, True, b"GET /")]
    # keep-alive at 10 + 2, RTO at 10 + 3 (no RTT sample yet), stall at 10 + 6
    assert ch.get_timer() == 12.0
    ch.handle_timer(12.0)
    assert sent(ch) == [Packet(Kind.KEEPALIVE, SESSION, 0, CREDIT, seq=1)]
    assert ch.get_timer() == 13.0
    ch.handle_timer(13.0)  # the tail rule: the newest DATA again, the RTO doubled
    assert sent(ch) == [Packet(Kind.DATA, SESSION, 0, CREDIT, 0, True, b"GET /")]
    assert ch.stats.tail_probes == 1 and ch.get_timer() == 15.0  # keep-alive; RTO at 19
    ch.handle_timer(15.0)
    assert [p.kind for p in sent(ch)] == [Kind.KEEPALIVE]
    assert ch.get_timer() == 16.0
    ch.handle_timer(16.0)  # six seconds without a word from the peer
    assert state(ch) is State.STALLED and events(ch) == [LinkStalled(16.0, 6.0)]
    assert sent(ch) == [] and ch.get_timer() == 17.0  # keep-alives only: no tail probe
    for t in (17.0, 19.0, 21.0):
        ch.handle_timer(t)
        assert [p.kind for p in sent(ch)] == [Kind.KEEPALIVE]
    assert ch.stats.tail_probes == 1


def test_resume_after_a_stall_reports_it_and_probes_the_tail() -> None:
    ch = client()
    ch.send_message(b"a", 0.0)
    ch.send_message(b"b", 0.0)
    sent(ch)
    for t in (2.0, 3.0, 5.0, 6.0):
        ch.handle_timer(t)
    assert state(ch) is State.STALLED
    events(ch), sent(ch)
    # the peer's ACK of the first message only: the link is back
    ch.receive_datagram(Packet(Kind.ACK, SESSION, 1, CREDIT).encode(), SERVER_ADDR, 9.5)
    assert state(ch) is State.OPEN and events(ch) == [LinkResumed(9.5, 3.5)]
    assert sent(ch) == [Packet(Kind.DATA, SESSION, 0, CREDIT, 1, True, b"b")]
    ch.receive_datagram(Packet(Kind.ACK, SESSION, 2, CREDIT).encode(), SERVER_ADDR, 10.0)
    assert ch.unacknowledged == 0 and ch.get_timer() == 11.5  # keep-alive after the probe


def test_silence_past_fail_after_fails_the_channel_for_good() -> None:
    ch = client()
    ch.send_message(b"x", 0.0)
    t = 0.0
    while ch.state is not State.FAILED:
        timer = ch.get_timer()
        assert timer is not None
        t = timer
        ch.handle_timer(t)
    assert t == 60.0
    assert events(ch) == [LinkStalled(6.0, 6.0), ChannelFailed("nothing heard for 60.0 s", 60.0)]
    assert ch.get_timer() is None
    sent(ch)
    ch.send_message(b"late", 61.0)
    ch.receive_datagram(Packet(Kind.ACK, SESSION, 1, CREDIT).encode(), SERVER_ADDR, 62.0)
    assert sent(ch) == [] and ch.stats.discarded == 1 and state(ch) is State.FAILED


def test_listening_server_adopts_only_a_first_data() -> None:
    srv = UdpGprsChannel.server()
    assert state(srv) is State.LISTEN and srv.get_timer() is None
    srv.send_message(b"held", 0.0)  # waits for a session
    assert srv.datagrams_to_send(0.0) == []
    srv.receive_datagram(Packet(Kind.ACK, SESSION, 0, CREDIT).encode(), CLIENT_ADDR, 1.0)
    srv.receive_datagram(data(0, ack=5), CLIENT_ADDR, 1.0)  # a later datagram of a session
    srv.receive_datagram(data(10**6), CLIENT_ADDR, 1.0)  # far past any buffer
    assert state(srv) is State.LISTEN and srv.stats.stray == 2 and srv.stats.malformed == 1
    assert (srv.session, srv.peer) == (None, None)
    srv.receive_datagram(data(0, b"GET /"), CLIENT_ADDR, 2.0)
    assert state(srv) is State.OPEN and (srv.session, srv.peer) == (SESSION, CLIENT_ADDR)
    assert events(srv) == [MessageReceived(b"GET /", 2.0)]
    # the held message goes out at once, and its DATA carries the ack: no separate ACK
    assert sent(srv) == [Packet(Kind.DATA, SESSION, 1, CREDIT, 0, True, b"held")]
    assert srv.get_timer() == 4.0  # keep-alive; RTO at 5, stall at 8


def test_a_keepalive_opens_for_a_client_whose_data_were_all_lost() -> None:
    srv = UdpGprsChannel.server()
    keepalive = Packet(Kind.KEEPALIVE, SESSION, 0, CREDIT, seq=3).encode()
    srv.receive_datagram(keepalive, CLIENT_ADDR, 9.0)
    assert state(srv) is State.OPEN and srv.session == SESSION and events(srv) == []
    assert sent(srv) == []  # nothing to acknowledge; its keep-alive comes at 11
    assert srv.get_timer() == 11.0
    srv.receive_datagram(data(2, b"c"), CLIENT_ADDR, 9.5)  # the client's tail probe
    assert sent(srv) == [Packet(Kind.NAK, SESSION, 0, CREDIT + 21, missing=((0, 2),))]


def test_gap_is_naked_at_once_and_again_after_the_nak_interval() -> None:
    srv = UdpGprsChannel.server()
    srv.receive_datagram(data(0, b"a"), CLIENT_ADDR, 1.0)
    assert sent(srv) == [Packet(Kind.ACK, SESSION, 1, CREDIT)]
    srv.receive_datagram(data(2, b"c"), CLIENT_ADDR, 1.5)
    held = 20 + 1  # seq 2 is held past the gap, so its octets are granted again
    assert sent(srv) == [Packet(Kind.NAK, SESSION, 1, CREDIT + held, missing=((1, 1),))]
    srv.receive_datagram(data(3, b"d"), CLIENT_ADDR, 1.8)  # same gap, NAKed recently
    assert sent(srv) == [Packet(Kind.ACK, SESSION, 1, CREDIT + 2 * held)]
    assert srv.get_timer() == 1.5 + NAK_INTERVAL
    srv.handle_timer(1.5 + NAK_INTERVAL)
    assert sent(srv) == [Packet(Kind.NAK, SESSION, 1, CREDIT + 2 * held, missing=((1, 1),))]
    srv.receive_datagram(data(1, b"b"), CLIENT_ADDR, 4.0)
    assert [e.data for e in events(srv) if isinstance(e, MessageReceived)] == [
        b"a",
        b"b",
        b"c",
        b"d",
    ]
    assert sent(srv) == [Packet(Kind.ACK, SESSION, 4, CREDIT)]
    assert srv.inbound.next_nak() is None
    srv.receive_datagram(data(1, b"b"), CLIENT_ADDR, 4.1)  # a repeat: delivered once only
    assert srv.stats.duplicates == 1 and events(srv) == []
    assert sent(srv) == [Packet(Kind.ACK, SESSION, 4, CREDIT)]


def test_nak_resends_exactly_the_named_datagrams() -> None:
    ch = client()
    for m in (b"a", b"b", b"c"):
        ch.send_message(m, 0.0)
    assert [p.seq for p in sent(ch)] == [0, 1, 2]
    nak = Packet(Kind.NAK, SESSION, 1, CREDIT + 21, missing=((1, 1),))
    ch.receive_datagram(nak.encode(), SERVER_ADDR, 1.0)
    assert sent(ch) == [Packet(Kind.DATA, SESSION, 0, CREDIT, 1, True, b"b")]
    assert ch.stats.data_resent == 1 and ch.outbound.peer_ack == 1
    # an RTT sample from seq 0 (0 -> 1 s): RTO = 1 + 4 x 0.5 = 3 s from the ack
    assert ch.outbound.srtt == 1.0 and ch.outbound.rto == 3.0


def test_sender_keeps_within_the_peers_credit() -> None:
    cfg = UdpGprsConfig()
    ch = client()
    ch.send_message(bytes(10 * cfg.max_payload), 0.0)
    out = sent(ch)
    assert len(out) == 4  # 4 x 1,472 = 5,888 <= 5,914 < 5 x 1,472
    assert ch.outbound.outstanding == 4 * 1472 <= CREDIT
    ch.receive_datagram(Packet(Kind.ACK, SESSION, 1, CREDIT).encode(), SERVER_ADDR, 1.0)
    assert [p.seq for p in sent(ch)] == [4]
    # the peer holds seqs 2..3 past a lost seq 1 and grants their octets again
    ch.receive_datagram(Packet(Kind.ACK, SESSION, 1, CREDIT + 2 * 1472).encode(), SERVER_ADDR, 1.1)
    assert [p.seq for p in sent(ch)] == [5, 6]
    # a reordered older grant for the same ack cannot shrink it
    ch.receive_datagram(Packet(Kind.ACK, SESSION, 1, CREDIT).encode(), SERVER_ADDR, 1.2)
    assert ch.outbound.peer_credit == CREDIT + 2 * 1472


@pytest.mark.parametrize(
    "forged",
    [
        Packet(Kind.ACK, SESSION, 9, CREDIT),  # acknowledges DATA never sent
        Packet(Kind.NAK, SESSION, 0, CREDIT, missing=((0, 5),)),  # NAKs the future
        Packet(Kind.DATA, SESSION, 0, CREDIT, 0xFFFF_FFFF, True, b"x"),  # far past the buffer
    ],
)
def test_implausible_datagrams_of_the_session_change_nothing(forged: Packet) -> None:
    ch = client()
    ch.send_message(b"a", 0.0)
    sent(ch)
    timer = ch.get_timer()
    ch.receive_datagram(forged.encode(), ("10.9.9.9", 1), 0.5)
    assert ch.stats.malformed == 1 and ch.peer == SERVER_ADDR and ch.get_timer() == timer
    assert sent(ch) == [] and events(ch) == [] and ch.outbound.peer_ack == 0


def test_foreign_session_and_garbage_are_dropped_and_counted() -> None:
    ch = client()
    ch.send_message(b"a", 0.0)
    sent(ch)
    ch.receive_datagram(Packet(Kind.ACK, SESSION ^ 1, 1, CREDIT).encode(), SERVER_ADDR, 0.5)
    ch.receive_datagram(b"\x00" * 30, SERVER_ADDR, 0.5)
    assert (ch.stats.stray, ch.stats.malformed) == (1, 1) and ch.outbound.peer_ack == 0


def test_a_fresh_datagram_from_a_new_address_moves_the_peer_a_stale_one_does_not() -> None:
    srv = UdpGprsChannel.server()
    first = data(0, b"a")
    srv.receive_datagram(first, CLIENT_ADDR, 0.0)
    sent(srv)
    moved = ("10.0.0.77", 40000)  # the mobile re-attached and got a new address
    srv.receive_datagram(data(1, b"b"), moved, 1.0)
    assert srv.peer == moved and srv.stats.migrations == 1
    assert srv.datagrams_to_send(1.0)[0][1] == moved
    # a late copy over the old path, a replayed keep-alive: the path stays
    keepalive = Packet(Kind.KEEPALIVE, SESSION, 0, CREDIT, seq=3).encode()
    srv.receive_datagram(keepalive, moved, 1.5)
    for stale in (first, keepalive):
        srv.receive_datagram(stale, CLIENT_ADDR, 2.0)
        assert srv.peer == moved
    # a newer keep-alive is fresh: after another re-attach it alone moves the peer
    again = ("10.0.0.78", 40001)
    srv.receive_datagram(Packet(Kind.KEEPALIVE, SESSION, 0, CREDIT, seq=4).encode(), again, 3.0)
    assert srv.peer == again and srv.stats.migrations == 2


def test_message_bounds() -> None:
    ch = UdpGprsChannel.client(SERVER_ADDR, random.Random(7), UdpGprsConfig(max_message=10))
    with pytest.raises(UdpGprsError, match="11 octets over 10"):
        ch.send_message(bytes(11), 0.0)
    srv = UdpGprsChannel.server(UdpGprsConfig(max_message=3))
    srv.receive_datagram(data(0, b"ab", end=False), CLIENT_ADDR, 0.0)
    srv.receive_datagram(data(1, b"cd"), CLIENT_ADDR, 0.1)
    assert state(srv) is State.FAILED
    assert events(srv) == [ChannelFailed("a message over 3 octets", 0.1)]


def test_messages_are_cut_to_the_datagram_and_marked_at_the_end() -> None:
    ch = client()
    payload = UdpGprsConfig().max_payload  # 1,452 octets
    ch.send_message(b"", 0.0)
    ch.send_message(bytes(payload), 0.0)
    ch.send_message(bytes(payload + 1), 0.0)
    out = sent(ch)
    assert [(p.seq, len(p.payload), p.end) for p in out] == [
        (0, 0, True),
        (1, payload, True),
        (2, payload, False),
        (3, 1, True),
    ]
    assert max(len(p.encode()) for p in out) == MAX


def test_an_unlisted_transition_is_an_error() -> None:
    with pytest.raises(UdpGprsError, match="no transition for RTO in IDLE"):
        client()._dispatch(Input.RTO, None, 0.0)


def test_config_is_checked() -> None:
    with pytest.raises(ValueError, match="credit"):
        UdpGprsConfig(credit=100)
    with pytest.raises(ValueError, match="keep-alive"):
        UdpGprsConfig(stall_after=1.0)


some_packet = st.builds(
    Packet,
    st.sampled_from(list(Kind)),
    st.sampled_from([SESSION, SESSION ^ 0x5A5A]),
    st.integers(0, 12),
    st.integers(1472, 0xFFFF),
    seq=st.integers(0, 40),
    end=st.booleans(),
    payload=st.binary(max_size=1452),
    missing=st.lists(st.tuples(st.integers(0, 30), st.integers(1, 5)), min_size=1, max_size=3).map(
        tuple
    ),
).map(lambda p: p if p.kind is Kind.DATA else replace(p, end=False, payload=b""))
operations = st.lists(
    st.one_of(
        st.tuples(st.just("send"), st.binary(max_size=4000)),
        st.tuples(st.just("timer"), st.none()),
        st.tuples(st.just("datagram"), some_packet),
    ),
    max_size=60,
)


@settings(max_examples=150, deadline=None)
@given(server=st.booleans(), ops=operations, gaps=st.lists(st.floats(0, 8), min_size=60))
def test_any_sequence_of_inputs_stays_in_the_table(
    server: bool, ops: list[tuple[str, object]], gaps: list[float]
) -> None:
    """Whatever arrives, in whatever order, every (state, input) pair met is in TABLE
    (an unlisted one raises), the buffer bound holds and timers never go back."""
    ch = UdpGprsChannel.server() if server else client()
    now = 0.0
    for (op, arg), gap in zip(ops, gaps, strict=False):
        now += gap
        if op == "send":
            assert isinstance(arg, bytes)
            ch.send_message(arg, now)
        elif op == "timer":
            timer = ch.get_timer()
            if timer is not None:
                now = max(now, timer)
                ch.handle_timer(now)
                after = ch.get_timer()
                assert after is None or after > now  # each due timer did its work
        else:
            assert isinstance(arg, Packet)
            ch.receive_datagram(arg.encode(), CLIENT_ADDR, now)
        ch.datagrams_to_send(now)
        events(ch)
        assert ch.inbound.held_octets <= ch.config.buffer
