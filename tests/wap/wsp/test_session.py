"""Connection-oriented WSP over WTP on the Pair harness: sessions, methods, negotiation."""

import random
from collections.abc import Callable
from typing import Any

import pytest
from tests.wap.harness import Reactor

from wwanlab.core.address import Address
from wwanlab.core.events import Event
from wwanlab.core.pair import SERVER_ADDR, Pair
from wwanlab.wap.wsp.capabilities import (
    ClientSduSize,
    MethodMor,
    ProtocolOptions,
    PushMor,
    ServerSduSize,
)
from wwanlab.wap.wsp.common import WspError
from wwanlab.wap.wsp.constants import AbortReason
from wwanlab.wap.wsp.events import (
    Connected,
    Disconnected,
    MethodAborted,
    MethodInvoke,
    MethodResult,
    Negotiated,
    ReplyConfirmed,
    Resumed,
    SessionConnected,
    SessionDisconnected,
    SessionResumed,
    SessionSuspended,
    Suspended,
)
from wwanlab.wap.wsp.pdu import (
    Connect,
    ConnectReply,
    Disconnect,
    Get,
    Reply,
    Resume,
    decode,
)
from wwanlab.wap.wsp.session import (
    ClientSession,
    ClientState,
    ServerState,
    WspClientConfig,
    WspServer,
    WspServerConfig,
)
from wwanlab.wap.wtp.constants import TransactionClass
from wwanlab.wap.wtp.pdu import Abort, Invoke, Result
from wwanlab.wap.wtp.pdu import decode as wtp_decode

HTML = (("Content-Type", "text/html"),)


def gateway(ep: WspServer, e: Event, now: float) -> None:
    """Answers every request at once with its URI."""
    if isinstance(e, MethodInvoke):
        ep.reply(e.handle, 200, HTML, f"{e.method} {e.uri}".encode(), now)


def nothing(ep: Any, e: Event, now: float) -> None:
    """Keeps the requests waiting."""


def setup(
    app: Callable[[Any, Event, float], None] = gateway,
    client: WspClientConfig | None = None,
    server: WspServerConfig | None = None,
) -> tuple[ClientSession, WspServer, Pair]:
    c = ClientSession(SERVER_ADDR, random.Random(1), client)
    s = WspServer(random.Random(2), server)
    pair = Pair(Reactor(c, nothing), Reactor(s, app), latency=0.1)
    return c, s, pair


def connected(**kw: Any) -> tuple[ClientSession, WspServer, Pair]:
    """``setup`` with the client's S-Connect.req at 0 s, run to 1 s."""
    c, s, pair = setup(**kw)
    c.connect(0.0)
    pair.run(until=1.0)
    return c, s, pair


def wsp_pdus(pair: Pair, side: str) -> list[tuple[float, Any]]:
    """(time, WSP PDU) for every WTP Invoke or Result the side sent."""
    out = []
    for rec in pair.log:
        pdu = wtp_decode(rec.data)[0]
        if rec.side == side and isinstance(pdu, (Invoke, Result)):
            out.append((round(rec.sent_at, 6), decode(pdu.user_data)))
    return out


def test_connect_get_disconnect_exact():
    c, s, pair = connected()
    request = c.get("http://origin/a", pair.now)
    pair.run(until=2.0)
    c.disconnect(pair.now)
    pair.run()
    client = wsp_pdus(pair, "client")
    assert [(t, type(p).__name__) for t, p in client] == [
        (0.0, "Connect"),
        (1.0, "Get"),
        (2.0, "Disconnect"),
    ]
    assert client[1][1] == Get(uri="http://origin/a")
    assert client[2][1] == Disconnect(session_id=1)
    server = wsp_pdus(pair, "server")
    assert [(t, type(p).__name__) for t, p in server] == [(0.1, "ConnectReply"), (1.1, "Reply")]
    # Disconnect is a class 0 invoke; Connect and Get are class 2 with user acknowledgement
    invokes = [wtp_decode(r.data)[0] for r in pair.sent("client")]
    classes = [(p.tcl, p.up_flag) for p in invokes if isinstance(p, Invoke)]
    assert classes == [(TransactionClass.CLASS_2, True)] * 2 + [(TransactionClass.CLASS_0, False)]
    negotiated = Negotiated(358400, 358400, 0x20, 1, 1)
    assert pair.client_events == [
        Connected(1, negotiated, ()),
        MethodResult(request, 200, HTML, b"GET http://origin/a"),
        Disconnected(AbortReason.USERREQ),
    ]
    assert [type(e) for e in pair.server_events] == [
        SessionConnected,
        MethodInvoke,
        ReplyConfirmed,
        SessionDisconnected,
    ]
    assert pair.server_events[-1] == SessionDisconnected(1, AbortReason.DISCONNECT)
    assert c.state == ClientState.NULL and s.sessions == {}
    assert c.wtp.pending() == 0 and s.wtp.pending() == 0


