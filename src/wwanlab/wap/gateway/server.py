"""The gateway's WSP server side, sans-IO: sessions and methods in, ``MethodRequest`` out.

Two endpoints, one per WAP port, both following ``wwanlab.core.contract``:

* ``ConnectionOrientedServer`` (port 9201) runs WSP sessions over one ``WtpEndpoint``
  (WSP 7.1, 8.2.2-8.2.3): a class 2 Invoke carrying Connect gets a ConnectReply as its
  Result; Get and Post become ``MethodRequest`` events and the reply the user gives to
  ``respond`` leaves as the transaction's Result (segmented by WTP SAR when large);
  Disconnect (class 0) ends the session. A session is named by the client's address,
  as WSP over WTP names it (the Get PDU carries no session id).
* ``ConnectionlessServer`` (port 9200): each datagram is a TID octet and a Get or Post
  (WSP 8.2.1); the Reply goes back with the same TID. No state beyond the pending
  requests: a connectionless client retransmits nothing and expects nothing more.

Limits (``GatewayLimits``): number of sessions, outstanding methods per session (the
MOR the ConnectReply announces, WSP 8.3.2.4), message size (WTP SAR carries at most
``max_segments`` packets; the reply may not exceed what the client's SDU size allows),
and an idle timeout after which a session without methods in flight is forgotten.

Refusals use the spec's reasons: a method over the session's MOR is aborted with
MOREXCEEDED, a Connect beyond ``max_sessions`` with CONGESTION, a method with no session
with DISCONNECT, and a WSP PDU that does not decode with PROTOERR (WSP Table 35, sent as
a WTP user abort). WTP-level garbage is answered by ``WtpEndpoint`` itself (WTP 10.2);
connectionless garbage is dropped and reported as ``DatagramDropped``.
"""

import random
from collections import deque
from dataclasses import dataclass, field, replace

from wwanlab.core.address import Address
from wwanlab.core.events import Event
from wwanlab.wap.wsp.capabilities import (
    Capability,
    ClientSduSize,
    MethodMor,
    ServerSduSize,
)
from wwanlab.wap.wsp.constants import AbortReason as WspReason
from wwanlab.wap.wsp.encoding import WspCodecError
from wwanlab.wap.wsp.pdu import (
    Connect,
    ConnectReply,
    Disconnect,
    Get,
    Post,
    Reply,
    decode,
    decode_connectionless,
    encode,
    encode_connectionless,
)
from wwanlab.wap.wtp.constants import TransactionClass
from wwanlab.wap.wtp.endpoint import WtpEndpoint
from wwanlab.wap.wtp.events import (
    AbortIndication,
    InvokeIndication,
    ResultConfirm,
    WtpEvent,
)
from wwanlab.wap.wtp.pdu import Ack, NegativeAck, PsnTpi, Tpi, WtpCodecError
from wwanlab.wap.wtp.pdu import decode as decode_wtp
from wwanlab.wap.wtp.pdu import encode as encode_wtp
from wwanlab.wap.wtp.responder import ResponderState
from wwanlab.wap.wtp.timers import SAR_SEGM_SIZE, WtpConfig

from .translate import error_reply

# WTP 9.3.3, 9.3.5: an Ack or a Negative Ack is at least 3 octets: the PDU type in bits
# 6-3 of the first (CON, bit 7, says TPIs follow), an Ack's TIDve/TIDok in bit 2, the TID.
ACK_LENGTH = 3
_ACK = 0x03
_NACK = 0x07
_TVE_TOK = 0x04


def _is_ack_or_nack(first: int) -> bool:
    kind = (first >> 3) & 0x0F
    return kind == _NACK or (kind == _ACK and not first & _TVE_TOK)


MAX_UDP_PAYLOAD = 65507  # IPv4: 65535 - 20 (IP) - 8 (UDP)


