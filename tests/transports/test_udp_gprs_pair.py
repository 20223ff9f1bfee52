"""UDP-GPRS client and server together on the pair harness: loss, tail loss, a link
stall, and (hypothesis) loss, reordering, duplication and forged datagrams at once."""

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wwanlab.core.address import Address
from wwanlab.core.events import Event
from wwanlab.core.pair import CLIENT_ADDR, SERVER_ADDR, Pair, Side
from wwanlab.transports.udp_gprs import (
    ChannelFailed,
    Kind,
    LinkResumed,
    LinkStalled,
    MessageReceived,
    Packet,
    State,
    UdpGprsChannel,
    decode,
)
from wwanlab.transports.udp_gprs.packet import SEQ_LIMIT

RATE = 39_600.0  # bit/s, the gprs-3plus1 downlink (paper 003 section 3)
LATENCY = 0.3  # s one way, as the preset
MAX = 1472


def pair(**link: object) -> Pair:
    client = UdpGprsChannel.client(SERVER_ADDR, random.Random(3))
    server = UdpGprsChannel.server()
    return Pair(client, server, latency=LATENCY, rate_bps=RATE, **link)  # type: ignore[arg-type]


def messages(events: list[Event]) -> list[bytes]:
    return [e.data for e in events if isinstance(e, MessageReceived)]


def kinds(p: Pair, side: Side) -> list[Kind]:
    return [decode(s.data, MAX).kind for s in p.sent(side)]


def channel(p: Pair, side: Side) -> UdpGprsChannel:
    ep = p.endpoint(side)
    assert isinstance(ep, UdpGprsChannel)
    return ep


def test_clean_link_sends_each_fragment_once_and_acks_each() -> None:
    p = pair()
    sent = [b"", bytes(1452), random.Random(1).randbytes(5000)]
    for m in sent:
        channel(p, "client").send_message(m, 0.0)
    p.run(until=30.0)
    assert messages(p.server_events) == sent
    data = [k for k in kinds(p, "client") if k is Kind.DATA]
    assert len(data) == 1 + 1 + 4  # 5,000 octets: three full fragments and one of 644
    assert kinds(p, "server")[:6] == [Kind.ACK] * 6
    assert channel(p, "client").stats.data_resent == 0
    assert channel(p, "client").unacknowledged == 0


def test_a_lost_datagram_is_naked_and_resent_once() -> None:
    p = pair(drop=lambda side, i, data: side == "client" and i == 1)
    sent = [bytes([i]) * 1000 for i in range(4)]
    for m in sent:
        channel(p, "client").send_message(m, 0.0)
    p.run(until=30.0)
    assert messages(p.server_events) == sent
    naks = [decode(s.data, MAX) for s in p.sent("server")]
    naks = [n for n in naks if n.kind is Kind.NAK]
    assert [n.missing for n in naks] == [((1, 1),)]
    resent = [decode(s.data, MAX).seq for s in p.sent("client")[4:] if s.data[0] == 0x11]
    assert resent == [1]
    assert channel(p, "client").stats.tail_probes == 0


def test_a_lost_last_datagram_is_recovered_by_the_tail_probe() -> None:
    p = pair(drop=lambda side, i, data: side == "client" and i == 2)
    sent = [b"a", b"b", b"c"]
    for m in sent:
        channel(p, "client").send_message(m, 0.0)
    p.run(until=30.0)
    assert messages(p.server_events) == sent
    c = channel(p, "client")
    assert c.stats.tail_probes == 1 and c.stats.data_resent == 1
    probe = next(s for s in p.sent("client")[3:] if s.data[0] == 0x11)
    # RFC 6298 over the two samples (seq 0 and 1 sent at 0, acked by the first two ACKs),
    # the RTO armed when the second ACK moved the cumulative ack on
    r1, r2 = (s.delivered_at for s in p.sent("server")[:2])
    assert r1 is not None and r2 is not None
    srtt, rttvar = r1, r1 / 2
    rttvar = 0.75 * rttvar + 0.25 * abs(srtt - r2)
    srtt = 0.875 * srtt + 0.125 * r2
    assert probe.sent_at == r2 + max(c.config.rto_min, srtt + 4 * rttvar)
    assert kinds(p, "server").count(Kind.NAK) == 0


def test_a_link_stall_is_reported_on_both_ends_and_repaired() -> None:
    outage = (4.0, 30.0)
    p = pair()
    p.drop = lambda side, i, data: outage[0] <= p.now < outage[1]
    sent = [random.Random(i).randbytes(3000) for i in range(8)]
    for m in sent:
        channel(p, "client").send_message(m, 0.0)
    p.run(until=60.0)
    assert messages(p.server_events) == sent
    sides: list[tuple[Side, list[Event]]] = [
        ("client", p.client_events),
        ("server", p.server_events),
    ]
    for side, events in sides:
        heard = max(
            s.delivered_at
            for s in p.log
            if s.side != side and s.delivered_at is not None and s.delivered_at < outage[1]
        )
        stalls = [e for e in events if isinstance(e, LinkStalled)]
        resumed = [e for e in events if isinstance(e, LinkResumed)]
        assert [e.at for e in stalls] == [heard + 6.0]
        assert stalls[0].silent_for == pytest.approx(6.0)
        assert len(resumed) == 1 and outage[1] < resumed[0].at < outage[1] + 3.0
        assert not any(isinstance(e, ChannelFailed) for e in events)
        assert channel(p, side).state is State.OPEN


