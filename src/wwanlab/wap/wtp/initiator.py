"""The WTP initiator: one object per transaction this endpoint started (WTP 9.5).

States and the spec's table (WAP-201 9.5, abridged to its rows; ``->`` next state)::

    NULL            TR-Invoke.req Class==2|1   SendTID=GenTID, Send Invoke, Reset RCR,
                                               Start timer R[RCR]        -> RESULT WAIT
                    TR-Invoke.req Class==0     Send Invoke               -> NULL
    RESULT WAIT     TR-Abort.req               Abort, Send Abort(USER)   -> NULL
                    RcvAbort                   Abort, TR-Abort.ind       -> NULL
                    TimerTO_R RCR<MAX_RCR      Increment RCR, Start R, resend (RID)
                    TimerTO_R RCR==MAX_RCR     Abort, TR-Abort.ind(NORESPONSE) -> NULL
                    RcvAck Class==2 !HoldOn    TR-Invoke.cnf, HoldOn=True
                    RcvAck Class==1            TR-Invoke.cnf             -> NULL
                    RcvAck TIDve               Send Ack(TIDok), Start R
                    RcvResult Class==2 !HoldOn TR-Invoke.cnf, TR-Result.ind, Start A
                                                                         -> RESULT RESP WAIT
                    RcvResult Class==2 HoldOn  TR-Result.ind, Start A    -> RESULT RESP WAIT
                    RcvErrorPDU                Abort, Send Abort(PROTOERR), TR-Abort.ind -> NULL
    RESULT RESP     TR-Result.res              Send Ack, Start W         -> WAIT TIMEOUT
      WAIT          TimerTO_A !Uack            Send Ack, Start W         -> WAIT TIMEOUT
                    TimerTO_A Uack AEC<AEC_MAX Increment AEC, Start A
                    TimerTO_A AEC==AEC_MAX     Abort(NORESPONSE), TR-Abort.ind -> NULL
                    RcvResult                  ignore (duplicate)
    WAIT TIMEOUT    RcvResult RID              Send Ack
                    TimerTO_W                  Clear transaction         -> NULL

Additions, each marked ``[+]`` below: SAR rows (group Acks move the invoke on to its
next group; a Negative Ack resends exactly the listed packets; packets of a result
still being reassembled are acknowledged per group and count as the implicit
TR-Invoke.cnf); after a hold-on Ack the retry timer keeps running and its expiry
resends the invoke's last packet as a keep-alive (a responder that sent its Ack
repeats it), so an initiator whose responder vanished aborts with NORESPONSE instead
of waiting forever; a TID verification for a transaction already answered is refused
with Abort(INVALIDTID).
"""

from enum import Enum, auto

from wwanlab.core.address import Address
from wwanlab.wap.wtp.constants import AbortReason, AbortType, TransactionClass
from wwanlab.wap.wtp.events import InvokeConfirm, ResultIndication
from wwanlab.wap.wtp.machine import (
    Input,
    Io,
    Row,
    Stimulus,
    Transaction,
    ack_psn,
    always,
    index,
    named,
    nothing,
)
from wwanlab.wap.wtp.pdu import (
    Ack,
    Invoke,
    Pdu,
    Result,
    SegmentedInvoke,
    SegmentedResult,
)
from wwanlab.wap.wtp.sar import IncomingMessage, OutgoingMessage, Reaction
from wwanlab.wap.wtp.timers import WtpConfig


class InitiatorState(Enum):
    NULL = auto()
    RESULT_WAIT = auto()
    RESULT_RESP_WAIT = auto()
    WAIT_TIMEOUT = auto()


