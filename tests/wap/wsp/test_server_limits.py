"""WspServer against a bare WTP initiator: refusals with WSP Table 35 reasons, limits,
the idle sweep, session replacement, and TID verification of replayed invokes."""

import random

from wwanlab.core.pair import CLIENT_ADDR, SERVER_ADDR, Pair
from wwanlab.wap.wsp import pdu as wsp
from wwanlab.wap.wsp.capabilities import ClientSduSize, MethodMor
from wwanlab.wap.wsp.constants import AbortReason as WspReason
from wwanlab.wap.wsp.events import (
    MethodAborted,
    MethodInvoke,
    RequestRefused,
    SessionConnected,
    SessionDisconnected,
)
from wwanlab.wap.wsp.session import WspServer, WspServerConfig
from wwanlab.wap.wtp import pdu as wtp
from wwanlab.wap.wtp.constants import AbortReason, AbortType, TransactionClass
from wwanlab.wap.wtp.endpoint import WtpEndpoint
from wwanlab.wap.wtp.events import AbortIndication, ResultIndication

CLASS_2 = TransactionClass.CLASS_2
CLASS_0 = TransactionClass.CLASS_0
OTHER_ADDR = ("10.0.0.9", 1234)


def make_pair(config: WspServerConfig | None = None) -> tuple[Pair, WtpEndpoint, WspServer]:
    client = WtpEndpoint(random.Random(1))
    server = WspServer(random.Random(2), config or WspServerConfig(method_mor=16))
    return Pair(client, server, latency=0.01), client, server


def invoke(pair: Pair, client: WtpEndpoint, pdu: wsp.Pdu, tcl: TransactionClass = CLASS_2) -> int:
    handle = client.invoke(SERVER_ADDR, wsp.encode(pdu), tcl, True, pair.now)
    pair.flush()
    pair.run(until=pair.now + 0.1)
    return handle


def result_of(pair: Pair, handle: int) -> bytes:
    results = [
        e for e in pair.client_events if isinstance(e, ResultIndication) and e.handle == handle
    ]
    assert len(results) == 1
    return results[0].data


def aborts_of(pair: Pair, handle: int) -> list[AbortIndication]:
    return [e for e in pair.client_events if isinstance(e, AbortIndication) and e.handle == handle]


def invokes(pair: Pair) -> list[MethodInvoke]:
    return [e for e in pair.server_events if isinstance(e, MethodInvoke)]


def connect(pair: Pair, client: WtpEndpoint, ack: bool = True) -> wsp.ConnectReply:
    caps = (ClientSduSize(100_000), MethodMor(8))
    handle = invoke(pair, client, wsp.Connect(capabilities=caps))
    reply = wsp.decode(result_of(pair, handle))
    assert isinstance(reply, wsp.ConnectReply)
    if ack:
        client.result_ack(handle, pair.now)
        pair.flush()
        pair.run(until=pair.now + 0.1)
    return reply


def test_connect_get_reply_disconnect():
    pair, client, server = make_pair()
    reply = connect(pair, client)
    assert reply.session_id == 1
    assert MethodMor(8) in reply.capabilities and ClientSduSize(100_000) in reply.capabilities
    assert [type(e) for e in pair.server_events] == [SessionConnected]

    handle = invoke(pair, client, wsp.Get(uri="http://example.org/"))
    [request] = invokes(pair)
    assert request.uri == "http://example.org/" and request.peer == CLIENT_ADDR
    body = bytes(range(256)) * 40  # 10 240 octets: a segmented result
    answer = wsp.Reply(status=0x20, content_type=b"\xc2", data=body)
    assert server.respond(request.handle, answer, pair.now)
    assert not server.respond(request.handle, answer, pair.now)  # only once
    pair.run(until=pair.now + 1.0)
    assert wsp.decode(result_of(pair, handle)) == answer

    invoke(pair, client, wsp.Disconnect(session_id=1), CLASS_0)
    assert SessionDisconnected(1, WspReason.DISCONNECT) in pair.server_events
    assert server.sessions == {} and server.wtp.tid_cache.last == {}


