"""Connection-oriented WSP over WTP (WSP 7, UDP port 9201): client and server sessions.

Every session PDU rides a WTP transaction (WSP 7.1, 8.2): Connect, Resume and each
method are class 2 invokes whose result is ConnectReply, Reply or the method's Reply;
Disconnect and Suspend are class 0 invokes. Both objects own a ``WtpEndpoint`` and
follow the sans-IO contract; events are ``wsp.events``.

Client session (after WSP 7.1.3's client session table, abridged)::

    NULL        S-Connect.req           Send Connect (class 2)        -> CONNECTING
    CONNECTING  ConnectReply            S-Connect.cnf                 -> CONNECTED
                TR-Abort.ind/Redirect   S-Disconnect.ind              -> NULL
    CONNECTED   S-MethodInvoke.req      Send Get/Post (class 2, at most MOR outstanding)
                S-Suspend.req           Send Suspend (class 0), abort methods (SUSPEND)
                                                                      -> SUSPENDED
    SUSPENDED   S-Resume.req            Send Resume (class 2)         -> RESUMING
    RESUMING    Reply                   S-Resume.cnf                  -> CONNECTED
                TR-Abort.ind            S-Disconnect.ind              -> NULL
    any but NULL  S-Disconnect.req      Send Disconnect (class 0), abort methods
                                        (DISCONNECT), S-Disconnect.ind -> NULL
                  Disconnect PDU        abort methods, S-Disconnect.ind -> NULL

Server session (after WSP 7.1.4's server session table, abridged; the server accepts
every Connect it can decode, with the negotiated capabilities)::

    NULL        Connect                 Send ConnectReply             -> CONNECTING
    CONNECTING  TR-Result.cnf / method  (the client has the reply)    -> CONNECTED
    CONNECTED   Get/Post                S-MethodInvoke.ind, TR-Invoke.res
                Suspend                 abort methods (SUSPEND)       -> SUSPENDED
    SUSPENDED   Resume                  rebind the peer address, Send Reply -> CONNECTED
                Get/Post                TR-Abort.req (SUSPEND)
    any         Disconnect              abort methods (DISCONNECT)    -> NULL

A command in a state whose table has no row for it raises ``WspError`` (PROTOERR).
"""

import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum, auto
from typing import Any, Generic, TypeVar

from wwanlab.core.address import Address
from wwanlab.wap.wsp.capabilities import (
    Capability,
    ClientSduSize,
    MethodMor,
    ProtocolOptions,
    PushMor,
    ServerSduSize,
)
from wwanlab.wap.wsp.common import (
    EventQueue,
    MethodRequests,
    WspError,
    reply_fields,
    reply_pdu,
    request_fields,
    request_pdu,
)
from wwanlab.wap.wsp.constants import OPTION_SESSION_RESUME, AbortReason
from wwanlab.wap.wsp.encoding import WspCodecError
from wwanlab.wap.wsp.events import (
    Connected,
    Disconnected,
    Headers,
    MethodAborted,
    MethodInvoke,
    MethodResult,
    Negotiated,
    ReplyConfirmed,
    RequestRefused,
    Resumed,
    SessionConnected,
    SessionDisconnected,
    SessionResumed,
    SessionSuspended,
    Suspended,
)
from wwanlab.wap.wsp.headers import decode_header_block, decode_headers, encode_headers
from wwanlab.wap.wsp.pdu import (
    Connect,
    ConnectReply,
    Disconnect,
    Get,
    Post,
    Redirect,
    Reply,
    Resume,
    Suspend,
    decode,
    encode,
)
from wwanlab.wap.wtp.constants import TransactionClass
from wwanlab.wap.wtp.endpoint import WtpEndpoint
from wwanlab.wap.wtp.events import (
    AbortIndication,
    InvokeConfirm,
    InvokeIndication,
    ResultConfirm,
    ResultIndication,
    WtpEvent,
)
from wwanlab.wap.wtp.pdu import Ack
from wwanlab.wap.wtp.pdu import encode as encode_wtp
from wwanlab.wap.wtp.responder import ResponderState
from wwanlab.wap.wtp.timers import WtpConfig

MAX_MESSAGE = 256 * 1400  # octets: the largest message WTP SAR carries at 1400 per packet
MAX_SESSION_ID = 0xFFFFFFFF  # a session id is a uintvar of at most 32 bits (WSP 8.1.2)
OK = 200


