"""One WTP endpoint per local address and port, both initiator and responder.

It multiplexes any number of transactions by (peer address, TID, direction): a PDU
whose TID has the top bit clear comes from a peer's initiator and goes to one of our
responders; with the bit set it answers one of our initiators (WTP 9.2.4). It follows
the sans-IO contract of ``wwanlab.core.contract``::

    wtp = WtpEndpoint(random.Random(1))
    h = wtp.invoke(("10.0.0.2", 9201), b"...", TransactionClass.CLASS_2, True, now)
    ... drive it ..., then on ResultIndication(h, data): wtp.result_ack(h, now)

Datagrams that are not WTP are answered per WTP 10.2: an Abort(PROTOERR) (or
WTPVERSIONONE) when the TID could be read and the PDU came from an initiator, and
nothing otherwise; Acks, Negative Acks and Aborts for no transaction are dropped, except
a TID verification question, which is refused with Abort(INVALIDTID) (WTP 7.9).
"""

import heapq
import random
from collections import Counter, deque

from wwanlab.core.address import Address
from wwanlab.wap.wtp.constants import AbortReason, AbortType, TransactionClass
from wwanlab.wap.wtp.events import WtpEvent
from wwanlab.wap.wtp.initiator import Initiator, InitiatorState
from wwanlab.wap.wtp.machine import Input, Stimulus, Transaction
from wwanlab.wap.wtp.pdu import (
    Abort,
    Ack,
    Invoke,
    Pdu,
    SegmentedInvoke,
    WtpCodecError,
    decode,
    encode,
)
from wwanlab.wap.wtp.responder import Responder, ResponderState
from wwanlab.wap.wtp.sar import OutgoingMessage
from wwanlab.wap.wtp.tid import TidCache, TidGenerator
from wwanlab.wap.wtp.timers import WtpConfig

Key = tuple[Address, int, bool]  # (peer, TID, True for a transaction we initiated)


