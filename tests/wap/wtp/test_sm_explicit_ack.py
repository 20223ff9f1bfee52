"""WTP explicit acknowledgement (``WtpConfig.explicit_ack``, paper 000 2.2, Figure 3a).

The class 2 responder sends the Ack of an invoke the moment the invoke is acknowledged
(at TR-Invoke.ind without U/P, at the user's TR-Invoke.res with it) instead of when
timer A expires or implicitly with the Result. Pair harness, 0.1 s one-way latency.
"""

import random

import pytest
from tests.wap.wtp.test_sm_wtp import World, ack_only, only_first, silent

from wwanlab.wap.wtp.constants import TransactionClass
from wwanlab.wap.wtp.events import (
    InvokeConfirm,
    InvokeIndication,
    ResultConfirm,
    ResultIndication,
)
from wwanlab.wap.wtp.pdu import Ack, PsnTpi
from wwanlab.wap.wtp.responder import ResponderState
from wwanlab.wap.wtp.timers import WtpConfig

EXPLICIT = WtpConfig(explicit_ack=True)


def exchange(w: World) -> list[tuple[str, float, str, bool, tuple[PsnTpi, ...]]]:
    """Every PDU both sides sent, in time order: (side, time, kind, RID, TPIs)."""
    rows = [
        (side, t, type(p).__name__, bool(getattr(p, "rid", False)), tuple(p.tpis))
        for side in ("client", "server")
        for t, p, _ in w.sent(side)
    ]
    return sorted(rows, key=lambda r: (r[1], r[0] == "client"))


def result_at(w: World, t: float, data: bytes = b"reply") -> int:
    """Run to ``t``, then the server's user issues TR-Result.req."""
    w.run(until=t)
    handle = next(e.handle for e in w.events("server") if isinstance(e, InvokeIndication))
    w.s.result(handle, data, w.pair.now)
    w.pair.flush()
    return handle


def test_user_ack_sends_the_ack_at_once_result_later():
    w = World(server_app=ack_only, server_cfg=EXPLICIT)
    h = w.invoke(b"GET /")  # U/P set: the server's user answers TR-Invoke.res at once
    srv = result_at(w, 6.0)
    w.run()
    assert exchange(w) == [
        ("client", 0.0, "Invoke", False, ()),
        ("server", 0.1, "Ack", False, ()),  # explicit: on TR-Invoke.res, not at A (4.1)
        ("server", 6.0, "Result", False, ()),
        ("client", 6.1, "Ack", False, ()),  # the client's user acknowledges the result
    ]
    assert w.events("client") == [InvokeConfirm(h), ResultIndication(h, b"reply")]
    assert w.events("server")[1:] == [ResultConfirm(srv)]
    assert w.fired["responder:INVOKE_RESP_WAIT/TR_INVOKE_RES/explicit_class2/hold_on"] == 1
    assert w.fired["responder:RESULT_WAIT/TIMER_TO_A/always/hold_on"] == 0  # no A at all
    assert w.c.pending() == 0 and w.s.pending() == 0


def test_without_the_option_the_same_exchange_acks_when_a_expires():
    w = World(server_app=ack_only)
    w.invoke(b"GET /")
    result_at(w, 6.0)
    w.run()
    assert [(side, t, kind) for side, t, kind, _, _ in exchange(w)] == [
        ("client", 0.0, "Invoke"),
        ("server", 4.1, "Ack"),  # the hold-on Ack, A = 4 s after TR-Invoke.res
        ("server", 6.0, "Result"),
        ("client", 6.1, "Ack"),
    ]


def test_provider_ack_goes_with_the_indication():
    w = World(server_app=silent, client_app=silent, server_cfg=EXPLICIT)
    h = w.invoke(b"GET /", user_ack=False)
    w.run(until=0.15)
    handle = next(e.handle for e in w.events("server") if isinstance(e, InvokeIndication))
    assert w.s.state(handle) == ResponderState.RESULT_WAIT
    # a user acknowledging anyway (as WspServer does) changes nothing: the Ack is out
    w.s.invoke_ack(handle, w.pair.now)
    w.pair.flush()
    result_at(w, 2.0)
    w.run()
    assert exchange(w) == [
        ("client", 0.0, "Invoke", False, ()),
        ("server", 0.1, "Ack", False, ()),  # TR-Invoke.ind and the Ack together
        ("server", 2.0, "Result", False, ()),
        ("client", 6.1, "Ack", False, ()),  # no user ack: the client's A (4 s) acks it
    ]
    assert w.events("client")[:2] == [InvokeConfirm(h), ResultIndication(h, b"reply")]
    assert w.fired["responder:LISTEN/RCV_INVOKE/explicit_tid_ok/indicate_and_ack"] == 1
    assert w.fired["responder:RESULT_WAIT/TR_INVOKE_RES/explicit_no_user_ack/nothing"] == 1
    assert ResultConfirm(handle) in w.events("server")


