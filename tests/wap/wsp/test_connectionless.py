"""Connectionless WSP (port 9200): requests and replies matched by TID, exact bytes."""

import random

from wwanlab.core.pair import CLIENT_ADDR, SERVER_ADDR, Pair
from wwanlab.wap.wsp.connectionless import (
    CONNECTIONLESS_TIMEOUT,
    ConnectionlessClient,
    ConnectionlessServer,
)
from wwanlab.wap.wsp.events import MethodInvoke, MethodResult, RequestTimedOut
from wwanlab.wap.wsp.headers import encode_content_type
from wwanlab.wap.wsp.pdu import Get, Post, Reply, decode_connectionless

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


def test_garbage_is_ignored_on_both_sides():
    c, s, _pair = setup(timeout=None)
    s.receive_datagram(b"\x01", CLIENT_ADDR, 0.0)
    s.receive_datagram(b"\x07\x04\x99", CLIENT_ADDR, 0.0)  # a Reply sent to a server
    c.receive_datagram(b"\x05\x40\x00", SERVER_ADDR, 0.0)  # a Get sent to a client
    c.receive_datagram(b"", SERVER_ADDR, 0.0)
    assert s.next_event() is None and c.next_event() is None
    assert s.datagrams_to_send(0.0) == [] and c.datagrams_to_send(0.0) == []