@dataclass(frozen=True, slots=True)
class WspClientConfig:
    """What a client proposes in Connect (WSP 8.3.2). 0 means "no limit" for sizes."""

    client_sdu_size: int = MAX_MESSAGE
    server_sdu_size: int = MAX_MESSAGE
    protocol_options: int = OPTION_SESSION_RESUME
    method_mor: int = 1
    push_mor: int = 1
    headers: Headers = ()


@dataclass(frozen=True, slots=True)
class WspServerConfig:
    """The most a server accepts; the reply to Connect lowers proposals to these."""

    client_sdu_size: int = 0  # no limit on what we would send
    server_sdu_size: int = MAX_MESSAGE
    protocol_options: int = OPTION_SESSION_RESUME
    method_mor: int = 4
    push_mor: int = 1
    headers: Headers = ()
    max_sessions: int = 20_000  # a Connect beyond this is refused with CONGESTION
    idle_timeout: float | None = None  # s; a session with no method open is then dropped

    def __post_init__(self) -> None:
        if self.max_sessions < 1 or self.method_mor < 1:
            raise ValueError("max_sessions and method_mor must be at least 1")
        if self.idle_timeout is not None and self.idle_timeout <= 0:
            raise ValueError("idle_timeout must be positive")


def _min_size(a: int, b: int) -> int:
    """The smaller of two sizes where 0 means unlimited."""
    return max(a, b) if 0 in (a, b) else min(a, b)


def negotiate(proposed: tuple[Capability, ...], limits: WspServerConfig) -> Negotiated:
    """The server's answer (WSP 8.3.1): never more than proposed nor than it allows.

    A capability the client leaves out takes its default (WSP 8.3.2).
    """
    base = Negotiated()
    got = {type(c): c for c in proposed}
    client_sdu = got.get(ClientSduSize, ClientSduSize(base.client_sdu_size))
    server_sdu = got.get(ServerSduSize, ServerSduSize(base.server_sdu_size))
    options = got.get(ProtocolOptions, ProtocolOptions(base.protocol_options))
    mor = got.get(MethodMor, MethodMor(base.method_mor))
    push = got.get(PushMor, PushMor(base.push_mor))
    assert isinstance(client_sdu, ClientSduSize) and isinstance(server_sdu, ServerSduSize)
    assert isinstance(options, ProtocolOptions) and isinstance(mor, MethodMor)
    assert isinstance(push, PushMor)
    return Negotiated(
        client_sdu_size=_min_size(client_sdu.size, limits.client_sdu_size),
        server_sdu_size=_min_size(server_sdu.size, limits.server_sdu_size),
        protocol_options=options.flags & limits.protocol_options,
        method_mor=max(1, min(mor.count, limits.method_mor)),
        push_mor=min(push.count, limits.push_mor),
    )


def as_capabilities(n: Negotiated | WspClientConfig) -> tuple[Capability, ...]:
    """The five capabilities WSP 8.3.2 names: a client's proposal, a server's answer."""
    return (
        ClientSduSize(n.client_sdu_size),
        ServerSduSize(n.server_sdu_size),
        ProtocolOptions(n.protocol_options),
        MethodMor(n.method_mor),
        PushMor(n.push_mor),
    )


def accepted(reply: tuple[Capability, ...], config: WspClientConfig) -> Negotiated:
    """What the client runs with: the reply's values, its own proposal where silent."""
    got = {type(c): c for c in reply}
    mine = {type(c): c for c in as_capabilities(config)}

    def pick(kind: type) -> Any:
        return got.get(kind, mine[kind])

    return Negotiated(
        client_sdu_size=pick(ClientSduSize).size,
        server_sdu_size=pick(ServerSduSize).size,
        protocol_options=pick(ProtocolOptions).flags,
        method_mor=max(1, pick(MethodMor).count),
        push_mor=pick(PushMor).count,
    )


# --- a small state-table engine ---------------------------------------------------------

S = TypeVar("S", bound=Enum)


@dataclass(frozen=True, slots=True)
class Row(Generic[S]):
    state: S
    input: str
    action: Callable[..., None]
    next_state: S
    condition: Callable[..., bool] = field(default=lambda obj, *args: True)


