"""WTP initiator and responder on the Pair harness: exact PDUs, times and table rows."""

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.wap.harness import Reactor

from wwanlab.core.events import Event
from wwanlab.core.pair import CLIENT_ADDR, SERVER_ADDR, Pair, Side
from wwanlab.wap.wtp.constants import AbortReason, AbortType, TransactionClass
from wwanlab.wap.wtp.endpoint import WtpEndpoint
from wwanlab.wap.wtp.events import (
    AbortIndication,
    InvokeConfirm,
    InvokeIndication,
    ResultConfirm,
    ResultIndication,
    WtpEvent,
)
from wwanlab.wap.wtp.initiator import INITIATOR_ROWS, InitiatorState
from wwanlab.wap.wtp.machine import WtpStateError
from wwanlab.wap.wtp.pdu import (
    Abort,
    Ack,
    Invoke,
    NegativeAck,
    Pdu,
    PsnTpi,
    Result,
    SegmentedInvoke,
    SegmentedResult,
    decode,
    encode,
)
from wwanlab.wap.wtp.responder import RESPONDER_ROWS, ResponderState
from wwanlab.wap.wtp.timers import WtpConfig

C2, C1, C0 = TransactionClass.CLASS_2, TransactionClass.CLASS_1, TransactionClass.CLASS_0
App = Callable[[WtpEndpoint, WtpEvent, float], None]


def echo(ep: WtpEndpoint, e: WtpEvent, now: float) -> None:
    """Server: a class 2 invoke gets its data back as the result at once."""
    if isinstance(e, InvokeIndication) and e.tcl == C2:
        ep.result(e.handle, e.data, now)
    elif isinstance(e, InvokeIndication) and e.tcl == C1 and e.user_ack:
        ep.invoke_ack(e.handle, now)


def ack_only(ep: WtpEndpoint, e: WtpEvent, now: float) -> None:
    """Server: user-acknowledges a class 2 invoke and produces no result (yet)."""
    if isinstance(e, InvokeIndication):
        ep.invoke_ack(e.handle, now)


def ack_results(ep: WtpEndpoint, e: WtpEvent, now: float) -> None:
    """Client: user-acknowledges every result at once."""
    if isinstance(e, ResultIndication):
        ep.result_ack(e.handle, now)


def silent(ep: WtpEndpoint, e: WtpEvent, now: float) -> None:
    """Takes events and does nothing."""


class World:
    def __init__(
        self,
        server_app: App = echo,
        client_app: App = ack_results,
        client_cfg: WtpConfig | None = None,
        server_cfg: WtpConfig | None = None,
        drop: Callable[[Side, int, bytes], bool] | None = None,
        loss: float = 0.0,
        seed: int = 0,
    ) -> None:
        self.c = WtpEndpoint(random.Random(seed + 1), client_cfg)
        self.s = WtpEndpoint(random.Random(seed + 2), server_cfg)
        self.pair = Pair(
            Reactor(self.c, client_app),
            Reactor(self.s, server_app),
            latency=0.1,
            drop=drop,
            loss=loss,
            rng=random.Random(seed),
        )

    def invoke(
        self, data: bytes = b"request", tcl: TransactionClass = C2, user_ack: bool = True
    ) -> int:
        handle = self.c.invoke(SERVER_ADDR, data, tcl, user_ack, self.pair.now)
        self.pair.flush()
        return handle

    def run(self, until: float | None = None) -> None:
        """Run to ``until``; without it, run 200 s, user-abort what is left, run out."""
        if until is not None:
            self.pair.run(until=until)
            return
        self.pair.run(until=self.pair.now + 200.0)
        for ep in (self.c, self.s):
            for h in ep.handles():
                if ep.state(h) not in (ResponderState.LISTEN, ResponderState.TIDOK_WAIT):
                    ep.abort(h, 0xE8, self.pair.now)
        self.pair.run()

    def to_server(self, pdu: Pdu) -> None:
        self.s.receive_datagram(encode(pdu), CLIENT_ADDR, self.pair.now)
        self.pair.flush()

    def to_client(self, pdu: Pdu) -> None:
        self.c.receive_datagram(encode(pdu), SERVER_ADDR, self.pair.now)
        self.pair.flush()

    def raw_to(self, side: Side, data: bytes) -> None:
        ep, src = (self.s, CLIENT_ADDR) if side == "server" else (self.c, SERVER_ADDR)
        ep.receive_datagram(data, src, self.pair.now)
        self.pair.flush()

    def sent(self, side: Side) -> list[tuple[float, Any, str]]:
        return [(round(s.sent_at, 6), decode(s.data)[0], s.reason) for s in self.pair.sent(side)]

    def kinds(self, side: Side) -> list[str]:
        return [type(p).__name__ for _, p, _ in self.sent(side)]

    def events(self, side: Side) -> list[Event]:
        return self.pair.client_events if side == "client" else self.pair.server_events

    @property
    def fired(self) -> Counter[str]:
        return self.c.fired + self.s.fired

    @property
    def tid(self) -> int:
        return int(next(p.tid for _, p, _ in self.sent("client")))


def only_first(kind: type, side: Side = "server") -> Callable[[Side, int, bytes], bool]:
    """Drop the first datagram of ``kind`` that ``side`` sends."""
    seen: list[int] = []

    def drop(s: Side, i: int, data: bytes) -> bool:
        if s == side and isinstance(decode(data)[0], kind) and not seen:
            seen.append(i)
            return True
        return False

    return drop


def garbage(tid: int, response: bool) -> bytes:
    """A PDU of type 15, which does not exist: the codec raises with this TID."""
    return bytes([0x78]) + (tid | (0x8000 if response else 0)).to_bytes(2, "big")


# --- class 2, the paper-000 configuration ------------------------------------------------


