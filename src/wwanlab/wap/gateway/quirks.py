"""Tolerance for Kannel's fakewap: its Acks and Negative Acks made to say what it means.

None of this is WTP, and Kannel's own gateway does none of it; it is off unless asked
for (``wwanlab gateway --fakewap-quirks``). ``FakewapTolerance`` wraps a ``WspServer``
and follows the sans-IO contract by delegation, mending datagrams on their way in.
What fakewap 1.4.5 does (docs/kannel.md, docs/gateway.md, with captures):

* ``-c N`` threads share one unlocked TID counter, so a thread acknowledges its result
  with whichever TID another thread set last: an Ack (not TIDve/TIDok) or Negative Ack
  whose TID matches none of the client's transactions goes to the client's one
  transaction sending a result, when there is exactly one.
* after a Negative Ack of PSN 0 it acknowledges the group with a plain Ack (no PSN TPI),
  which a responder reads as the Ack of the whole message; and ``-c N`` threads share
  one Ack template, so an Ack can carry the PSN another thread wrote into it. While
  groups remain, a plain Ack, or one with the client's own TID naming a PSN in or past
  the group in flight, is the Ack of the group in flight (a receiver acknowledges only
  whole groups, WTP 7.14); an Ack naming a group already acknowledged is left to WTP,
  which ignores it, and one with another TID naming a PSN past the group in flight is
  left to WTP, which drops it (the group's last packet is resent at timer R and
  acknowledged again).
* on receiving any packet while one of the group is still missing it sends another
  Negative Ack of the same packets, before the resend the first one caused can have
  arrived; answering both puts a second copy on the wire after the thread has finished
  the transaction, and its receive loop takes that stray Result segment for the next
  session's ConnectReply. A Negative Ack naming only packets resent for a Negative Ack
  less than half a retry interval ago is dropped; if the resend is lost, timer R
  resends the group's last packet and fakewap asks again.
* a Disconnect that arrives while a result still waits for an Ack that could not be
  placed ends that result as acknowledged (the client has it) instead of aborting it:
  S-Disconnect's Abort would reach fakewap while it waits for its next ConnectReply,
  and it takes the Abort for one.
"""

from dataclasses import replace

from wwanlab.core.address import Address
from wwanlab.wap.wsp.encoding import WspCodecError
from wwanlab.wap.wsp.events import WspEvent
from wwanlab.wap.wsp.pdu import Disconnect
from wwanlab.wap.wsp.pdu import decode as decode_wsp
from wwanlab.wap.wsp.session import ServerSession, WspServer
from wwanlab.wap.wtp.constants import PduType, TransactionClass
from wwanlab.wap.wtp.pdu import Ack, Invoke, NegativeAck, PsnTpi, Tpi, WtpCodecError
from wwanlab.wap.wtp.pdu import decode as decode_wtp
from wwanlab.wap.wtp.pdu import encode as encode_wtp
from wwanlab.wap.wtp.responder import ResponderState

# WTP 9.3: the PDU type is bits 6-3 of the first octet.
_MENDED_TYPES = frozenset({PduType.INVOKE, PduType.ACK, PduType.NEGATIVE_ACK})


