"""The state-table machinery shared by the initiator and the responder.

A table is a list of rows ``(state, input, condition, action, next state)``, written
in the order of WTP clause 9's tables (the spec's row is quoted in a comment beside
each). ``Transaction.dispatch`` runs the first row whose state and input match and
whose condition holds. A (state, input) pair no row accepts is a protocol error: the
transaction is aborted with PROTOERR (WTP 9.2: "abort transaction" for RcvErrorPDU),
never silently ignored.
"""

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from wwanlab.core.address import Address
from wwanlab.core.errors import WwanlabError
from wwanlab.wap.wtp.constants import AbortReason, AbortType
from wwanlab.wap.wtp.events import AbortIndication, WtpEvent
from wwanlab.wap.wtp.pdu import Abort, Ack, NegativeAck, Pdu, PsnTpi
from wwanlab.wap.wtp.sar import Outcome, OutgoingMessage, Reaction
from wwanlab.wap.wtp.timers import WtpConfig


class Input(Enum):
    """The events of WTP 9.1.2: user requests, received PDUs, timer expiries."""

    TR_INVOKE_REQ = "TR-Invoke.req"
    TR_INVOKE_RES = "TR-Invoke.res"
    TR_RESULT_REQ = "TR-Result.req"
    TR_RESULT_RES = "TR-Result.res"
    TR_ABORT_REQ = "TR-Abort.req"
    RCV_INVOKE = "RcvInvoke"  # a whole invoke message, or a repeat of one
    RCV_RESULT = "RcvResult"  # a whole result message, or a repeat of one
    RCV_SEGMENT = "RcvSegment"  # one packet of a message still being reassembled
    RCV_ACK = "RcvAck"
    RCV_NAK = "RcvNak"
    RCV_ABORT = "RcvAbort"
    RCV_ERROR_PDU = "RcvErrorPDU"
    TIMER_TO_A = "TimerTO_A"
    TIMER_TO_R = "TimerTO_R"
    TIMER_TO_W = "TimerTO_W"


@dataclass(frozen=True, slots=True)
class Stimulus:
    """One input with what came with it."""

    input: Input
    pdu: Pdu | None = None
    data: bytes = b""  # a whole message (RCV_INVOKE/RCV_RESULT first time, TR-Result.req)
    reason: int = 0  # TR-Abort.req
    repeat: bool = False  # RCV_INVOKE/RCV_RESULT: a packet of a message already delivered

    @property
    def rid(self) -> bool:
        return bool(self.pdu is not None and getattr(self.pdu, "rid", False))


class WtpStateError(WwanlabError):
    """A user command the transaction's state table does not accept (it was aborted)."""

    def __init__(self, message: str, reason: AbortReason = AbortReason.PROTOERR) -> None:
        super().__init__(message)
        self.reason = reason


class Io(Protocol):
    """What a transaction needs from its endpoint."""

    def send(self, pdu: Pdu, peer: Address) -> int:
        """Queue ``pdu`` for ``peer``; its octets."""
        ...

    def emit(self, event: WtpEvent) -> None: ...

    def timer_started(self, handle: int, deadline: float) -> None:
        """Transaction ``handle`` set its timer to expire at ``deadline`` (a stop, or a
        later start, makes the endpoint drop the entry lazily: see WtpEndpoint)."""
        ...

    @property
    def fired(self) -> Counter[str]:
        """How often each table row ran (by row name): coverage and diagnostics."""
        ...


S = TypeVar("S", bound=Enum)
T = TypeVar("T", bound="Transaction[Any]")


@dataclass(frozen=True, slots=True)
class Row(Generic[S, T]):
    state: S
    input: Input
    condition: Callable[[T, Stimulus], bool]
    action: Callable[[T, Stimulus], None]
    next_state: S
    name: str = field(default="", compare=False)


def always(txn: object, s: Stimulus) -> bool:
    return True


def nothing(txn: object, s: Stimulus) -> None:
    """Ignore: a duplicate the first copy already handled."""


Table = dict[tuple[Enum, Input], list[Row[Any, Any]]]


def index(rows: Sequence[Row[Any, Any]]) -> Table:
    """Rows by (state, input), keeping the table's order."""
    table: Table = {}
    for row in rows:
        table.setdefault((row.state, row.input), []).append(row)
    return table


def row_name(role: str, row: Row[S, T]) -> str:
    return (
        f"{role}:{row.state.name}/{row.input.name}/{getattr(row.condition, '__name__', '?')}"
        f"/{getattr(row.action, '__name__', '?')}"
    )


def named(role: str, rows: Sequence[Row[S, T]]) -> list[Row[S, T]]:
    """The rows, each named ``role:STATE/INPUT/condition/action`` (the ``fired`` keys)."""
    return [replace(row, name=row_name(role, row)) for row in rows]