def run_table(obj: Any, rows: list[Row[Any]], name: str, *args: object) -> None:
    """Run the first row for (obj.state, name) whose condition holds; else WspError."""
    for row in rows:
        if row.state == obj.state and row.input == name and row.condition(obj, *args):
            row.action(obj, *args)
            obj.state = row.next_state
            return
    raise WspError(f"{name} is not allowed in state {obj.state.name}")


# --- what both sides share -------------------------------------------------------------


class _OverWtp(EventQueue):
    """A WSP peer on one ``WtpEndpoint``: the sans-IO contract, WTP events to ``_on_wtp``."""

    def __init__(self, rng: random.Random, wtp_config: WtpConfig | None) -> None:
        super().__init__()
        self.wtp = WtpEndpoint(rng, wtp_config)

    def _on_wtp(self, event: WtpEvent, now: float) -> None:
        raise NotImplementedError

    def _pump(self, now: float) -> None:
        while (event := self.wtp.next_event()) is not None:
            self._on_wtp(event, now)

    def _send_class0(self, peer: Address, pdu: Disconnect | Suspend, now: float) -> None:
        """Disconnect and Suspend are class 0 invokes: sent once, never answered (WSP 8.2)."""
        self.wtp.invoke(peer, encode(pdu), TransactionClass.CLASS_0, False, now)

    # --- sans-IO contract ---------------------------------------------------------------
    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        self.wtp.receive_datagram(data, addr, now)
        self._pump(now)

    def handle_timer(self, now: float) -> None:
        self.wtp.handle_timer(now)
        self._pump(now)

    def get_timer(self) -> float | None:
        return self.wtp.get_timer()

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        return self.wtp.datagrams_to_send(now)


# --- the client -------------------------------------------------------------------------


class ClientState(Enum):
    NULL = auto()
    CONNECTING = auto()
    CONNECTED = auto()
    SUSPENDED = auto()
    RESUMING = auto()


@dataclass(slots=True)
class _Request:
    request: int
    pdu: Get | Post
    handle: int | None = None  # the WTP transaction once sent