def test_a_dead_link_fails_both_ends_after_fail_after() -> None:
    p = pair()
    p.drop = lambda side, i, data: p.now >= 2.0
    channel(p, "client").send_message(bytes(20_000), 0.0)
    p.run()  # ends: a failed endpoint arms no timer
    sides: list[tuple[Side, list[Event]]] = [
        ("client", p.client_events),
        ("server", p.server_events),
    ]
    for side, events in sides:
        heard = max(s.delivered_at for s in p.log if s.side != side and s.delivered_at)
        assert [e for e in events if isinstance(e, ChannelFailed)] == [
            ChannelFailed("nothing heard for 60.0 s", heard + 60.0)
        ]
        assert channel(p, side).state is State.FAILED and channel(p, side).get_timer() is None


class Echo:
    """A server proxy that answers each message with its reverse, then (``Hostile``)
    feeds it the network's worst: repeats and forgeries."""

    def __init__(self, inner: UdpGprsChannel, rng: random.Random, until: float) -> None:
        self.inner = inner
        self.rng = rng
        self.until = until
        self.seen: list[bytes] = []

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        self.seen.append(data)
        self.inner.receive_datagram(data, addr, now)
        self.check()
        if now >= self.until:
            return
        if self.rng.random() < 0.2:
            self.inner.receive_datagram(data, addr, now)  # duplicated by the network
        if self.rng.random() < 0.3:
            self.inner.receive_datagram(self.forge(data), ("10.6.6.6", 666), now)
        self.check()

    def forge(self, data: bytes) -> bytes:
        rng = self.rng
        how = rng.randrange(4)
        if how == 0:
            return rng.randbytes(rng.randrange(0, 60))
        if how == 1:  # corrupted in flight
            octets = bytearray(data)
            octets[rng.randrange(len(octets))] ^= 1 << rng.randrange(8)
            return bytes(octets)
        if how == 2 and self.seen:  # a stale datagram replayed
            return rng.choice(self.seen)
        # well formed, from another session (the inner one is open by now; a listening
        # one would adopt a first DATA or KEEPALIVE, never an ACK)
        session = rng.getrandbits(32)
        if self.inner.state is State.LISTEN or session == self.inner.session:
            return Packet(Kind.ACK, session, 0, 100).encode()
        seq = rng.randrange(SEQ_LIMIT)
        return Packet(Kind.DATA, session, 0, 0xFFFF, seq, True, b"forged").encode()

    def check(self) -> None:
        out = self.inner.outbound
        assert out.outstanding <= max(
            out.peer_credit, max((20 + len(f.payload) for f in out.in_flight.values()), default=0)
        )
        assert self.inner.inbound.held_octets <= self.inner.config.buffer
        assert self.inner.peer in (None, CLIENT_ADDR)  # no forgery or replay moved it

    def handle_timer(self, now: float) -> None:
        self.inner.handle_timer(now)

    def get_timer(self) -> float | None:
        return self.inner.get_timer()

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        return self.inner.datagrams_to_send(now)

    def next_event(self) -> Event | None:
        event = self.inner.next_event()
        if isinstance(event, MessageReceived):
            self.inner.send_message(event.data[::-1], event.at)
        return event


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    sizes=st.lists(st.integers(0, 4000), min_size=1, max_size=12),
    loss=st.floats(0.0, 0.3),
    jitter=st.floats(0.0, 0.8),
    seed=st.integers(0, 2**32 - 1),
)
def test_never_wrong_duplicate_or_out_of_order_and_all_arrive_after(
    sizes: list[int], loss: float, jitter: float, seed: int
) -> None:
    rng = random.Random(seed)
    impaired_until = 40.0
    client = UdpGprsChannel.client(SERVER_ADDR, rng)
    server = Echo(UdpGprsChannel.server(), random.Random(rng.random()), impaired_until)
    p = Pair(client, server, latency=LATENCY, rate_bps=RATE, jitter=jitter, rng=rng)
    p.drop = lambda side, i, data: p.now < impaired_until and rng.random() < loss
    sent = [rng.randbytes(n) for n in sizes]
    for m in sent:
        client.send_message(m, 0.0)
    p.run(until=impaired_until)
    # during the impairments: only a prefix, in order, each once
    assert messages(p.server_events) == sent[: len(messages(p.server_events))]
    assert messages(p.client_events) == [m[::-1] for m in sent][: len(messages(p.client_events))]
    p.run(until=impaired_until + 120.0)
    assert messages(p.server_events) == sent
    assert messages(p.client_events) == [m[::-1] for m in sent]
    assert client.unacknowledged == 0 and server.inner.unacknowledged == 0
    assert not any(isinstance(e, ChannelFailed) for e in p.client_events + p.server_events)
