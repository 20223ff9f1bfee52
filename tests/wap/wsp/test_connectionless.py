"""Connectionless WSP (port 9200): requests and replies matched by TID, exact bytes."""

import random

from wwanlab.core.pair import CLIENT_ADDR, SERVER_ADDR, Pair
from wwanlab.wap.wsp.common import text_reply
from wwanlab.wap.wsp.connectionless import (
    CONNECTIONLESS_TIMEOUT,
    ConnectionlessClient,
    ConnectionlessServer,
)
from wwanlab.wap.wsp.constants import AbortReason
from wwanlab.wap.wsp.events import (
    DatagramDropped,
    MethodInvoke,
    MethodResult,
    RequestRefused,
    RequestTimedOut,
)
from wwanlab.wap.wsp.headers import decode_content_type, encode_content_type
from wwanlab.wap.wsp.pdu import Get, Post, Reply, decode_connectionless, encode_connectionless

XML = (("Content-Type", "application/xml"),)


def setup(
    timeout: float | None = CONNECTIONLESS_TIMEOUT,
) -> tuple[ConnectionlessClient, ConnectionlessServer, Pair]:
    c = ConnectionlessClient(SERVER_ADDR, random.Random(1), timeout)
    s = ConnectionlessServer()
    return c, s, Pair(c, s, latency=0.05)


def test_get_and_reply_share_the_tid():
    c, s, pair = setup()
    tid = c.get("http://ws/echo", 0.0, headers=(("Accept", "application/xml"),))
    pair.run(until=1.0)
    [invoke] = pair.server_events
    assert isinstance(invoke, MethodInvoke)
    assert (invoke.session, invoke.peer, invoke.method, invoke.uri) == (
        None,
        CLIENT_ADDR,
        "GET",
        "http://ws/echo",
    )
    assert invoke.headers == (("Accept", "application/xml"),) and invoke.body == b""
    s.reply(invoke.handle, 200, XML, b"<ok/>", pair.now)
    pair.run()
    assert pair.client_events == [MethodResult(tid, 200, XML, b"<ok/>")]
    request, reply = (decode_connectionless(r.data) for r in pair.log)
    assert request[0] == reply[0] == tid == pair.log[0].data[0]
    assert isinstance(request[1], Get) and request[1].uri == "http://ws/echo"
    assert reply[1] == Reply(
        status=0x20, content_type=encode_content_type("application/xml"), data=b"<ok/>"
    )
    assert c.get_timer() is None and s.pending() == 0


def test_post_carries_content_type_and_body():
    c, _s, pair = setup()
    c.post("http://ws/soap", "application/soap+xml", b"<Envelope/>", 0.0)
    pair.run()
    [invoke] = pair.server_events
    assert isinstance(invoke, MethodInvoke)
    assert invoke.method == "POST" and invoke.body == b"<Envelope/>"
    assert invoke.headers == (("Content-Type", "application/soap+xml"),)
    _, pdu = decode_connectionless(pair.log[0].data)
    assert isinstance(pdu, Post) and pdu.data == b"<Envelope/>"


def test_replies_out_of_order_are_matched_by_tid():
    c, s, pair = setup()
    tids = [c.get(f"http://ws/{i}", 0.0) for i in range(3)]
    assert len(set(tids)) == 3 and tids[1] == (tids[0] + 1) % 256
    pair.run(until=1.0)
    for invoke in reversed(pair.server_events):
        assert isinstance(invoke, MethodInvoke)
        s.reply(invoke.handle, 200, XML, invoke.uri.encode(), pair.now)
    pair.run()
    got = {e.request: e.body for e in pair.client_events if isinstance(e, MethodResult)}
    assert got == {tid: f"http://ws/{i}".encode() for i, tid in enumerate(tids)}


def test_lost_reply_times_out_exactly_and_late_reply_is_dropped():
    c, s, pair = setup()
    tid = c.get("http://ws/lost", 0.0)
    pair.run()
    assert pair.client_events == [RequestTimedOut(tid)]
    assert pair.now == CONNECTIONLESS_TIMEOUT
    [invoke] = pair.server_events
    assert isinstance(invoke, MethodInvoke)
    s.reply(invoke.handle, 200, XML, b"late", pair.now)
    pair.run()
    assert pair.client_events == [RequestTimedOut(tid)]


def test_garbage_is_dropped_and_reported_by_the_server_ignored_by_the_client():
    c, s, _pair = setup(timeout=None)
    s.receive_datagram(b"\x01", CLIENT_ADDR, 0.0)
    s.receive_datagram(
        encode_connectionless(7, Reply(status=0x20, content_type=b"\x83")), CLIENT_ADDR, 0.0
    )
    s.receive_datagram(b"\x07\x40\x00\x01\x99", CLIENT_ADDR, 0.0)  # headers cut short
    c.receive_datagram(b"\x05\x40\x00", SERVER_ADDR, 0.0)  # a Get sent to a client
    s.receive_datagram(b"\x07\x04\x99", CLIENT_ADDR, 0.0)  # a Reply cut short
    c.receive_datagram(b"", SERVER_ADDR, 0.0)
    dropped = [s.next_event() for _ in range(4)]
    assert all(isinstance(e, DatagramDropped) and e.peer == CLIENT_ADDR for e in dropped)
    assert "Reply is not a request" in str(dropped[1])
    assert s.next_event() is None and c.next_event() is None
    assert s.datagrams_to_send(0.0) == [] and c.datagrams_to_send(0.0) == [] and not s.pending()