class ClientSession(_OverWtp, MethodRequests):
    """One WSP session from this client to ``server`` (normally port 9201)."""

    def __init__(
        self,
        server: Address,
        rng: random.Random,
        config: WspClientConfig | None = None,
        wtp_config: WtpConfig | None = None,
    ) -> None:
        super().__init__(rng, wtp_config)
        self.server = server
        self.config = config or WspClientConfig()
        self.state = ClientState.NULL
        self.session_id: int | None = None
        self.capabilities = Negotiated()
        self._session_handle: int | None = None  # Connect or Resume transaction
        self._next_request = 1
        self._queued: deque[_Request] = deque()
        self._active: dict[int, _Request] = {}  # WTP handle -> request

    # --- commands -------------------------------------------------------------------
    def connect(self, now: float) -> None:
        """S-Connect.req."""
        run_table(self, CLIENT_ROWS, "S-Connect.req", now)
        self._pump(now)

    def request(self, method: str, uri: str, headers: Headers, body: bytes, now: float) -> int:
        """S-MethodInvoke.req; returns the request number the events carry."""
        req = _Request(self._next_request, request_pdu(method, uri, headers, body))
        self._next_request += 1
        run_table(self, CLIENT_ROWS, "S-MethodInvoke.req", req, now)
        self._pump(now)
        return req.request

    def abort_method(self, request: int, now: float) -> None:
        """S-MethodAbort.req: TR-Abort.req(PEERREQ); S-MethodAbort.ind(USERREQ) here.

        A request that already ended (its event may still be queued) is left alone.
        """
        found = False
        for handle, req in list(self._active.items()):
            if req.request == request:
                del self._active[handle]
                self.wtp.abort(handle, AbortReason.PEERREQ, now)
                found = True
        for req in list(self._queued):
            if req.request == request:
                self._queued.remove(req)
                found = True
        if found:
            self._events.append(MethodAborted(request, AbortReason.USERREQ))
        self._send_queued(now)
        self._pump(now)

    def disconnect(self, now: float) -> None:
        """S-Disconnect.req."""
        run_table(self, CLIENT_ROWS, "S-Disconnect.req", now)
        self._pump(now)

    def suspend(self, now: float) -> None:
        """S-Suspend.req (needs the Session Resume option negotiated)."""
        run_table(self, CLIENT_ROWS, "S-Suspend.req", now)
        self._pump(now)

    def resume(self, now: float) -> None:
        """S-Resume.req: from whatever address the driver now sends from."""
        run_table(self, CLIENT_ROWS, "S-Resume.req", now)
        self._pump(now)

    # --- actions ----------------------------------------------------------------------
    def _send_connect(self, now: float) -> None:
        pdu = Connect(
            capabilities=as_capabilities(self.config), headers=encode_headers(self.config.headers)
        )
        self._session_handle = self.wtp.invoke(
            self.server, encode(pdu), TransactionClass.CLASS_2, True, now
        )

    def _connected(self, reply: ConnectReply, now: float) -> None:
        self.session_id = reply.session_id
        self.capabilities = accepted(reply.capabilities, self.config)
        self._events.append(
            Connected(reply.session_id, self.capabilities, tuple(decode_headers(reply.headers)))
        )
        self._send_queued(now)

    def _refused(self, reason: int, now: float) -> None:
        self._end_methods(AbortReason.DISCONNECT, now)
        self.session_id = None
        self._events.append(Disconnected(reason))

    def _invoke_method(self, req: _Request, now: float) -> None:
        self._queued.append(req)
        self._send_queued(now)

    def _send_queued(self, now: float) -> None:
        while self._queued and len(self._active) < self.capabilities.method_mor:
            req = self._queued.popleft()
            data = encode(req.pdu)
            limit = self.capabilities.server_sdu_size
            if limit and len(data) > limit:
                self._events.append(MethodAborted(req.request, AbortReason.MRUEXCEEDED))
                continue
            req.handle = self.wtp.invoke(self.server, data, TransactionClass.CLASS_2, True, now)
            self._active[req.handle] = req

    def _end_methods(self, reason: AbortReason, now: float) -> None:
        for handle, req in list(self._active.items()):
            self.wtp.abort(handle, reason, now)
            self._events.append(MethodAborted(req.request, reason))
        for req in self._queued:
            self._events.append(MethodAborted(req.request, reason))
        self._active.clear()
        self._queued.clear()

    def _send_disconnect(self, now: float) -> None:
        if self._session_handle is not None and self.state in (
            ClientState.CONNECTING,
            ClientState.RESUMING,
        ):
            self.wtp.abort(self._session_handle, AbortReason.DISCONNECT, now)
        if self.session_id is not None:
            self._send_class0(self.server, Disconnect(session_id=self.session_id), now)
        self._refused(AbortReason.USERREQ, now)

    def _peer_disconnected(self, now: float) -> None:
        self._refused(AbortReason.DISCONNECT, now)

    def _send_suspend(self, now: float) -> None:
        assert self.session_id is not None
        self._send_class0(self.server, Suspend(session_id=self.session_id), now)
        self._end_methods(AbortReason.SUSPEND, now)
        self._events.append(Suspended(AbortReason.USERREQ))

    def _send_resume(self, now: float) -> None:
        assert self.session_id is not None
        pdu = Resume(session_id=self.session_id, capabilities=(), headers=b"")
        self._session_handle = self.wtp.invoke(
            self.server, encode(pdu), TransactionClass.CLASS_2, True, now
        )

    def _resumed(self, reply: Reply, now: float) -> None:
        self._events.append(Resumed())
        self._send_queued(now)

    def _resume_failed(self, reason: int, now: float) -> None:
        self._refused(reason, now)

    def _resume_allowed(self, now: float) -> bool:
        return bool(self.capabilities.protocol_options & OPTION_SESSION_RESUME)

    # --- WTP events -------------------------------------------------------------------
    def _on_wtp(self, event: WtpEvent, now: float) -> None:
        if event.handle == self._session_handle:
            self._on_session_transaction(event, now)
        elif event.handle in self._active:
            self._on_method(event, now)
        elif isinstance(event, InvokeIndication):
            self._on_server_invoke(event, now)

    def _on_session_transaction(self, event: WtpEvent, now: float) -> None:
        if isinstance(event, InvokeConfirm):
            return
        if isinstance(event, AbortIndication):
            self._session_handle = None
            run_table(self, CLIENT_ROWS, "TR-Abort.ind", event.reason, now)
            return
        if isinstance(event, ResultIndication):
            self.wtp.result_ack(event.handle, now)
            self._session_handle = None
            try:
                pdu = decode(event.data)
            except WspCodecError as error:
                run_table(self, CLIENT_ROWS, "TR-Abort.ind", error.reason, now)
                return
            if isinstance(pdu, ConnectReply):
                run_table(self, CLIENT_ROWS, "ConnectReply", pdu, now)
            elif isinstance(pdu, Reply):
                run_table(self, CLIENT_ROWS, "Reply", pdu, now)
            elif isinstance(pdu, Redirect):
                run_table(self, CLIENT_ROWS, "TR-Abort.ind", AbortReason.DISCONNECT, now)
            else:
                run_table(self, CLIENT_ROWS, "TR-Abort.ind", AbortReason.PROTOERR, now)

    def _on_method(self, event: WtpEvent, now: float) -> None:
        req = self._active[event.handle]
        if isinstance(event, InvokeConfirm):
            return
        del self._active[event.handle]
        if isinstance(event, AbortIndication):
            self._events.append(MethodAborted(req.request, event.reason))
        elif isinstance(event, ResultIndication):
            self.wtp.result_ack(event.handle, now)
            try:
                pdu = decode(event.data)
                if not isinstance(pdu, Reply):
                    raise WspCodecError("a method's result must be a Reply PDU")
                status, headers, body = reply_fields(pdu)
            except WspCodecError as error:
                self._events.append(MethodAborted(req.request, error.reason))
            else:
                self._events.append(MethodResult(req.request, status, headers, body))
        self._send_queued(now)

    def _on_server_invoke(self, event: InvokeIndication, now: float) -> None:
        try:
            pdu = decode(event.data)
        except WspCodecError:
            return
        if isinstance(pdu, Disconnect) and pdu.session_id == self.session_id:
            run_table(self, CLIENT_ROWS, "Disconnect", now)