def test_capability_negotiation_outcome():
    client = WspClientConfig(
        client_sdu_size=5000, server_sdu_size=2000, protocol_options=0xA0, method_mor=5, push_mor=3
    )
    server = WspServerConfig(server_sdu_size=1400, protocol_options=0x20, method_mor=2, push_mor=1)
    c, s, pair = connected(client=client, server=server)
    [(_, connect)] = wsp_pdus(pair, "client")
    assert isinstance(connect, Connect)
    assert connect.capabilities == (
        ClientSduSize(5000),
        ServerSduSize(2000),
        ProtocolOptions(0xA0),
        MethodMor(5),
        PushMor(3),
    )
    [(_, reply)] = wsp_pdus(pair, "server")
    assert isinstance(reply, ConnectReply)
    assert reply.capabilities == (
        ClientSduSize(5000),
        ServerSduSize(1400),
        ProtocolOptions(0x20),
        MethodMor(2),
        PushMor(1),
    )
    expected = Negotiated(5000, 1400, 0x20, 2, 1)
    assert c.capabilities == expected == s.sessions[1].capabilities
    assert isinstance(pair.client_events[0], Connected)
    assert pair.client_events[0].capabilities == expected


def test_method_mor_limits_outstanding_requests():
    c, s, pair = connected(app=nothing, client=WspClientConfig(method_mor=2))
    reqs = [c.get(f"http://o/{i}", pair.now) for i in range(3)]
    pair.run(until=2.0)
    assert [p.uri for _, p in wsp_pdus(pair, "client") if isinstance(p, Get)] == [
        "http://o/0",
        "http://o/1",
    ]
    first = next(e for e in pair.server_events if isinstance(e, MethodInvoke))
    s.reply(first.handle, 200, HTML, b"0", pair.now)
    pair.run(until=3.0)
    gets = [(t, p.uri) for t, p in wsp_pdus(pair, "client") if isinstance(p, Get)]
    assert gets == [(1.0, "http://o/0"), (1.0, "http://o/1"), (2.1, "http://o/2")]
    assert MethodResult(reqs[0], 200, HTML, b"0") in pair.client_events


def test_reply_larger_than_client_sdu_is_aborted():
    c, _s, pair = connected(client=WspClientConfig(client_sdu_size=100))
    req = c.get("http://o/" + "x" * 200, pair.now)
    pair.run()
    assert MethodAborted(req, AbortReason.MRUEXCEEDED) in pair.client_events
    handle = next(e.handle for e in pair.server_events if isinstance(e, MethodInvoke))
    assert MethodAborted(handle, AbortReason.MRUEXCEEDED) in pair.server_events


def test_40kb_reply_over_sar_is_byte_exact():
    body = random.Random(3).randbytes(40 * 1024)

    def app(ep: WspServer, e: Event, now: float) -> None:
        if isinstance(e, MethodInvoke):
            ep.reply(e.handle, 200, HTML, body, now)

    c, _s, pair = connected(app=app)
    req = c.get("http://o/big", pair.now)
    pair.run()
    assert MethodResult(req, 200, HTML, body) in pair.client_events
    results = [wtp_decode(r.data)[0] for r in pair.sent("server")]
    assert sum(1 for p in results if type(p).__name__ == "SegmentedResult") == 29  # 30 packets


