"""The gateway's sans-IO WSP server: sessions, refusals with the spec's reasons, limits."""

import random

from wwanlab.core.pair import CLIENT_ADDR, SERVER_ADDR, Pair
from wwanlab.wap.gateway.server import (
    ConnectionlessServer,
    ConnectionOrientedServer,
    DatagramDropped,
    GatewayLimits,
    MethodCancelled,
    MethodRefused,
    MethodRequest,
    SessionClosed,
    SessionOpened,
)
from wwanlab.wap.gateway.translate import error_reply
from wwanlab.wap.wsp import pdu as wsp
from wwanlab.wap.wsp.capabilities import ClientSduSize, MethodMor
from wwanlab.wap.wsp.constants import AbortReason as WspReason
from wwanlab.wap.wtp import pdu as wtp
from wwanlab.wap.wtp.constants import AbortReason, AbortType, TransactionClass
from wwanlab.wap.wtp.endpoint import WtpEndpoint
from wwanlab.wap.wtp.events import AbortIndication, ResultIndication

CLASS_2 = TransactionClass.CLASS_2
CLASS_0 = TransactionClass.CLASS_0


def make_pair(
    limits: GatewayLimits | None = None,
) -> tuple[Pair, WtpEndpoint, ConnectionOrientedServer]:
    client = WtpEndpoint(random.Random(1))
    server = ConnectionOrientedServer(random.Random(2), limits)
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


def connect(pair: Pair, client: WtpEndpoint) -> wsp.ConnectReply:
    handle = invoke(pair, client, wsp.Connect(capabilities=(ClientSduSize(100_000),)))
    reply = wsp.decode(result_of(pair, handle))
    assert isinstance(reply, wsp.ConnectReply)
    client.result_ack(handle, pair.now)
    pair.flush()
    pair.run(until=pair.now + 0.1)
    return reply


def test_connect_get_reply_disconnect():
    pair, client, server = make_pair()
    reply = connect(pair, client)
    assert reply.session_id == 1
    assert MethodMor(16) in reply.capabilities
    assert ClientSduSize(100_000) in reply.capabilities
    assert SessionOpened(CLIENT_ADDR, 1) in pair.server_events

    handle = invoke(pair, client, wsp.Get(uri="http://example.org/"))
    requests = [e for e in pair.server_events if isinstance(e, MethodRequest)]
    assert len(requests) == 1 and requests[0].method.uri == "http://example.org/"
    body = bytes(range(256)) * 40  # 10 240 octets: a segmented result
    answer = wsp.Reply(status=0x20, content_type=b"\xc2", data=body)
    assert server.respond(requests[0].request_id, answer, pair.now)
    pair.flush()
    pair.run(until=pair.now + 1.0)
    assert wsp.decode(result_of(pair, handle)) == answer
    assert not server.respond(requests[0].request_id, answer, pair.now)  # only once

    invoke(pair, client, wsp.Disconnect(session_id=1), CLASS_0)
    assert SessionClosed(CLIENT_ADDR, 1, "client disconnect") in pair.server_events
    assert server.sessions == {}


def test_method_without_session_is_aborted_with_disconnect():
    pair, client, _server = make_pair()
    handle = invoke(pair, client, wsp.Get(uri="http://example.org/"))
    [abort] = aborts_of(pair, handle)
    assert (abort.abort_type, abort.reason, abort.local) == (
        AbortType.USER,
        WspReason.DISCONNECT,
        False,
    )
    assert not [e for e in pair.server_events if isinstance(e, MethodRequest)]


def test_methods_beyond_the_mor_are_aborted_with_morexceeded():
    pair, client, _server = make_pair(GatewayLimits(max_methods_per_session=2))
    connect(pair, client)
    handles = [invoke(pair, client, wsp.Get(uri=f"http://example.org/{i}")) for i in range(3)]
    assert len([e for e in pair.server_events if isinstance(e, MethodRequest)]) == 2
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
    assert [e.reason for e in pair.server_events if isinstance(e, MethodRefused)] == [
        WspReason.PROTOERR
    ]