C = ClientState
CS = ClientSession
CLIENT_ROWS: list[Row[ClientState]] = [
    Row(C.NULL, "S-Connect.req", CS._send_connect, C.CONNECTING),
    Row(C.CONNECTING, "ConnectReply", CS._connected, C.CONNECTED),
    Row(C.CONNECTING, "TR-Abort.ind", CS._refused, C.NULL),
    Row(C.CONNECTED, "S-MethodInvoke.req", CS._invoke_method, C.CONNECTED),
    Row(C.CONNECTED, "S-Suspend.req", CS._send_suspend, C.SUSPENDED, CS._resume_allowed),
    Row(C.SUSPENDED, "S-Resume.req", CS._send_resume, C.RESUMING),
    Row(C.RESUMING, "Reply", CS._resumed, C.CONNECTED),
    Row(C.RESUMING, "TR-Abort.ind", CS._resume_failed, C.NULL),
    *[Row(s, "S-Disconnect.req", CS._send_disconnect, C.NULL) for s in list(C)[1:]],
    *[Row(s, "Disconnect", CS._peer_disconnected, C.NULL) for s in list(C)[1:]],
]


# --- the server -------------------------------------------------------------------------


class ServerState(Enum):
    CONNECTING = auto()
    CONNECTED = auto()
    SUSPENDED = auto()
    NULL = auto()


@dataclass(slots=True)
class ServerSession:
    """One client's session as the server holds it."""

    session_id: int
    peer: Address
    capabilities: Negotiated
    last_active: float
    state: ServerState = ServerState.CONNECTING
    methods: set[int] = field(default_factory=set)  # WTP handles of open methods
    connect_handle: int | None = None  # the ConnectReply's transaction until it ends


