"""fakewap tolerance: its Acks read as it means them, replayed from captured runs."""

import random

from wwanlab.core.contract import Endpoint
from wwanlab.core.pair import CLIENT_ADDR
from wwanlab.wap.gateway.limits import GatewayLimits
from wwanlab.wap.gateway.quirks import FakewapTolerance
from wwanlab.wap.wsp import pdu as wsp
from wwanlab.wap.wsp.capabilities import ClientSduSize
from wwanlab.wap.wsp.events import MethodInvoke, SessionDisconnected
from wwanlab.wap.wsp.session import WspServer
from wwanlab.wap.wtp import pdu as wtp
from wwanlab.wap.wtp.constants import TransactionClass
from wwanlab.wap.wtp.responder import ResponderState
from wwanlab.wap.wtp.timers import WtpConfig

CLASS_2 = TransactionClass.CLASS_2
R = 2.0  # the retry interval the interop tests give the gateway


def session(
    quirks: bool, *, body: int = 10_000, tids: tuple[int, int] = (1, 2)
) -> tuple[WspServer, Endpoint, int]:
    """A session whose Get has a reply of ``body`` octets (10 000: 8 packets, groups of 3)
    in flight; ``tids``: the Connect's and the Get's, as fakewap sends them."""
    server = WspServer(
        random.Random(2), GatewayLimits().wsp_server_config(), WtpConfig(retry_interval=R)
    )
    endpoint: Endpoint = FakewapTolerance(server) if quirks else server
    connect_tid, get_tid = tids
    connect = wsp.Connect(capabilities=(ClientSduSize(1 << 20),))
    invoke = wtp.Invoke(tid=connect_tid, tcl=CLASS_2, user_data=wsp.encode(connect), up_flag=True)
    endpoint.receive_datagram(wtp.encode(invoke), CLIENT_ADDR, 0.0)
    get = wsp.encode(wsp.Get(uri="http://example.org/"))
    endpoint.receive_datagram(
        wtp.encode(wtp.Invoke(tid=get_tid, tcl=CLASS_2, user_data=get, up_flag=True)),
        CLIENT_ADDR,
        0.1,
    )
    [request] = [e for e in iter(endpoint.next_event, None) if isinstance(e, MethodInvoke)]
    reply = wsp.Reply(status=0x20, content_type=b"\x80", data=bytes(body))
    assert server.respond(request.handle, reply, 0.2)
    endpoint.datagrams_to_send(0.2)
    return server, endpoint, request.handle


def sent_psns(endpoint: Endpoint, now: float) -> list[int]:
    out = [p for d, _ in endpoint.datagrams_to_send(now) for p in wtp.decode(d)]
    return [getattr(p, "psn", 0) for p in out if isinstance(p, (wtp.Result, wtp.SegmentedResult))]


def feed(endpoint: Endpoint, pdu: wtp.Pdu, now: float) -> None:
    endpoint.receive_datagram(wtp.encode(pdu), CLIENT_ADDR, now)


def test_foreign_and_plain_acks_are_read_as_group_acks():
    server, endpoint, handle = session(quirks=True)
    assert isinstance(endpoint, FakewapTolerance)
    # another thread's TID (99) and no PSN TPI: the Ack of the first group (PSNs 0-2)
    feed(endpoint, wtp.Ack(tid=99), 0.3)
    assert sent_psns(endpoint, 0.3) == [3, 4, 5]
    # a PSN that is not a group's last: the Ack of its group (3-5)
    feed(endpoint, wtp.Ack(tid=2, tpis=(wtp.PsnTpi(3),)), 0.4)
    assert sent_psns(endpoint, 0.4) == [6, 7]
    feed(endpoint, wtp.Ack(tid=99), 0.5)  # the final Ack
    assert server.wtp.state(handle) is None and endpoint.retargeted_acks == 3


def test_without_quirks_foreign_tids_are_ignored_and_a_plain_ack_ends_the_message():
    server, endpoint, handle = session(quirks=False)
    feed(endpoint, wtp.Ack(tid=99), 0.3)
    assert sent_psns(endpoint, 0.3) == [] and server.wtp.state(handle) is not None
    feed(endpoint, wtp.Ack(tid=2), 0.4)  # WTP: the Ack of the whole message
    assert server.wtp.state(handle) is None


def replay(endpoint: Endpoint, steps: list[tuple[wtp.Pdu | None, list[int]]]) -> float:
    """Feed fakewap's PDUs (None: the next timer fires) and check the PSNs sent after
    each; PDUs arrive 10 ms apart. Returns the time of the last step."""
    now = 0.3
    for pdu, expected in steps:
        if pdu is None:
            timer = endpoint.get_timer()
            assert timer is not None
            now = timer
            endpoint.handle_timer(now)
        else:
            now += 0.01
            feed(endpoint, pdu, now)
        assert sent_psns(endpoint, now) == expected, pdu
    return now