class WtpEndpoint:
    """WTP over one datagram socket: commands, events and the sans-IO contract."""

    def __init__(self, rng: random.Random, config: WtpConfig | None = None) -> None:
        self.config = config or WtpConfig()
        self.tids = TidGenerator(rng)
        self.tid_cache = TidCache(self.config.tid_window)
        self.fired: Counter[str] = Counter()
        self._next_handle = 1
        self._by_handle: dict[int, Initiator | Responder] = {}
        self._by_key: dict[Key, int] = {}
        self._out: list[tuple[bytes, Address]] = []
        self._events: deque[WtpEvent] = deque()
        self._verifying: Initiator | None = None  # a TIDnew invoke not yet answered
        self._held: deque[Initiator] = deque()  # invokes waiting for it
        # (deadline, handle) per timer start, earliest first. An entry is stale once its
        # transaction is gone or its timer stopped or restarted (deadline differs); stale
        # entries are dropped when they reach the top, so get_timer is O(1) amortized
        # and handle_timer pops only what is due, not a scan of every transaction.
        self._timers: list[tuple[float, int]] = []

    # --- the Io a transaction writes to ---------------------------------------------------
    def send(self, pdu: Pdu, peer: Address) -> int:
        data = encode(pdu)
        self._out.append((data, peer))
        return len(data)

    def emit(self, event: WtpEvent) -> None:
        self._events.append(event)

    def timer_started(self, handle: int, deadline: float) -> None:
        heapq.heappush(self._timers, (deadline, handle))
        if len(self._timers) > 2 * len(self._by_handle) + 64:  # mostly stale: rebuild
            self._timers = [
                (t.deadline, h) for h, t in self._by_handle.items() if t.deadline is not None
            ]
            heapq.heapify(self._timers)

    # --- commands (WTP 5.3 primitives) -----------------------------------------------------
    def invoke(
        self,
        peer: Address,
        data: bytes,
        tcl: TransactionClass,
        user_ack: bool,
        now: float,
    ) -> int:
        """TR-Invoke.req: start a transaction; returns its handle."""
        tid, wrapped = self.tids.new()
        txn = Initiator(
            self, self.config, self._new_handle(), peer, tid, tcl, user_ack, wrapped, data
        )
        self._add(txn, (peer, tid, True))
        if self._verifying is not None:
            self._held.append(txn)  # WTP 7.8.3.2: wait for the TIDnew verification
            return txn.handle
        if wrapped and tcl != TransactionClass.CLASS_0:
            self._verifying = txn
        self._run(txn, Stimulus(Input.TR_INVOKE_REQ), now)
        return txn.handle

    def invoke_ack(self, handle: int, now: float) -> None:
        """TR-Invoke.res: the user acknowledges an InvokeIndication (user acknowledgement)."""
        self._command(handle, Stimulus(Input.TR_INVOKE_RES), now)

    def result(self, handle: int, data: bytes, now: float) -> None:
        """TR-Result.req: the result of a class 2 transaction we are responding to."""
        self._command(handle, Stimulus(Input.TR_RESULT_REQ, data=data), now)

    def result_ack(self, handle: int, now: float) -> None:
        """TR-Result.res: the user acknowledges a ResultIndication (user acknowledgement)."""
        self._command(handle, Stimulus(Input.TR_RESULT_RES), now)

    def abort(self, handle: int, reason: int, now: float) -> None:
        """TR-Abort.req: end a transaction with a user abort carrying ``reason``."""
        held = next((t for t in self._held if t.handle == handle), None)
        if held is not None:  # never sent: discard it (WTP 7.7.4 A)
            self._held.remove(held)
            self._forget(held)
            return
        self._command(handle, Stimulus(Input.TR_ABORT_REQ, reason=reason), now)

    # --- introspection ---------------------------------------------------------------------
    def state(self, handle: int) -> InitiatorState | ResponderState | None:
        txn = self._by_handle.get(handle)
        return txn.state if txn else None

    def tid_of(self, handle: int) -> int | None:
        txn = self._by_handle.get(handle)
        return txn.tid if txn else None

    def result_message(self, handle: int) -> OutgoingMessage | None:
        """The Result a responder is sending (its segments and the group in flight)."""
        txn = self._by_handle.get(handle)
        return txn.result if isinstance(txn, Responder) else None

    def handles(self) -> list[int]:
        """The handles of all transactions still holding state."""
        return list(self._by_handle)

    def pending(self) -> int:
        """Transactions still holding state."""
        return len(self._by_handle)

    # --- the sans-IO contract ----------------------------------------------------------------
    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        try:
            pdus = decode(data)
        except WtpCodecError as error:
            self._bad_datagram(data, addr, error, now)
            return
        for pdu in pdus:
            self._receive_pdu(pdu, addr, now)

    def handle_timer(self, now: float) -> None:
        """Fire every timer due at ``now``, in handle order (the order the transactions
        were opened), whatever their deadlines; a timer that a firing starts waits for
        the next call even when it is already due."""
        due: dict[int, Initiator | Responder] = {}
        while self._timers and self._timers[0][0] <= now:
            deadline, handle = heapq.heappop(self._timers)
            txn = self._live_timer(deadline, handle)
            if txn is not None:
                due[handle] = txn
        for handle in sorted(due):
            txn = due[handle]
            if txn.deadline is not None and txn.deadline <= now and txn.timer_input:
                which = txn.timer_input
                txn.stop_timer()
                self._run(txn, Stimulus(which), now)

    def get_timer(self) -> float | None:
        while self._timers:
            deadline, handle = self._timers[0]
            if self._live_timer(deadline, handle) is not None:
                return deadline
            heapq.heappop(self._timers)
        return None

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        out, self._out = self._out, []
        return out

    def next_event(self) -> WtpEvent | None:
        return self._events.popleft() if self._events else None

    # --- internals ---------------------------------------------------------------------------
    def _new_handle(self) -> int:
        handle = self._next_handle
        self._next_handle += 1
        return handle

    def _live_timer(self, deadline: float, handle: int) -> Initiator | Responder | None:
        """The transaction a heap entry stands for, or None when the entry is stale."""
        txn = self._by_handle.get(handle)
        return txn if txn is not None and txn.deadline == deadline else None

    def _add(self, txn: Initiator | Responder, key: Key) -> None:
        self._by_handle[txn.handle] = txn
        self._by_key[key] = txn.handle

    def _run(
        self,
        txn: Transaction[InitiatorState] | Transaction[ResponderState],
        s: Stimulus,
        now: float,
    ) -> None:
        try:
            txn.dispatch(s, now)
        finally:
            self._settle(txn, now)

    def _settle(
        self, txn: Transaction[InitiatorState] | Transaction[ResponderState], now: float
    ) -> None:
        """After a transaction ran: forget it once over, and let held invokes go."""
        if txn.done:
            self._forget(txn)
        self._release_held(now)

    def _forget(self, txn: Transaction[InitiatorState] | Transaction[ResponderState]) -> None:
        self._by_handle.pop(txn.handle, None)
        key = (txn.peer, txn.tid, isinstance(txn, Initiator))
        if self._by_key.get(key) == txn.handle:
            del self._by_key[key]

    def _release_held(self, now: float) -> None:
        """Once the responder answered the TIDnew invoke (or it ended), send the rest."""
        blocker = self._verifying
        if blocker is None or not (blocker.heard or blocker.done):
            return
        self._verifying = None
        while self._held and self._verifying is None:
            txn = self._held.popleft()
            if txn.tid_new and txn.tcl != TransactionClass.CLASS_0:
                self._verifying = txn
            self._run(txn, Stimulus(Input.TR_INVOKE_REQ), now)

    def _command(self, handle: int, s: Stimulus, now: float) -> None:
        txn = self._by_handle.get(handle)
        if txn is None:
            raise KeyError(f"no WTP transaction with handle {handle}")
        self._run(txn, s, now)

    def _receive_pdu(self, pdu: Pdu, addr: Address, now: float) -> None:
        ours = pdu.tid_response  # the responder set the bit: it answers our initiator
        handle = self._by_key.get((addr, pdu.tid, ours))
        txn = self._by_handle.get(handle) if handle is not None else None
        if txn is None:
            if ours:
                if isinstance(pdu, Ack) and pdu.tve_tok:
                    self._refuse(addr, pdu.tid, AbortReason.INVALIDTID, response=False)
                return
            if not isinstance(pdu, (Invoke, SegmentedInvoke)):
                return
            txn = Responder(self, self.config, self._new_handle(), addr, pdu.tid, self.tid_cache)
            self._add(txn, (addr, pdu.tid, False))
        try:
            txn.receive(pdu, now)
        finally:
            self._settle(txn, now)

    def _bad_datagram(self, data: bytes, addr: Address, error: WtpCodecError, now: float) -> None:
        """RcvErrorPDU: to the transaction it names, or answered with an Abort."""
        if error.tid is None or len(data) < 3:
            return
        ours = bool(data[1] & 0x80)
        handle = self._by_key.get((addr, error.tid, ours))
        txn = self._by_handle.get(handle) if handle is not None else None
        if txn is not None:
            self._run(txn, Stimulus(Input.RCV_ERROR_PDU), now)
        elif error.reason != AbortReason.PROTOERR and not ours:
            self._refuse(addr, error.tid, error.reason, response=True)
        elif not ours:
            # LISTEN  RcvErrorPDU: a responder that answers Abort(PROTOERR) and is gone
            txn = Responder(self, self.config, self._new_handle(), addr, error.tid, self.tid_cache)
            self._run(txn, Stimulus(Input.RCV_ERROR_PDU), now)

    def _refuse(self, addr: Address, tid: int, reason: AbortReason, response: bool) -> None:
        self.send(
            Abort(tid=tid, tid_response=response, abort_type=AbortType.PROVIDER, reason=reason),
            addr,
        )