@dataclass(frozen=True, slots=True)
class GatewayLimits:
    """Bounds on what one gateway holds; the defaults suit a lab machine."""

    max_sessions: int = 20_000
    max_methods_per_session: int = 16  # the MethodMOR we announce (WSP 8.3.2.4)
    max_message_size: int = 200 * SAR_SEGM_SIZE  # octets of one reply (under WTP's 256)
    idle_timeout: float = 300.0  # s without traffic before a quiet session is dropped
    max_connectionless_pending: int = 64  # per client address

    def __post_init__(self) -> None:
        if min(self.max_sessions, self.max_methods_per_session, self.max_message_size) < 1:
            raise ValueError("gateway limits must be at least 1")
        if self.idle_timeout <= 0:
            raise ValueError("idle_timeout must be positive")


# --- events -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GatewayEvent(Event):
    pass


@dataclass(frozen=True, slots=True)
class MethodRequest(GatewayEvent):
    """S-MethodInvoke.ind: fetch this and ``respond(request_id, reply)``."""

    request_id: int
    client: Address
    method: Get | Post


@dataclass(frozen=True, slots=True)
class MethodCancelled(GatewayEvent):
    """The method can no longer be answered (client abort, disconnect): stop fetching."""

    request_id: int
    reason: str


@dataclass(frozen=True, slots=True)
class SessionOpened(GatewayEvent):
    client: Address
    session_id: int


@dataclass(frozen=True, slots=True)
class SessionClosed(GatewayEvent):
    client: Address
    session_id: int
    reason: str


@dataclass(frozen=True, slots=True)
class MethodRefused(GatewayEvent):
    """A method or Connect answered with a WSP abort instead of being served."""

    client: Address
    reason: WspReason
    detail: str


@dataclass(frozen=True, slots=True)
class DatagramDropped(GatewayEvent):
    """A connectionless datagram that was not a WSP request."""

    client: Address
    detail: str


@dataclass(frozen=True, slots=True)
class MethodCompleted(GatewayEvent):
    """The client acknowledged the reply (connection-oriented) or it was sent (CL)."""

    request_id: int


@dataclass(frozen=True, slots=True)
class MethodFailed(GatewayEvent):
    """WTP ended the transaction after the reply was given (no Ack, peer abort...)."""

    request_id: int
    reason: str


# --- connection-oriented ------------------------------------------------------------------


@dataclass
class Session:
    session_id: int
    client: Address
    last_active: float
    client_sdu_size: int = 0  # 0: no limit (WSP 8.3.2.1)
    methods: set[int] = field(default_factory=set)  # WTP handles in flight
    connect_handle: int | None = None  # the Connect transaction, until acknowledged