def test_malformed_wtp_from_an_initiator_gets_a_provider_abort():
    server = ConnectionOrientedServer(random.Random(2))
    # an Invoke header with a TID but a TPI length running past the end
    server.receive_datagram(b"\x8a\x00\x07\x12\x09", CLIENT_ADDR, 0.0)
    [(data, addr)] = server.datagrams_to_send(0.0)
    [abort] = wtp.decode(data)
    assert addr == CLIENT_ADDR
    assert isinstance(abort, wtp.Abort)
    assert (abort.tid, abort.tid_response, abort.abort_type) == (7, True, AbortType.PROVIDER)
    assert abort.reason == AbortReason.PROTOERR


def test_full_session_table_refuses_connect_with_congestion():
    pair, client, server = make_pair(GatewayLimits(max_sessions=1))
    connect(pair, client)
    other = WtpEndpoint(random.Random(3))
    pair2 = Pair(other, server, latency=0.01, client_addr=("10.0.0.9", 1234), now=pair.now)
    handle = invoke(pair2, other, wsp.Connect())
    [abort] = aborts_of(pair2, handle)
    assert (abort.abort_type, abort.reason) == (AbortType.USER, WspReason.CONGESTION)
    assert list(server.sessions) == [CLIENT_ADDR]


def test_new_connect_replaces_the_session_and_cancels_its_methods():
    pair, client, server = make_pair()
    connect(pair, client)
    invoke(pair, client, wsp.Get(uri="http://example.org/slow"))
    [request] = [e for e in pair.server_events if isinstance(e, MethodRequest)]
    reply = connect(pair, client)
    assert reply.session_id == 2
    assert MethodCancelled(request.request_id, "replaced by a new Connect") in pair.server_events
    assert not server.respond(request.request_id, error_reply(200, "late"), pair.now)


def test_idle_sessions_are_dropped_after_the_timeout():
    pair, client, server = make_pair(GatewayLimits(idle_timeout=60.0))
    connect(pair, client)
    pair.run(until=59.0)
    assert CLIENT_ADDR in server.sessions
    pair.run(until=60.0 + 15.0 + 0.5)  # the sweep runs every timeout / 4
    assert server.sessions == {}
    assert any(
        isinstance(e, SessionClosed) and e.reason == "idle timeout" for e in pair.server_events
    )


def test_tid_outside_the_window_is_verified_not_accepted():
    """WTP 7.8.2.3/7.9: a replayed or far-off TID starts verification, no new method."""
    server = ConnectionOrientedServer(random.Random(2))
    connect_pdu = wsp.encode(wsp.Connect())
    first = wtp.Invoke(tid=100, tcl=CLASS_2, user_data=connect_pdu, up_flag=True)
    server.receive_datagram(wtp.encode(first), CLIENT_ADDR, 0.0)
    server.datagrams_to_send(0.0)  # the ConnectReply
    server.receive_datagram(wtp.encode(wtp.Ack(tid=100)), CLIENT_ADDR, 0.1)
    assert server.wtp.pending() == 0 and CLIENT_ADDR in server.sessions
    get = wsp.encode(wsp.Get(uri="http://example.org/"))
    # the finished transaction's TID again without RID (a replay), then one too far ahead
    for tid in (100, 100 + (1 << 14) + 1):
        replay = wtp.Invoke(tid=tid, tcl=CLASS_2, user_data=get, up_flag=True)
        server.receive_datagram(wtp.encode(replay), CLIENT_ADDR, 1.0)
        [(data, _)] = server.datagrams_to_send(1.0)
        [ack] = wtp.decode(data)
        assert isinstance(ack, wtp.Ack) and ack.tve_tok and ack.tid == tid
    events = []
    while (e := server.next_event()) is not None:
        events.append(e)
    assert not [e for e in events if isinstance(e, MethodRequest)]


