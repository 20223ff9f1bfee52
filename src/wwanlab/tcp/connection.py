"""One TCP connection: handshake, data transfer, congestion control and teardown.

Sequence numbers are kept unwrapped (plain growing integers from the ISN); only the
wire carries them modulo 2**32, and incoming values are unwrapped against the nearest
known point. The send buffer (``SendBuffer``) starts at ``_buf_seq``; sending a segment
copies one slice of it, an ACK drops from its front.

Congestion control follows RFC 5681 (slow start, congestion avoidance, fast
retransmit/fast recovery), RFC 6582 (NewReno partial ACKs), RFC 6675 (SACK loss
recovery with pipe and NextSeg) and RFC 3042 (limited transmit); timers follow
RFC 6298. Which recovery runs is ``TcpConfig.variant``.

With ``TcpConfig.frto`` a timeout is checked for being spurious (F-RTO, RFC 5682): the
basic algorithm of section 2 without SACK, the SACK-enhanced one of section 3 with it.
After the first retransmission is acknowledged the sender sends two new segments
instead of going back; if the next ACK acknowledges data that was never retransmitted,
the originals were only delayed (a deep queue), and the sender undoes the timeout's
reduction as Linux's ``tcp_try_undo_loss`` does: cwnd and ssthresh back to at least
their values before it. Like Linux, F-RTO also runs on a timeout that recurs before
any ACK (the same SND.UNA), which RFC 5682 step 1 would leave to RTO recovery.

With ``TcpConfig.timestamps`` both SYNs offer TSopt (RFC 7323 3) and, when both did,
every segment carries TSval (a millisecond clock) and the echo of RFC 7323 4.3, and
its 12 octets come out of each segment's data (RFC 6691). They are carried for their
octets, which a 9.6 kbit/s line charges: RTT samples still come from the ACKs, and
PAWS (RFC 7323 5) is not run.

Three options serve a sender that knows the link it feeds, the TCP-WWAN proxy of paper
003 section 4.3.1 (see docs/tcp.md): ``fixed_window`` (cwnd is the link's
bandwidth-delay product from the first flight on, never grown, halved or collapsed),
``pacing_bps`` (data segments leave one segment time apart at the link's rate, through
a ``Pacer`` that connections to one mobile may share) and ``probe_on_timeout`` (when
the timer expires, an ACK with an old sequence number asks the receiver what it holds,
instead of a retransmission; on a FIFO link the answer leaves after everything sent
before it, so an answer that does not acknowledge SND.UNA proves a loss and the
outstanding data is resent at once, and an answer that does proves a stall).
"""

import random
from collections import deque
from enum import Enum
from typing import Final

from wwanlab.core.address import Address
from wwanlab.core.events import Event
from wwanlab.tcp import segment as wire
from wwanlab.tcp.config import DEFAULT_MSS, RTO_SYN_FALLBACK, TcpConfig, Variant
from wwanlab.tcp.events import (
    ConnectionAborted,
    ConnectionClosed,
    ConnectionEstablished,
    ConnectionReset,
    DataReceived,
    PeerClosed,
)
from wwanlab.tcp.ranges import ReorderQueue, Scoreboard
from wwanlab.tcp.rto import RtoEstimator
from wwanlab.tcp.segment import ACK, FIN, PSH, RST, SYN, Segment
from wwanlab.tcp.sendbuffer import SendBuffer
from wwanlab.tcp.state import RECEIVES_DATA, SYNCHRONIZED, Input, State, next_state
from wwanlab.tcp.stats import CwndSample, Recorder, TcpStats

SEQ_MOD: Final = 1 << 32  # RFC 9293 3.4: sequence arithmetic is modulo 2**32
_HALF: Final = 1 << 31
IPV4_HEADER: Final = 20  # RFC 791 3.1: header without options, paced with the segment
_OPEN_FOR_SEND = frozenset(
    {State.SYN_SENT, State.SYN_RECEIVED, State.ESTABLISHED, State.CLOSE_WAIT}
)
_SENDING = frozenset(
    {State.ESTABLISHED, State.CLOSE_WAIT, State.FIN_WAIT_1, State.CLOSING, State.LAST_ACK}
)


def unwrap(value: int, near: int) -> int:
    """The unwrapped sequence number within 2**31 of ``near`` whose low 32 bits are ``value``."""
    return near + ((value - near + _HALF) % SEQ_MOD) - _HALF


class _Next(Enum):
    """Which RFC 6675 4 NextSeg rule chose a segment."""

    LOST = 1  # rule (1)
    NEW = 2  # rule (2)
    HOLE = 3  # rule (3)
    RESCUE = 4  # rule (4)


class Pacer:
    """Spaces data segments at ``bps`` IP bits/s: each may leave once the one before
    it has had its segment time. Connections that share one share the rate."""

    __slots__ = ("bps", "next_time")

    def __init__(self, bps: float) -> None:
        self.bps = bps
        self.next_time = 0.0  # when the next segment may leave

    def sent(self, ip_bytes: int, now: float) -> None:
        self.next_time = max(self.next_time, now) + ip_bytes * 8 / self.bps


class _Frto(Enum):
    """Where F-RTO (RFC 5682) is after a timeout."""

    OFF = 0  # not running: no timeout, or conventional RTO recovery
    STEP2 = 2  # the timeout's retransmission sent; waiting for the first new ACK
    STEP3 = 3  # two new segments sent; the next ACK tells spurious from genuine


