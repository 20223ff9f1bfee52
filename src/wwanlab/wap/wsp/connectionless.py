"""Connectionless WSP (WSP 6.4, 8.2.1): one datagram each way on UDP port 9200.

A request is an unreliable Unit-MethodInvoke (a Get or Post PDU behind a one-octet TID)
and its answer a Unit-MethodResult (a Reply PDU behind the same TID); nothing is
retransmitted and nothing acknowledged, so the client matches replies to requests by
TID and peer alone. The spec gives the client no timer; ``timeout`` is this library's
own, so that a lost datagram ends in ``RequestTimedOut`` rather than in silence, and so
is ``retry_after``: the same datagram, TID included, sent again until an answer or the
timeout (a server that still holds the TID takes the copy as the same request).

The server bounds what one peer may hold (``max_pending_per_peer``; beyond it a 503
Reply, WSP's CONGESTION) and what one Reply may be (one UDP datagram); a datagram it
cannot read is dropped and reported as ``DatagramDropped``.
"""

import random
from dataclasses import dataclass

from wwanlab.core.address import Address
from wwanlab.wap.wsp.common import (
    EventQueue,
    MethodRequests,
    reply_fields,
    reply_pdu,
    request_fields,
    request_pdu,
    text_reply,
)
from wwanlab.wap.wsp.constants import AbortReason
from wwanlab.wap.wsp.encoding import WspCodecError
from wwanlab.wap.wsp.events import (
    DatagramDropped,
    Headers,
    MethodInvoke,
    MethodResult,
    RequestRefused,
    RequestTimedOut,
)
from wwanlab.wap.wsp.pdu import Get, Post, Reply, decode_connectionless, encode_connectionless

TID_SPACE = 256  # WSP 8.2.1: the connectionless TID is one octet
CONNECTIONLESS_TIMEOUT = 30.0  # s, this library's choice (the spec has none)
MAX_PENDING_PER_PEER = 64  # requests one peer may have unanswered (this library's bound)
MAX_UDP_PAYLOAD = 65507  # octets: IPv4's 65535 less the IP (20) and UDP (8) headers


class _Datagrams(EventQueue):
    """The output half of the sans-IO contract: datagrams and events queued by handlers."""

    def __init__(self) -> None:
        super().__init__()
        self._out: list[tuple[bytes, Address]] = []

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        out, self._out = self._out, []
        return out


class ConnectionlessClient(_Datagrams, MethodRequests):
    """Sends Unit-MethodInvoke requests to one server and matches the Replies."""

    def __init__(
        self,
        server: Address,
        rng: random.Random,
        timeout: float | None = CONNECTIONLESS_TIMEOUT,
        retry_after: float | None = None,
    ) -> None:
        super().__init__()
        if retry_after is not None and retry_after <= 0:
            raise ValueError("retry_after must be positive")
        self.server = server
        self.timeout = timeout
        self.retry_after = retry_after
        self._next_tid = rng.randrange(TID_SPACE)
        self._waiting: dict[int, _Waiting] = {}  # TID -> what to resend, and when

    def request(self, method: str, uri: str, headers: Headers, body: bytes, now: float) -> int:
        """S-Unit-MethodInvoke.req; returns the TID, which names the request in events."""
        if len(self._waiting) >= TID_SPACE:
            raise WspCodecError("all 256 connectionless TIDs are waiting for replies")
        while self._next_tid in self._waiting:
            self._next_tid = (self._next_tid + 1) % TID_SPACE
        tid = self._next_tid
        self._next_tid = (tid + 1) % TID_SPACE
        data = encode_connectionless(tid, request_pdu(method, uri, headers, body))
        self._out.append((data, self.server))
        deadline = now + self.timeout if self.timeout is not None else None
        resend = now + self.retry_after if self.retry_after is not None else None
        self._waiting[tid] = _Waiting(data, deadline, resend)
        return tid

    # --- sans-IO contract ---------------------------------------------------------------
    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        if addr != self.server:
            return
        try:
            tid, pdu = decode_connectionless(data)
            if not isinstance(pdu, Reply) or tid not in self._waiting:
                return  # not ours, or late: dropped (WSP 6.4 gives it no meaning)
            status, headers, body = reply_fields(pdu)
        except WspCodecError:
            return
        del self._waiting[tid]
        self._events.append(MethodResult(tid, status, headers, body))

    def handle_timer(self, now: float) -> None:
        for tid, waiting in list(self._waiting.items()):
            if waiting.deadline is not None and waiting.deadline <= now:
                del self._waiting[tid]
                self._events.append(RequestTimedOut(tid))
            elif waiting.resend is not None and waiting.resend <= now:
                assert self.retry_after is not None
                self._out.append((waiting.data, self.server))
                waiting.resend = now + self.retry_after

    def get_timer(self) -> float | None:
        times = [t for w in self._waiting.values() for t in (w.deadline, w.resend)]
        due = [t for t in times if t is not None]
        return min(due) if due else None