def test_class2_user_ack_exact_exchange():
    w = World()
    h = w.invoke(b"GET /", C2, user_ack=True)
    w.run()
    c, s = w.sent("client"), w.sent("server")
    assert [(t, type(p).__name__) for t, p, _ in c] == [(0.0, "Invoke"), (0.2, "Ack")]
    assert [(t, type(p).__name__) for t, p, _ in s] == [(0.1, "Result")]
    invoke, result, ack = c[0][1], s[0][1], c[1][1]
    assert isinstance(invoke, Invoke) and invoke.up_flag and invoke.tcl == C2
    assert (invoke.gtr, invoke.ttr, invoke.rid, invoke.tid_response) == (False, True, False, False)
    assert isinstance(result, Result) and result.tid_response and result.user_data == b"GET /"
    assert isinstance(ack, Ack) and ack.tpis == () and not ack.tve_tok
    assert w.events("client") == [InvokeConfirm(h), ResultIndication(h, b"GET /")]
    assert [type(e) for e in w.events("server")] == [InvokeIndication, ResultConfirm]
    # the initiator keeps WAIT TIMEOUT for W = 30 s after its Ack, then forgets
    assert w.pair.now == pytest.approx(0.2 + 30.0)
    assert w.c.pending() == 0 and w.s.pending() == 0


def test_default_timer_values_are_the_cited_ones():
    cfg = WtpConfig()
    assert (cfg.ack_interval, cfg.retry_interval, cfg.wait_timeout) == (4.0, 7.0, 30.0)
    assert (cfg.max_rcr, cfg.aec_max, cfg.segment_size, cfg.group_size) == (8, 6, 1400, 3)
    assert (cfg.max_segments, cfg.tid_window) == (256, 1 << 14)


def test_retry_timer_exact_times_then_noresponse():
    w = World(drop=lambda side, i, d: side == "server")
    h = w.invoke()
    w.run()
    c = w.sent("client")
    times = [t for t, p, _ in c if isinstance(p, Invoke)]
    assert times == [0.0, 7.0, 14.0, 21.0, 28.0, 35.0, 42.0, 49.0, 56.0]
    assert [p.rid for _, p, _ in c if isinstance(p, Invoke)] == [False] + [True] * 8
    last_t, last, _ = c[-1]
    assert last_t == 63.0 and isinstance(last, Abort)
    assert (last.abort_type, last.reason) == (AbortType.PROVIDER, AbortReason.NORESPONSE)
    assert w.events("client") == [
        AbortIndication(h, AbortType.PROVIDER, AbortReason.NORESPONSE, local=True)
    ]


def test_hold_on_ack_after_ack_interval_then_keep_alive():
    w = World(server_app=silent, client_app=silent)
    h = w.invoke(user_ack=False)
    w.run(until=12.0)
    s = w.sent("server")
    # no user ack asked: the responder acknowledges by itself when A (4 s) expires
    assert [(t, type(p).__name__, p.rid) for t, p, _ in s] == [
        (4.1, "Ack", False),
        (11.3, "Ack", True),
    ]
    assert w.events("client") == [InvokeConfirm(h)]
    # after the hold-on the initiator's R restarts at 4.2 and probes at 11.2
    assert [(t, p.rid) for t, p, _ in w.sent("client")] == [(0.0, False), (11.2, True)]
    handle = next(e.handle for e in w.events("server") if isinstance(e, InvokeIndication))
    w.s.result(handle, b"late", w.pair.now)
    w.run()
    assert ResultIndication(h, b"late") in w.events("client")
    # no user acknowledgement: the initiator acks the result when its A expires
    t_result = next(t for t, p, _ in w.sent("server") if isinstance(p, Result))
    t_ack = [t for t, p, _ in w.sent("client") if isinstance(p, Ack)][-1]
    assert t_ack == pytest.approx(t_result + 0.1 + 4.0)
    assert ResultConfirm(handle) in w.events("server")


def test_user_ack_never_given_aborts_after_aec_max():
    w = World(server_app=silent, client_app=silent)
    h = w.invoke(user_ack=True)
    w.run()
    s = w.sent("server")
    assert [(t, type(p).__name__) for t, p, _ in s] == [(28.1, "Abort")]
    assert s[0][1].reason == AbortReason.NORESPONSE
    # A expired at 4.1, 8.1, ... 24.1 (AEC 1..6); the 7th expiry at 28.1 gives up
    assert [t for t, p, _ in w.sent("client")] == [0.0, 7.0, 14.0, 21.0, 28.0]
    assert w.events("client")[-1] == AbortIndication(
        h, AbortType.PROVIDER, AbortReason.NORESPONSE, local=False
    )


# --- classes 1 and 0 ------------------------------------------------------------------------


def test_class1_provider_ack_and_wait_timeout():
    w = World(server_app=silent)
    h = w.invoke(b"push", C1, user_ack=False)
    w.run()
    assert [(t, type(p).__name__) for t, p, _ in w.sent("server")] == [(4.1, "Ack")]
    assert w.events("client") == [InvokeConfirm(h)]
    assert w.pair.now == pytest.approx(4.1 + 30.0)  # the responder's W
    assert w.s.pending() == 0


def test_class1_user_ack_is_immediate():
    w = World()
    h = w.invoke(b"push", C1, user_ack=True)
    w.run()
    assert [(t, type(p).__name__) for t, p, _ in w.sent("server")] == [(0.1, "Ack")]
    assert w.events("client") == [InvokeConfirm(h)]


def test_class0_is_one_datagram_and_no_state():
    w = World()
    w.invoke(b"disconnect", C0, user_ack=False)
    assert w.c.pending() == 0
    w.run()
    assert w.kinds("client") == ["Invoke"] and w.kinds("server") == []
    [ind] = w.events("server")
    assert isinstance(ind, InvokeIndication) and ind.tcl == C0 and ind.data == b"disconnect"
    assert w.s.pending() == 0


# --- segmentation and re-assembly -----------------------------------------------------------