def test_a_method_stands_for_the_lost_ack_of_the_connect_reply():
    """WSP 7.1.3: no method before S-Connect.cnf, so the Get proves the ConnectReply
    arrived; its transaction ends at once instead of resending the reply at timer R."""
    pair, client, server = make_pair()
    connect(pair, client, ack=False)
    assert server.wtp.pending() == 1
    invoke(pair, client, wsp.Get(uri="http://example.org/"))
    assert len(invokes(pair)) == 1
    assert server.wtp.pending() == 1  # the Get only: the Connect transaction ended
    sent = len(pair.log)
    pair.run(until=pair.now + 30.0)
    again = [p for e in pair.log[sent:] if e.side == "server" for p in wtp.decode(e.data)]
    assert again and not [p for p in again if isinstance(p, wtp.Result)]  # Acks only


def test_method_without_session_is_aborted_with_disconnect():
    pair, client, _server = make_pair()
    handle = invoke(pair, client, wsp.Get(uri="http://example.org/"))
    [abort] = aborts_of(pair, handle)
    assert (abort.abort_type, abort.reason, abort.local) == (
        AbortType.USER,
        WspReason.DISCONNECT,
        False,
    )
    assert invokes(pair) == []
    assert pair.server_events == [
        RequestRefused(CLIENT_ADDR, WspReason.DISCONNECT, "method outside a session")
    ]


def test_methods_beyond_the_mor_are_aborted_with_morexceeded():
    pair, client, _server = make_pair(WspServerConfig(method_mor=2))
    assert MethodMor(2) in connect(pair, client).capabilities  # 8 proposed, 2 allowed
    handles = [invoke(pair, client, wsp.Get(uri=f"http://example.org/{i}")) for i in range(3)]
    assert len(invokes(pair)) == 2
    assert aborts_of(pair, handles[0]) == aborts_of(pair, handles[1]) == []
    [abort] = aborts_of(pair, handles[2])
    assert (abort.abort_type, abort.reason) == (AbortType.USER, WspReason.MOREXCEEDED)


def test_malformed_wsp_in_an_invoke_is_aborted_with_protoerr():
    pair, client, _server = make_pair()
    handle = client.invoke(SERVER_ADDR, b"\x40\x85", CLASS_2, True, pair.now)  # URI cut short
    pair.flush()
    pair.run(until=1.0)
    [abort] = aborts_of(pair, handle)
    assert (abort.abort_type, abort.reason) == (AbortType.USER, WspReason.PROTOERR)
    [refused] = pair.server_events
    assert isinstance(refused, RequestRefused) and refused.reason == WspReason.PROTOERR


def test_malformed_headers_in_a_method_are_aborted_with_protoerr():
    pair, client, _server = make_pair()
    connect(pair, client)
    get = wsp.Get(uri="http://example.org/", headers=b"\x80")  # Accept with no value
    handle = invoke(pair, client, get)
    [abort] = aborts_of(pair, handle)
    assert (abort.abort_type, abort.reason) == (AbortType.USER, WspReason.PROTOERR)
    assert invokes(pair) == []


def test_a_reply_pdu_in_an_invoke_is_refused_with_protoerr():
    pair, client, _server = make_pair()
    handle = invoke(pair, client, wsp.Reply(status=0x20, content_type=b"\x83"))
    [abort] = aborts_of(pair, handle)
    assert abort.reason == WspReason.PROTOERR
    assert pair.server_events == [
        RequestRefused(
            CLIENT_ADDR, WspReason.PROTOERR, "Reply in a class 2 transaction is not served"
        )
    ]


def test_malformed_wtp_from_an_initiator_gets_a_provider_abort():
    server = WspServer(random.Random(2))
    # an Invoke header with a TID but a TPI length running past the end
    server.receive_datagram(b"\x8a\x00\x07\x12\x09", CLIENT_ADDR, 0.0)
    [(data, addr)] = server.datagrams_to_send(0.0)
    [abort] = wtp.decode(data)
    assert addr == CLIENT_ADDR
    assert isinstance(abort, wtp.Abort)
    assert (abort.tid, abort.tid_response, abort.abort_type) == (7, True, AbortType.PROVIDER)
    assert abort.reason == AbortReason.PROTOERR