class FakewapTolerance:
    """A ``WspServer`` that reads fakewap's Acks as fakewap means them."""

    def __init__(self, server: WspServer) -> None:
        self.server = server
        self.retargeted_acks = 0
        self.dropped_nacks = 0
        self._nacked: dict[int, tuple[float, frozenset[int]]] = {}  # handle -> last Nack

    # --- sans-IO contract ----------------------------------------------------------------
    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        if data and (data[0] >> 3) & 0x0F in _MENDED_TYPES:
            mended = self._mend(data, addr, now)
            if mended is None:
                return
            data = mended
        self.server.receive_datagram(data, addr, now)

    def handle_timer(self, now: float) -> None:
        self.server.handle_timer(now)

    def get_timer(self) -> float | None:
        return self.server.get_timer()

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        return self.server.datagrams_to_send(now)

    def next_event(self) -> WspEvent | None:
        return self.server.next_event()

    # --- mending -------------------------------------------------------------------------
    def _mend(self, data: bytes, addr: Address, now: float) -> bytes | None:
        session = self.server.session_of(addr)
        if session is None:
            return data
        try:
            pdus = decode_wtp(data)
        except WtpCodecError:
            return data
        if len(pdus) != 1:
            return data
        pdu = pdus[0]
        if isinstance(pdu, Invoke):
            self._before_disconnect(pdu, session, now)
            return data
        if not isinstance(pdu, (Ack, NegativeAck)) or pdu.tid_response:
            return data
        if isinstance(pdu, Ack) and pdu.tve_tok:
            return data
        fixed = self._retarget(pdu, session)
        if fixed is None:
            return data
        if isinstance(fixed, NegativeAck) and self._repeated(fixed, session, now):
            self.dropped_nacks += 1
            return None
        if fixed == pdu:
            return data
        self.retargeted_acks += 1
        return encode_wtp(fixed)

    def _retarget(
        self, pdu: Ack | NegativeAck, session: ServerSession
    ) -> Ack | NegativeAck | None:
        """The PDU with the TID and PSN fakewap meant; None to leave it as it came."""
        wtp = self.server.wtp
        handles = [*session.methods, session.connect_handle]
        live = [h for h in handles if h is not None and wtp.state(h) is not None]
        target = next((h for h in live if wtp.tid_of(h) == pdu.tid), None)
        foreign = target is None
        if target is None:
            waiting = [h for h in live if wtp.state(h) == ResponderState.RESULT_RESP_WAIT]
            if len(waiting) != 1:
                return None
            target = waiting[0]
        tid = wtp.tid_of(target)
        span = None if target == session.connect_handle else self._in_flight(target)
        if tid is None or (foreign and not _plausible(pdu, span)):
            return None
        fixed: Ack | NegativeAck = replace(pdu, tid=tid)
        if isinstance(fixed, Ack):
            tpis = _group_end_tpis(fixed, span)
            if tpis is None:
                return None
            fixed = replace(fixed, tpis=tpis)
        return fixed

    def _in_flight(self, handle: int) -> tuple[int, int, int] | None:
        """(last PSN acknowledged, last PSN of the group in flight, last PSN) of a result."""
        message = self.server.wtp.result_message(handle)
        if message is None:
            return None
        return message.group_start - 1, message.group_end, message.last

    def _repeated(self, nack: NegativeAck, session: ServerSession, now: float) -> bool:
        """Whether ``nack`` only asks again for packets resent moments ago."""
        handle = next((h for h in session.methods if self.server.wtp.tid_of(h) == nack.tid), None)
        if handle is None:
            return False
        missing = frozenset(nack.missing)
        last = self._nacked.get(handle)
        window = self.server.wtp.config.retry_interval / 2
        if last is not None and now - last[0] < window and missing <= last[1]:
            return True
        self._nacked[handle] = (now, missing)
        if len(self._nacked) > 4 * len(self.server.wtp.handles()) + 64:
            live = set(self.server.wtp.handles())
            self._nacked = {h: v for h, v in self._nacked.items() if h in live}
        return False

    def _before_disconnect(self, invoke: Invoke, session: ServerSession, now: float) -> None:
        """A Disconnect while a result waits for an Ack we could not place: the client
        has its reply, so the result ends as acknowledged, by its normal WTP row."""
        if invoke.tcl != TransactionClass.CLASS_0:
            return
        try:
            pdu = decode_wsp(invoke.user_data)
        except WspCodecError:
            return
        if not isinstance(pdu, Disconnect) or pdu.session_id != session.session_id:
            return
        wtp = self.server.wtp
        for handle in list(session.methods):
            tid = wtp.tid_of(handle)
            if tid is not None and wtp.state(handle) == ResponderState.RESULT_RESP_WAIT:
                wtp.receive_datagram(encode_wtp(Ack(tid=tid)), session.peer, now)


def _plausible(pdu: Ack | NegativeAck, span: tuple[int, int, int] | None) -> bool:
    """Whether an Ack with another TID can be for the group in flight: one naming a PSN
    past it (another thread's Ack, or fakewap's shared Ack template) would move the
    result on early or end it."""
    psns = [t.psn for t in pdu.tpis if isinstance(t, PsnTpi)]
    if span is None or not psns or not isinstance(pdu, Ack):
        return True
    return psns[0] <= span[1]


def _group_end_tpis(ack: Ack, span: tuple[int, int, int] | None) -> tuple[Tpi, ...] | None:
    """The Ack's TPIs with the PSN naming the end of the group in flight; None if stale.

    A plain Ack of the last group is the final Ack. For a message with groups still to
    come, a plain Ack, or one naming any PSN of the group in flight or past it, is the
    Ack of the group in flight (a responder moves one group on per group Ack, WTP
    7.14). An Ack naming a PSN of a group already acknowledged is stale.
    """
    if span is None:
        return ack.tpis
    acked, in_flight_end, last = span
    psns = [t.psn for t in ack.tpis if isinstance(t, PsnTpi)]
    if psns and psns[0] <= acked:
        return None
    if in_flight_end >= last and not psns:
        return ack.tpis
    others = tuple(t for t in ack.tpis if not isinstance(t, PsnTpi))
    return (PsnTpi(in_flight_end), *others)