def test_40kb_result_one_ack_per_group():
    body = bytes(range(256)) * 160  # 40960 octets
    w = World(server_app=lambda ep, e, now: _result_to_invoke(ep, e, now, body))
    h = w.invoke(b"GET /big")
    w.run()
    packets = [p for _, p, _ in w.sent("server") if isinstance(p, (Result, SegmentedResult))]
    assert len(packets) == 30  # ceil(40960 / 1400)
    assert [len(p.user_data) for p in packets] == [1400] * 29 + [360]
    assert [getattr(p, "psn", 0) for p in packets] == list(range(30))
    assert [(p.gtr, p.ttr) for p in packets] == [
        (False, False),
        (False, False),
        (True, False),
    ] * 9 + [
        (False, False),
        (False, False),
        (False, True),
    ]
    acks = [p for _, p, _ in w.sent("client") if isinstance(p, Ack)]
    assert [a.tpis for a in acks] == [(PsnTpi(psn),) for psn in range(2, 30, 3)]  # 2, 5, ... 29
    assert len(acks) == 10  # exactly one per group of 3
    assert ResultIndication(h, body) in w.events("client")
    assert ResultConfirm(1) in w.events("server")


def test_an_ack_naming_the_last_psn_too_early_does_not_end_the_result():
    """Only the last group's Ack is final: an Ack naming PSN 29 while PSNs 0-2 are in
    flight (as a misnumbering peer sends) is ignored, and the transfer completes."""
    body = bytes(range(256)) * 160  # 30 packets
    w = World(server_app=lambda ep, e, now: _result_to_invoke(ep, e, now, body))
    h = w.invoke(b"GET /big")
    w.run(until=0.15)  # the Invoke has arrived; the first group is on its way
    assert w.kinds("server")[:3] == ["Result", "SegmentedResult", "SegmentedResult"]
    tid = w.c.tid_of(h)
    assert tid is not None
    w.to_server(Ack(tid=tid, tpis=(PsnTpi(29),)))
    w.run()
    assert ResultIndication(h, body) in w.events("client")
    assert ResultConfirm(1) in w.events("server")
    assert len([p for _, p, _ in w.sent("client") if isinstance(p, Ack)]) == 10


def test_dropped_psns_3_and_5_one_nak_two_retransmissions():
    body = bytes(random.Random(5).randbytes(8 * 1400))
    drops = {3, 5}

    def drop(side: Side, i: int, data: bytes) -> bool:
        p = decode(data)[0]
        return side == "server" and isinstance(p, SegmentedResult) and p.psn in drops and not p.rid

    cfg = WtpConfig(group_size=8)
    w = World(
        server_app=lambda ep, e, now: _result_to_invoke(ep, e, now, body),
        server_cfg=cfg,
        client_cfg=cfg,
        drop=drop,
    )
    h = w.invoke()
    w.run()
    naks = [p for _, p, _ in w.sent("client") if isinstance(p, NegativeAck)]
    assert [n.missing for n in naks] == [(3, 5)]
    again = [p for _, p, _ in w.sent("server") if getattr(p, "rid", False)]
    assert [(type(p).__name__, p.psn) for p in again] == [
        ("SegmentedResult", 3),
        ("SegmentedResult", 5),
    ]
    acks = [p for _, p, _ in w.sent("client") if isinstance(p, Ack)]
    assert [a.tpis for a in acks] == [(PsnTpi(7),)]
    assert ResultIndication(h, body) in w.events("client")


def test_segmented_invoke_and_nak_to_the_initiator():
    body = bytes(random.Random(6).randbytes(7 * 1400))
    w = World(drop=lambda side, i, d: side == "client" and i in (1, 2))  # PSN 1 and 2 of group 0
    h = w.invoke(body)
    w.run()
    naks = [p for _, p, _ in w.sent("server") if isinstance(p, NegativeAck)]
    # PSN 2 ends the group, so its loss is only seen when R expires and it is resent
    assert [n.missing for n in naks] == [(1,)]
    assert [(t, getattr(p, "psn", 0), p.rid) for t, p, _ in w.sent("client")][:4] == [
        (0.0, 0, False),
        (0.0, 1, False),
        (0.0, 2, False),
        (7.0, 2, True),
    ]
    assert ResultIndication(h, body) in w.events("client")
    assert [e.data for e in w.events("server") if isinstance(e, InvokeIndication)] == [body]


def test_256_segments_fit_and_257_abort_message_too_large():
    fits = b"x" * (256 * 1400)
    w = World(server_app=lambda ep, e, now: _result_to_invoke(ep, e, now, fits))
    h = w.invoke()
    w.run()
    assert ResultIndication(h, fits) in w.events("client")

    w = World(server_app=lambda ep, e, now: _result_to_invoke(ep, e, now, fits + b"!"))
    h = w.invoke()
    w.run()
    [abort] = [p for _, p, _ in w.sent("server")]
    assert isinstance(abort, Abort) and abort.reason == AbortReason.MESSAGETOOLARGE
    assert w.events("client")[-1] == AbortIndication(
        h, AbortType.PROVIDER, AbortReason.MESSAGETOOLARGE, local=False
    )

    w = World()
    h = w.invoke(fits + b"!")
    assert w.kinds("client") == []  # nothing was sent (WTP 7.7.4 A)
    assert w.events("client") == [
        AbortIndication(h, AbortType.PROVIDER, AbortReason.MESSAGETOOLARGE, local=True)
    ]


# --- TIDs ---------------------------------------------------------------------------------------


def test_tid_outside_window_is_verified():
    w = World()
    w.c.tids.next_tid = 100
    w.invoke(b"one")
    w.run()
    assert w.s.tid_cache.last[CLIENT_ADDR] == 100
    w.c.tids.next_tid = 100 + (1 << 14) + 1
    h = w.invoke(b"two")
    w.run()
    second = [
        (type(p).__name__, p.tve_tok if isinstance(p, Ack) else None)
        for _, p, _ in w.sent("server")
    ][1:]
    assert second == [("Ack", True), ("Result", None)]
    tok = [p for _, p, _ in w.sent("client") if isinstance(p, Ack) and p.tve_tok]
    assert len(tok) == 1 and tok[0].tid == 100 + (1 << 14) + 1 and not tok[0].tid_response
    assert ResultIndication(h, b"two") in w.events("client")
    # TIDnew was not set: LastTID stays (WTP 7.9.3)
    assert w.s.tid_cache.last[CLIENT_ADDR] == 100