def test_full_session_table_refuses_connect_with_congestion():
    pair, client, server = make_pair(WspServerConfig(max_sessions=1))
    connect(pair, client)
    other = WtpEndpoint(random.Random(3))
    pair2 = Pair(other, server, latency=0.01, client_addr=OTHER_ADDR, now=pair.now)
    handle = invoke(pair2, other, wsp.Connect())
    [abort] = aborts_of(pair2, handle)
    assert (abort.abort_type, abort.reason) == (AbortType.USER, WspReason.CONGESTION)
    assert [s.peer for s in server.sessions.values()] == [CLIENT_ADDR]


def test_a_disconnect_from_another_address_is_ignored():
    pair, client, server = make_pair()
    connect(pair, client)
    other = WtpEndpoint(random.Random(3))
    pair2 = Pair(other, server, latency=0.01, client_addr=OTHER_ADDR, now=pair.now)
    invoke(pair2, other, wsp.Disconnect(session_id=1), CLASS_0)
    assert list(server.sessions) == [1]


def test_new_connect_replaces_the_session_and_aborts_its_methods():
    pair, client, server = make_pair()
    connect(pair, client)
    invoke(pair, client, wsp.Get(uri="http://example.org/slow"))
    [request] = invokes(pair)
    reply = connect(pair, client)
    assert reply.session_id == 2
    assert MethodAborted(request.handle, WspReason.DISCONNECT) in pair.server_events
    assert SessionDisconnected(1, WspReason.DISCONNECT) in pair.server_events
    late = wsp.Reply(status=0x20, content_type=b"\x83")
    assert not server.respond(request.handle, late, pair.now)


def test_idle_sessions_are_dropped_after_the_timeout():
    pair, client, server = make_pair(WspServerConfig(idle_timeout=60.0))
    connect(pair, client)
    assert server.get_timer() == 60.01  # the Connect arrived at 0.01 s
    pair.run(until=59.0)
    assert list(server.sessions) == [1]
    pair.run(until=60.0 + 15.0 + 0.5)  # active until 0.13 s; the sweep runs every 15 s
    assert server.sessions == {} and server.get_timer() is None
    assert SessionDisconnected(1, WspReason.DISCONNECT) in pair.server_events


def test_a_session_with_a_method_open_is_not_idle():
    pair, client, server = make_pair(WspServerConfig(idle_timeout=60.0))
    connect(pair, client)
    invoke(pair, client, wsp.Get(uri="http://example.org/slow"))
    pair.run(until=200.0)
    assert list(server.sessions) == [1]


def test_close_disconnects_every_session():
    pair, client, server = make_pair()
    connect(pair, client)
    invoke(pair, client, wsp.Get(uri="http://example.org/slow"))
    [request] = invokes(pair)
    server.close(pair.now)
    pair.run(until=pair.now + 0.1)
    assert server.sessions == {}
    assert MethodAborted(request.handle, WspReason.DISCONNECT) in pair.server_events
    disconnects = [wsp.decode(e.data) for e in pair.client_events if hasattr(e, "data")]
    assert wsp.Disconnect(session_id=1) in disconnects


def test_tid_outside_the_window_is_verified_not_accepted():
    """WTP 7.8.2.3/7.9: a replayed or far-off TID starts verification, no new method."""
    server = WspServer(random.Random(2))
    connect_pdu = wsp.encode(wsp.Connect())
    first = wtp.Invoke(tid=100, tcl=CLASS_2, user_data=connect_pdu, up_flag=True)
    server.receive_datagram(wtp.encode(first), CLIENT_ADDR, 0.0)
    server.datagrams_to_send(0.0)  # the ConnectReply
    server.receive_datagram(wtp.encode(wtp.Ack(tid=100)), CLIENT_ADDR, 0.1)
    assert server.wtp.pending() == 0 and server.session_of(CLIENT_ADDR) is not None
    get = wsp.encode(wsp.Get(uri="http://example.org/"))
    # the finished transaction's TID again without RID (a replay), then one too far ahead
    for tid in (100, 100 + (1 << 14) + 1):
        replay = wtp.Invoke(tid=tid, tcl=CLASS_2, user_data=get, up_flag=True)
        server.receive_datagram(wtp.encode(replay), CLIENT_ADDR, 1.0)
        [(data, _)] = server.datagrams_to_send(1.0)
        [ack] = wtp.decode(data)
        assert isinstance(ack, wtp.Ack) and ack.tve_tok and ack.tid == tid
    events = list(iter(server.next_event, None))
    assert not [e for e in events if isinstance(e, MethodInvoke)]