class WspServer(_OverWtp):
    """The server side of connection-oriented WSP: any number of sessions.

    Each Get or Post becomes ``MethodInvoke``; answer it with ``reply(handle, ...)`` or
    ``respond(handle, Reply)`` whenever the answer is ready (a gateway fetches it first).
    Sessions are found by client address, and by session id for Resume, which may come
    from a new address.

    Refusals are WTP user aborts carrying WSP Table 35 reasons, each also reported as
    ``RequestRefused``: a PDU that does not decode, or one a server does not take,
    PROTOERR; a method with no session, DISCONNECT; with a suspended one, SUSPEND; over
    the session's MethodMOR, MOREXCEEDED; a Connect beyond ``max_sessions``,
    CONGESTION. With ``idle_timeout`` set, a session with no method open and no traffic
    for that long is dropped (``SessionDisconnected``), and its peer's entry in the WTP
    TID cache with it, so a table of sessions that come and go stays bounded.
    """

    def __init__(
        self,
        rng: random.Random,
        config: WspServerConfig | None = None,
        wtp_config: WtpConfig | None = None,
    ) -> None:
        super().__init__(rng, wtp_config)
        self.config = config or WspServerConfig()
        self.sessions: dict[int, ServerSession] = {}
        self._by_peer: dict[Address, int] = {}
        self._next_session = 1
        self._method_session: dict[int, int] = {}  # WTP handle -> session id
        self._answered: set[int] = set()  # methods whose Reply is under way
        self._connect_handles: dict[int, int] = {}  # WTP handle of a ConnectReply -> session
        self._sweep_at: float | None = None

    # --- commands -------------------------------------------------------------------
    def reply(self, handle: int, status: int, headers: Headers, body: bytes, now: float) -> bool:
        """S-MethodResult.req with a Reply built from HTTP-style fields (``respond``)."""
        return self.respond(handle, reply_pdu(status, headers, body), now)

    def respond(self, handle: int, reply: Reply, now: float) -> bool:
        """S-MethodResult.req: ``reply`` answers MethodInvoke ``handle``.

        False when the method ended meanwhile (``MethodAborted`` told so) or was
        answered already: a gateway answering late is not an error. A Reply larger than
        the client's SDU size aborts the method with MRUEXCEEDED (WSP 8.3.2.1).
        """
        sid = self._method_session.get(handle)
        if sid is None or handle in self._answered:
            return False
        session = self.sessions[sid]
        session.last_active = now
        data = encode(reply)
        limit = session.capabilities.client_sdu_size
        if limit and len(data) > limit:
            self._close_method(handle, AbortReason.MRUEXCEEDED, now, tell=True)
        else:
            self._answered.add(handle)
            self.wtp.result(handle, data, now)
        self._pump(now)
        return True

    def session_of(self, peer: Address) -> ServerSession | None:
        """The session ``peer`` holds, if any."""
        sid = self._by_peer.get(peer)
        return self.sessions.get(sid) if sid is not None else None

    def close(self, now: float) -> None:
        """Disconnect every session (server shutdown): their methods are aborted."""
        for sid in list(self.sessions):
            self.disconnect(sid, now)

    def abort(self, handle: int, now: float, reason: int = AbortReason.PEERREQ) -> None:
        """S-MethodAbort.req."""
        if handle in self._method_session:
            self._close_method(handle, reason, now, tell=False)
            self._pump(now)

    def disconnect(self, session: int, now: float) -> None:
        """S-Disconnect.req from the server: Disconnect (class 0) and forget."""
        s = self.sessions[session]
        self._send_class0(s.peer, Disconnect(session_id=session), now)
        self._drop(s, AbortReason.DISCONNECT, now, tell=False)
        self._pump(now)

    # --- internals ----------------------------------------------------------------------
    def _close_method(self, handle: int, reason: int, now: float, tell: bool) -> None:
        self._forget_method(handle)
        self.wtp.abort(handle, reason, now)
        if tell:
            self._events.append(MethodAborted(handle, reason))

    def _refuse(
        self, event: InvokeIndication, reason: AbortReason, detail: str, now: float
    ) -> None:
        """TR-Abort.req for an invoke the server will not serve (class 0 has no answer)."""
        if event.tcl != TransactionClass.CLASS_0 and self.wtp.state(event.handle) is not None:
            self.wtp.abort(event.handle, reason, now)
        self._events.append(RequestRefused(event.peer, reason, detail))

    def _drop(self, s: ServerSession, reason: AbortReason, now: float, tell: bool) -> None:
        for handle in list(s.methods):
            self._close_method(handle, reason, now, tell=True)
        s.state = ServerState.NULL
        self.sessions.pop(s.session_id, None)
        if self._by_peer.get(s.peer) == s.session_id:
            del self._by_peer[s.peer]
            # The TID cache keeps one entry per initiator ever seen; a client coming
            # back is then accepted as new, as an unknown initiator is (WTP 7.8.2.3).
            self.wtp.tid_cache.last.pop(s.peer, None)
        if tell:
            self._events.append(SessionDisconnected(s.session_id, reason))

    # --- the idle sweep -----------------------------------------------------------------
    def handle_timer(self, now: float) -> None:
        super().handle_timer(now)
        if self._sweep_at is not None and now >= self._sweep_at:
            self._sweep(now)

    def get_timer(self) -> float | None:
        wtp = self.wtp.get_timer()
        if self._sweep_at is None:
            return wtp
        return self._sweep_at if wtp is None else min(wtp, self._sweep_at)

    def _sweep(self, now: float) -> None:
        idle = self.config.idle_timeout
        assert idle is not None
        for s in list(self.sessions.values()):
            if not s.methods and now - s.last_active >= idle:
                self._drop(s, AbortReason.DISCONNECT, now, tell=True)
        self._sweep_at = now + idle / 4 if self.sessions else None
        self._pump(now)

    def _on_wtp(self, event: WtpEvent, now: float) -> None:
        if isinstance(event, InvokeIndication):
            self._on_invoke(event, now)
        elif event.handle in self._connect_handles:
            sid = self._connect_handles.pop(event.handle)
            s = self.sessions.get(sid)
            if s is not None:
                s.connect_handle = None
            if s is not None and isinstance(event, ResultConfirm):
                run_table(s, SERVER_ROWS, "TR-Result.cnf")
            elif (
                s is not None
                and isinstance(event, AbortIndication)
                # a client whose first method showed it has the ConnectReply keeps its
                # session even when the Ack of the reply never came
                and s.state == ServerState.CONNECTING
            ):
                self._drop(s, AbortReason.CONNECTERR, now, tell=True)
        elif event.handle in self._method_session:
            if isinstance(event, ResultConfirm):
                self._forget_method(event.handle)
                self._events.append(ReplyConfirmed(event.handle))
            elif isinstance(event, AbortIndication):
                self._forget_method(event.handle)
                self._events.append(MethodAborted(event.handle, event.reason))

    def _forget_method(self, handle: int) -> None:
        sid = self._method_session.pop(handle)
        self._answered.discard(handle)
        if sid in self.sessions:
            self.sessions[sid].methods.discard(handle)

    def _on_invoke(self, event: InvokeIndication, now: float) -> None:
        try:
            pdu = decode(event.data)
        except WspCodecError as error:
            self._refuse(event, error.reason, f"bad WSP PDU: {error}", now)
            return
        own = self.session_of(event.peer)
        if own is not None:
            own.last_active = now
        reliable = event.tcl == TransactionClass.CLASS_2
        match pdu:
            case Connect() if reliable:
                self._connect(event, pdu, now)
            case Get() | Post() if reliable:
                self._method(event, pdu, own, now)
            case Resume() if reliable:
                self._resume(event, pdu, now)
            case Disconnect() if own is not None and pdu.session_id == own.session_id:
                self._drop(own, AbortReason.DISCONNECT, now, tell=True)
            case Suspend() if own is not None and pdu.session_id == own.session_id:
                if own.capabilities.protocol_options & OPTION_SESSION_RESUME:
                    run_table(own, SERVER_ROWS, "Suspend")
                    for handle in list(own.methods):
                        self._close_method(handle, AbortReason.SUSPEND, now, tell=True)
                    self._events.append(SessionSuspended(own.session_id, AbortReason.SUSPEND))
                else:  # no resume negotiated: a suspended session cannot come back
                    self._drop(own, AbortReason.SUSPEND, now, tell=True)
            case _:
                what = f"{type(pdu).__name__} in a class {int(event.tcl)} transaction"
                self._refuse(event, AbortReason.PROTOERR, f"{what} is not served", now)

    def _connect(self, event: InvokeIndication, pdu: Connect, now: float) -> None:
        try:
            headers = decode_header_block(pdu.headers)
        except WspCodecError as error:
            self._refuse(event, error.reason, f"bad Connect headers: {error}", now)
            return
        old = self.session_of(event.peer)
        if old is not None:  # a new Connect from the same address replaces the session
            self._drop(old, AbortReason.DISCONNECT, now, tell=True)
        elif len(self.sessions) >= self.config.max_sessions:
            self._refuse(event, AbortReason.CONGESTION, "session table full", now)
            return
        sid = self._next_session
        self._next_session = sid % MAX_SESSION_ID + 1
        negotiated = negotiate(pdu.capabilities, self.config)
        s = ServerSession(sid, event.peer, negotiated, now, connect_handle=event.handle)
        self.sessions[sid] = s
        self._by_peer[event.peer] = sid
        if self._sweep_at is None and self.config.idle_timeout is not None:
            self._sweep_at = now + self.config.idle_timeout
        reply = ConnectReply(
            session_id=sid,
            capabilities=as_capabilities(negotiated),
            headers=encode_headers(self.config.headers),
        )
        self.wtp.result(event.handle, encode(reply), now)
        self._connect_handles[event.handle] = sid
        self._events.append(
            SessionConnected(sid, event.peer, headers, pdu.capabilities, negotiated)
        )

    def _method(
        self, event: InvokeIndication, pdu: Get | Post, s: ServerSession | None, now: float
    ) -> None:
        if s is None:
            self._refuse(event, AbortReason.DISCONNECT, "method outside a session", now)
            return
        if s.state == ServerState.SUSPENDED:
            self._refuse(event, AbortReason.SUSPEND, "method in a suspended session", now)
            return
        if s.state == ServerState.CONNECTING:
            self._connect_acknowledged(s, now)
        if len(s.methods) >= s.capabilities.method_mor:
            self._refuse(event, AbortReason.MOREXCEEDED, "more methods than the MethodMOR", now)
            return
        try:
            method, headers, body = request_fields(pdu)
        except WspCodecError as error:
            self._refuse(event, error.reason, f"bad method headers: {error}", now)
            return
        self.wtp.invoke_ack(event.handle, now)  # S-MethodInvoke.res at once
        s.methods.add(event.handle)
        self._method_session[event.handle] = s.session_id
        self._events.append(
            MethodInvoke(event.handle, s.session_id, event.peer, method, pdu.uri, headers, body)
        )

    def _connect_acknowledged(self, s: ServerSession, now: float) -> None:
        """A method proves the client holds the ConnectReply: the session is up.

        A client may not invoke a method before S-Connect.cnf (WSP 7.1.3), so its
        first method stands for the Ack of the ConnectReply even when that Ack was
        lost (or, with Kannel's fakewap ``-c N``, sent with another thread's TID). The
        Ack is handed to WTP as the client's own, so the Connect transaction ends by
        its normal row instead of sending the ConnectReply again into the method.
        """
        run_table(s, SERVER_ROWS, "TR-Result.cnf")
        handle, s.connect_handle = s.connect_handle, None
        if handle is not None and self.wtp.state(handle) == ResponderState.RESULT_RESP_WAIT:
            tid = self.wtp.tid_of(handle)
            assert tid is not None
            self.wtp.receive_datagram(encode_wtp(Ack(tid=tid)), s.peer, now)

    def _resume(self, event: InvokeIndication, pdu: Resume, now: float) -> None:
        s = self.sessions.get(pdu.session_id)
        if s is None or not s.capabilities.protocol_options & OPTION_SESSION_RESUME:
            self._refuse(event, AbortReason.DISCONNECT, "no session to resume", now)
            return
        for handle in list(s.methods):  # resuming a connected session suspends it first
            self._close_method(handle, AbortReason.RESUME, now, tell=True)
        if self._by_peer.get(s.peer) == s.session_id:
            del self._by_peer[s.peer]
        s.peer = event.peer
        s.last_active = now
        self._by_peer[event.peer] = s.session_id
        run_table(s, SERVER_ROWS, "Resume")
        self.wtp.result(event.handle, encode(reply_pdu(OK, (), b"")), now)
        self._events.append(SessionResumed(s.session_id, event.peer))


def _nothing(s: ServerSession) -> None:
    """The state change is all."""


V = ServerState
SERVER_ROWS: list[Row[ServerState]] = [
    Row(V.CONNECTING, "TR-Result.cnf", _nothing, V.CONNECTED),
    Row(V.CONNECTED, "TR-Result.cnf", _nothing, V.CONNECTED),
    Row(V.SUSPENDED, "TR-Result.cnf", _nothing, V.SUSPENDED),
    Row(V.CONNECTING, "Suspend", _nothing, V.SUSPENDED),
    Row(V.CONNECTED, "Suspend", _nothing, V.SUSPENDED),
    Row(V.SUSPENDED, "Suspend", _nothing, V.SUSPENDED),
    Row(V.SUSPENDED, "Resume", _nothing, V.CONNECTED),
    Row(V.CONNECTED, "Resume", _nothing, V.CONNECTED),
]
