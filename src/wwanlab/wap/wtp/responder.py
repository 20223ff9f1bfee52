"""The WTP responder: one object per transaction a peer started (WTP 9.6).

States and the spec's table (WAP-201 9.6, abridged; ``->`` next state)::

    LISTEN          RcvInvoke Class==2|1 TID ok   TR-Invoke.ind, Start A, Uack=UP flag
                                                                   -> INVOKE RESP WAIT
                    RcvInvoke Class==2|1 TIDve    Send Ack(TIDve)   -> TIDOK WAIT
                    RcvInvoke Class==0            TR-Invoke.ind     -> LISTEN
                    RcvErrorPDU                   Send Abort(PROTOERR) -> LISTEN
    TIDOK WAIT      RcvAck TIDok                  TR-Invoke.ind, Start A -> INVOKE RESP WAIT
                    RcvAbort                      Clear transaction -> LISTEN
                    RcvInvoke RID==0 / RID==1     ignore / Send Ack(TIDve)
    INVOKE RESP     TR-Invoke.res Class==2        Start A           -> RESULT WAIT
      WAIT          TR-Invoke.res Class==1        Send Ack, Start W -> WAIT TIMEOUT
                    TR-Result.req                 Reset RCR, Start R, Send Result
                                                                    -> RESULT RESP WAIT
                    TR-Abort.req / RcvAbort       Send Abort(USER) / TR-Abort.ind -> LISTEN
                    RcvInvoke                     ignore
                    TimerTO_A Class==2 !Uack      Send Ack (hold on) -> RESULT WAIT
                    TimerTO_A Class==1 !Uack      Send Ack, Start W -> WAIT TIMEOUT
                    TimerTO_A Uack AEC<AEC_MAX    Increment AEC, Start A
                    TimerTO_A AEC==AEC_MAX        Abort(NORESPONSE), TR-Abort.ind -> LISTEN
    RESULT WAIT     TR-Result.req                 Reset RCR, Start R, Send Result
                                                                    -> RESULT RESP WAIT
                    RcvInvoke RID==1 AckSent      Send Ack
                    TimerTO_A                     Send Ack (hold on)
    RESULT RESP     RcvAck                        TR-Result.cnf     -> LISTEN
      WAIT          TimerTO_R RCR<MAX_RCR         Increment RCR, Start R, Send Result (RID)
                    TimerTO_R RCR==MAX_RCR        Abort(NORESPONSE), TR-Abort.ind -> LISTEN
    WAIT TIMEOUT    RcvInvoke RID==1              Send Ack
                    TimerTO_W                     Clear transaction -> LISTEN

Every state also takes TR-Abort.req, RcvAbort and RcvErrorPDU. Additions, marked
``[+]``: SAR rows (packets of an invoke still being reassembled wait in LISTEN under
timer W, as Kannel does; group Acks and Negative Acks move a segmented result on), a
result of more than max_segments packets aborts with MESSAGETOOLARGE, TIDOK WAIT is
bounded by timer W, and duplicate Ack(TIDok)s are ignored (CR-Nokia-WTP-20-March-2000/2,
as Kannel).

Explicit acknowledgement (``WtpConfig.explicit_ack``, paper 000 2.2 and Figure 3a), rows
marked ``[X]``, each before the row it replaces and guarded by the option: the Ack the
spec sends when A expires (INVOKE RESP WAIT and RESULT WAIT, TimerTO_A, "Send Ack PDU")
goes out at once, when the invoke is acknowledged. Class 2 without the U/P flag: the
provider acknowledges, so TR-Invoke.ind and the Ack together, -> RESULT WAIT (also after
a TID verification). With U/P: the user's TR-Invoke.res sends it, -> RESULT WAIT, where a
TR-Invoke.res for an invoke the provider already acknowledged is ignored. A user who
answers with TR-Result.req before any TR-Invoke.res still acknowledges implicitly. From
RESULT WAIT on the spec's rows hold: no timer after the Ack, a repeated invoke (RID) gets
the Ack again.
"""

from enum import Enum, auto

from wwanlab.core.address import Address
from wwanlab.wap.wtp.constants import AbortReason, AbortType, TransactionClass
from wwanlab.wap.wtp.events import InvokeIndication, ResultConfirm
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
from wwanlab.wap.wtp.tid import TidCache, TidTest
from wwanlab.wap.wtp.timers import WtpConfig