class ConnectionOrientedServer:
    """WSP sessions over WTP on one socket (WSP 7.1, 8.2.2)."""

    def __init__(
        self,
        rng: random.Random,
        limits: GatewayLimits | None = None,
        wtp_config: WtpConfig | None = None,
        *,
        lenient_ack_tid: bool = False,
    ) -> None:
        self.limits = limits or GatewayLimits()
        self.wtp = WtpEndpoint(rng, wtp_config)
        self.lenient_ack_tid = lenient_ack_tid
        self.retargeted_acks = 0
        self.sessions: dict[Address, Session] = {}
        self._next_session_id = 1
        self._method_session: dict[int, Session] = {}  # handle -> session
        self._answered: set[int] = set()  # handles whose Result is under way
        self._result_size: dict[int, int] = {}  # handle -> octets of its Result
        self._acked_upto: dict[int, int] = {}  # handle -> last PSN acknowledged (lenient)
        self._events: deque[GatewayEvent] = deque()
        self._sweep_at: float | None = None

    # commands

    def respond(self, request_id: int, reply: Reply, now: float) -> bool:
        """S-MethodResult.req; False when the method is gone (aborted meanwhile)."""
        session = self._method_session.get(request_id)
        if session is None or request_id in self._answered:
            return False
        data = encode(reply)
        limit = self.limits.max_message_size
        if session.client_sdu_size:
            limit = min(limit, session.client_sdu_size)
        if len(data) > limit:
            data = encode(error_reply(502, f"reply of {len(data)} octets exceeds {limit}"))
        self._answered.add(request_id)
        self._result_size[request_id] = len(data)
        session.last_active = now
        self.wtp.result(request_id, data, now)
        self._drain_wtp(now)
        return True

    def close(self, now: float) -> None:
        """Abort every method in flight and forget every session (shutdown)."""
        for session in list(self.sessions.values()):
            self._end_session(session, "gateway shutdown", now)

    # sans-IO contract

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        if self.lenient_ack_tid and len(data) >= ACK_LENGTH and _is_ack_or_nack(data[0]):
            data = self._retarget_ack(data, addr)
        self.wtp.receive_datagram(data, addr, now)
        self._drain_wtp(now)

    def _retarget_ack(self, data: bytes, addr: Address) -> bytes:
        """fakewap's Acks and Negative Acks, made to say what fakewap means.

        Two quirks (docs/kannel.md, docs/gateway.md): fakewap's ``-c N`` threads share
        one unlocked TID counter, so a thread acknowledges its result with whichever TID
        another thread set last; and after a Negative Ack of PSN 0, fakewap acknowledges
        the group with the PSN of the packet it just received (0) instead of the
        group's last. With ``lenient_ack_tid``, an Ack (not TIDve/TIDok) or Negative
        Ack whose TID matches none of the client's transactions goes to the client's
        one transaction sending a result, when there is exactly one; and an Ack whose
        PSN is not the last packet of its group is taken as the Ack of that group (a
        receiver only ever acknowledges whole groups, WTP 7.14), as is a plain Ack while
        groups remain (``_group_end_tpis``). Anything else, an Ack of a group already
        acknowledged included, is left as it came.
        """
        session = self.sessions.get(addr)
        if session is None:
            return data
        try:
            pdus = decode_wtp(data)
        except WtpCodecError:
            return data
        if len(pdus) != 1 or not isinstance(pdus[0], (Ack, NegativeAck)):
            return data
        pdu = pdus[0]
        if pdu.tid_response or (isinstance(pdu, Ack) and pdu.tve_tok):
            return data
        handles = [*session.methods, session.connect_handle]
        live = [h for h in handles if h is not None and self.wtp.state(h) is not None]
        target = next((h for h in live if self.wtp.tid_of(h) == pdu.tid), None)
        foreign = target is None
        if target is None:
            waiting = [h for h in live if self.wtp.state(h) == ResponderState.RESULT_RESP_WAIT]
            if len(waiting) != 1:
                return data
            target = waiting[0]
        tid = self.wtp.tid_of(target)
        if tid is None or (foreign and not self._plausible(pdu, target)):
            return data
        fixed: Ack | NegativeAck = replace(pdu, tid=tid)
        if isinstance(fixed, Ack):
            tpis = self._group_end_tpis(fixed, target)
            if tpis is None:
                return data
            fixed = replace(fixed, tpis=tpis)
        if fixed == pdu:
            return data
        self.retargeted_acks += 1
        return encode_wtp(fixed)

    def _in_flight(self, handle: int) -> tuple[int, int] | None:
        """(last PSN of the group in flight, last PSN of the message) of ``handle``'s result.

        Mirrors the responder's SAR (``wtp.sar.OutgoingMessage``): groups of
        ``group_size`` aligned to PSN 0, and one group further per group Ack it takes.
        """
        size = self._result_size.get(handle)
        if size is None:
            return None
        group, last = self.wtp.config.group_size, max(size - 1, 0) // self.wtp.config.segment_size
        return min(self._acked_upto.get(handle, -1) + group, last), last

    def _plausible(self, pdu: Ack | NegativeAck, handle: int) -> bool:
        """Whether an Ack with another TID can be for ``handle``'s group in flight.

        An Ack naming a PSN past the group in flight (fakewap's shared Ack template,
        see ``_group_end_tpis``, or another thread's final Ack) would move the result
        on early or end it, so it is left to WTP, which drops it; the group's last
        packet is resent at timer R and fakewap acknowledges it again.
        """
        span = self._in_flight(handle)
        psns = [t.psn for t in pdu.tpis if isinstance(t, PsnTpi)]
        if span is None or not psns or not isinstance(pdu, Ack):
            return True
        return psns[0] <= span[0]

    def _group_end_tpis(self, ack: Ack, handle: int) -> tuple[Tpi, ...] | None:
        """The Ack's PSN TPI naming the end of the group in flight; None if stale.

        fakewap acknowledges the group of a resent PSN 0 with a plain Ack (no PSN TPI),
        which a responder reads as the Ack of the whole message; for a message with
        groups still to come, a plain Ack, or one naming any PSN of the group in flight
        or past it, is taken as the Ack of the group in flight (a responder moves one
        group on per group Ack, WTP 7.14). An Ack naming a PSN of a group already
        acknowledged is stale and is left as it came, not recorded: fakewap ``-c N``
        threads write the PSN into one Ack template they all share and send it
        afterwards, so now and then a thread's Ack carries another thread's PSN
        (docs/gateway.md); recording a smaller one moved the record back and made every
        later Ack of the group in flight look implausible.
        """
        span = self._in_flight(handle)
        if span is None:
            return ack.tpis
        in_flight_end, last = span
        psns = [t.psn for t in ack.tpis if isinstance(t, PsnTpi)]
        if psns and psns[0] <= self._acked_upto.get(handle, -1):
            return None
        if in_flight_end >= last and not psns:
            return ack.tpis  # a plain Ack of the last group: the final Ack
        self._acked_upto[handle] = in_flight_end
        others = tuple(t for t in ack.tpis if not isinstance(t, PsnTpi))
        return (PsnTpi(in_flight_end), *others)

    def handle_timer(self, now: float) -> None:
        self.wtp.handle_timer(now)
        self._drain_wtp(now)
        if self._sweep_at is not None and now >= self._sweep_at:
            self._sweep(now)

    def get_timer(self) -> float | None:
        wtp = self.wtp.get_timer()
        if self._sweep_at is None:
            return wtp
        return self._sweep_at if wtp is None else min(wtp, self._sweep_at)

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        return self.wtp.datagrams_to_send(now)

    def next_event(self) -> GatewayEvent | None:
        return self._events.popleft() if self._events else None

    # internals

    def _drain_wtp(self, now: float) -> None:
        while (event := self.wtp.next_event()) is not None:
            self._on_wtp(event, now)

    def _on_wtp(self, event: WtpEvent, now: float) -> None:
        if isinstance(event, InvokeIndication):
            self._on_invoke(event, now)
        elif isinstance(event, ResultConfirm):
            self._finish(event.handle, now)
            self._events.append(MethodCompleted(event.handle))
        elif isinstance(event, AbortIndication) and event.handle in self._method_session:
            answered = event.handle in self._answered
            self._finish(event.handle, now)
            why = f"WTP abort type {int(event.abort_type)} reason {event.reason:#04x}"
            self._events.append(
                MethodFailed(event.handle, why) if answered else MethodCancelled(event.handle, why)
            )

    def _on_invoke(self, event: InvokeIndication, now: float) -> None:
        try:
            pdu = decode(event.data)
        except WspCodecError as exc:
            self._refuse(event, WspReason.PROTOERR, f"bad WSP PDU: {exc}", now)
            return
        session = self.sessions.get(event.peer)
        if session is not None:
            session.last_active = now
        match pdu:
            case Connect():
                self._connect(event, pdu, now)
            case Disconnect():
                if session is not None and pdu.session_id == session.session_id:
                    if self.lenient_ack_tid:
                        self._implicit_result_acks(session, now)
                    self._end_session(session, "client disconnect", now)
            case Get() | Post():
                if session is not None:
                    self._implicit_connect_ack(session, now)
                self._method(event, pdu, session, now)
            case _:
                self._refuse(event, WspReason.PROTOERR, f"{type(pdu).__name__} not served", now)

    def _connect(self, event: InvokeIndication, pdu: Connect, now: float) -> None:
        if event.tcl != TransactionClass.CLASS_2:
            self._refuse(event, WspReason.PROTOERR, "Connect not in a class 2 transaction", now)
            return
        old = self.sessions.get(event.peer)
        if old is not None:
            self._end_session(old, "replaced by a new Connect", now)
        elif len(self.sessions) >= self.limits.max_sessions:
            self._refuse(event, WspReason.CONGESTION, "session table full", now)
            return
        client_sdu = next((c.size for c in pdu.capabilities if isinstance(c, ClientSduSize)), 0)
        session = Session(self._next_session_id, event.peer, now, client_sdu)
        self._next_session_id = self._next_session_id % 0xFFFFFFFF + 1
        self.sessions[event.peer] = session
        if self._sweep_at is None:
            self._sweep_at = now + self.limits.idle_timeout
        limit = self.limits.max_message_size
        capabilities: tuple[Capability, ...] = (
            ClientSduSize(min(client_sdu or self.limits.max_message_size, limit)),
            ServerSduSize(limit),
            MethodMor(self.limits.max_methods_per_session),
        )
        reply = ConnectReply(session_id=session.session_id, capabilities=capabilities)
        self.wtp.result(event.handle, encode(reply), now)
        session.connect_handle = event.handle
        self._events.append(SessionOpened(event.peer, session.session_id))

    def _method(
        self, event: InvokeIndication, pdu: Get | Post, session: Session | None, now: float
    ) -> None:
        if event.tcl != TransactionClass.CLASS_2:
            self._refuse(event, WspReason.PROTOERR, "method not in a class 2 transaction", now)
        elif session is None:
            self._refuse(event, WspReason.DISCONNECT, "method outside a session", now)
        elif len(session.methods) >= self.limits.max_methods_per_session:
            self._refuse(event, WspReason.MOREXCEEDED, "too many methods in flight", now)
        else:
            if event.user_ack:
                self.wtp.invoke_ack(event.handle, now)  # S-MethodInvoke.res
            session.methods.add(event.handle)
            self._method_session[event.handle] = session
            self._events.append(MethodRequest(event.handle, event.peer, pdu))

    def _implicit_connect_ack(self, session: Session, now: float) -> None:
        """A method proves the client holds the ConnectReply: take it as the Ack.

        A client may not invoke methods before S-Connect.cnf (WSP 7.1.3), so the session
        is established even when its Ack never arrived. fakewap with ``-c N`` acks with
        another thread's TID (docs/kannel.md); without this the ConnectReply would be
        sent again 7 s later into the middle of the thread's Get. The Ack is fed to WTP
        as the client's own, so the transaction ends by its normal RcvAck row.
        """
        handle, session.connect_handle = session.connect_handle, None
        if handle is None or self.wtp.state(handle) is None:
            return
        tid = self.wtp.tid_of(handle)
        if tid is not None:
            self.wtp.receive_datagram(encode_wtp(Ack(tid=tid)), session.client, now)

    def _refuse(self, event: InvokeIndication, reason: WspReason, detail: str, now: float) -> None:
        if event.tcl != TransactionClass.CLASS_0 and self.wtp.state(event.handle) is not None:
            self.wtp.abort(event.handle, reason, now)
        self._events.append(MethodRefused(event.peer, reason, detail))

    def _finish(self, handle: int, now: float) -> None:
        session = self._method_session.pop(handle, None)
        self._answered.discard(handle)
        self._result_size.pop(handle, None)
        self._acked_upto.pop(handle, None)
        if session is not None:
            session.methods.discard(handle)
            session.last_active = now

    def _implicit_result_acks(self, session: Session, now: float) -> None:
        """fakewap quirk: a Disconnect right after a reply whose Ack named a TID we could
        not place. The client has its reply, so instead of S-Disconnect's Abort (which
        fakewap would read as the next session's ConnectReply) the result is taken as
        acknowledged, fed to WTP as the client's own final Ack."""
        for handle in list(session.methods):
            tid = self.wtp.tid_of(handle)
            if tid is not None and self.wtp.state(handle) == ResponderState.RESULT_RESP_WAIT:
                self.wtp.receive_datagram(encode_wtp(Ack(tid=tid)), session.client, now)

    def _end_session(self, session: Session, reason: str, now: float) -> None:
        """S-Disconnect: abort the session's methods, then forget it (WSP 7.1.3.2)."""
        for handle in list(session.methods):
            if self.wtp.state(handle) is not None:
                self.wtp.abort(handle, WspReason.DISCONNECT, now)
            answered = handle in self._answered
            self._finish(handle, now)
            if not answered:
                self._events.append(MethodCancelled(handle, reason))
        if self.sessions.get(session.client) is session:
            del self.sessions[session.client]
            # The TID cache holds one entry per initiator address ever seen; a phone that
            # comes back is accepted as new, as an unknown initiator is (WTP 7.8.2.3).
            self.wtp.tid_cache.last.pop(session.client, None)
        self._events.append(SessionClosed(session.client, session.session_id, reason))

    def _sweep(self, now: float) -> None:
        idle = self.limits.idle_timeout
        for session in list(self.sessions.values()):
            if not session.methods and now - session.last_active >= idle:
                self._end_session(session, "idle timeout", now)
        self._sweep_at = now + idle / 4 if self.sessions else None