def test_tid_inside_window_is_not_verified():
    w = World()
    w.c.tids.next_tid = 100
    w.invoke(b"one")
    w.c.tids.next_tid = 100 + (1 << 14)
    w.invoke(b"two")
    w.run()
    assert not any(isinstance(p, Ack) and p.tve_tok for _, p, _ in w.sent("server"))


def test_late_duplicate_invoke_is_refused_with_invalid_tid():
    w = World()
    w.invoke(b"one")
    w.run()
    old = next(p for _, p, _ in w.sent("client") if isinstance(p, Invoke))
    before = len(w.events("server"))
    w.to_server(Invoke(tid=old.tid, tcl=C2, user_data=b"one", rid=True, up_flag=True))
    w.run()
    assert [type(p).__name__ for _, p, _ in w.sent("server")][-1] == "Ack"  # Tve question
    refusal = w.sent("client")[-1][1]
    assert isinstance(refusal, Abort) and refusal.reason == AbortReason.INVALIDTID
    assert len(w.events("server")) == before and w.s.pending() == 0


def test_wrapped_tid_sets_tid_new():
    w = World()
    w.c.tids.next_tid = 0x7FFF
    w.invoke(b"a")
    w.invoke(b"b")
    invokes = [p for _, p, _ in w.sent("client") if isinstance(p, Invoke)]
    assert [(p.tid, p.tid_new) for p in invokes] == [(0x7FFF, False), (0, True)]


def test_no_new_transaction_until_the_tid_new_one_is_verified():
    w = World()
    w.c.tids.next_tid = 0x7FFF
    w.invoke(b"a")
    w.run()
    w.invoke(b"b")  # TID 0 after the wrap: TIDnew
    held = w.invoke(b"c")  # TID 1 must wait (WTP 7.8.3.2)
    assert w.c.state(held) == InitiatorState.NULL
    w.run()
    sent = [
        (t, type(p).__name__, p.tid, getattr(p, "tve_tok", None)) for t, p, _ in w.sent("client")
    ]
    start = sent[2][0]
    assert sent[2:5] == [
        (start, "Invoke", 0, None),
        (start + 0.2, "Ack", 0, True),  # TIDok, the answer to the responder's Tve
        (start + 0.2, "Invoke", 1, None),  # released only now
    ]
    done = [e.data for e in w.events("client") if isinstance(e, ResultIndication)]
    assert done == [b"a", b"b", b"c"]


def test_held_invoke_can_be_aborted_unsent():
    w = World(server_app=silent)
    w.c.tids.next_tid = 0x7FFF
    w.invoke(b"a")
    w.pair.run(until=100.0)
    w.invoke(b"b")
    held = w.invoke(b"c")
    w.c.abort(held, 0xEA, w.pair.now)
    assert w.c.state(held) is None
    w.run()
    assert [p.tid for _, p, _ in w.sent("client") if isinstance(p, Invoke)].count(1) == 0


# --- errors --------------------------------------------------------------------------------------


def test_unlisted_user_command_aborts_with_protoerr():
    w = World(server_app=silent)
    h = w.invoke()
    with pytest.raises(WtpStateError):
        w.c.result(h, b"not mine", 0.0)
    assert w.c.state(h) is None
    assert w.c.next_event() == AbortIndication(
        h, AbortType.PROVIDER, AbortReason.PROTOERR, local=True
    )
    w.pair.flush()
    abort = w.sent("client")[-1][1]
    assert isinstance(abort, Abort) and abort.reason == AbortReason.PROTOERR


def test_garbage_and_other_versions_are_answered():
    w = World()
    w.raw_to("server", garbage(77, response=False))
    w.raw_to("server", bytes([0x0A, 0x00, 0x4E, 0x42]))  # Invoke, TID 78, version 1
    w.raw_to("server", b"\x01")  # no TID to answer: silence
    got = [(p.tid, p.tid_response, p.reason) for _, p, _ in w.sent("server")]
    assert got == [(77, True, AbortReason.PROTOERR), (78, True, AbortReason.WTPVERSIONONE)]


# --- every row of both tables, one scenario each ----------------------------------------------


@dataclass(frozen=True)
class Case:
    row: str
    run: Callable[[], World]


def _inject_after(world: World, until: float, pdu: Pdu, to: Side) -> World:
    world.run(until=until)
    (world.to_server if to == "server" else world.to_client)(pdu)
    world.run()
    return world


def _scenario_result_resp_wait(inject: Callable[[World], Pdu]) -> World:
    """Client holds a result unacknowledged (user ack pending) when ``inject`` arrives."""
    w = World(client_app=silent)
    w.invoke()
    return _inject_after(w, 1.0, inject(w), "client")


def _scenario_wait_timeout(inject: Callable[[World], Pdu]) -> World:
    w = World()
    w.invoke()
    return _inject_after(w, 1.0, inject(w), "client")


def _srv(w: World) -> int:
    return next(e.handle for e in w.events("server") if isinstance(e, InvokeIndication))