def test_connectionless_get_reply_and_garbage():
    server = ConnectionlessServer()
    server.receive_datagram(b"\x07\x40\x0ehttp://a.b/c/d", CLIENT_ADDR, 0.0)
    [request] = [e for e in iter(server.next_event, None)]
    assert isinstance(request, MethodRequest) and request.method.uri == "http://a.b/c/d"
    server.receive_datagram(b"\x07\x40\x0ehttp://a.b/c/d", CLIENT_ADDR, 0.1)  # resent
    assert server.next_event() is None and server.pending() == 1
    reply = wsp.Reply(status=0x20, content_type=b"\x83", data=b"hi")
    assert server.respond(request.request_id, reply, 0.2)
    assert server.datagrams_to_send(0.2) == [(wsp.encode_connectionless(7, reply), CLIENT_ADDR)]
    server.next_event()  # MethodCompleted

    for garbage in (b"", b"\x01", b"\x01\x40\x7f", b"\x02\x01\x10"):
        server.receive_datagram(garbage, CLIENT_ADDR, 1.0)
    dropped = list(iter(server.next_event, None))
    assert [type(e) for e in dropped] == [DatagramDropped] * 4
    assert server.datagrams_to_send(1.0) == [] and server.pending() == 0


def lenient_session(
    lenient: bool, *, body: int = 10_000, tids: tuple[int, int] = (1, 2)
) -> tuple[ConnectionOrientedServer, int]:
    """A session whose Get has a reply of ``body`` octets (10 000: 8 packets, groups of 3)
    in flight; ``tids``: the Connect's and the Get's."""
    server = ConnectionOrientedServer(random.Random(2), lenient_ack_tid=lenient)
    connect_tid, get_tid = tids
    connect = wtp.Invoke(
        tid=connect_tid, tcl=CLASS_2, user_data=wsp.encode(wsp.Connect()), up_flag=True
    )
    server.receive_datagram(wtp.encode(connect), CLIENT_ADDR, 0.0)
    get = wsp.encode(wsp.Get(uri="http://example.org/"))
    server.receive_datagram(
        wtp.encode(wtp.Invoke(tid=get_tid, tcl=CLASS_2, user_data=get, up_flag=True)),
        CLIENT_ADDR,
        0.1,
    )
    [request] = [e for e in iter(server.next_event, None) if isinstance(e, MethodRequest)]
    server.respond(
        request.request_id, wsp.Reply(status=0x20, content_type=b"\x80", data=bytes(body)), 0.2
    )
    server.datagrams_to_send(0.2)
    return server, request.request_id


def sent_psns(server: ConnectionOrientedServer, now: float) -> list[int]:
    out = [p for d, _ in server.datagrams_to_send(now) for p in wtp.decode(d)]
    return [getattr(p, "psn", 0) for p in out if isinstance(p, (wtp.Result, wtp.SegmentedResult))]


def test_fakewap_quirk_mode_reads_foreign_and_plain_acks_as_group_acks():
    server, handle = lenient_session(lenient=True)
    # another thread's TID (99) and no PSN TPI: the Ack of the first group (PSNs 0-2)
    server.receive_datagram(wtp.encode(wtp.Ack(tid=99)), CLIENT_ADDR, 0.3)
    assert sent_psns(server, 0.3) == [3, 4, 5]
    # a PSN that is not a group's last: the Ack of its group (3-5)
    server.receive_datagram(wtp.encode(wtp.Ack(tid=2, tpis=(wtp.PsnTpi(3),))), CLIENT_ADDR, 0.4)
    assert sent_psns(server, 0.4) == [6, 7]
    server.receive_datagram(wtp.encode(wtp.Ack(tid=99)), CLIENT_ADDR, 0.5)  # the final Ack
    assert server.wtp.state(handle) is None and server.retargeted_acks == 3