def ack(tid: int, psn: int) -> wtp.Ack:
    return wtp.Ack(tid=tid, tpis=(wtp.PsnTpi(psn),))


def test_an_ack_with_a_smaller_psn_is_left_to_wtp():
    """The PDUs of one thread of a failing fakewap ``-M 1 -c 8`` run on the 40 KB body.

    Connect TID 36, Get TID 38, 30 packets. The thread acknowledged groups with its own
    and then other threads' TIDs (the shared counter); its Ack of PSN 20 went out
    naming PSN 8 (another thread had just written 8 into fakewap's shared Ack
    template). Read as the Ack of group 6-8 it set the acknowledged groups back, and
    fakewap's correct Acks of the resent PSN 20 (TID 80) were then refused until WTP
    gave up with NORESPONSE.
    """
    server, endpoint, handle = session(quirks=True, body=40_960, tids=(36, 38))
    replay(
        endpoint,
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
    assert server.wtp.state(handle) is not None
    assert isinstance(endpoint, FakewapTolerance) and endpoint.retargeted_acks == 6


def test_an_own_ack_with_a_larger_psn_is_the_ack_of_the_group_in_flight():
    """The PDUs of one thread of a fakewap ``-M 1 -c 8 -l 10`` run on the 40 KB body.

    Connect TID 23, Get TID 28. The thread's Ack of PSN 8 went out naming PSN 23 with
    its own TID; WTP moves one group on for it (to 9-11, not past 23), so the later Ack
    of PSN 17 with a foreign TID is still the group in flight's.
    """
    server, endpoint, handle = session(quirks=True, body=40_960, tids=(23, 28))
    replay(
        endpoint,
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


def test_a_repeated_negative_ack_before_the_resend_can_arrive_is_dropped():
    """The end of a failing fakewap ``-M 1 -c 8 -l 10`` run on the 40 KB body: the last
    packet (PSN 29) came with 27 and 28 lost; fakewap asked for both, then, on
    receiving 27, for 28 again. Answering both left a stray copy of PSN 28 that the
    thread took for its next ConnectReply. The repeat is dropped; when the resend of 28
    is lost too, timer R resends PSN 29 and fakewap's next Negative Ack is answered."""
    server, endpoint, handle = session(quirks=True, body=40_960, tids=(40, 42))
    steps: list[tuple[wtp.Pdu | None, list[int]]] = [
        (ack(42, psn), [psn + 1, psn + 2, min(psn + 3, 29)][: min(3, 29 - psn)])
        for psn in range(2, 27, 3)
    ]
    now = replay(endpoint, steps)
    assert now < R / 2
    now = replay(
        endpoint,
        [
            (wtp.NegativeAck(tid=42, missing=(27, 28)), [27, 28]),
            (wtp.NegativeAck(tid=42, missing=(28,)), []),  # asked again on receiving 27
            (None, [29]),  # the resent 28 was lost as well: timer R
            (wtp.NegativeAck(tid=42, missing=(28,)), [28]),
            (wtp.Ack(tid=42, tpis=(wtp.PsnTpi(29),)), []),
        ],
    )
    assert server.wtp.state(handle) is None
    assert isinstance(endpoint, FakewapTolerance) and endpoint.dropped_nacks == 1


def test_without_quirks_every_negative_ack_is_answered():
    _server, endpoint, _handle = session(quirks=False, body=40_960, tids=(40, 42))
    replay(endpoint, [(ack(42, psn), [psn + 1, psn + 2, min(psn + 3, 29)]) for psn in (2, 5)])
    replay(
        endpoint,
        [
            (wtp.NegativeAck(tid=42, missing=(7, 8)), [7, 8]),
            (wtp.NegativeAck(tid=42, missing=(8,)), [8]),
        ],
    )


def test_a_disconnect_ends_a_result_whose_ack_could_not_be_placed():
    server, endpoint, handle = session(quirks=True)
    assert server.wtp.state(handle) == ResponderState.RESULT_RESP_WAIT
    disconnect = wsp.encode(wsp.Disconnect(session_id=1))
    invoke = wtp.Invoke(tid=3, tcl=TransactionClass.CLASS_0, user_data=disconnect)
    feed(endpoint, invoke, 0.3)
    events = list(iter(endpoint.next_event, None))
    assert server.wtp.state(handle) is None and server.sessions == {}
    assert {type(e).__name__ for e in events} == {"ReplyConfirmed", "SessionDisconnected"}
    assert SessionDisconnected(1, 0xE1) in events
    aborts = [p for d, _ in endpoint.datagrams_to_send(0.3) for p in wtp.decode(d)]
    assert not [p for p in aborts if isinstance(p, wtp.Abort)]