def _cases() -> list[Case]:
    cases: list[Case] = []

    def case(row: str) -> Callable[[Callable[[], World]], Callable[[], World]]:
        def register(fn: Callable[[], World]) -> Callable[[], World]:
            cases.append(Case(row, fn))
            return fn

        return register

    def simple(tcl: TransactionClass = C2, user_ack: bool = True, **kw: object) -> World:
        w = World(**kw)  # type: ignore[arg-type]
        w.invoke(tcl=tcl, user_ack=user_ack)
        w.run()
        return w

    def big(n: int) -> bytes:
        return bytes(n * 1400)

    def result_big(ep: WtpEndpoint, e: WtpEvent, now: float) -> None:
        if isinstance(e, InvokeIndication):
            ep.result(e.handle, big(7), now)

    # initiator
    case("initiator:NULL/TR_INVOKE_REQ/reliable_fits/send_invoke")(lambda: simple())
    case("initiator:NULL/TR_INVOKE_REQ/class0_fits/send_invoke_class0")(lambda: simple(C0))
    case("initiator:NULL/TR_INVOKE_REQ/too_large/refuse_too_large")(lambda: _invoke(big(257)))
    case("initiator:RESULT_WAIT/TR_ABORT_REQ/always/user_abort")(lambda: _abort_client(0.05))
    case("initiator:RESULT_WAIT/RCV_ABORT/always/peer_abort")(lambda: _abort_server_early())
    case("initiator:RESULT_WAIT/TIMER_TO_R/rcr_below_max/retransmit")(
        lambda: simple(drop=only_first(Result))
    )
    case("initiator:RESULT_WAIT/TIMER_TO_R/rcr_at_max/give_up")(
        lambda: simple(drop=lambda s, i, d: s == "server")
    )
    case("initiator:RESULT_WAIT/RCV_ACK/tid_verification/answer_tid_ok")(
        lambda: _tid_verification()
    )
    case("initiator:RESULT_WAIT/RCV_ACK/group_ack/next_group")(lambda: _invoke(big(7)))
    case("initiator:RESULT_WAIT/RCV_ACK/final_ack_class1/confirm_invoke_class1")(
        lambda: simple(C1)
    )
    case("initiator:RESULT_WAIT/RCV_ACK/final_ack_first/confirm_invoke_hold_on")(
        lambda: simple(user_ack=False, server_app=ack_only)
    )
    case("initiator:RESULT_WAIT/RCV_ACK/final_ack_again/keep_alive")(
        lambda: _run_until(World(server_app=ack_only), 20.0)
    )
    case("initiator:RESULT_WAIT/RCV_NAK/always/resend_missing")(
        lambda: _invoke(big(3), drop=lambda s, i, d: s == "client" and i == 1)
    )
    case("initiator:RESULT_WAIT/RCV_SEGMENT/not_hold_on/confirm_invoke_hold_on")(
        lambda: simple(server_app=result_big)
    )
    case("initiator:RESULT_WAIT/RCV_SEGMENT/hold_on_set/keep_alive")(
        lambda: simple(server_app=result_big)
    )
    case("initiator:RESULT_WAIT/RCV_RESULT/class2_not_hold_on/implicit_confirm_and_result")(
        lambda: simple()
    )
    case("initiator:RESULT_WAIT/RCV_RESULT/class2_hold_on/indicate_result")(
        lambda: simple(server_app=result_big)
    )
    case("initiator:RESULT_WAIT/RCV_ERROR_PDU/always/error_pdu")(
        lambda: _garbage_in_flight("client", 0.05)
    )
    case("initiator:RESULT_RESP_WAIT/TR_RESULT_RES/always/ack_result")(lambda: simple())
    case("initiator:RESULT_RESP_WAIT/TIMER_TO_A/no_user_ack/ack_result")(
        lambda: simple(user_ack=False, client_app=silent)
    )
    case("initiator:RESULT_RESP_WAIT/TIMER_TO_A/user_ack_aec_below_max/wait_more")(
        lambda: simple(client_app=silent)
    )
    case("initiator:RESULT_RESP_WAIT/TIMER_TO_A/user_ack_aec_at_max/give_up")(
        lambda: simple(client_app=silent)
    )
    case("initiator:RESULT_RESP_WAIT/RCV_RESULT/always/nothing")(lambda: simple(client_app=silent))
    case("initiator:RESULT_RESP_WAIT/RCV_ACK/plain_ack/nothing")(
        lambda: _scenario_result_resp_wait(lambda w: Ack(tid=w.tid, tid_response=True))
    )
    case("initiator:RESULT_RESP_WAIT/RCV_ABORT/always/peer_abort")(
        lambda: _scenario_result_resp_wait(
            lambda w: Abort(tid=w.tid, tid_response=True, abort_type=AbortType.USER, reason=0xE0)
        )
    )
    case("initiator:RESULT_RESP_WAIT/TR_ABORT_REQ/always/user_abort")(
        lambda: _abort_client(1.0, client_app=silent)
    )
    case("initiator:RESULT_RESP_WAIT/RCV_ERROR_PDU/always/error_pdu")(
        lambda: _garbage_in_flight("client", 1.0, client_app=silent)
    )
    case("initiator:WAIT_TIMEOUT/RCV_RESULT/with_rid/resend_ack")(
        lambda: simple(drop=only_first(Ack, "client"))
    )
    case("initiator:WAIT_TIMEOUT/RCV_RESULT/without_rid/nothing")(
        lambda: _scenario_wait_timeout(
            lambda w: Result(tid=w.tid, tid_response=True, user_data=b"request")
        )
    )
    case("initiator:WAIT_TIMEOUT/TIMER_TO_W/always/quiet_end")(lambda: simple())
    case("initiator:WAIT_TIMEOUT/RCV_ABORT/always/peer_abort")(
        lambda: _scenario_wait_timeout(lambda w: Abort(tid=w.tid, tid_response=True))
    )
    case("initiator:WAIT_TIMEOUT/TR_ABORT_REQ/always/user_abort")(
        lambda: _abort_client(1.0, client_app=ack_results)
    )
    case("initiator:WAIT_TIMEOUT/RCV_ACK/tid_verification/refuse_tid")(
        lambda: _scenario_wait_timeout(lambda w: Ack(tid=w.tid, tid_response=True, tve_tok=True))
    )
    case("initiator:WAIT_TIMEOUT/RCV_ACK/plain_ack/nothing")(
        lambda: _scenario_wait_timeout(lambda w: Ack(tid=w.tid, tid_response=True))
    )
    case("initiator:WAIT_TIMEOUT/RCV_ERROR_PDU/always/error_pdu")(
        lambda: _garbage_in_flight("client", 1.0, client_app=ack_results)
    )
    # responder
    case("responder:LISTEN/RCV_INVOKE/reliable_tid_ok/indicate_invoke")(lambda: simple())
    case("responder:LISTEN/RCV_INVOKE/reliable_tid_verify/verify_tid")(lambda: _tid_verification())
    case("responder:LISTEN/RCV_INVOKE/class0/indicate_invoke_class0")(lambda: simple(C0))
    case("responder:LISTEN/RCV_SEGMENT/always/reassembling")(lambda: _invoke(big(7)))
    case("responder:LISTEN/TIMER_TO_W/always/quiet_end")(
        lambda: _invoke(big(7), drop=lambda s, i, d: s == "client" and i > 0)
    )
    case("responder:LISTEN/RCV_ABORT/always/quiet_end")(lambda: _partial_invoke_then(Abort))
    case("responder:LISTEN/RCV_ERROR_PDU/always/protocol_error_no_user")(
        lambda: _garbage_in_flight("server", 0.0)
    )
    case("responder:TIDOK_WAIT/RCV_ACK/tid_ok_answer/tid_verified")(lambda: _tid_verification())
    case("responder:TIDOK_WAIT/RCV_ABORT/always/quiet_end")(lambda: _stale_invoke())
    case("responder:TIDOK_WAIT/RCV_INVOKE/without_rid/nothing")(
        lambda: _tid_verification(dup=True)
    )
    case("responder:TIDOK_WAIT/RCV_INVOKE/with_rid/resend_tid_question")(
        lambda: _tid_verification(drop=only_first(Ack))
    )
    case("responder:TIDOK_WAIT/TIMER_TO_W/always/quiet_end")(
        lambda: _stale_invoke(client_gone=True)
    )
    case("responder:TIDOK_WAIT/RCV_ERROR_PDU/always/protocol_error_no_user")(
        lambda: _stale_invoke(garbage_after=True)
    )
    # explicit acknowledgement (WtpConfig.explicit_ack), rows marked [X]
    explicit = WtpConfig(explicit_ack=True)
    case("responder:LISTEN/RCV_INVOKE/explicit_tid_ok/indicate_and_ack")(
        lambda: simple(user_ack=False, server_cfg=explicit)
    )
    case("responder:TIDOK_WAIT/RCV_ACK/explicit_tid_ok_answer/verified_and_ack")(
        lambda: _tid_verification(user_ack=False, server_cfg=explicit)
    )
    case("responder:INVOKE_RESP_WAIT/TR_INVOKE_RES/explicit_class2/hold_on")(
        lambda: simple(server_app=ack_only, server_cfg=explicit)
    )
    case("responder:RESULT_WAIT/TR_INVOKE_RES/explicit_no_user_ack/nothing")(
        lambda: simple(user_ack=False, server_app=ack_only, server_cfg=explicit)
    )
    case("responder:INVOKE_RESP_WAIT/TR_INVOKE_RES/class2/await_result")(
        lambda: simple(server_app=ack_only)
    )
    case("responder:INVOKE_RESP_WAIT/TR_INVOKE_RES/class1/ack_and_wait")(lambda: simple(C1))
    case("responder:INVOKE_RESP_WAIT/TR_RESULT_REQ/class2_result_fits/send_result")(
        lambda: simple()
    )
    case("responder:INVOKE_RESP_WAIT/TR_RESULT_REQ/class2_result_too_large/refuse_too_large")(
        lambda: simple(server_app=lambda ep, e, now: _result_to_invoke(ep, e, now, big(257)))
    )
    case("responder:INVOKE_RESP_WAIT/TR_ABORT_REQ/always/user_abort")(
        lambda: _abort_server_early()
    )
    case("responder:INVOKE_RESP_WAIT/RCV_ABORT/always/peer_abort")(
        lambda: _abort_client(1.0, server_app=silent)
    )
    case("responder:INVOKE_RESP_WAIT/RCV_INVOKE/always/nothing")(lambda: simple(server_app=silent))
    case("responder:INVOKE_RESP_WAIT/TIMER_TO_A/class2_no_user_ack/hold_on")(
        lambda: simple(user_ack=False, server_app=silent)
    )
    case("responder:INVOKE_RESP_WAIT/TIMER_TO_A/class1_no_user_ack/ack_and_wait")(
        lambda: simple(C1, user_ack=False, server_app=silent)
    )
    case("responder:INVOKE_RESP_WAIT/TIMER_TO_A/user_ack_aec_below_max/wait_more")(
        lambda: simple(server_app=silent)
    )
    case("responder:INVOKE_RESP_WAIT/TIMER_TO_A/user_ack_aec_at_max/give_up")(
        lambda: simple(server_app=silent)
    )
    case("responder:INVOKE_RESP_WAIT/RCV_ACK/tid_ok_answer/nothing")(
        lambda: _tid_verification(dup_tok=True, server_app=silent)
    )
    case("responder:INVOKE_RESP_WAIT/RCV_ERROR_PDU/always/error_pdu")(
        lambda: _garbage_in_flight("server", 1.0, server_app=silent)
    )
    case("responder:RESULT_WAIT/TR_RESULT_REQ/class2_result_fits/send_result")(
        lambda: _late_result(b"ok")
    )
    case("responder:RESULT_WAIT/TR_RESULT_REQ/class2_result_too_large/refuse_too_large")(
        lambda: _late_result(big(257))
    )
    case("responder:RESULT_WAIT/RCV_ABORT/always/peer_abort")(
        lambda: _abort_client(1.0, server_app=ack_only)
    )
    case("responder:RESULT_WAIT/RCV_INVOKE/without_rid/nothing")(
        lambda: _dup_invoke(False, server_app=ack_only)
    )
    case("responder:RESULT_WAIT/RCV_INVOKE/rid_ack_sent/resend_ack")(
        lambda: _run_until(World(server_app=ack_only), 20.0)
    )
    case("responder:RESULT_WAIT/RCV_INVOKE/rid_no_ack_sent/nothing")(
        lambda: simple(server_app=ack_only, client_cfg=WtpConfig(retry_interval=2.0))
    )
    case("responder:RESULT_WAIT/TR_ABORT_REQ/always/user_abort")(
        lambda: _abort_server(1.0, ack_only)
    )
    case("responder:RESULT_WAIT/TIMER_TO_A/always/hold_on")(lambda: simple(server_app=ack_only))
    case("responder:RESULT_WAIT/RCV_ACK/tid_ok_answer/nothing")(
        lambda: _tid_verification(dup_tok=True, server_app=ack_only)
    )
    case("responder:RESULT_WAIT/RCV_ERROR_PDU/always/error_pdu")(
        lambda: _garbage_in_flight("server", 1.0, server_app=ack_only)
    )
    case("responder:RESULT_RESP_WAIT/RCV_ACK/final_ack/confirm_result")(lambda: simple())
    case("responder:RESULT_RESP_WAIT/RCV_ACK/group_ack/next_group")(
        lambda: simple(server_app=result_big)
    )
    case("responder:RESULT_RESP_WAIT/RCV_ACK/tid_ok_answer/nothing")(
        lambda: _tid_verification(dup_tok=True, client_app=silent)
    )
    case("responder:RESULT_RESP_WAIT/RCV_NAK/always/resend_missing")(
        lambda: simple(server_app=result_big, drop=lambda s, i, d: s == "server" and i == 1)
    )
    case("responder:RESULT_RESP_WAIT/RCV_INVOKE/always/nothing")(
        lambda: _dup_invoke(True, client_app=silent)
    )
    case("responder:RESULT_RESP_WAIT/RCV_ABORT/always/peer_abort")(
        lambda: _abort_client(1.0, client_app=silent)
    )
    case("responder:RESULT_RESP_WAIT/TR_ABORT_REQ/always/user_abort")(
        lambda: _abort_server(1.0, echo, client_app=silent)
    )
    case("responder:RESULT_RESP_WAIT/TIMER_TO_R/rcr_below_max/retransmit")(
        lambda: simple(drop=only_first(Ack, "client"))
    )
    case("responder:RESULT_RESP_WAIT/TIMER_TO_R/rcr_at_max/give_up")(
        lambda: simple(
            drop=lambda s, i, d: s == "client" and i > 0, client_cfg=WtpConfig(wait_timeout=100.0)
        )
    )
    case("responder:RESULT_RESP_WAIT/RCV_ERROR_PDU/always/error_pdu")(
        lambda: _garbage_in_flight("server", 1.0, client_app=silent)
    )
    case("responder:WAIT_TIMEOUT/RCV_INVOKE/without_rid/nothing")(lambda: _class1_then(dup=True))
    case("responder:WAIT_TIMEOUT/RCV_INVOKE/with_rid/resend_ack")(
        lambda: simple(C1, drop=only_first(Ack))
    )
    case("responder:WAIT_TIMEOUT/TIMER_TO_W/always/quiet_end")(lambda: simple(C1))
    case("responder:WAIT_TIMEOUT/RCV_ABORT/always/peer_abort")(lambda: _class1_then(abort=True))
    case("responder:WAIT_TIMEOUT/TR_ABORT_REQ/always/user_abort")(
        lambda: _class1_then(user_abort=True)
    )
    case("responder:WAIT_TIMEOUT/RCV_ERROR_PDU/always/error_pdu")(
        lambda: _class1_then(garbage=True)
    )
    return cases