def test_strict_mode_ignores_foreign_tids_and_ends_on_a_plain_ack():
    server, handle = lenient_session(lenient=False)
    server.receive_datagram(wtp.encode(wtp.Ack(tid=99)), CLIENT_ADDR, 0.3)
    assert sent_psns(server, 0.3) == [] and server.wtp.state(handle) is not None
    server.receive_datagram(wtp.encode(wtp.Ack(tid=2)), CLIENT_ADDR, 0.4)  # WTP: whole message
    assert server.wtp.state(handle) is None and server.retargeted_acks == 0


def replay(
    server: ConnectionOrientedServer, steps: list[tuple[wtp.Pdu | None, list[int]]]
) -> None:
    """Feed fakewap's PDUs (None: timer R fires) and check the PSNs sent after each."""
    now = 0.3
    for pdu, expected in steps:
        if pdu is None:
            timer = server.get_timer()
            assert timer is not None
            now = timer
            server.handle_timer(now)
        else:
            server.receive_datagram(wtp.encode(pdu), CLIENT_ADDR, now)
        assert sent_psns(server, now) == expected, pdu


def ack(tid: int, psn: int) -> wtp.Ack:
    return wtp.Ack(tid=tid, tpis=(wtp.PsnTpi(psn),))


def test_quirk_mode_leaves_an_ack_with_a_smaller_psn_to_wtp():
    """The PDUs of one thread of a failing fakewap ``-M 1 -c 8`` run on the 40 KB body.

    Connect TID 36, Get TID 38, 30 packets. The thread acknowledged groups with its own
    and then other threads' TIDs (the shared counter); its Ack of PSN 20 went out
    naming PSN 8 (another thread had just written 8 into fakewap's shared Ack
    template). Taken as the Ack of group 6-8, it moved the gateway's record back to
    PSN 8, fakewap's correct Acks of the resent PSN 20 (TID 80) then looked
    implausible, and WTP gave up with NORESPONSE.
    """
    server, handle = lenient_session(lenient=True, body=40_960, tids=(36, 38))
    replay(
        server,
        [
            (ack(38, 2), [3, 4, 5]),
            (ack(39, 5), [6, 7, 8]),
            (ack(40, 8), [9, 10, 11]),
            (ack(42, 11), [12, 13, 14]),
            (ack(46, 14), [15, 16, 17]),
            (ack(48, 17), [18, 19, 20]),
            (ack(48, 8), []),  # meant PSN 20: stale, left to WTP, which drops it
            (None, [20]),  # timer R: the group's last packet again
            (ack(80, 20), [21, 22, 23]),
        ],
    )
    assert server.wtp.state(handle) is not None and server.retargeted_acks == 6


def test_quirk_mode_reads_an_own_ack_with_a_larger_psn_as_the_group_in_flight():
    """The PDUs of one thread of a fakewap ``-M 1 -c 8 -l 10`` run on the 40 KB body.

    Connect TID 23, Get TID 28. The thread's Ack of PSN 8 went out naming PSN 23 with
    its own TID; WTP moves one group on for it, and the record must follow WTP (to
    8, not 23), or the later Ack of PSN 17 with a foreign TID would look stale.
    """
    server, handle = lenient_session(lenient=True, body=40_960, tids=(23, 28))
    replay(
        server,
        [
            (ack(28, 2), [3, 4, 5]),
            (wtp.NegativeAck(tid=28, missing=(4,)), [4]),
            (ack(28, 5), [6, 7, 8]),
            (wtp.NegativeAck(tid=28, missing=(7,)), [7]),
            (ack(28, 23), [9, 10, 11]),  # meant PSN 8
            (ack(28, 11), [12, 13, 14]),
            (ack(28, 14), [15, 16, 17]),
            (wtp.NegativeAck(tid=28, missing=(15,)), [15]),
            (None, [17]),
            (wtp.NegativeAck(tid=34, missing=(15,)), [15]),
            (ack(34, 17), [18, 19, 20]),
        ],
    )
    assert server.wtp.state(handle) is not None