class Transaction(Generic[S]):
    """State shared by both roles: identity, the one timer, counters, output."""

    table: ClassVar[Table]
    terminal: Any

    def __init__(
        self, io: Io, config: WtpConfig, handle: int, peer: Address, tid: int, state: S
    ) -> None:
        self.io = io
        self.config = config
        self.handle = handle
        self.peer = peer
        self.tid = tid
        self.state = state
        self.now = 0.0
        self.deadline: float | None = None
        self.timer_input: Input | None = None
        self.rcr = 0  # re-transmission counter (WTP 9.4.2)
        self.sent: list[int] = []  # octets of each PDU sent since the timer last started
        self.aec = 0  # acknowledgement expiration counter (WTP 9.4.2)
        self.user_knows = False  # has the user seen this transaction? (then indicate aborts)

    # --- dispatch ------------------------------------------------------------------
    def dispatch(self, s: Stimulus, now: float) -> None:
        self.now = now
        for row in self.table.get((self.state, s.input), ()):
            if row.condition(self, s):
                self.io.fired[row.name] += 1
                row.action(self, s)
                self.state = row.next_state
                return
        self.protocol_error(s)

    def protocol_error(self, s: Stimulus) -> None:
        """An unlisted transition: abort with PROTOERR, and refuse a user command."""
        state = self.state
        self.abort_provider(AbortReason.PROTOERR)
        self.state = self.terminal
        if s.input.name.startswith("TR_"):
            raise WtpStateError(f"{s.input.value} is not allowed in state {state.name}")

    @property
    def done(self) -> bool:
        return bool(self.state == self.terminal)

    # --- timer ---------------------------------------------------------------------
    def start_timer(self, which: Input) -> None:
        sized = self.config.sized_retry
        if which is Input.TIMER_TO_R:
            interval = self.config.retry_interval
            if sized is not None:
                interval = sized.interval(self.sent, self.rcr)
        elif which is Input.TIMER_TO_A:
            interval = self.config.ack_interval
        else:
            interval = self.config.wait_timeout
        self.sent.clear()
        self.deadline = self.now + interval
        self.timer_input = which
        self.io.timer_started(self.handle, self.deadline)

    def stop_timer(self) -> None:
        self.deadline = None
        self.timer_input = None
        self.sent.clear()

    # --- output --------------------------------------------------------------------
    responder_side: bool = False

    def send(self, pdu: Pdu) -> None:
        self.sent.append(self.io.send(pdu, self.peer))

    def send_ack(
        self, *, tve_tok: bool = False, rid: bool = False, psn: int | None = None
    ) -> None:
        tpis = (PsnTpi(psn),) if psn is not None else ()
        self.send(
            Ack(
                tid=self.tid, tid_response=self.responder_side, tve_tok=tve_tok, rid=rid, tpis=tpis
            )
        )

    def send_abort(self, abort_type: AbortType, reason: int) -> None:
        self.send(
            Abort(
                tid=self.tid,
                tid_response=self.responder_side,
                abort_type=abort_type,
                reason=reason,
            )
        )

    def indicate_abort(self, abort_type: AbortType, reason: int, local: bool) -> None:
        if self.user_knows:
            self.io.emit(AbortIndication(self.handle, abort_type, reason, local))
        self.stop_timer()

    def abort_provider(self, reason: AbortReason) -> None:
        """Send Abort(PROVIDER, reason) and tell the user (WTP 7.7.4 B)."""
        self.send_abort(AbortType.PROVIDER, reason)
        self.indicate_abort(AbortType.PROVIDER, reason, local=True)

    # --- the outgoing message (Invoke or Result) ------------------------------------------
    def outgoing(self) -> OutgoingMessage:
        """The message this role sends: the initiator's invoke, the responder's result."""
        raise NotImplementedError

    def packet(self, psn: int, rid: bool) -> Pdu:
        """Packet ``psn`` of the outgoing message."""
        raise NotImplementedError

    def retry_psn(self) -> int:
        """The packet timer R resends: the last of the group in flight."""
        return self.outgoing().group_end

    def send_group(self, rid: bool) -> None:
        for psn in self.outgoing().current_group():
            self.send(self.packet(psn, rid))

    # --- receiving ---------------------------------------------------------------------
    message_types: ClassVar[tuple[type[Pdu], ...]]  # the PDUs of the message received

    def receive(self, pdu: Pdu, now: float) -> None:
        """Route one PDU from the peer into the table; messages go to receive_message."""
        if isinstance(pdu, Ack):
            self.dispatch(Stimulus(Input.RCV_ACK, pdu), now)
        elif isinstance(pdu, NegativeAck):
            self.dispatch(Stimulus(Input.RCV_NAK, pdu), now)
        elif isinstance(pdu, Abort):
            self.dispatch(Stimulus(Input.RCV_ABORT, pdu), now)
        elif isinstance(pdu, self.message_types):
            self.receive_message(pdu, now)
        else:
            self.dispatch(Stimulus(Input.RCV_ERROR_PDU, pdu), now)

    def receive_message(self, pdu: Pdu, now: float) -> None:
        """One packet of the incoming message (Invoke or Result, maybe segmented)."""
        raise NotImplementedError

    def receive_segment(self, pdu: Pdu, outcome: Outcome, now: float) -> None:
        """A packet of an incomplete message: acknowledge a whole group or list the holes."""
        if outcome.reaction == Reaction.ACK:
            self.send_ack(psn=outcome.psn)
        elif outcome.reaction == Reaction.NAK:
            self.send(
                NegativeAck(
                    tid=self.tid, tid_response=self.responder_side, missing=outcome.missing
                )
            )
        self.dispatch(Stimulus(Input.RCV_SEGMENT, pdu), now)

    # --- conditions shared by both tables ------------------------------------------------
    @property
    def user_ack(self) -> bool:
        """Uack: the user acknowledges the invoke explicitly (the U/P flag, WTP 9.4.2)."""
        raise NotImplementedError

    def rcr_below_max(self, s: Stimulus) -> bool:
        return self.rcr < self.config.max_rcr

    def rcr_at_max(self, s: Stimulus) -> bool:
        return self.rcr >= self.config.max_rcr

    def user_ack_aec_below_max(self, s: Stimulus) -> bool:
        return self.user_ack and self.aec < self.config.aec_max

    def user_ack_aec_at_max(self, s: Stimulus) -> bool:
        return self.user_ack and self.aec >= self.config.aec_max

    def with_rid(self, s: Stimulus) -> bool:
        return s.rid

    def without_rid(self, s: Stimulus) -> bool:
        return not s.rid

    def _plain_ack(self, s: Stimulus) -> bool:
        return isinstance(s.pdu, Ack) and not s.pdu.tve_tok

    def group_ack(self, s: Stimulus) -> bool:
        return self._plain_ack(s) and not self.outgoing().is_final_ack(ack_psn(s.pdu))

    # --- actions shared by both tables ---------------------------------------------------
    def retransmit(self, s: Stimulus) -> None:
        """Increment RCR, Start timer R [RCR], Send the group's last packet again (RID)."""
        self.rcr += 1
        self.send(self.packet(self.retry_psn(), rid=True))
        self.start_timer(Input.TIMER_TO_R)

    def next_group(self, s: Stimulus) -> None:
        """[+] Group acknowledged: send the next group, Reset RCR, Start timer R."""
        psn = ack_psn(s.pdu)
        assert psn is not None
        if self.outgoing().advance(psn):
            self.rcr = 0
            self.send_group(rid=False)
            self.start_timer(Input.TIMER_TO_R)

    def resend_missing(self, s: Stimulus) -> None:
        """[+] RcvNak: resend exactly the listed packets (all the group when none listed).

        The NAK shows the receiver alive and the group moving: RCR starts again.
        """
        assert isinstance(s.pdu, NegativeAck)
        message = self.outgoing()
        listed = [p for p in s.pdu.missing if p <= message.last]
        for psn in listed or message.current_group():
            self.send(self.packet(psn, rid=True))
        self.rcr = 0
        self.start_timer(Input.TIMER_TO_R)

    def wait_more(self, s: Stimulus) -> None:
        """Increment AEC, Start timer A."""
        self.aec += 1
        self.start_timer(Input.TIMER_TO_A)

    def give_up(self, s: Stimulus) -> None:
        """Abort transaction, Send Abort(NORESPONSE), Generate TR-Abort.ind."""
        self.abort_provider(AbortReason.NORESPONSE)

    def user_abort(self, s: Stimulus) -> None:
        """TR-Abort.req: Send Abort PDU (USER) (WTP 9.5/9.6)."""
        self.send_abort(AbortType.USER, s.reason)
        self.stop_timer()

    def peer_abort(self, s: Stimulus) -> None:
        """RcvAbort: Generate TR-Abort.ind (WTP 9.5/9.6)."""
        assert isinstance(s.pdu, Abort)
        self.indicate_abort(AbortType(s.pdu.abort_type), s.pdu.reason, local=False)

    def error_pdu(self, s: Stimulus) -> None:
        """RcvErrorPDU: Send Abort PDU (PROTOERR), Generate TR-Abort.ind."""
        self.abort_provider(AbortReason.PROTOERR)

    def quiet_end(self, s: Stimulus) -> None:
        """Clear Transaction: nothing left to say (W expired, verification refused)."""
        self.stop_timer()


def ack_psn(pdu: Pdu | None) -> int | None:
    """The PSN TPI of an Ack, or None when it has none."""
    if pdu is None:
        return None
    for tpi in pdu.tpis:
        if isinstance(tpi, PsnTpi):
            return tpi.psn
    return None