def test_suspend_and_resume_from_a_new_address():
    c, s, pair = connected()
    c.suspend(pair.now)
    pair.run(until=2.0)
    assert pair.client_events[-1] == Suspended(AbortReason.USERREQ)
    assert pair.server_events[-1] == SessionSuspended(1, AbortReason.SUSPEND)
    assert [x.state for x in s.sessions.values()] == [ServerState.SUSPENDED]
    with pytest.raises(WspError):
        c.get("http://o/while-suspended", pair.now)
    moved: Address = ("10.0.0.99", 50001)
    pair.client_addr = moved
    c.resume(pair.now)
    pair.run(until=3.0)
    assert pair.client_events[-1:] == [Resumed()]
    assert pair.server_events[-1:] == [SessionResumed(1, moved)]
    assert [(x.peer, x.state) for x in s.sessions.values()] == [(moved, ServerState.CONNECTED)]
    kinds = [type(p).__name__ for _, p in wsp_pdus(pair, "client")]
    assert kinds == ["Connect", "Suspend", "Resume"]
    resume = wsp_pdus(pair, "client")[-1][1]
    assert resume == Resume(session_id=1)
    assert isinstance(wsp_pdus(pair, "server")[-1][1], Reply)
    req = c.get("http://o/after", pair.now)
    pair.run()
    assert MethodResult(req, 200, HTML, b"GET http://o/after") in pair.client_events
    invoke = next(e for e in reversed(pair.server_events) if isinstance(e, MethodInvoke))
    assert invoke.peer == moved


def test_resume_of_unknown_session_disconnects():
    c, s, pair = connected()
    c.suspend(pair.now)
    pair.run(until=2.0)
    s.sessions.clear()  # the server forgot the session (a restart)
    c.resume(pair.now)
    pair.run()
    assert pair.client_events[-1] == Disconnected(AbortReason.DISCONNECT)
    assert c.state == ClientState.NULL


def test_client_method_abort():
    c, s, pair = connected(app=nothing)
    req = c.get("http://o/slow", pair.now)
    pair.run(until=2.0)
    c.abort_method(req, pair.now)
    pair.run()
    assert pair.client_events[-1] == MethodAborted(req, AbortReason.USERREQ)
    handle = next(e.handle for e in pair.server_events if isinstance(e, MethodInvoke))
    assert pair.server_events[-1] == MethodAborted(handle, AbortReason.PEERREQ)
    abort = wtp_decode(pair.sent("client")[-1].data)[0]
    assert isinstance(abort, Abort) and abort.reason == AbortReason.PEERREQ
    # the gateway's late answer is refused quietly, and aborting again does nothing
    assert s.reply(handle, 200, HTML, b"too late", pair.now) is False
    c.abort_method(req, pair.now)
    assert c.next_event() is None
    assert c.wtp.pending() == 0 and s.wtp.pending() == 0


def test_server_method_abort_and_server_disconnect():
    c, s, pair = connected(app=nothing)
    req = c.get("http://o/x", pair.now)
    pair.run(until=2.0)
    handle = next(e.handle for e in pair.server_events if isinstance(e, MethodInvoke))
    s.abort(handle, pair.now)
    pair.run(until=3.0)
    assert pair.client_events[-1] == MethodAborted(req, AbortReason.PEERREQ)
    s.disconnect(1, pair.now)
    pair.run()
    assert pair.client_events[-1:] == [Disconnected(AbortReason.DISCONNECT)]
    assert c.state == ClientState.NULL and s.sessions == {}


def test_many_sessions_on_one_server():
    s = WspServer(random.Random(2))
    clients = [ClientSession(SERVER_ADDR, random.Random(10 + i)) for i in range(5)]
    for i, c in enumerate(clients):
        c.connect(0.0)
        for data, _ in c.datagrams_to_send(0.0):
            s.receive_datagram(data, (f"10.0.1.{i}", 2000), 0.0)
    assert sorted(s.sessions) == [1, 2, 3, 4, 5]
    assert [s.sessions[i + 1].peer for i in range(5)] == [(f"10.0.1.{i}", 2000) for i in range(5)]


def test_commands_outside_their_state_raise():
    c, _s, _pair = setup()
    with pytest.raises(WspError):
        c.get("http://o/", 0.0)
    with pytest.raises(WspError):
        c.resume(0.0)
    c.connect(0.0)
    with pytest.raises(WspError):
        c.connect(0.0)