def _result_to_invoke(ep: WtpEndpoint, e: WtpEvent, now: float, data: bytes) -> None:
    if isinstance(e, InvokeIndication):
        ep.result(e.handle, data, now)


def _run_until(w: World, t: float) -> World:
    w.invoke(user_ack=False)
    w.run(until=t)
    w.run()
    return w


def _invoke(data: bytes, **kw: object) -> World:
    w = World(**kw)  # type: ignore[arg-type]
    w.invoke(data)
    w.run()
    return w


def _abort_client(at: float, **kw: object) -> World:
    w = World(**kw)  # type: ignore[arg-type]
    h = w.invoke()
    w.run(until=at)
    w.c.abort(h, 0xEA, w.pair.now)
    w.run()
    return w


def _abort_server(at: float, server_app: App, **kw: object) -> World:
    w = World(server_app=server_app, **kw)  # type: ignore[arg-type]
    w.invoke()
    w.run(until=at)
    w.s.abort(_srv(w), 0xEA, w.pair.now)
    w.run()
    return w


def _abort_server_early() -> World:
    w = World(server_app=lambda ep, e, now: ep.abort(e.handle, 0xE8, now))
    w.invoke()
    w.run()
    return w


def _garbage_in_flight(side: Side, at: float, **kw: object) -> World:
    w = World(**kw)  # type: ignore[arg-type]
    w.invoke()
    w.run(until=at)
    w.raw_to(side, garbage(w.tid, response=side == "client"))
    w.run()
    return w