class TcpConnection:
    """A connection's whole state; driven by ``TcpEndpoint``, which owns the queues."""

    def __init__(
        self,
        conn_id: int,
        local: Address,
        remote: Address,
        config: TcpConfig,
        rng: random.Random,
        out: list[tuple[bytes, Address]],
        events: list[Event],
        recorder: Recorder | None,
    ) -> None:
        self.conn_id = conn_id
        self.local = local
        self.remote = remote
        self.config = config
        self.state = State.CLOSED
        self.variant = config.variant  # the loss recovery in use (see _take_syn)
        self.stats = TcpStats()
        self._out = out
        self._events = events
        self._recorder = recorder
        self._pseudo_sum = wire.pseudo_header_sum(local[0], remote[0])
        self._emit_ports = (local[1], remote[1])

        # Send sequence space (RFC 9293 3.3.1).
        self.iss = rng.getrandbits(32)
        self.snd_una = self.iss
        self.snd_nxt = self.iss
        self.snd_max = self.iss  # highest sequence sent + 1 ("HighData", RFC 6675 2)
        self.snd_wnd = 0
        self._snd_wl1 = 0
        self._snd_wl2 = 0
        self._snd_wscale = 0
        self._buf = SendBuffer()
        self._buf_seq = self.iss + 1
        self._fin_queued = False
        self._close_on_open = False
        self._snd_sml = self.iss  # end of the last small segment sent (Minshall's Nagle)
        self.smss = min(DEFAULT_MSS, config.mss)

        # Receive sequence space.
        self.irs = 0
        self.rcv_nxt = 0
        self._rcv_wscale = 0
        self._ws_ok = False
        self._sack_ok = False
        self._ts_ok = False  # both ends sent TSopt in their SYNs (RFC 7323 3.2)
        self._ts_recent = 0  # RFC 7323 4.3 "TS.Recent": the TSval we echo
        self._last_ack_sent = 0  # RFC 7323 4.3 "Last.ACK.sent"
        self._reorder = ReorderQueue()
        self._peer_fin: int | None = None
        self._unread = 0  # delivered but not yet acknowledged by the user
        self._rcv_adv = 0  # right edge of the window last offered (RCV.NXT + RCV.WND)
        self._max_snd_wnd = 0
        self._probes = 0
        self.persist_deadline: float | None = None

        # Congestion control (RFC 5681) and loss recovery.
        self.cwnd = self.smss
        self.ssthresh = config.initial_ssthresh
        self.dupacks = 0
        self._bytes_acked = 0
        self.in_recovery = False
        self.recovery_point = self.iss  # RFC 6582 "recover", RFC 6675 "RecoveryPoint"
        self._timer_driven_until = self.iss  # retransmissions below it follow an RTO
        self._after_timeout = False  # the last congestion response was an RTO's
        self._recovery_start = 0.0
        self._first_partial = True
        self.high_rxt = self.iss  # RFC 6675 "HighRxt"
        self._rescue_rxt: int | None = None  # RFC 6675 "RescueRxt"
        self.scoreboard = Scoreboard()
        self._traced = (0, 0)
        self._frto = _Frto.OFF
        self._frto_recover = self.iss  # RFC 5682 "recover": HighData at the timeout
        self._prior_cwnd = 0  # cwnd and ssthresh before the timeout, for the undo
        self._prior_ssthresh = 0
        self.spurious_timeouts = 0  # timeouts F-RTO found spurious
        self.pacer: Pacer | None = Pacer(config.pacing_bps) if config.pacing_bps > 0 else None
        self.pace_deadline: float | None = None  # a segment waits for the pacer
        self.stall_probes = 0  # timer expiries answered with a probe, not a resend
        self._stalled = False  # a probe is out; its answer tells stall from loss

        # Timers (absolute times) and RTT measurement.
        self.rto = RtoEstimator(config)
        self.rto_deadline: float | None = None
        self._retries = 0
        self._syn_retransmitted = False
        self._rtt_seq: int | None = None
        self._sent_times: deque[tuple[int, float]] = deque()  # (end seq, time) per segment
        self._karn_until = self.iss  # end of the highest range ever retransmitted
        self._rtt_time = 0.0
        self._ack_now = False
        self._unacked = 0
        self._quick_acks = config.quick_acks
        self.delack_deadline: float | None = None
        self.time_wait_deadline: float | None = None

    # --- commands ---------------------------------------------------------------------

    def open_active(self, now: float) -> None:
        """Send a SYN (RFC 9293 3.5, CLOSED --active open--> SYN-SENT)."""
        self.state = State.SYN_SENT
        self._send_syn(now)

    def open_passive(self, syn: Segment, now: float) -> None:
        """Answer a SYN with a SYN,ACK (LISTEN --rcv SYN--> SYN-RECEIVED)."""
        self.state = next_state(State.LISTEN, Input.RCV_SYN)
        self._take_syn(syn)
        self._send_syn(now)

    def send(self, data: bytes) -> None:
        self._buf.append(data)

    def close(self) -> None:
        """Queue a FIN after the buffered data (RFC 9293 3.10.4).

        In SYN-SENT with data queued the CLOSE waits for ESTABLISHED, as RFC 9293
        3.10.4 prescribes for SYN-RECEIVED, so ``connect; send; close`` works."""
        if self.state is State.SYN_SENT and self._buf.size:
            self._close_on_open = True
            return
        self.state = next_state(self.state, Input.CLOSE)
        if self.state is State.CLOSED:  # CLOSE in SYN-SENT: nothing to tell the peer
            self.rto_deadline = None
            self._events.append(ConnectionClosed(self.conn_id))
            return
        self._fin_queued = True

    def abort(self, now: float, reason: str) -> None:
        """Send a RST and forget the connection (RFC 9293 3.10.5)."""
        if self.state in SYNCHRONIZED or self.state is State.SYN_RECEIVED:
            self._emit(now, self.snd_nxt, RST | ACK, b"")
        self._events.append(ConnectionAborted(self.conn_id, reason))
        self._finish(now)

    @property
    def can_send(self) -> bool:
        """Whether ``send`` is allowed: the user has not closed (RFC 9293 3.10.2)."""
        return self.state in _OPEN_FOR_SEND and not (self._fin_queued or self._close_on_open)

    def accepts_new_syn(self, seg: Segment) -> bool:
        """RFC 1122 4.2.2.13: in TIME-WAIT, a SYN above the old sequence space reopens."""
        return (
            self.state is State.TIME_WAIT
            and seg.flags & (SYN | ACK | RST) == SYN
            and unwrap(seg.seq, self.rcv_nxt) > self.rcv_nxt
        )

    def end_time_wait(self, now: float) -> None:
        self.state = next_state(self.state, Input.TIMEOUT_2MSL)
        self._finish(now)

    @property
    def closed(self) -> bool:
        return self.state is State.CLOSED

    def get_timer(self) -> float | None:
        best: float | None = None
        timers = (
            self.rto_deadline,
            self.delack_deadline,
            self.time_wait_deadline,
            self.persist_deadline,
            self.pace_deadline,
        )
        for t in timers:
            if t is not None and (best is None or t < best):
                best = t
        return best

    def acknowledge_received(self, size: int) -> None:
        """The user has taken ``size`` delivered bytes: reopen the window by as much,
        and announce it when the edge moves far enough (RFC 1122 4.2.3.3)."""
        before = self._rcv_adv
        self._unread = max(self._unread - size, 0)
        if self.state in SYNCHRONIZED and self._rcv_wnd() and self._rcv_adv > before:
            self._ack_now = True  # a window update

    def _rcv_wnd(self) -> int:
        """RCV.WND: never shrinks the offered edge; with a reading user, moves the edge
        only by min(MSS, buffer/2) at a time (receiver SWS avoidance, RFC 1122 4.2.3.3)."""
        cfg = self.config
        if cfg.auto_consume:
            return cfg.receive_buffer
        edge = self.rcv_nxt + max(cfg.receive_buffer - self._unread, 0)
        if edge - self._rcv_adv >= min(self.smss, cfg.receive_buffer // 2):
            self._rcv_adv = edge
        return max(self._rcv_adv - self.rcv_nxt, 0)

    # --- timers -----------------------------------------------------------------------

    def handle_timer(self, now: float) -> None:
        if self.time_wait_deadline is not None and now >= self.time_wait_deadline:
            self.end_time_wait(now)
            return
        if self.delack_deadline is not None and now >= self.delack_deadline:
            self.delack_deadline = None
            self._ack_now = True
        if self.pace_deadline is not None and now >= self.pace_deadline:
            self.pace_deadline = None
        if self.rto_deadline is not None and now >= self.rto_deadline:
            if self.config.probe_on_timeout and self.state in SYNCHRONIZED:
                self._stall_probe(now)
            else:
                self._on_rto(now)
        if self.persist_deadline is not None and now >= self.persist_deadline:
            self._probe(now)
        if not self.closed:
            self.output(now)

    def _probe(self, now: float) -> None:
        """Zero-window probe (RFC 9293 3.8.6.1, RFC 1122 4.2.2.17): an old sequence
        number, as Linux sends, so the peer answers with its current window."""
        self.stats.window_probes += 1
        self._emit(now, self.snd_una - 1, ACK, b"")
        self._probes += 1
        backoff = self.rto.rto * (1 << min(self._probes, 16))
        self.persist_deadline = now + min(backoff, self.config.rto_max)

    def _stall_probe(self, now: float) -> None:
        """``probe_on_timeout``: the timer expired with data outstanding. Nothing is
        resent and the window stays; an ACK with an old sequence number, which the
        receiver answers at once (RFC 9293 3.10.7.4), goes behind the data. The timer
        backs off as RFC 6298 5.5's, and the retry limit holds."""
        self._retries += 1
        self.rto_deadline = None
        if self._retries > self.config.max_retries:
            self.abort(now, "retransmission limit")
            return
        self.stall_probes += 1
        self._stalled = True
        self.rto.backoff()
        self._emit(now, self.snd_una - 1, ACK, b"")
        self.rto_deadline = now + self.rto.rto

    def _resend_after_stall(self, now: float) -> None:
        """The probe was answered without SND.UNA acknowledged: everything sent before
        it is lost. Go back N at once, the window kept (the link lost it, no
        congestion did); SACKed ranges are skipped as after a timeout."""
        self._stalled = False
        self._exit_recovery(now)
        self.recovery_point = self.snd_max
        self.snd_nxt = self.snd_una
        self._trace(now, "stall_loss")

    def _on_rto(self, now: float) -> None:
        """RFC 6298 5.4-5.6 and RFC 5681 3.1 (loss window) on expiry."""
        self.stats.timeouts += 1
        self._retries += 1
        self.rto_deadline = None
        self._rtt_seq = None  # Karn: no sample from a retransmitted segment
        if self.state in (State.SYN_SENT, State.SYN_RECEIVED):
            if self._retries > self.config.syn_retries:
                self.abort(now, "SYN retransmission limit")
                return
            self.rto.backoff()
            self._syn_retransmitted = True
            self._send_syn(now)
            return
        if self._retries > self.config.max_retries:
            self.abort(now, "retransmission limit")
            return
        flight = self.snd_max - self.snd_una
        # RFC 5682 2.1 step 1: not while recovering from a loss; Linux also on a
        # timeout recurring on the same SND.UNA (tcp_enter_loss, icsk_retransmits)
        frto = self.config.frto and (
            self._retries > 1 or not (self.in_recovery or self._timer_driven_until > self.snd_una)
        )
        if self._retries == 1:  # RFC 5681 3.1: ssthresh held on repeated timeouts
            self._prior_cwnd, self._prior_ssthresh = self.cwnd, self.ssthresh
            self.ssthresh = self._reduced_ssthresh(flight)
        self.cwnd = self.config.fixed_window or self.smss  # RFC 5681 3.1: LW = 1 SMSS
        self._frto = _Frto.STEP2 if frto else _Frto.OFF
        self._frto_recover = self.snd_max
        self._exit_recovery(now)
        self.recovery_point = self.snd_max  # RFC 6582 3.2 step 4, RFC 6675 5.1
        self._timer_driven_until = self.snd_max  # resending this much is the timer's doing
        self._after_timeout = True
        self.dupacks = 0
        self._bytes_acked = 0
        self.rto.backoff()  # RFC 6298 5.5
        self.snd_nxt = self.snd_una  # go back N from the first unacknowledged octet
        self._trace(now, "timeout")

    # --- input ------------------------------------------------------------------------

    def on_segment(self, seg: Segment, now: float) -> None:
        """RFC 9293 3.10.7: process one arriving segment, then send what is due."""
        self.stats.segments_received += 1
        if self.state is State.SYN_SENT:
            self._on_segment_syn_sent(seg, now)
        else:
            self._on_segment_synchronized(seg, now)
        if not self.closed:
            self.output(now)

    def _on_segment_syn_sent(self, seg: Segment, now: float) -> None:
        """RFC 9293 3.10.7.3."""
        ack = unwrap(seg.ack, self.snd_una)
        if seg.flags & ACK and not self.iss < ack <= self.snd_max:
            if not seg.flags & RST:
                self._emit(now, ack, RST, b"")
            return
        if seg.flags & RST:
            if seg.flags & ACK:
                self._events.append(ConnectionReset(self.conn_id))
                self._finish(now)
            return
        if not seg.flags & SYN:
            return
        self._take_syn(seg)
        if seg.flags & ACK:
            self.state = next_state(self.state, Input.RCV_SYN_ACK)
            self.snd_wnd = seg.window  # RFC 7323 2.2: never scaled in a SYN
            self._snd_wl1, self._snd_wl2 = self.irs, ack
            self._ack_advanced(ack, now)
            self._ack_now = True
            self._established(now)
        else:  # simultaneous open
            self.state = next_state(self.state, Input.RCV_SYN)
            self._send_syn(now)

    def _take_syn(self, seg: Segment) -> None:
        """Record the peer's ISN and negotiated options (RFC 9293 3.7.1, 7323, 2018)."""
        cfg = self.config
        self.irs = seg.seq
        self.rcv_nxt = self.irs + 1
        self.smss = min(seg.mss if seg.mss is not None else DEFAULT_MSS, cfg.mss)
        self._ws_ok = cfg.window_scale and seg.wscale is not None
        if cfg.window_scale and seg.wscale is not None:
            self._snd_wscale = seg.wscale
            self._rcv_wscale = _wscale_for(cfg.receive_buffer)
        self._sack_ok = cfg.variant is Variant.SACK and seg.sack_permitted
        self._ts_ok = cfg.timestamps and seg.tsval is not None
        if self._ts_ok:
            self._ts_recent = seg.tsval or 0
            self.smss -= wire.TIMESTAMPS_LEN  # RFC 6691 2: the MSS excludes options
        self._rcv_adv = self.rcv_nxt + cfg.receive_buffer
        if cfg.variant is Variant.SACK and not self._sack_ok:
            self.variant = Variant.NEWRENO  # the peer cannot SACK: fall back, as Linux
        self.cwnd = self.smss

    def _on_segment_synchronized(self, seg: Segment, now: float) -> None:
        """RFC 9293 3.10.7.4, for SYN-RECEIVED and the synchronized states."""
        flags = seg.flags
        seq = unwrap(seg.seq, self.rcv_nxt)
        if self.state is State.SYN_RECEIVED and flags & SYN and seq == self.irs:
            self._send_syn(now)  # our SYN,ACK was lost: the peer sent its SYN again
            return
        payload = seg.payload
        seg_len = len(payload) + (1 if flags & FIN else 0)
        wnd = self._rcv_wnd()
        # First: check the sequence number (RFC 9293 3.10.7.4, the four cases).
        if wnd == 0:
            acceptable = seg_len == 0 and seq == self.rcv_nxt
        elif seg_len == 0:
            acceptable = self.rcv_nxt <= seq < self.rcv_nxt + wnd
        else:
            acceptable = seq < self.rcv_nxt + wnd and seq + seg_len > self.rcv_nxt
        if not acceptable:
            if not flags & RST:
                self._ack_now = True
                if self.state is State.TIME_WAIT and flags & FIN:  # RFC 9293 3.10.7.4
                    self.time_wait_deadline = now + self.config.time_wait
            return
        # RFC 7323 4.3 (2): echo the newest TSval of a segment we have acknowledged up to.
        if self._ts_ok and seg.tsval is not None and seq <= self._last_ack_sent:
            self._ts_recent = seg.tsval
        # Second: RST.
        if flags & RST:
            self._events.append(ConnectionReset(self.conn_id))
            self._finish(now)
            return
        # Fourth: a SYN in the window gets a challenge ACK (RFC 5961 4).
        if flags & SYN:
            self._ack_now = True
            return
        # Fifth: the ACK field.
        if not flags & ACK:
            return
        ack = unwrap(seg.ack, self.snd_una)
        if self.state is State.SYN_RECEIVED:
            if not self.snd_una < ack <= self.snd_max:
                self._emit(now, ack, RST, b"")
                return
            self.state = next_state(self.state, Input.RCV_ACK_OF_SYN)
            self.snd_wnd = seg.window << self._snd_wscale
            self._snd_wl1, self._snd_wl2 = seq, ack
            self._ack_advanced(ack, now)
            self._established(now)
        elif ack > self.snd_max:
            self._ack_now = True  # RFC 9293 3.10.7.4: ACKs something not yet sent
            return
        else:
            self._process_ack(seg, seq, ack, now)
        if self._fin_queued and self.snd_una > self._data_end:
            self._fin_acked(now)
            if self.closed:
                return
        # Seventh: the segment text.
        if payload and self.state in RECEIVES_DATA:
            self._receive_data(seq, payload, now)
        # Eighth: FIN.
        if flags & FIN and self.state in RECEIVES_DATA:
            self._peer_fin = seq + len(payload)
        if self._peer_fin is not None and self._peer_fin == self.rcv_nxt:
            self._consume_fin(now)

    def _established(self, now: float) -> None:
        self.stats.established_at = now
        self.rto_deadline = None  # RFC 6298 5.2: the SYN is acknowledged
        if self.config.fixed_window:
            self.cwnd = self.config.fixed_window
        elif self._syn_retransmitted:
            self.cwnd = self.smss  # RFC 5681 3.1: IW is 1 SMSS after a lost SYN
            if self.rto.samples == 0:
                self.rto.rto = max(self.rto.rto, RTO_SYN_FALLBACK)  # RFC 6298 5.7
        else:
            self.cwnd = self.config.initial_cwnd(self.smss)
        self._retries = 0
        self._events.append(ConnectionEstablished(self.conn_id, self.remote))
        self._trace(now, "established")
        if self._close_on_open:
            self.close()

    def _fin_acked(self, now: float) -> None:
        self._fin_queued = False
        self._buf_seq += 1  # the FIN's sequence number is acknowledged too
        self.state = next_state(self.state, Input.RCV_ACK_OF_FIN)
        self._after_close_step(now)

    def _consume_fin(self, now: float) -> None:
        self._peer_fin = None
        self.rcv_nxt += 1
        self._ack_now = True
        self._events.append(PeerClosed(self.conn_id))
        self.state = next_state(self.state, Input.RCV_FIN)
        self._after_close_step(now)

    def _after_close_step(self, now: float) -> None:
        if self.state is State.TIME_WAIT:
            self.time_wait_deadline = now + self.config.time_wait
            self.rto_deadline = None
            self._events.append(ConnectionClosed(self.conn_id))
            self.stats.closed_at = now
        elif self.state is State.CLOSED:
            self._events.append(ConnectionClosed(self.conn_id))
            self._finish(now)

    def _finish(self, now: float) -> None:
        self.state = State.CLOSED
        self.rto_deadline = self.delack_deadline = self.time_wait_deadline = None
        self.persist_deadline = self.pace_deadline = None
        self._exit_recovery(now)
        if self.stats.closed_at is None:
            self.stats.closed_at = now

    # --- receiving data ---------------------------------------------------------------

    def _receive_data(self, seq: int, payload: bytes, now: float) -> None:
        """Deliver in-order data, hold the rest; RFC 5681 4.2 says when to ACK."""
        if seq < self.rcv_nxt:
            payload = payload[self.rcv_nxt - seq :]
            seq = self.rcv_nxt
        limit = self.rcv_nxt + self._rcv_wnd()
        if seq + len(payload) > limit:
            payload = payload[: limit - seq]
        if not payload:
            self._ack_now = True
            return
        if seq != self.rcv_nxt:
            self._reorder.insert(seq, payload)
            self._ack_now = True  # out of order: a duplicate ACK at once
            return
        filled_gap = len(self._reorder) > 0
        self.rcv_nxt += len(payload)
        if filled_gap:
            more = self._reorder.pop_in_order(self.rcv_nxt)
            self.rcv_nxt += len(more)
            payload += more
            self._ack_now = True  # RFC 5681 4.2: a segment that fills a gap
        self.stats.bytes_received += len(payload)
        if not self.config.auto_consume:
            self._unread += len(payload)
        self._events.append(DataReceived(self.conn_id, payload))
        self._unacked += len(payload)
        cfg = self.config
        if self._quick_acks > 0:
            self._quick_acks -= 1
            self._ack_now = True
        elif not cfg.delayed_ack or self._unacked >= 2 * self.smss:
            self._ack_now = True  # RFC 1122 4.2.3.2: every second full-sized segment
        elif self.delack_deadline is None:
            self.delack_deadline = now + cfg.delayed_ack_timeout

    # --- acknowledgments and congestion control --------------------------------------

    def _process_ack(self, seg: Segment, seq: int, ack: int, now: float) -> None:
        # RFC 9293 3.10.7.4: window update guarded by SND.WL1/SND.WL2.
        window = seg.window << self._snd_wscale
        window_changed = window != self.snd_wnd
        if self._snd_wl1 < seq or (self._snd_wl1 == seq and self._snd_wl2 <= ack):
            self.snd_wnd = window
            self._snd_wl1, self._snd_wl2 = seq, ack
            self._max_snd_wnd = max(self._max_snd_wnd, window)
            if window:
                self.persist_deadline = None
                self._probes = 0
        newly_sacked = 0
        originals_sacked = 0  # in F-RTO step 3: octets below "recover" newly SACKed
        if self._sack_ok and seg.sack_blocks:
            step3 = self._frto is _Frto.STEP3
            recover = self._frto_recover
            for left, right in seg.sack_blocks:
                start = max(unwrap(left, self.snd_una), self.snd_una)
                end = min(unwrap(right, self.snd_una), self.snd_max)
                if step3 and start < recover:
                    originals_sacked += self.scoreboard.add(start, min(end, recover))
                newly_sacked += self.scoreboard.add(start, end)
            newly_sacked += originals_sacked
        if ack > self.snd_una:
            self._on_new_ack(self._ack_advanced(ack, now), ack, now)
        elif ack == self.snd_una and self.snd_max > self.snd_una:
            if self._sack_ok:
                duplicate = newly_sacked > 0  # RFC 6675 2 "duplicate acknowledgment"
            else:  # RFC 5681 2 "DUPLICATE ACKNOWLEDGMENT"
                duplicate = not (seg.payload or seg.flags & (SYN | FIN) or window_changed)
            if self._stalled and not seg.payload:
                self._resend_after_stall(now)
            elif duplicate and not (
                self._frto is not _Frto.OFF and self._frto_dupack(originals_sacked > 0, now)
            ):
                self._on_dupack(now)

    def _ack_advanced(self, ack: int, now: float) -> int:
        """Bookkeeping for a cumulative ACK that covers new data (or our SYN).

        Returns how many octets beyond the SYN it newly acknowledges."""
        if self._rtt_seq is not None and ack > self._rtt_seq:
            self.rto.sample(now - self._rtt_time)
            self.stats.rtt_samples += 1
            self._rtt_seq = None
        sent = self._sent_times
        if sent and sent[0][0] <= ack:  # sampling every ACK: the oldest segment it covers
            end, sent_at = sent.popleft()
            while sent and sent[0][0] <= ack:
                sent.popleft()
            if end > self._karn_until:  # Karn: never retransmitted
                self.rto.sample(now - sent_at)
                self.stats.rtt_samples += 1
        if self.snd_una == self.iss:  # our SYN is acknowledged
            self.snd_una = self.iss + 1
        drop = min(ack, self._data_end) - self._buf_seq
        if drop > 0:
            self._buf.drop(drop)
            self._buf_seq += drop
        acked = ack - self.snd_una
        self.snd_una = ack
        if self.snd_nxt < ack:
            self.snd_nxt = ack
        self.scoreboard.advance(ack)
        self._retries = 0
        return acked

    def _on_new_ack(self, acked: int, ack: int, now: float) -> None:
        self._stalled = False  # data arrived: a stall, not a loss
        if self._frto is not _Frto.OFF:
            self._frto_new_ack(ack, now)
        restart_timer = True
        variant = self.variant
        if self.in_recovery:
            if variant is Variant.RENO:  # RFC 5681 3.2 step 6: deflate on any new ACK
                self.cwnd = self.ssthresh
                self._exit_recovery(now)
            elif ack >= self.recovery_point:  # a full acknowledgment
                if variant is Variant.NEWRENO:  # RFC 6582 3.2 step 3, option (1)
                    flight = self.snd_max - ack
                    self.cwnd = min(self.ssthresh, max(flight, self.smss) + self.smss)
                self._exit_recovery(now)
            elif variant is Variant.NEWRENO:  # RFC 6582 3.2 step 3, partial ACK
                self.stats.partial_acks += 1
                self._retransmit(now, ack, min(ack + self.smss, self._send_end))
                self.cwnd = max(self.cwnd - acked, 0)
                if acked >= self.smss:
                    self.cwnd += self.smss
                restart_timer = self._first_partial  # RFC 6582 4.1, "Impatient"
                self._first_partial = False
            else:
                self.stats.partial_acks += 1
        else:
            self._grow(acked)
        self.dupacks = 0
        if self.snd_una >= self.snd_max:
            self.rto_deadline = None  # RFC 6298 5.2
        elif restart_timer:
            self.rto_deadline = now + self.rto.rto  # RFC 6298 5.3
        self._trace(now, "ack")

    def _grow(self, acked: int) -> None:
        """RFC 5681 3.1: slow start (eq. 2) or congestion avoidance."""
        smss = self.smss
        if self.config.fixed_window:
            return
        if self.cwnd < self.ssthresh:
            self.cwnd += min(acked, smss)
            self._bytes_acked = 0
        elif self.config.byte_counting:  # RFC 5681 3.1, the RFC 3465 method
            self._bytes_acked += acked
            if self._bytes_acked >= self.cwnd:
                self._bytes_acked -= self.cwnd
                self.cwnd += smss
        else:  # RFC 5681 eq. (3)
            self.cwnd += max(1, smss * smss // self.cwnd)

    # --- F-RTO (RFC 5682) ---------------------------------------------------------------

    def _frto_new_ack(self, ack: int, now: float) -> None:
        """An ACK that advances SND.UNA during F-RTO (sections 2.1 and 3, steps 2-3)."""
        if self._frto is _Frto.STEP3:  # step 3b: never-retransmitted data acknowledged
            self._spurious_timeout(now)
        elif ack >= self._frto_recover or not self._frto_send_new(now):
            # step 2a: the whole flight is acknowledged; or step 2b without new data to
            # send: conventional RTO recovery goes on (go back N in slow start)
            self._frto = _Frto.OFF
        else:  # step 2b: two new segments sent
            self._frto = _Frto.STEP3

    def _frto_dupack(self, originals_sacked: bool, now: float) -> bool:
        """A duplicate ACK during F-RTO; True if it decided F-RTO (step 3), and is
        then not counted towards fast retransmit or limited transmit."""
        if self._frto is _Frto.STEP2:
            if not self._sack_ok:  # 2.1 step 2a; with SACK (3 step 2) F-RTO waits on
                self._frto = _Frto.OFF
            return False
        if originals_sacked:  # 3 step 3b: SACKs data sent before the timeout
            self._spurious_timeout(now)
            return True
        # Step 3a: the new segments arrived and the old did not, the loss was real: go
        # back N from SND.UNA with cwnd = 3 SMSS (two RTTs of slow start since the RTO).
        self._frto = _Frto.OFF
        self.cwnd = 3 * self.smss
        self.snd_nxt = self.snd_una
        self._trace(now, "timeout")
        return True

    def _frto_send_new(self, now: float) -> bool:
        """Step 2b: up to two previously unsent segments, whatever cwnd and Nagle say,
        if the receiver's window takes them; False if not even one could go."""
        sent = False
        for _ in range(2):
            seq = self.snd_max
            end = min(seq + self.smss, self._send_end)
            if seq >= self._data_end or min(end, self._data_end) > self.snd_una + self.snd_wnd:
                break
            self._transmit(now, seq, end)
            sent = True
        if sent:
            self.snd_nxt = self.snd_max  # nothing goes back while step 3 waits
        return sent

    def _spurious_timeout(self, now: float) -> None:
        """The response Linux uses (``tcp_undo_cwnd_reduction``): cwnd and ssthresh back
        to at least their values before the timeout, and sending goes on with new
        data; the timeout's recovery is over, so a later loss may fast-retransmit."""
        self._frto = _Frto.OFF
        self.spurious_timeouts += 1
        self.cwnd = max(self.cwnd, self._prior_cwnd)
        self.ssthresh = max(self.ssthresh, self._prior_ssthresh)
        self.recovery_point = self._timer_driven_until = self.snd_una
        self.snd_nxt = self.snd_max
        self._trace(now, "spurious_timeout")

    def _on_dupack(self, now: float) -> None:
        self.stats.dupacks_received += 1
        self.dupacks += 1
        variant = self.variant
        if self.in_recovery:
            if variant is not Variant.SACK:
                self.cwnd += self.smss  # RFC 5681 3.2 step 4: inflate
                self._trace(now, "dupack")
            return
        if variant is Variant.SACK:
            trigger = self.dupacks >= self.config.dup_thresh or self._lost(self.snd_una)
            allowed = self.snd_una >= self.recovery_point  # RFC 6675 5.1
        else:
            trigger = self.dupacks == self.config.dup_thresh
            # RFC 6582 3.2 step 2: only if the ACK covers more than "recover"; Reno
            # checks it only after a timeout, and only when asked (ns-2's bugFix_)
            guarded = variant is not Variant.RENO or (
                self.config.reno_recover and self._after_timeout
            )
            allowed = not guarded or self.snd_una > self.recovery_point
        if trigger and allowed:
            self._enter_recovery(now)

    def _enter_recovery(self, now: float) -> None:
        """Fast retransmit (RFC 5681 3.2 steps 2-3, RFC 6675 5 step 4)."""
        smss = self.smss
        flight = self.snd_max - self.snd_una
        self.ssthresh = self._reduced_ssthresh(flight)
        self.in_recovery = True
        self._recovery_start = now
        self._first_partial = True
        self.recovery_point = self.snd_max
        self._timer_driven_until = self.snd_una  # from here on, resending is data-driven
        self._after_timeout = False
        self.stats.fast_retransmits += 1
        end = min(self.snd_una + smss, self._send_end)
        if self.variant is Variant.SACK:
            self.cwnd = self.ssthresh
            hole_end = self.scoreboard.next_start(self.snd_una)
            if hole_end is not None:
                end = min(end, hole_end)
            self._rescue_rxt = None
            self.high_rxt = end
        else:
            self.cwnd = self.ssthresh + self.config.dup_thresh * smss
        self._retransmit(now, self.snd_una, end)
        self._trace(now, "fast_retransmit")

    def _reduced_ssthresh(self, flight: int) -> int:
        """RFC 5681 eq. (4); a fixed window is never reduced."""
        return self.config.fixed_window or max(flight // 2, 2 * self.smss)

    def _exit_recovery(self, now: float) -> None:
        if self.in_recovery:
            self.in_recovery = False
            self.stats.recovery_time += now - self._recovery_start
            if self.config.fixed_window:  # back from Reno's inflation, NewReno's deflation
                self.cwnd = self.config.fixed_window
        self.dupacks = 0

    # --- RFC 6675 scoreboard queries ---------------------------------------------------

    def _holes(self) -> list[tuple[int, int, bool]]:
        """Un-SACKed ranges below the highest SACK, each with IsLost (RFC 6675 4)."""
        blocks = self.scoreboard.blocks
        thresh = self.config.dup_thresh
        smss = self.smss
        lost_below: list[bool] = [False] * len(blocks)
        sacked = segments = 0
        for i in range(len(blocks) - 1, -1, -1):
            length = blocks[i][1] - blocks[i][0]
            sacked += length
            segments += -(-length // smss)
            lost_below[i] = segments >= thresh or sacked > (thresh - 1) * smss
        holes = []
        start = self.snd_una
        for i, (b0, b1) in enumerate(blocks):
            if b0 > start:
                holes.append((start, b0, lost_below[i]))
            start = b1
        return holes

    def _lost(self, seq: int) -> bool:
        for start, end, lost in self._holes():
            if start <= seq < end:
                return lost
        return False

    def _pipe(self, holes: list[tuple[int, int, bool]]) -> int:
        """RFC 6675 4 SetPipe, counted per range rather than per octet."""
        high_rxt = self.high_rxt
        top = self.scoreboard.highest() if self.scoreboard.blocks else self.snd_una
        ranges = [*holes, (max(top, self.snd_una), self.snd_max, False)]
        pipe = 0
        for start, end, lost in ranges:
            if end <= start:
                continue
            if not lost:
                pipe += end - start
            if high_rxt > start:
                pipe += min(end, high_rxt) - start
        return pipe

    def _next_seg(self, holes: list[tuple[int, int, bool]]) -> tuple[int, int, _Next] | None:
        """RFC 6675 4 NextSeg."""
        smss = self.smss
        for start, end, lost in holes:  # rule (1)
            s = max(start, self.high_rxt)
            if s < end and lost:
                return s, min(end, s + smss), _Next.LOST
        send_end = self._send_end
        if self.snd_max < send_end:  # rule (2), bounded by the receiver's window
            end = min(self.snd_max + smss, send_end)
            if min(end, self._data_end) <= self.snd_una + self.snd_wnd:
                return self.snd_max, end, _Next.NEW
        for start, end, _lost in holes:  # rule (3)
            s = max(start, self.high_rxt)
            if s < end:
                return s, min(end, s + smss), _Next.HOLE
        if self._rescue_rxt is None or self.snd_una > self._rescue_rxt:  # rule (4)
            # The highest outstanding un-SACKed octet, if it was never retransmitted
            # (our reading: a rescue of an octet already resent would only duplicate it).
            top = self.scoreboard.highest() if self.scoreboard.blocks else self.snd_una
            if self.snd_max > top:
                start, end = top, self.snd_max
            elif holes:
                start, end, _lost = holes[-1]
            else:
                return None
            if end > self.high_rxt:
                return max(start, self.high_rxt, end - smss), end, _Next.RESCUE
        return None

    # --- output -----------------------------------------------------------------------

    @property
    def _data_end(self) -> int:
        return self._buf_seq + self._buf.size

    @property
    def _send_end(self) -> int:
        return self._data_end + (1 if self._fin_queued else 0)

    def output(self, now: float) -> None:
        """Send whatever the windows allow, then a pure ACK if one is still owed."""
        if self.state in _SENDING and self.snd_una > self.iss:
            if self.in_recovery and self.variant is Variant.SACK:
                self._sack_output(now)
            else:
                self._window_output(now)
        if self._ack_now and self.state is not State.SYN_SENT:
            self.stats.pure_acks_sent += 1
            self._emit(now, self.snd_nxt if self.state in SYNCHRONIZED else self.snd_max, ACK, b"")

    def _window_output(self, now: float) -> None:
        cfg = self.config
        cwnd = self.cwnd
        if cfg.limited_transmit and not self.in_recovery and self.dupacks < cfg.dup_thresh:
            cwnd += self.dupacks * self.smss  # RFC 3042 2
        limit = self.snd_una + min(cwnd, self.snd_wnd)
        send_end = self._send_end
        data_end = self._data_end
        sack = self._sack_ok and self.scoreboard.blocks
        while self.snd_nxt < send_end:
            seq = self.snd_nxt
            end = min(seq + self.smss, send_end)
            if sack and seq < self.snd_max:  # going back N: skip what the peer holds
                skip_to = self.scoreboard.sacked_end(seq)
                if skip_to != seq:
                    self.snd_nxt = skip_to
                    continue
                above = self.scoreboard.next_start(seq)
                if above is not None and above < end:
                    end = above
            if min(end, data_end) > limit:
                # RFC 1122 4.2.3.4 (sender SWS): a partial segment only when the
                # receiver's window is the limit and it is half its largest, or idle.
                usable = limit - seq
                if (
                    usable <= 0
                    or self.snd_wnd >= cwnd
                    or seq < self.snd_max
                    or (usable < self._max_snd_wnd // 2 and self.snd_max > self.snd_una)
                ):
                    break
                end = seq + usable
            small = min(end, data_end) - seq < self.smss and end <= data_end
            if small and cfg.nagle and seq >= self.snd_max and self._snd_sml > self.snd_una:
                break  # Minshall's Nagle: one small segment outstanding at a time
            if self._pace_blocked(now):
                break
            self._transmit(now, seq, end)
            if small and end > self._snd_sml:
                self._snd_sml = end
            self.snd_nxt = end
        stalled = self.snd_nxt < send_end and self.snd_una == self.snd_max
        if stalled and self.snd_wnd == 0 and self.persist_deadline is None:
            self.persist_deadline = now + self.rto.rto  # RFC 9293 3.8.6.1

    def _sack_output(self, now: float) -> None:
        """RFC 6675 5 step (C): send while cwnd - pipe >= 1 SMSS."""
        holes = self._holes()
        pipe = self._pipe(holes)
        while self.cwnd - pipe >= self.smss:
            chosen = self._next_seg(holes)
            if chosen is None:
                return
            start, end, rule = chosen
            if self._pace_blocked(now):
                return
            self._transmit(now, start, end)
            if rule is _Next.NEW:
                self.snd_nxt = self.snd_max
            elif rule is _Next.RESCUE:
                self._rescue_rxt = self.recovery_point
            else:
                self.high_rxt = end
            pipe += end - start

    def _pace_blocked(self, now: float) -> bool:
        """Whether the pacer holds the next data segment; if so its timer is set."""
        pacer = self.pacer
        if pacer is not None and now < pacer.next_time:
            self.pace_deadline = pacer.next_time
            return True
        return False

    def _retransmit(self, now: float, start: int, end: int) -> None:
        if end > start:
            self._transmit(now, start, end)

    def _transmit(self, now: float, start: int, end: int) -> None:
        """Send sequence range [start, end) of data and FIN; count and time it."""
        data_end = self._data_end
        stop = min(end, data_end)
        payload = self._buf.read(start - self._buf_seq, stop - self._buf_seq)
        flags = ACK
        if stop == data_end and payload:
            flags |= PSH
        if end > data_end:
            flags |= FIN
        stats = self.stats
        if start < self.snd_max:
            stats.retransmissions += 1
            if start < self._timer_driven_until:
                stats.timer_retransmissions += 1
            stats.bytes_retransmitted += len(payload)
            self._rtt_seq = None  # Karn's rule
            self._karn_until = max(self._karn_until, end)
            # a resend after a window-limited send may reach past it (RFC 9293's SND.NXT
            # after going back N); the highest octet sent is then this segment's end
            self.snd_max = max(self.snd_max, end)
        else:
            self.snd_max = end
            if self.config.rtt_every_ack:
                self._sent_times.append((end, now))
            elif self._rtt_seq is None:
                self._rtt_seq, self._rtt_time = start, now
        stats.bytes_sent += len(payload)
        length = self._emit(now, start, flags, payload)
        if self.pacer is not None:
            self.pacer.sent(IPV4_HEADER + length, now)
        if self.rto_deadline is None:
            self.rto_deadline = now + self.rto.rto  # RFC 6298 5.1

    def _send_syn(self, now: float) -> None:
        cfg = self.config
        if self.state is State.SYN_RECEIVED:  # answer only what the peer offered
            flags = SYN | ACK
            options = wire.encode_options(
                cfg.mss,
                self._rcv_wscale if self._ws_ok else None,
                self._sack_ok,
                timestamps=(_ts_clock(now), self._ts_recent) if self._ts_ok else None,
            )
        else:
            flags = SYN
            wscale = _wscale_for(cfg.receive_buffer) if cfg.window_scale else None
            options = wire.encode_options(
                cfg.mss,
                wscale,
                cfg.variant is Variant.SACK,
                timestamps=(_ts_clock(now), 0) if cfg.timestamps else None,
            )
        if self._retries:
            self.stats.retransmissions += 1
        elif self._rtt_seq is None:
            self._rtt_seq, self._rtt_time = self.iss, now
        self.snd_nxt = self.snd_max = self.iss + 1
        self._emit(now, self.iss, flags, b"", options)
        self.rto_deadline = now + self.rto.rto

    def _emit(self, now: float, seq: int, flags: int, payload: bytes, options: bytes = b"") -> int:
        """Queue one segment; its length in octets."""
        if flags & ACK:
            self._ack_now = False
            self._unacked = 0
            self.delack_deadline = None
            self._last_ack_sent = self.rcv_nxt
            # A SYN,ACK carries its TSopt among the SYN options (_send_syn).
            stamp = None if flags & SYN or not self._ts_ok else (_ts_clock(now), self._ts_recent)
            if self._sack_ok and len(self._reorder):
                most = wire.MAX_SACK_BLOCKS_WITH_TS if stamp else wire.MAX_SACK_BLOCKS
                blocks = self._reorder.sack_blocks(most)
                options += wire.encode_options(
                    sack_blocks=tuple((a % SEQ_MOD, b % SEQ_MOD) for a, b in blocks),
                    timestamps=stamp,
                )
            elif stamp:
                options += wire.encode_options(timestamps=stamp)
        if flags & SYN:
            window = min(self.config.receive_buffer, 0xFFFF)  # RFC 7323 2.2
        else:
            window = min(self._rcv_wnd() >> self._rcv_wscale, 0xFFFF)
        ack = self.rcv_nxt % SEQ_MOD if flags & ACK else 0
        data = wire.encode_segment(
            self._emit_ports[0],
            self._emit_ports[1],
            seq % SEQ_MOD,
            ack,
            flags,
            window,
            options,
            payload,
            self._pseudo_sum,
        )
        self.stats.segments_sent += 1
        self._out.append((data, self.remote))
        return len(data)

    def _trace(self, now: float, reason: str) -> None:
        if self._recorder is None:
            return
        current = (self.cwnd, self.ssthresh)
        if current != self._traced:
            self._traced = current
            self._recorder(CwndSample(now, self.conn_id, self.cwnd, self.ssthresh, reason))


def _ts_clock(now: float) -> int:
    """TSval: a millisecond clock as Linux's (RFC 7323 5.4 allows 1 ms to 1 s ticks)."""
    return round(now * 1000) % SEQ_MOD


def _wscale_for(buffer: int) -> int:
    """The smallest shift that fits ``buffer`` in 16 bits (RFC 7323 2.3), at most 14."""
    shift = 0
    while (buffer >> shift) > 0xFFFF and shift < wire.MAX_WSCALE:
        shift += 1
    return shift