def test_client_resends_the_same_datagram_until_answered():
    c = ConnectionlessClient(SERVER_ADDR, random.Random(1), timeout=5.0, retry_after=2.0)
    s = ConnectionlessServer()
    pair = Pair(c, s, latency=0.05, drop=lambda side, i, _: side == "client" and i == 0)
    tid = c.get("http://ws/x", 0.0)
    pair.run(until=3.0)
    assert [round(r.sent_at, 6) for r in pair.log] == [0.0, 2.0]
    assert pair.log[0].data == pair.log[1].data and pair.log[1].data[0] == tid
    assert c.get_timer() == 4.0
    [invoke] = pair.server_events
    assert isinstance(invoke, MethodInvoke)
    assert s.reply(invoke.handle, 200, XML, b"ok", pair.now)
    pair.run()
    assert pair.client_events == [MethodResult(tid, 200, XML, b"ok")]
    assert c.get_timer() is None


def test_client_gives_up_at_the_timeout_after_its_resends():
    c = ConnectionlessClient(SERVER_ADDR, random.Random(1), timeout=5.0, retry_after=2.0)
    pair = Pair(c, ConnectionlessServer(), latency=0.05, drop=lambda *_: True)
    tid = c.get("http://ws/x", 0.0)
    pair.run()
    assert [r.sent_at for r in pair.log] == [0.0, 2.0, 4.0]
    assert pair.client_events == [RequestTimedOut(tid)] and pair.now == 5.0


def test_server_takes_a_resent_tid_as_the_same_request():
    s = ConnectionlessServer()
    get = encode_connectionless(7, Get(uri="http://ws/x"))
    s.receive_datagram(get, CLIENT_ADDR, 0.0)
    s.receive_datagram(get, CLIENT_ADDR, 2.0)
    [invoke] = [e for e in iter(s.next_event, None)]
    assert isinstance(invoke, MethodInvoke) and s.pending() == 1
    assert s.reply(invoke.handle, 200, XML, b"", 2.0)
    assert not s.reply(invoke.handle, 200, XML, b"", 2.0)  # answered already
    s.receive_datagram(get, CLIENT_ADDR, 3.0)  # after the answer: a new request
    assert isinstance(s.next_event(), MethodInvoke)


def test_server_bounds_what_one_peer_has_pending():
    s = ConnectionlessServer(max_pending_per_peer=2)
    for tid in range(3):
        s.receive_datagram(encode_connectionless(tid, Get(uri="http://ws/")), CLIENT_ADDR, 0.0)
    events = list(iter(s.next_event, None))
    assert [type(e).__name__ for e in events] == ["MethodInvoke", "MethodInvoke", "RequestRefused"]
    assert events[2] == RequestRefused(CLIENT_ADDR, AbortReason.CONGESTION, "too many pending")
    [(data, peer)] = s.datagrams_to_send(0.0)
    tid, reply = decode_connectionless(data)
    assert (tid, peer) == (2, CLIENT_ADDR)
    assert isinstance(reply, Reply) and reply.status == 0x63 and reply.data.startswith(b"too many")
    other = ("10.0.0.9", 5000)
    s.receive_datagram(encode_connectionless(0, Get(uri="http://ws/")), other, 0.0)
    assert isinstance(s.next_event(), MethodInvoke)  # another peer is not held back


def test_server_replaces_a_reply_too_large_for_one_datagram():
    s = ConnectionlessServer(max_reply=100)
    s.receive_datagram(encode_connectionless(9, Get(uri="http://ws/")), CLIENT_ADDR, 0.0)
    invoke = s.next_event()
    assert isinstance(invoke, MethodInvoke)
    s.reply(invoke.handle, 200, XML, bytes(200), 0.0)
    [(data, _)] = s.datagrams_to_send(0.0)
    tid, reply = decode_connectionless(data)
    assert tid == 9 and isinstance(reply, Reply) and reply.status == 0x60  # 500
    assert reply.data == b"reply of 205 octets exceeds 100\n"


def test_text_reply_is_a_plain_text_reply_with_the_wsp_status():
    reply = text_reply(403, "origin 10.0.0.1 is not allowed")
    assert reply.status == 0x43
    assert reply.data == b"origin 10.0.0.1 is not allowed\n"
    assert decode_content_type(reply.content_type) == "text/plain" and reply.headers == b""