@dataclass(slots=True)
class _Waiting:
    data: bytes  # the request datagram, for resends
    deadline: float | None
    resend: float | None


class ConnectionlessServer(_Datagrams):
    """Answers Unit-MethodInvoke requests from any client; the user replies at leisure."""

    def __init__(
        self, max_pending_per_peer: int = MAX_PENDING_PER_PEER, max_reply: int = MAX_UDP_PAYLOAD
    ) -> None:
        super().__init__()
        if max_pending_per_peer < 1 or max_reply < 1:
            raise ValueError("connectionless server limits must be at least 1")
        self.max_pending_per_peer = max_pending_per_peer
        self.max_reply = max_reply
        self._next_handle = 1
        self._pending: dict[int, tuple[Address, int]] = {}  # handle -> (peer, TID)
        self._by_peer: dict[Address, dict[int, int]] = {}  # peer -> TID -> handle

    def respond(self, handle: int, reply: Reply, now: float) -> bool:
        """S-Unit-MethodResult.req: ``reply`` goes to the request's peer with its TID.

        False when ``handle`` is not waiting (answered already). A Reply larger than
        ``max_reply`` is replaced by a 500 saying so: it could not leave as one datagram.
        """
        entry = self._pending.pop(handle, None)
        if entry is None:
            return False
        peer, tid = entry
        tids = self._by_peer[peer]
        del tids[tid]
        if not tids:
            del self._by_peer[peer]
        data = encode_connectionless(tid, reply)
        if len(data) > self.max_reply:
            too_big = text_reply(500, f"reply of {len(data)} octets exceeds {self.max_reply}")
            data = encode_connectionless(tid, too_big)
        self._out.append((data, peer))
        return True

    def reply(self, handle: int, status: int, headers: Headers, body: bytes, now: float) -> bool:
        """``respond`` with a Reply built from an HTTP-style status, headers and body."""
        return self.respond(handle, reply_pdu(status, headers, body), now)

    def pending(self) -> int:
        return len(self._pending)

    # --- sans-IO contract ---------------------------------------------------------------
    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        try:
            tid, pdu = decode_connectionless(data)
            if not isinstance(pdu, (Get, Post)):
                raise WspCodecError(f"{type(pdu).__name__} is not a request")
            method, headers, body = request_fields(pdu)
        except WspCodecError as error:  # connectionless WSP has no way to say it was bad
            self._events.append(DatagramDropped(addr, str(error), data))
            return
        tids = self._by_peer.setdefault(addr, {})
        if tid in tids:
            return  # the client sent the request again while we work on it
        if len(tids) >= self.max_pending_per_peer:
            busy = text_reply(503, "too many requests pending")
            self._out.append((encode_connectionless(tid, busy), addr))
            self._events.append(RequestRefused(addr, AbortReason.CONGESTION, "too many pending"))
            return
        handle = self._next_handle
        self._next_handle += 1
        tids[tid] = handle
        self._pending[handle] = (addr, tid)
        self._events.append(MethodInvoke(handle, None, addr, method, pdu.uri, headers, body))

    def handle_timer(self, now: float) -> None:
        """Nothing is timed on the server side."""

    def get_timer(self) -> float | None:
        return None