def test_result_without_invoke_res_still_acknowledges_implicitly():
    # U/P set and the user answers with the Result straight away: no Ack before it
    w = World(server_cfg=EXPLICIT)
    w.invoke(b"GET /")
    w.run()
    assert [(side, t, kind) for side, t, kind, _, _ in exchange(w)] == [
        ("client", 0.0, "Invoke"),
        ("server", 0.1, "Result"),
        ("client", 0.2, "Ack"),
    ]


def test_lost_explicit_ack_is_sent_again_for_the_retransmitted_invoke():
    w = World(server_app=ack_only, server_cfg=EXPLICIT, drop=only_first(Ack))
    h = w.invoke()
    result_at(w, 10.0)
    w.run()
    assert exchange(w) == [
        ("client", 0.0, "Invoke", False, ()),
        ("server", 0.1, "Ack", False, ()),  # dropped
        ("client", 7.0, "Invoke", True, ()),  # R expired: the invoke again, RID
        ("server", 7.1, "Ack", True, ()),  # RESULT WAIT, RcvInvoke RID, Ack sent: again
        ("server", 10.0, "Result", False, ()),
        ("client", 10.1, "Ack", False, ()),
    ]
    assert [t for t, p, reason in w.sent("server") if reason] == [0.1]
    assert w.events("client") == [InvokeConfirm(h), ResultIndication(h, b"reply")]
    assert w.fired["responder:RESULT_WAIT/RCV_INVOKE/rid_ack_sent/resend_ack"] == 1


def test_segmented_invoke_last_group_ack_is_the_explicit_one():
    body = random.Random(3).randbytes(7 * 1400)  # PSN 0..6, groups 0-2, 3-5, 6
    w = World(server_app=ack_only, server_cfg=EXPLICIT)
    w.invoke(body)
    result_at(w, 6.0)
    w.run()
    got = exchange(w)
    assert [(side, t, kind, tpis) for side, t, kind, _, tpis in got] == [
        ("client", 0.0, "Invoke", ()),
        ("client", 0.0, "SegmentedInvoke", ()),
        ("client", 0.0, "SegmentedInvoke", ()),
        ("server", 0.1, "Ack", (PsnTpi(2),)),  # group Ack
        ("client", 0.2, "SegmentedInvoke", ()),
        ("client", 0.2, "SegmentedInvoke", ()),
        ("client", 0.2, "SegmentedInvoke", ()),
        ("server", 0.3, "Ack", (PsnTpi(5),)),  # group Ack
        ("client", 0.4, "SegmentedInvoke", ()),
        ("server", 0.5, "Ack", (PsnTpi(6),)),  # the last group: the explicit Ack, at once
        ("server", 6.0, "Result", ()),
        ("client", 6.1, "Ack", ()),
    ]
    assert [e.data for e in w.events("server") if isinstance(e, InvokeIndication)] == [body]


def test_segmented_invoke_without_the_option_acks_the_last_group_at_a():
    body = random.Random(3).randbytes(7 * 1400)
    w = World(server_app=ack_only)
    w.invoke(body)
    result_at(w, 6.0)
    w.run()
    acks = [(t, p.tpis) for t, p, _ in w.sent("server") if isinstance(p, Ack)]
    assert acks == [(0.1, (PsnTpi(2),)), (0.3, (PsnTpi(5),)), (4.5, (PsnTpi(6),))]


def test_tid_verification_then_provider_ack_at_once():
    w = World(server_app=silent, client_app=silent, server_cfg=EXPLICIT)
    w.c.tids.next_tid = 10
    w.invoke(b"first", user_ack=False)
    w.run()
    start = w.pair.now
    w.c.tids.next_tid = 10 + (1 << 14) + 5  # outside the window: Tve, TIDok
    w.invoke(b"second", user_ack=False)
    w.run(until=start + 1.0)
    second = [
        (round(t - start, 6), type(p).__name__, getattr(p, "tve_tok", None))
        for t, p, _ in w.sent("server")
        if t >= start
    ]
    assert second == [(0.1, "Ack", True), (0.3, "Ack", False)]  # Tve, then the explicit Ack
    assert w.fired["responder:TIDOK_WAIT/RCV_ACK/explicit_tid_ok_answer/verified_and_ack"] == 1
    w.run()


def test_class1_is_unchanged_by_the_option():
    w = World(server_app=silent, server_cfg=EXPLICIT)
    w.invoke(b"push", TransactionClass.CLASS_1, user_ack=False)
    w.run()
    # class 1 without U/P: the provider's Ack still waits for A (4 s), then W
    assert [(t, type(p).__name__) for t, p, _ in w.sent("server")] == [(4.1, "Ack")]
    assert w.pair.now == pytest.approx(4.1 + 30.0)