class Initiator(Transaction[InitiatorState]):
    terminal = InitiatorState.NULL
    message_types = (Result, SegmentedResult)

    def __init__(
        self,
        io: Io,
        config: WtpConfig,
        handle: int,
        peer: Address,
        tid: int,
        tcl: TransactionClass,
        user_ack: bool,
        tid_new: bool,
        data: bytes,
    ) -> None:
        super().__init__(io, config, handle, peer, tid, InitiatorState.NULL)
        self.tcl = tcl
        self._user_ack = user_ack
        self.tid_new = tid_new
        self.hold_on = False
        self.message = OutgoingMessage(data, config.segment_size, config.group_size)
        self.result_in = IncomingMessage()
        self.user_knows = True
        self.heard = False  # anything from the responder yet (ends a TIDnew wait)

    @property
    def user_ack(self) -> bool:
        return self._user_ack

    # --- packets -------------------------------------------------------------------
    def outgoing(self) -> OutgoingMessage:
        return self.message

    def retry_psn(self) -> int:
        """[+] After a hold-on Ack the keep-alive is the invoke's last packet."""
        return self.message.last if self.hold_on else self.message.group_end

    def packet(self, psn: int, rid: bool) -> Pdu:
        gtr, ttr = self.message.trailers(psn)
        data = self.message.segments[psn]
        if psn == 0:
            return Invoke(
                tid=self.tid,
                tcl=self.tcl,
                user_data=data,
                gtr=gtr,
                ttr=ttr,
                rid=rid,
                tid_new=self.tid_new,
                up_flag=self.user_ack,
            )
        return SegmentedInvoke(tid=self.tid, psn=psn, user_data=data, gtr=gtr, ttr=ttr, rid=rid)

    def final_ack(self, rid: bool = False) -> None:
        self.send_ack(rid=rid, psn=self.result_in.last if self.result_in.segmented else None)

    # --- conditions ----------------------------------------------------------------------
    def reliable_fits(self, s: Stimulus) -> bool:
        return self.tcl != TransactionClass.CLASS_0 and self._fits()

    def class0_fits(self, s: Stimulus) -> bool:
        return self.tcl == TransactionClass.CLASS_0 and not self.message.segmented

    def too_large(self, s: Stimulus) -> bool:
        return not (self.reliable_fits(s) or self.class0_fits(s))

    def _fits(self) -> bool:
        return self.message.last < self.config.max_segments

    def tid_verification(self, s: Stimulus) -> bool:
        return isinstance(s.pdu, Ack) and s.pdu.tve_tok

    def final_ack_class1(self, s: Stimulus) -> bool:
        return (
            self._plain_ack(s)
            and self.message.is_final_ack(ack_psn(s.pdu))
            and self.tcl == TransactionClass.CLASS_1
        )

    def final_ack_first(self, s: Stimulus) -> bool:
        return (
            self._plain_ack(s)
            and self.message.is_final_ack(ack_psn(s.pdu))
            and self.tcl == TransactionClass.CLASS_2
            and not self.hold_on
        )

    def final_ack_again(self, s: Stimulus) -> bool:
        return (
            self._plain_ack(s)
            and self.message.is_final_ack(ack_psn(s.pdu))
            and self.tcl == TransactionClass.CLASS_2
            and self.hold_on
        )

    def plain_ack(self, s: Stimulus) -> bool:
        return self._plain_ack(s)

    def class2_not_hold_on(self, s: Stimulus) -> bool:
        return self.tcl == TransactionClass.CLASS_2 and not self.hold_on and not s.repeat

    def class2_hold_on(self, s: Stimulus) -> bool:
        return self.tcl == TransactionClass.CLASS_2 and self.hold_on and not s.repeat

    def not_hold_on(self, s: Stimulus) -> bool:
        return not self.hold_on

    def hold_on_set(self, s: Stimulus) -> bool:
        return self.hold_on

    def no_user_ack(self, s: Stimulus) -> bool:
        return not self.user_ack

    # --- actions -----------------------------------------------------------------------
    def send_invoke(self, s: Stimulus) -> None:
        """Send Invoke PDU (first group), Reset RCR, Start timer R [RCR]."""
        self.rcr = 0
        self.send_group(rid=False)
        self.start_timer(Input.TIMER_TO_R)

    def send_invoke_class0(self, s: Stimulus) -> None:
        """Send Invoke PDU; class 0 keeps no state."""
        self.send(self.packet(0, rid=False))

    def refuse_too_large(self, s: Stimulus) -> None:
        """[+] More than max_segments packets: nothing was sent, abort locally (7.7.4 A)."""
        self.indicate_abort(AbortType.PROVIDER, AbortReason.MESSAGETOOLARGE, local=True)

    def answer_tid_ok(self, s: Stimulus) -> None:
        """Send Ack(TIDok), Start timer R: yes, this TID is outstanding (WTP 7.9)."""
        self.send_ack(tve_tok=True)
        self.start_timer(Input.TIMER_TO_R)

    def refuse_tid(self, s: Stimulus) -> None:
        """[+] Not outstanding any more: Send Abort(INVALIDTID) (WTP 7.9.2)."""
        self.send_abort(AbortType.PROVIDER, AbortReason.INVALIDTID)

    def confirm_invoke_class1(self, s: Stimulus) -> None:
        """Stop timer, Generate TR-Invoke.cnf; the class 1 transaction is over."""
        self.stop_timer()
        self.io.emit(InvokeConfirm(self.handle))

    def confirm_invoke_hold_on(self, s: Stimulus) -> None:
        """Generate TR-Invoke.cnf, HoldOn=True; [+] keep R running as keep-alive."""
        self.io.emit(InvokeConfirm(self.handle))
        self.hold_on = True
        self.keep_alive(s)

    def keep_alive(self, s: Stimulus) -> None:
        """[+] The responder is alive: Reset RCR, Start timer R."""
        self.rcr = 0
        self.start_timer(Input.TIMER_TO_R)

    def implicit_confirm_and_result(self, s: Stimulus) -> None:
        """Stop timer, Generate TR-Invoke.cnf, TR-Result.ind, Start timer A."""
        self.io.emit(InvokeConfirm(self.handle))
        self.hold_on = True
        self.indicate_result(s)

    def indicate_result(self, s: Stimulus) -> None:
        """Generate TR-Result.ind, Reset AEC, Start timer A."""
        self.io.emit(ResultIndication(self.handle, s.data))
        self.aec = 0
        self.start_timer(Input.TIMER_TO_A)

    def ack_result(self, s: Stimulus) -> None:
        """Send Ack PDU, Start timer W."""
        self.final_ack()
        self.start_timer(Input.TIMER_TO_W)

    def resend_ack(self, s: Stimulus) -> None:
        """Send Ack PDU (with RID): the responder missed our Ack."""
        self.final_ack(rid=True)

    # --- receiving ---------------------------------------------------------------------
    def receive(self, pdu: Pdu, now: float) -> None:
        """Anything from the responder ends a TIDnew wait (see WtpEndpoint)."""
        self.heard = True
        super().receive(pdu, now)

    def receive_message(self, pdu: Pdu, now: float) -> None:
        """A packet of the result: reassemble it, then RcvResult (or RcvSegment)."""
        assert isinstance(pdu, (Result, SegmentedResult))
        psn = pdu.psn if isinstance(pdu, SegmentedResult) else 0
        if self.result_in.complete:
            self.dispatch(Stimulus(Input.RCV_RESULT, pdu, repeat=True), now)
            return
        outcome = self.result_in.add(psn, pdu.user_data, pdu.gtr, pdu.ttr)
        if self.state != InitiatorState.RESULT_WAIT:
            self.dispatch(Stimulus(Input.RCV_RESULT, pdu, repeat=True), now)
        elif outcome.reaction == Reaction.COMPLETE:
            self.dispatch(Stimulus(Input.RCV_RESULT, pdu, data=self.result_in.data()), now)
        else:
            self.receive_segment(pdu, outcome, now)