def _tid_verification(
    dup: bool = False,
    dup_tok: bool = False,
    drop: Callable[[Side, int, bytes], bool] | None = None,
    user_ack: bool = True,
    **kw: object,
) -> World:
    w = World(drop=drop, **kw)  # type: ignore[arg-type]
    w.c.tids.next_tid = 10
    w.invoke(b"first", user_ack=user_ack)
    w.run()
    w.c.tids.next_tid = 10 + (1 << 14) + 5
    w.invoke(b"second", user_ack=user_ack)
    if dup:
        w.run(until=w.pair.now + 0.15)
        w.to_server(
            next(
                p
                for _, p, _ in w.sent("client")
                if isinstance(p, Invoke) and p.tid == w.c.tids.next_tid - 1
            )
        )
    if dup_tok:
        w.run(until=w.pair.now + 0.35)
        w.to_server(Ack(tid=w.c.tids.next_tid - 1, tve_tok=True))
    w.run()
    return w


def _stale_invoke(client_gone: bool = False, garbage_after: bool = False) -> World:
    w = World(drop=(lambda s, i, d: s == "client" and i >= 2) if client_gone else None)
    w.invoke()
    w.run()
    stale = next(p for _, p, _ in w.sent("client") if isinstance(p, Invoke))
    w.to_server(stale)  # == LastTID: verify
    if garbage_after:
        w.raw_to("server", garbage(stale.tid, response=False))
    w.run()
    return w


