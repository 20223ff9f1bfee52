"""Connectionless WSP (WSP 6.4, 8.2.1): one datagram each way on UDP port 9200.

A request is an unreliable Unit-MethodInvoke (a Get or Post PDU behind a one-octet TID)
and its answer a Unit-MethodResult (a Reply PDU behind the same TID); nothing is
retransmitted and nothing acknowledged, so the client matches replies to requests by
TID and peer alone. The spec gives the client no timer; ``timeout`` is this library's
own, so that a lost datagram ends in ``RequestTimedOut`` rather than in silence.
"""

import random

from wwanlab.core.address import Address
from wwanlab.wap.wsp.common import (
    EventQueue,
    MethodRequests,
    reply_fields,
    reply_pdu,
    request_fields,
    request_pdu,
)
from wwanlab.wap.wsp.encoding import WspCodecError
from wwanlab.wap.wsp.events import (
    Headers,
    MethodInvoke,
    MethodResult,
    RequestTimedOut,
)
from wwanlab.wap.wsp.pdu import Get, Post, Reply, decode_connectionless, encode_connectionless

TID_SPACE = 256  # WSP 8.2.1: the connectionless TID is one octet
CONNECTIONLESS_TIMEOUT = 30.0  # s, this library's choice (the spec has none)


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
        self, server: Address, rng: random.Random, timeout: float | None = CONNECTIONLESS_TIMEOUT
    ) -> None:
        super().__init__()
        self.server = server
        self.timeout = timeout
        self._next_tid = rng.randrange(TID_SPACE)
        self._waiting: dict[int, float | None] = {}  # TID -> deadline

    def request(self, method: str, uri: str, headers: Headers, body: bytes, now: float) -> int:
        """S-Unit-MethodInvoke.req; returns the TID, which names the request in events."""
        if len(self._waiting) >= TID_SPACE:
            raise WspCodecError("all 256 connectionless TIDs are waiting for replies")
        while self._next_tid in self._waiting:
            self._next_tid = (self._next_tid + 1) % TID_SPACE
        tid = self._next_tid
        self._next_tid = (tid + 1) % TID_SPACE
        self._out.append(
            (encode_connectionless(tid, request_pdu(method, uri, headers, body)), self.server)
        )
        self._waiting[tid] = now + self.timeout if self.timeout is not None else None
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
        for tid, deadline in list(self._waiting.items()):
            if deadline is not None and deadline <= now:
                del self._waiting[tid]
                self._events.append(RequestTimedOut(tid))

    def get_timer(self) -> float | None:
        deadlines = [d for d in self._waiting.values() if d is not None]
        return min(deadlines) if deadlines else None


class ConnectionlessServer(_Datagrams):
    """Answers Unit-MethodInvoke requests from any client; the user replies at leisure."""

    def __init__(self) -> None:
        super().__init__()
        self._next_handle = 1
        self._pending: dict[int, tuple[Address, int]] = {}  # handle -> (peer, TID)

    def reply(self, handle: int, status: int, headers: Headers, body: bytes, now: float) -> None:
        """S-Unit-MethodResult.req: the Reply goes to the request's peer with its TID."""
        peer, tid = self._pending.pop(handle)
        self._out.append((encode_connectionless(tid, reply_pdu(status, headers, body)), peer))

    def pending(self) -> int:
        return len(self._pending)

    # --- sans-IO contract ---------------------------------------------------------------
    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        try:
            tid, pdu = decode_connectionless(data)
            if not isinstance(pdu, (Get, Post)):
                return  # a server takes only requests
            method, headers, body = request_fields(pdu)
        except WspCodecError:
            return  # connectionless WSP has no way to say it was bad
        handle = self._next_handle
        self._next_handle += 1
        self._pending[handle] = (addr, tid)
        self._events.append(MethodInvoke(handle, None, addr, method, pdu.uri, headers, body))

    def handle_timer(self, now: float) -> None:
        """Nothing is timed on the server side."""

    def get_timer(self) -> float | None:
        return None