# --- connectionless -----------------------------------------------------------------------


class ConnectionlessServer:
    """Connectionless WSP (WSP 8.2.1): one request per datagram, one reply back."""

    def __init__(self, limits: GatewayLimits | None = None) -> None:
        self.limits = limits or GatewayLimits()
        self._next_id = 1
        self._pending: dict[int, tuple[Address, int]] = {}  # id -> (client, TID)
        self._by_client: dict[Address, dict[int, int]] = {}  # client -> TID -> id
        self._out: list[tuple[bytes, Address]] = []
        self._events: deque[GatewayEvent] = deque()

    def respond(self, request_id: int, reply: Reply, now: float) -> bool:
        entry = self._pending.pop(request_id, None)
        if entry is None:
            return False
        client, tid = entry
        tids = self._by_client[client]
        del tids[tid]
        if not tids:
            del self._by_client[client]
        data = encode_connectionless(tid, reply)
        limit = min(self.limits.max_message_size, MAX_UDP_PAYLOAD)
        if len(data) > limit:
            too_big = error_reply(502, f"reply of {len(data)} octets exceeds {limit}")
            data = encode_connectionless(tid, too_big)
        self._out.append((data, client))
        self._events.append(MethodCompleted(request_id))
        return True

    def pending(self) -> int:
        return len(self._pending)

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        try:
            tid, pdu = decode_connectionless(data)
        except WspCodecError as exc:
            self._events.append(DatagramDropped(addr, str(exc)))
            return
        if not isinstance(pdu, (Get, Post)):
            self._events.append(DatagramDropped(addr, f"{type(pdu).__name__} is not a method"))
            return
        tids = self._by_client.setdefault(addr, {})
        if tid in tids:
            return  # the same request again while we fetch it
        if len(tids) >= self.limits.max_connectionless_pending:
            self._out.append((encode_connectionless(tid, error_reply(503, "busy")), addr))
            self._events.append(MethodRefused(addr, WspReason.CONGESTION, "too many pending"))
            return
        request_id = self._next_id
        self._next_id += 1
        tids[tid] = request_id
        self._pending[request_id] = (addr, tid)
        self._events.append(MethodRequest(request_id, addr, pdu))

    def handle_timer(self, now: float) -> None:
        pass

    def get_timer(self) -> float | None:
        return None

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        out, self._out = self._out, []
        return out

    def next_event(self) -> GatewayEvent | None:
        return self._events.popleft() if self._events else None