def _partial_invoke_then(kind: type) -> World:
    w = World()
    w.to_server(SegmentedInvoke(tid=5, psn=1, user_data=b"x"))
    w.to_server(Abort(tid=5, abort_type=AbortType.USER, reason=0xEA))
    w.run()
    return w


def _late_result(data: bytes) -> World:
    w = World(server_app=ack_only)
    w.invoke()
    w.run(until=1.0)
    w.s.result(_srv(w), data, w.pair.now)
    w.run()
    return w


def _dup_invoke(rid: bool, **kw: object) -> World:
    """The client's invoke reaches the server again one second in."""
    w = World(**kw)  # type: ignore[arg-type]
    w.invoke()
    dup = Invoke(tid=w.tid, tcl=C2, user_data=b"request", up_flag=True, rid=rid)
    return _inject_after(w, 1.0, dup, "server")


def _class1_then(
    dup: bool = False, abort: bool = False, user_abort: bool = False, garbage: bool = False
) -> World:
    w = World()
    w.invoke(tcl=C1)
    w.run(until=1.0)
    if dup:
        w.to_server(Invoke(tid=w.tid, tcl=C1, user_data=b"request", up_flag=True))
    if abort:
        w.to_server(Abort(tid=w.tid, abort_type=AbortType.USER, reason=0xEA))
    if user_abort:
        w.s.abort(_srv(w), 0xEA, w.pair.now)
    if garbage:
        w.raw_to("server", globals()["garbage"](w.tid, response=False))
    w.run()
    return w


CASES = _cases()


@pytest.mark.parametrize("case", CASES, ids=[c.row for c in CASES])
def test_row_fires(case: Case):
    w = case.run()
    assert w.fired[case.row] >= 1, sorted(w.fired)
    assert w.c.pending() == 0 and w.s.pending() == 0  # nothing is left hanging


def test_cases_cover_every_row_of_both_tables():
    rows = {r.name for r in INITIATOR_ROWS} | {r.name for r in RESPONDER_ROWS}
    assert rows == {c.row for c in CASES}
    assert len(rows) == len(INITIATOR_ROWS) + len(RESPONDER_ROWS)


def test_states_are_the_specs():
    assert [s.name for s in InitiatorState] == [
        "NULL",
        "RESULT_WAIT",
        "RESULT_RESP_WAIT",
        "WAIT_TIMEOUT",
    ]
    assert [s.name for s in ResponderState] == [
        "LISTEN",
        "TIDOK_WAIT",
        "INVOKE_RESP_WAIT",
        "RESULT_WAIT",
        "RESULT_RESP_WAIT",
        "WAIT_TIMEOUT",
    ]


# --- loss soak ---------------------------------------------------------------------------------


def test_loss_soak_every_transaction_completes_or_aborts():
    rng = random.Random(42)
    bodies: dict[bytes, bytes] = {}

    def server(ep: WtpEndpoint, e: WtpEvent, now: float) -> None:
        if isinstance(e, InvokeIndication):
            ep.result(e.handle, bodies[e.data], now)

    cfg = WtpConfig(segment_size=200, group_size=4)
    w = World(server_app=server, client_cfg=cfg, server_cfg=cfg, loss=0.3, seed=7)
    handles = {}
    for n in range(300):
        key = f"req{n}".encode()
        bodies[key] = rng.randbytes(rng.choice([50, 700, 3000]))
        handles[w.invoke(key, user_ack=n % 2 == 0)] = bodies[key]
        w.run(until=w.pair.now + 0.5)
    w.run()
    done = {e.handle: e.data for e in w.events("client") if isinstance(e, ResultIndication)}
    aborted = {e.handle for e in w.events("client") if isinstance(e, AbortIndication)}
    assert all(done[h] == body for h, body in handles.items() if h in done)  # byte-exact
    assert set(handles) == set(done) | aborted  # nothing left pending without a word
    assert w.c.pending() == 0 and w.s.pending() == 0
    assert len(done) >= 285  # 294 in this seeded run; the rest end in NORESPONSE


@settings(max_examples=40, deadline=None)
@given(
    drops=st.sets(
        st.tuples(st.sampled_from(["client", "server"]), st.integers(0, 30)), max_size=12
    ),
    size=st.integers(0, 3000),
    user_ack=st.booleans(),
    group=st.integers(1, 5),
)
def test_any_drop_pattern_ends_exact_or_aborted(
    drops: set[tuple[str, int]], size: int, user_ack: bool, group: int
):
    body = bytes(i % 251 for i in range(size))
    cfg = WtpConfig(segment_size=300, group_size=group)
    w = World(
        server_app=lambda ep, e, now: _result_to_invoke(ep, e, now, body[::-1]),
        client_cfg=cfg,
        server_cfg=cfg,
        drop=lambda side, i, d: (side, i) in drops,
    )
    h = w.invoke(body, user_ack=user_ack)
    w.pair.run()
    results = [e.data for e in w.events("client") if isinstance(e, ResultIndication)]
    aborted = [e for e in w.events("client") if isinstance(e, AbortIndication)]
    assert results == [body[::-1]] or (not results and len(aborted) == 1)
    assert w.c.pending() == 0 and w.s.pending() == 0
    assert all(isinstance(e, WtpEvent) and e.handle == h for e in w.events("client"))