class ResponderState(Enum):
    LISTEN = auto()
    TIDOK_WAIT = auto()
    INVOKE_RESP_WAIT = auto()
    RESULT_WAIT = auto()
    RESULT_RESP_WAIT = auto()
    WAIT_TIMEOUT = auto()


class Responder(Transaction[ResponderState]):
    terminal = ResponderState.LISTEN
    responder_side = True
    message_types = (Invoke, SegmentedInvoke)

    def __init__(
        self, io: Io, config: WtpConfig, handle: int, peer: Address, tid: int, tids: TidCache
    ) -> None:
        super().__init__(io, config, handle, peer, tid, ResponderState.LISTEN)
        self.tids = tids
        self.invoke_in = IncomingMessage()
        self.first: Invoke | None = None  # the invoke's PSN 0 packet: class, flags
        self.data = b""
        self.ack_sent = False
        self.result: OutgoingMessage | None = None
        self._tid_test: TidTest | None = None

    @property
    def done(self) -> bool:
        """LISTEN with timer W running is a segmented invoke still being collected."""
        return self.state == ResponderState.LISTEN and self.deadline is None

    # --- header fields of the invoke ----------------------------------------------------
    @property
    def tcl(self) -> TransactionClass:
        return TransactionClass(self.first.tcl) if self.first else TransactionClass.CLASS_0

    @property
    def user_ack(self) -> bool:
        return bool(self.first and self.first.up_flag)

    @property
    def peer_does_sar(self) -> bool:
        """GTR=1 with TTR=1 says the initiator cannot reassemble (WTP 9.3.1)."""
        return not (self.first and self.first.gtr and self.first.ttr)

    # --- packets ---------------------------------------------------------------------------
    def outgoing(self) -> OutgoingMessage:
        assert self.result is not None
        return self.result

    def packet(self, psn: int, rid: bool) -> Pdu:
        message = self.outgoing()
        gtr, ttr = message.trailers(psn)
        data = message.segments[psn]
        if psn == 0:
            return Result(
                tid=self.tid, tid_response=True, user_data=data, gtr=gtr, ttr=ttr, rid=rid
            )
        return SegmentedResult(
            tid=self.tid, tid_response=True, psn=psn, user_data=data, gtr=gtr, ttr=ttr, rid=rid
        )

    def invoke_ack(self, rid: bool = False) -> None:
        self.send_ack(rid=rid, psn=self.invoke_in.last if self.invoke_in.segmented else None)

    def invoke_indication(self) -> InvokeIndication:
        """TR-Invoke.ind with the whole invoke and its header fields."""
        return InvokeIndication(
            self.handle, self.peer, self.tid, self.data, self.tcl, self.user_ack
        )

    # --- conditions ------------------------------------------------------------------------
    def tid_test(self) -> TidTest:
        """The TID test (WTP 7.8.2.3), run once: it caches a TID it accepts."""
        if self._tid_test is None:
            assert self.first is not None
            self._tid_test = self.tids.test(self.peer, self.tid, self.first.tid_new)
        return self._tid_test

    def reliable_tid_ok(self, s: Stimulus) -> bool:
        return (
            not s.repeat
            and self.tcl != TransactionClass.CLASS_0
            and self.first is not None
            and self.tid_test() == TidTest.OK
        )

    def reliable_tid_verify(self, s: Stimulus) -> bool:
        # runs after reliable_tid_ok failed
        return not s.repeat and self.tcl != TransactionClass.CLASS_0

    def provider_acks_at_once(self, s: Stimulus) -> bool:
        """[X] Explicit mode, class 2 without U/P: the provider's Ack goes with TR-Invoke.ind."""
        return self.config.explicit_ack and self.class2(s) and not self.user_ack

    def explicit_tid_ok(self, s: Stimulus) -> bool:
        return self.provider_acks_at_once(s) and self.reliable_tid_ok(s)

    def explicit_tid_ok_answer(self, s: Stimulus) -> bool:
        return self.provider_acks_at_once(s) and self.tid_ok_answer(s)

    def explicit_class2(self, s: Stimulus) -> bool:
        """[X] Explicit mode: the user's TR-Invoke.res sends the Ack at once."""
        return self.config.explicit_ack and self.class2(s)

    def explicit_no_user_ack(self, s: Stimulus) -> bool:
        """[X] The provider acknowledged already: a TR-Invoke.res has nothing left to do."""
        return self.provider_acks_at_once(s) and self.ack_sent

    def class0(self, s: Stimulus) -> bool:
        return not s.repeat and self.tcl == TransactionClass.CLASS_0

    def tid_ok_answer(self, s: Stimulus) -> bool:
        return isinstance(s.pdu, Ack) and s.pdu.tve_tok

    def rid_ack_sent(self, s: Stimulus) -> bool:
        return s.rid and self.ack_sent

    def rid_no_ack_sent(self, s: Stimulus) -> bool:
        return s.rid and not self.ack_sent

    def class2(self, s: Stimulus) -> bool:
        return self.tcl == TransactionClass.CLASS_2

    def class1(self, s: Stimulus) -> bool:
        return self.tcl == TransactionClass.CLASS_1

    def class2_result_fits(self, s: Stimulus) -> bool:
        return self.class2(s) and self._segments_for(s.data) <= self.config.max_segments

    def class2_result_too_large(self, s: Stimulus) -> bool:
        return self.class2(s) and self._segments_for(s.data) > self.config.max_segments

    def _segments_for(self, data: bytes) -> int:
        if not self.peer_does_sar:
            return 1  # sent whole, as Kannel does for a peer without SAR
        return max(1, -(-len(data) // self.config.segment_size))

    def class2_no_user_ack(self, s: Stimulus) -> bool:
        return self.class2(s) and not self.user_ack

    def class1_no_user_ack(self, s: Stimulus) -> bool:
        return self.class1(s) and not self.user_ack

    def final_ack(self, s: Stimulus) -> bool:
        return self._plain_ack(s) and self.outgoing().is_final_ack(ack_psn(s.pdu))

    # --- actions ----------------------------------------------------------------------------
    def indicate_invoke(self, s: Stimulus) -> None:
        """Generate TR-Invoke.ind, Reset AEC, Start timer A."""
        self.user_knows = True
        self.io.emit(self.invoke_indication())
        self.aec = 0
        self.start_timer(Input.TIMER_TO_A)

    def indicate_and_ack(self, s: Stimulus) -> None:
        """[X] Generate TR-Invoke.ind, Send Ack PDU at once (explicit acknowledgement)."""
        self.indicate_invoke(s)
        self.hold_on(s)

    def indicate_invoke_class0(self, s: Stimulus) -> None:
        """Generate TR-Invoke.ind; class 0 keeps no state."""
        self.io.emit(self.invoke_indication())
        self.stop_timer()

    def verify_tid(self, s: Stimulus) -> None:
        """Send Ack(TIDve); [+] Start timer W so an unanswered question ends."""
        self.send_ack(tve_tok=True)
        self.start_timer(Input.TIMER_TO_W)

    def resend_tid_question(self, s: Stimulus) -> None:
        """Send Ack(TIDve) again: the initiator repeated its invoke."""
        self.send_ack(tve_tok=True, rid=True)

    def tid_verified(self, s: Stimulus) -> None:
        """TIDok: cache the TID (WTP 7.9.3), then Generate TR-Invoke.ind, Start timer A."""
        assert self.first is not None
        self.tids.verified(self.peer, self.tid, self.first.tid_new)
        self.indicate_invoke(s)

    def verified_and_ack(self, s: Stimulus) -> None:
        """[X] TIDok: cache the TID, Generate TR-Invoke.ind, Send Ack PDU at once."""
        self.tid_verified(s)
        self.hold_on(s)

    def reassembling(self, s: Stimulus) -> None:
        """[+] Part of a segmented invoke: wait for the rest under timer W (Kannel)."""
        self.start_timer(Input.TIMER_TO_W)

    def protocol_error_no_user(self, s: Stimulus) -> None:
        """Send Abort PDU (PROTOERR); no user indication, nothing started."""
        self.send_abort(AbortType.PROVIDER, AbortReason.PROTOERR)
        self.stop_timer()

    def await_result(self, s: Stimulus) -> None:
        """TR-Invoke.res (class 2): Reset AEC, Start timer A."""
        self.aec = 0
        self.start_timer(Input.TIMER_TO_A)

    def ack_and_wait(self, s: Stimulus) -> None:
        """Send Ack PDU, Start timer W."""
        self.invoke_ack()
        self.ack_sent = True
        self.start_timer(Input.TIMER_TO_W)

    def hold_on(self, s: Stimulus) -> None:
        """Send Ack PDU: a hold-on acknowledgement (WTP 7.1.5.3); no timer after it.

        In explicit mode this is the Ack sent at once, when the invoke is acknowledged.
        """
        self.invoke_ack()
        self.ack_sent = True
        self.stop_timer()

    def resend_ack(self, s: Stimulus) -> None:
        """Send Ack PDU again (RID): the initiator missed it."""
        self.invoke_ack(rid=True)

    def send_result(self, s: Stimulus) -> None:
        """Reset RCR, Start timer R, Send Result PDU (the first group)."""
        size = self.config.segment_size if self.peer_does_sar else max(1, len(s.data))
        self.result = OutgoingMessage(s.data, size, self.config.group_size)
        self.rcr = 0
        self.send_group(rid=False)
        self.start_timer(Input.TIMER_TO_R)

    def refuse_too_large(self, s: Stimulus) -> None:
        """[+] More than max_segments packets: Abort(MESSAGETOOLARGE), TR-Abort.ind."""
        self.abort_provider(AbortReason.MESSAGETOOLARGE)

    def confirm_result(self, s: Stimulus) -> None:
        """Generate TR-Result.cnf; the transaction is over."""
        self.io.emit(ResultConfirm(self.handle))
        self.stop_timer()

    # --- receiving ----------------------------------------------------------------------------
    def receive_message(self, pdu: Pdu, now: float) -> None:
        """A packet of the invoke: reassemble it, then RcvInvoke (or RcvSegment)."""
        assert isinstance(pdu, (Invoke, SegmentedInvoke))
        if self.invoke_in.complete:
            self.dispatch(Stimulus(Input.RCV_INVOKE, pdu, repeat=True), now)
            return
        psn = pdu.psn if isinstance(pdu, SegmentedInvoke) else 0
        if isinstance(pdu, Invoke):
            self.first = pdu
        gtr, ttr = pdu.gtr, pdu.ttr
        if isinstance(pdu, Invoke) and gtr and ttr:
            gtr = False  # "SAR not supported": a whole message in one packet
        outcome = self.invoke_in.add(psn, pdu.user_data, gtr, ttr)
        if outcome.reaction == Reaction.COMPLETE:
            self.data = self.invoke_in.data()
            self.dispatch(Stimulus(Input.RCV_INVOKE, pdu, data=self.data), now)
        else:
            self.receive_segment(pdu, outcome, now)


S_ = ResponderState
I_ = Input
R = Row
P = Responder

RESPONDER_ROWS: list[Row[ResponderState, Responder]] = named(
    "responder",
    [
        # [X] LISTEN  RcvInvoke  Class == 2, TID ok, !Uack, explicit  TR-Invoke.ind, Send Ack
        #     -> RESULT WAIT (the Ack TimerTO_A would send, at once)
        R(S_.LISTEN, I_.RCV_INVOKE, P.explicit_tid_ok, P.indicate_and_ack, S_.RESULT_WAIT),
        # LISTEN  RcvInvoke  Class == 2 | 1, TID ok  TR-Invoke.ind, Start A  -> INVOKE RESP WAIT
        R(S_.LISTEN, I_.RCV_INVOKE, P.reliable_tid_ok, P.indicate_invoke, S_.INVOKE_RESP_WAIT),
        # LISTEN  RcvInvoke  Class == 2 | 1, TIDve needed  Send Ack(TIDve)  -> TIDOK WAIT
        R(S_.LISTEN, I_.RCV_INVOKE, P.reliable_tid_verify, P.verify_tid, S_.TIDOK_WAIT),
        # LISTEN  RcvInvoke  Class == 0  TR-Invoke.ind  -> LISTEN
        R(S_.LISTEN, I_.RCV_INVOKE, P.class0, P.indicate_invoke_class0, S_.LISTEN),
        # [+] LISTEN  RcvSegment  collect, Start timer W  -> LISTEN
        R(S_.LISTEN, I_.RCV_SEGMENT, always, P.reassembling, S_.LISTEN),
        # [+] LISTEN  TimerTO_W  an incomplete segmented invoke is dropped (Kannel)  -> LISTEN
        R(S_.LISTEN, I_.TIMER_TO_W, always, P.quiet_end, S_.LISTEN),
        # [+] LISTEN  RcvAbort  (while reassembling) clear  -> LISTEN
        R(S_.LISTEN, I_.RCV_ABORT, always, P.quiet_end, S_.LISTEN),
        # LISTEN  RcvErrorPDU  Send Abort PDU (PROTOERR)  -> LISTEN
        R(S_.LISTEN, I_.RCV_ERROR_PDU, always, P.protocol_error_no_user, S_.LISTEN),
        # [X] TIDOK WAIT  RcvAck  TIDok, Class == 2, !Uack, explicit  TR-Invoke.ind, Send Ack
        #     -> RESULT WAIT
        R(
            S_.TIDOK_WAIT,
            I_.RCV_ACK,
            P.explicit_tid_ok_answer,
            P.verified_and_ack,
            S_.RESULT_WAIT,
        ),
        # TIDOK WAIT  RcvAck  TIDok  TR-Invoke.ind, Start timer A  -> INVOKE RESP WAIT
        R(S_.TIDOK_WAIT, I_.RCV_ACK, P.tid_ok_answer, P.tid_verified, S_.INVOKE_RESP_WAIT),
        # TIDOK WAIT  RcvAbort  Clear transaction  -> LISTEN
        R(S_.TIDOK_WAIT, I_.RCV_ABORT, always, P.quiet_end, S_.LISTEN),
        # TIDOK WAIT  RcvInvoke  RID == 0  ignore
        R(S_.TIDOK_WAIT, I_.RCV_INVOKE, P.without_rid, nothing, S_.TIDOK_WAIT),
        # TIDOK WAIT  RcvInvoke  RID == 1  Send Ack(TIDve)
        R(S_.TIDOK_WAIT, I_.RCV_INVOKE, P.with_rid, P.resend_tid_question, S_.TIDOK_WAIT),
        # [+] TIDOK WAIT  TimerTO_W  no answer: clear  -> LISTEN
        R(S_.TIDOK_WAIT, I_.TIMER_TO_W, always, P.quiet_end, S_.LISTEN),
        # TIDOK WAIT  RcvErrorPDU  Send Abort PDU (PROTOERR)  -> LISTEN
        R(S_.TIDOK_WAIT, I_.RCV_ERROR_PDU, always, P.protocol_error_no_user, S_.LISTEN),
        # [X] INVOKE RESP WAIT  TR-Invoke.res  Class == 2, explicit  Send Ack  -> RESULT WAIT
        #     (instead of Start timer A and the Ack at its expiry)
        R(S_.INVOKE_RESP_WAIT, I_.TR_INVOKE_RES, P.explicit_class2, P.hold_on, S_.RESULT_WAIT),
        # INVOKE RESP WAIT  TR-Invoke.res  Class == 2  Start timer A  -> RESULT WAIT
        R(S_.INVOKE_RESP_WAIT, I_.TR_INVOKE_RES, P.class2, P.await_result, S_.RESULT_WAIT),
        # INVOKE RESP WAIT  TR-Invoke.res  Class == 1  Send Ack, Start timer W  -> WAIT TIMEOUT
        R(S_.INVOKE_RESP_WAIT, I_.TR_INVOKE_RES, P.class1, P.ack_and_wait, S_.WAIT_TIMEOUT),
        # INVOKE RESP WAIT  TR-Result.req  Reset RCR, Start R, Send Result -> RESULT RESP WAIT
        R(
            S_.INVOKE_RESP_WAIT,
            I_.TR_RESULT_REQ,
            P.class2_result_fits,
            P.send_result,
            S_.RESULT_RESP_WAIT,
        ),
        # [+] INVOKE RESP WAIT  TR-Result.req  too large  Abort(MESSAGETOOLARGE)  -> LISTEN
        R(
            S_.INVOKE_RESP_WAIT,
            I_.TR_RESULT_REQ,
            P.class2_result_too_large,
            P.refuse_too_large,
            S_.LISTEN,
        ),
        # INVOKE RESP WAIT  TR-Abort.req  Send Abort PDU (USER)  -> LISTEN
        R(S_.INVOKE_RESP_WAIT, I_.TR_ABORT_REQ, always, P.user_abort, S_.LISTEN),
        # INVOKE RESP WAIT  RcvAbort  Generate TR-Abort.ind  -> LISTEN
        R(S_.INVOKE_RESP_WAIT, I_.RCV_ABORT, always, P.peer_abort, S_.LISTEN),
        # INVOKE RESP WAIT  RcvInvoke  ignore
        R(S_.INVOKE_RESP_WAIT, I_.RCV_INVOKE, always, nothing, S_.INVOKE_RESP_WAIT),
        # INVOKE RESP WAIT  TimerTO_A  Class == 2, Uack == False  Send Ack  -> RESULT WAIT
        R(S_.INVOKE_RESP_WAIT, I_.TIMER_TO_A, P.class2_no_user_ack, P.hold_on, S_.RESULT_WAIT),
        # INVOKE RESP WAIT  TimerTO_A  Class == 1, Uack == False  Send Ack, Start W
        R(
            S_.INVOKE_RESP_WAIT,
            I_.TIMER_TO_A,
            P.class1_no_user_ack,
            P.ack_and_wait,
            S_.WAIT_TIMEOUT,
        ),
        # INVOKE RESP WAIT  TimerTO_A  Uack, AEC < AEC_MAX  Increment AEC, Start timer A
        R(
            S_.INVOKE_RESP_WAIT,
            I_.TIMER_TO_A,
            P.user_ack_aec_below_max,
            P.wait_more,
            S_.INVOKE_RESP_WAIT,
        ),
        # INVOKE RESP WAIT  TimerTO_A  AEC == AEC_MAX  Abort(NORESPONSE), TR-Abort.ind -> LISTEN
        R(S_.INVOKE_RESP_WAIT, I_.TIMER_TO_A, P.user_ack_aec_at_max, P.give_up, S_.LISTEN),
        # [+] INVOKE RESP WAIT  RcvAck  TIDok again  ignore
        R(S_.INVOKE_RESP_WAIT, I_.RCV_ACK, P.tid_ok_answer, nothing, S_.INVOKE_RESP_WAIT),
        # INVOKE RESP WAIT  RcvErrorPDU  Send Abort (PROTOERR), TR-Abort.ind  -> LISTEN
        R(S_.INVOKE_RESP_WAIT, I_.RCV_ERROR_PDU, always, P.error_pdu, S_.LISTEN),
        # RESULT WAIT  TR-Result.req  Reset RCR, Start timer R, Send Result  -> RESULT RESP WAIT
        R(
            S_.RESULT_WAIT,
            I_.TR_RESULT_REQ,
            P.class2_result_fits,
            P.send_result,
            S_.RESULT_RESP_WAIT,
        ),
        # [+] RESULT WAIT  TR-Result.req  too large  Abort(MESSAGETOOLARGE)  -> LISTEN
        R(
            S_.RESULT_WAIT,
            I_.TR_RESULT_REQ,
            P.class2_result_too_large,
            P.refuse_too_large,
            S_.LISTEN,
        ),
        # [X] RESULT WAIT  TR-Invoke.res  !Uack, explicit, Ack sent  ignore
        R(S_.RESULT_WAIT, I_.TR_INVOKE_RES, P.explicit_no_user_ack, nothing, S_.RESULT_WAIT),
        # RESULT WAIT  RcvAbort  Generate TR-Abort.ind  -> LISTEN
        R(S_.RESULT_WAIT, I_.RCV_ABORT, always, P.peer_abort, S_.LISTEN),
        # RESULT WAIT  RcvInvoke  RID == 0  ignore
        R(S_.RESULT_WAIT, I_.RCV_INVOKE, P.without_rid, nothing, S_.RESULT_WAIT),
        # RESULT WAIT  RcvInvoke  RID == 1, AckSent  Send Ack PDU
        R(S_.RESULT_WAIT, I_.RCV_INVOKE, P.rid_ack_sent, P.resend_ack, S_.RESULT_WAIT),
        # RESULT WAIT  RcvInvoke  RID == 1, no Ack sent yet  ignore
        R(S_.RESULT_WAIT, I_.RCV_INVOKE, P.rid_no_ack_sent, nothing, S_.RESULT_WAIT),
        # RESULT WAIT  TR-Abort.req  Send Abort PDU (USER)  -> LISTEN
        R(S_.RESULT_WAIT, I_.TR_ABORT_REQ, always, P.user_abort, S_.LISTEN),
        # RESULT WAIT  TimerTO_A  Send Ack PDU (hold on)
        R(S_.RESULT_WAIT, I_.TIMER_TO_A, always, P.hold_on, S_.RESULT_WAIT),
        # [+] RESULT WAIT  RcvAck  TIDok again  ignore (CR-Nokia-WTP-20-March-2000/2)
        R(S_.RESULT_WAIT, I_.RCV_ACK, P.tid_ok_answer, nothing, S_.RESULT_WAIT),
        # RESULT WAIT  RcvErrorPDU  Send Abort (PROTOERR), TR-Abort.ind  -> LISTEN
        R(S_.RESULT_WAIT, I_.RCV_ERROR_PDU, always, P.error_pdu, S_.LISTEN),
        # RESULT RESP WAIT  RcvAck  Generate TR-Result.cnf  -> LISTEN
        R(S_.RESULT_RESP_WAIT, I_.RCV_ACK, P.final_ack, P.confirm_result, S_.LISTEN),
        # [+] RESULT RESP WAIT  RcvAck  PSN of a group before the last  send the next group
        R(S_.RESULT_RESP_WAIT, I_.RCV_ACK, P.group_ack, P.next_group, S_.RESULT_RESP_WAIT),
        # [+] RESULT RESP WAIT  RcvAck  TIDok again  ignore
        R(S_.RESULT_RESP_WAIT, I_.RCV_ACK, P.tid_ok_answer, nothing, S_.RESULT_RESP_WAIT),
        # [+] RESULT RESP WAIT  RcvNak  resend the listed packets
        R(S_.RESULT_RESP_WAIT, I_.RCV_NAK, always, P.resend_missing, S_.RESULT_RESP_WAIT),
        # RESULT RESP WAIT  RcvInvoke  ignore (Kannel: the spec has no row)
        R(S_.RESULT_RESP_WAIT, I_.RCV_INVOKE, always, nothing, S_.RESULT_RESP_WAIT),
        # RESULT RESP WAIT  RcvAbort  Generate TR-Abort.ind  -> LISTEN
        R(S_.RESULT_RESP_WAIT, I_.RCV_ABORT, always, P.peer_abort, S_.LISTEN),
        # RESULT RESP WAIT  TR-Abort.req  Send Abort PDU (USER)  -> LISTEN
        R(S_.RESULT_RESP_WAIT, I_.TR_ABORT_REQ, always, P.user_abort, S_.LISTEN),
        # RESULT RESP WAIT  TimerTO_R  RCR < MAX_RCR  Increment RCR, Start R, Send Result (RID)
        R(S_.RESULT_RESP_WAIT, I_.TIMER_TO_R, P.rcr_below_max, P.retransmit, S_.RESULT_RESP_WAIT),
        # RESULT RESP WAIT  TimerTO_R  RCR == MAX_RCR  Abort(NORESPONSE), TR-Abort.ind -> LISTEN
        R(S_.RESULT_RESP_WAIT, I_.TIMER_TO_R, P.rcr_at_max, P.give_up, S_.LISTEN),
        # RESULT RESP WAIT  RcvErrorPDU  Send Abort (PROTOERR), TR-Abort.ind  -> LISTEN
        R(S_.RESULT_RESP_WAIT, I_.RCV_ERROR_PDU, always, P.error_pdu, S_.LISTEN),
        # WAIT TIMEOUT  RcvInvoke  RID == 0  ignore
        R(S_.WAIT_TIMEOUT, I_.RCV_INVOKE, P.without_rid, nothing, S_.WAIT_TIMEOUT),
        # WAIT TIMEOUT  RcvInvoke  RID == 1  Send Ack PDU
        R(S_.WAIT_TIMEOUT, I_.RCV_INVOKE, P.with_rid, P.resend_ack, S_.WAIT_TIMEOUT),
        # WAIT TIMEOUT  TimerTO_W  Clear transaction  -> LISTEN
        R(S_.WAIT_TIMEOUT, I_.TIMER_TO_W, always, P.quiet_end, S_.LISTEN),
        # WAIT TIMEOUT  RcvAbort  Generate TR-Abort.ind  -> LISTEN
        R(S_.WAIT_TIMEOUT, I_.RCV_ABORT, always, P.peer_abort, S_.LISTEN),
        # WAIT TIMEOUT  TR-Abort.req  Send Abort PDU (USER)  -> LISTEN
        R(S_.WAIT_TIMEOUT, I_.TR_ABORT_REQ, always, P.user_abort, S_.LISTEN),
        # WAIT TIMEOUT  RcvErrorPDU  Send Abort (PROTOERR), TR-Abort.ind  -> LISTEN
        R(S_.WAIT_TIMEOUT, I_.RCV_ERROR_PDU, always, P.error_pdu, S_.LISTEN),
    ],
)
Responder.table = index(RESPONDER_ROWS)