S_ = InitiatorState
I_ = Input
R = Row
I = Initiator  # noqa: E741

INITIATOR_ROWS: list[Row[InitiatorState, Initiator]] = named(
    "initiator",
    [
        # NULL  TR-Invoke.req  Class == 2 | 1  -> RESULT WAIT
        R(S_.NULL, I_.TR_INVOKE_REQ, I.reliable_fits, I.send_invoke, S_.RESULT_WAIT),
        # NULL  TR-Invoke.req  Class == 0  -> NULL
        R(S_.NULL, I_.TR_INVOKE_REQ, I.class0_fits, I.send_invoke_class0, S_.NULL),
        # [+] NULL  TR-Invoke.req  more than 256 packets  -> NULL
        R(S_.NULL, I_.TR_INVOKE_REQ, I.too_large, I.refuse_too_large, S_.NULL),
        # RESULT WAIT  TR-Abort.req  Abort transaction, Send Abort PDU (USER)  -> NULL
        R(S_.RESULT_WAIT, I_.TR_ABORT_REQ, always, I.user_abort, S_.NULL),
        # RESULT WAIT  RcvAbort  Abort transaction, Generate TR-Abort.ind  -> NULL
        R(S_.RESULT_WAIT, I_.RCV_ABORT, always, I.peer_abort, S_.NULL),
        # RESULT WAIT  TimerTO_R  RCR < MAX_RCR  Increment RCR, Start timer R, Send PDU (RID)
        R(S_.RESULT_WAIT, I_.TIMER_TO_R, I.rcr_below_max, I.retransmit, S_.RESULT_WAIT),
        # RESULT WAIT  TimerTO_R  RCR == MAX_RCR  Abort, Generate TR-Abort.ind  -> NULL
        R(S_.RESULT_WAIT, I_.TIMER_TO_R, I.rcr_at_max, I.give_up, S_.NULL),
        # RESULT WAIT  RcvAck  TIDve  Send Ack(TIDok), Start timer R
        R(S_.RESULT_WAIT, I_.RCV_ACK, I.tid_verification, I.answer_tid_ok, S_.RESULT_WAIT),
        # [+] RESULT WAIT  RcvAck  PSN of a group before the last  send the next group
        R(S_.RESULT_WAIT, I_.RCV_ACK, I.group_ack, I.next_group, S_.RESULT_WAIT),
        # RESULT WAIT  RcvAck  Class == 1  Stop timer, Generate TR-Invoke.cnf  -> NULL
        R(S_.RESULT_WAIT, I_.RCV_ACK, I.final_ack_class1, I.confirm_invoke_class1, S_.NULL),
        # RESULT WAIT  RcvAck  Class == 2, HoldOn == False  TR-Invoke.cnf, HoldOn = True
        R(S_.RESULT_WAIT, I_.RCV_ACK, I.final_ack_first, I.confirm_invoke_hold_on, S_.RESULT_WAIT),
        # [+] RESULT WAIT  RcvAck  HoldOn == True  (the keep-alive answered)
        R(S_.RESULT_WAIT, I_.RCV_ACK, I.final_ack_again, I.keep_alive, S_.RESULT_WAIT),
        # [+] RESULT WAIT  RcvNak  resend the listed packets
        R(S_.RESULT_WAIT, I_.RCV_NAK, always, I.resend_missing, S_.RESULT_WAIT),
        # [+] RESULT WAIT  RcvSegment  HoldOn == False  implicit TR-Invoke.cnf
        R(S_.RESULT_WAIT, I_.RCV_SEGMENT, I.not_hold_on, I.confirm_invoke_hold_on, S_.RESULT_WAIT),
        # [+] RESULT WAIT  RcvSegment  HoldOn == True
        R(S_.RESULT_WAIT, I_.RCV_SEGMENT, I.hold_on_set, I.keep_alive, S_.RESULT_WAIT),
        # RESULT WAIT  RcvResult  Class == 2, HoldOn == False  TR-Invoke.cnf, TR-Result.ind
        R(
            S_.RESULT_WAIT,
            I_.RCV_RESULT,
            I.class2_not_hold_on,
            I.implicit_confirm_and_result,
            S_.RESULT_RESP_WAIT,
        ),
        # RESULT WAIT  RcvResult  Class == 2, HoldOn == True  TR-Result.ind, Start timer A
        R(S_.RESULT_WAIT, I_.RCV_RESULT, I.class2_hold_on, I.indicate_result, S_.RESULT_RESP_WAIT),
        # RESULT WAIT  RcvErrorPDU  Abort, Send Abort (PROTOERR), Generate TR-Abort.ind  -> NULL
        R(S_.RESULT_WAIT, I_.RCV_ERROR_PDU, always, I.error_pdu, S_.NULL),
        # RESULT RESP WAIT  TR-Result.res  Send Ack PDU, Start timer W  -> WAIT TIMEOUT
        R(S_.RESULT_RESP_WAIT, I_.TR_RESULT_RES, always, I.ack_result, S_.WAIT_TIMEOUT),
        # RESULT RESP WAIT  TimerTO_A  Uack == False  Send Ack PDU, Start timer W
        R(S_.RESULT_RESP_WAIT, I_.TIMER_TO_A, I.no_user_ack, I.ack_result, S_.WAIT_TIMEOUT),
        # RESULT RESP WAIT  TimerTO_A  Uack, AEC < AEC_MAX  Increment AEC, Start timer A
        R(
            S_.RESULT_RESP_WAIT,
            I_.TIMER_TO_A,
            I.user_ack_aec_below_max,
            I.wait_more,
            S_.RESULT_RESP_WAIT,
        ),
        # RESULT RESP WAIT  TimerTO_A  AEC == AEC_MAX  Abort (NORESPONSE), TR-Abort.ind -> NULL
        R(S_.RESULT_RESP_WAIT, I_.TIMER_TO_A, I.user_ack_aec_at_max, I.give_up, S_.NULL),
        # RESULT RESP WAIT  RcvResult  ignore (duplicate)
        R(S_.RESULT_RESP_WAIT, I_.RCV_RESULT, always, nothing, S_.RESULT_RESP_WAIT),
        # [+] RESULT RESP WAIT  RcvAck (a late hold-on Ack)  ignore
        R(S_.RESULT_RESP_WAIT, I_.RCV_ACK, I.plain_ack, nothing, S_.RESULT_RESP_WAIT),
        # RESULT RESP WAIT  RcvAbort  Abort transaction, Generate TR-Abort.ind  -> NULL
        R(S_.RESULT_RESP_WAIT, I_.RCV_ABORT, always, I.peer_abort, S_.NULL),
        # RESULT RESP WAIT  TR-Abort.req  Abort transaction, Send Abort PDU (USER)  -> NULL
        R(S_.RESULT_RESP_WAIT, I_.TR_ABORT_REQ, always, I.user_abort, S_.NULL),
        # RESULT RESP WAIT  RcvErrorPDU  Send Abort (PROTOERR), TR-Abort.ind  -> NULL
        R(S_.RESULT_RESP_WAIT, I_.RCV_ERROR_PDU, always, I.error_pdu, S_.NULL),
        # WAIT TIMEOUT  RcvResult  RID == 1  Send Ack PDU
        R(S_.WAIT_TIMEOUT, I_.RCV_RESULT, I.with_rid, I.resend_ack, S_.WAIT_TIMEOUT),
        # WAIT TIMEOUT  RcvResult  RID == 0  ignore (duplicate)
        R(S_.WAIT_TIMEOUT, I_.RCV_RESULT, I.without_rid, nothing, S_.WAIT_TIMEOUT),
        # WAIT TIMEOUT  TimerTO_W  Clear transaction  -> NULL
        R(S_.WAIT_TIMEOUT, I_.TIMER_TO_W, always, I.quiet_end, S_.NULL),
        # WAIT TIMEOUT  RcvAbort  Abort transaction, Generate TR-Abort.ind  -> NULL
        R(S_.WAIT_TIMEOUT, I_.RCV_ABORT, always, I.peer_abort, S_.NULL),
        # WAIT TIMEOUT  TR-Abort.req  Abort transaction, Send Abort PDU (USER)  -> NULL
        R(S_.WAIT_TIMEOUT, I_.TR_ABORT_REQ, always, I.user_abort, S_.NULL),
        # [+] WAIT TIMEOUT  RcvAck  TIDve  the transaction is over: Send Abort(INVALIDTID)
        R(S_.WAIT_TIMEOUT, I_.RCV_ACK, I.tid_verification, I.refuse_tid, S_.WAIT_TIMEOUT),
        # [+] WAIT TIMEOUT  RcvAck  a late hold-on Ack: ignore
        R(S_.WAIT_TIMEOUT, I_.RCV_ACK, I.plain_ack, nothing, S_.WAIT_TIMEOUT),
        # WAIT TIMEOUT  RcvErrorPDU  Send Abort (PROTOERR), TR-Abort.ind  -> NULL
        R(S_.WAIT_TIMEOUT, I_.RCV_ERROR_PDU, always, I.error_pdu, S_.NULL),
    ],
)
Initiator.table = index(INITIATOR_ROWS)
