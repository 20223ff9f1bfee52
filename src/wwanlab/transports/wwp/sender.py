"""The WWP sender: waves of data, N-S_ACKs, probe cycles (paper 004 sections 2.2-2.3).

States and inputs (``->`` next state; rows not listed ignore the input and count it,
see ``TABLE``, which lists every pair)::

    CLOSED      connect()          send CONN, start PROBE_T           -> CONNECTING
    CONNECTING  CONN_ACK           level := its level; next wave      -> WAVE|IDLE|CLOSING
                TIMER (PROBE_T)    resend CONN                        -> CONNECTING
    WAVE        N-S_ACK(wave)      take acks; level := its level: >0 next wave, 0 probe
                                                          -> WAVE|IDLE|CLOSING|PROBE1
                TIMER (SEND_T)     send PROBE1, start PROBE_T         -> PROBE1
    PROBE1      PR1_ACK(wave)      send PROBE2, start PROBE_T         -> PROBE2
                N-S_ACK(wave)      as in WAVE (a late N-S_ACK ends the cycle)
                TIMER (PROBE_T)    resend PROBE1                      -> PROBE1
    PROBE2      PR2_ACK(wave)      send PROBE3, start PROBE_T         -> PROBE3
                N-S_ACK(wave)      as in WAVE
                TIMER (PROBE_T)    resend PROBE2                      -> PROBE2
    PROBE3      N-S_ACK(wave)      as in WAVE (the cycle's answer)
                TIMER (PROBE_T)    resend PROBE3                      -> PROBE3
    IDLE        send()/close()     next wave                          -> WAVE|IDLE|CLOSING
    CLOSING     FIN_ACK            Finished                           -> DONE
                TIMER (PROBE_T)    resend FIN                         -> CLOSING
    CONNECTING  TIMER, retries > setup_retries Failed(setup)        -> FAILED
    any         TIMER, retries > max_retries   Failed                 -> FAILED

"Next wave" sends the unacknowledged segments, then new ones, W(level) in all; with
fewer at hand it uses the highest level it can fill (paper 004 2.2), waits in IDLE
while the user may still write, and at the stream's end sends the rest as a short
wave, or FIN once everything is acknowledged. Every accepted N-S_ACK moves the wave
number on, so a wave and the probe cycle that replaces its N-S_ACK share one number;
an N-S_ACK with another number is stale. Additions to the paper, which leaves
set-up and termination to its reference [3]: CONN/CONN_ACK, FIN/FIN_ACK, and a bound
on unanswered retries.
"""

from collections.abc import Callable
from enum import Enum, auto

from wwanlab.core.address import Address
from wwanlab.core.events import Event
from wwanlab.transports.wwp.config import WINDOW, WwpConfig
from wwanlab.transports.wwp.events import Connected, Failed, Finished, LevelSet
from wwanlab.transports.wwp.segment import Kind, Segment, SegmentError, decode
from wwanlab.transports.wwp.stats import WwpStats


class SenderState(Enum):
    CLOSED = auto()
    CONNECTING = auto()
    WAVE = auto()
    PROBE1 = auto()
    PROBE2 = auto()
    PROBE3 = auto()
    IDLE = auto()
    CLOSING = auto()
    DONE = auto()
    FAILED = auto()


class SenderInput(Enum):
    CONN_ACK = auto()
    NSACK = auto()  # an N-S_ACK for the current wave
    PR1_ACK = auto()  # for the current wave
    PR2_ACK = auto()
    FIN_ACK = auto()
    STALE = auto()  # a reply for another wave number
    TIMER = auto()
    DATA_READY = auto()  # send() or close()


S, In = SenderState, SenderInput
MAX_BACKOFF = 5  # PROBE_T doubles at most 5 times (x32) while retries go unanswered
Action = Callable[["WwpSender", Segment | None, float], SenderState]


class WwpSender:
    """Sends one stream to ``peer``: ``connect``, ``send``..., ``close``."""

    def __init__(self, peer: Address, config: WwpConfig | None = None) -> None:
        self.peer = peer
        self.config = config or WwpConfig()
        self.state = S.CLOSED
        self.stats = WwpStats()
        self.level = self.config.initial_level
        self.wave = 0
        self.retries = 0
        self._data = bytearray()
        self._closed = False
        self._next_new = 0  # the first sequence number never sent
        self._unacked: set[int] = set()
        self._control: Segment | None = None  # the control segment a timer resends
        self._control_at: float | None = None  # when it left, if it was sent only once
        self.srtt: float | None = None  # smoothed RTT of control exchanges (Karn's rule)
        self._timer: float | None = None
        self._out: list[tuple[bytes, Address]] = []
        self._events: list[Event] = []

    # --- commands ----------------------------------------------------------------------

    def connect(self, now: float) -> None:
        if self.state is not S.CLOSED:
            raise RuntimeError(f"connect() in state {self.state.name}")
        c = self.config
        conn = Segment(Kind.CONN, c.levels, count=c.wave_unit, seq=c.payload_size)
        self._send_control(conn, now)
        self.state = S.CONNECTING

    def send(self, data: bytes, now: float) -> None:
        if self._closed:
            raise RuntimeError("send() after close()")
        self._data += data
        self._dispatch(In.DATA_READY, None, now)

    def close(self, now: float) -> None:
        """No more data: the stream ends with what was sent."""
        self._closed = True
        self._dispatch(In.DATA_READY, None, now)

    @property
    def acknowledged(self) -> int:
        """Octets the receiver has confirmed in order so far."""
        below = min(self._unacked) if self._unacked else self._next_new
        return min(below * self.config.payload_size, len(self._data))

    @property
    def done(self) -> bool:
        return self.state in (S.DONE, S.FAILED)

    # --- the sans-IO contract ------------------------------------------------------------

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        try:
            seg = decode(data, self.config.payload_size)
        except SegmentError:
            self.stats.malformed += 1
            return
        if addr != self.peer or seg.kind not in REPLIES:
            self.stats.malformed += 1
            return
        kind = REPLIES[seg.kind]
        if kind in (In.NSACK, In.PR1_ACK, In.PR2_ACK) and seg.wave != self.wave:
            kind = In.STALE
        c = self.config
        if seg.level > c.levels or (
            (kind is In.NSACK and seg.high > self._next_new)  # acks what was never sent
            or (kind is In.CONN_ACK and (seg.seq, seg.count) != (c.payload_size, c.wave_unit))
        ):
            self.stats.malformed += 1  # forged, or a peer with other sizes
            return
        self._dispatch(kind, seg, now)

    def handle_timer(self, now: float) -> None:
        if self._timer is not None and now >= self._timer:
            self._timer = None
            self.stats.timeouts += 1
            self.retries += 1
            c = self.config
            setup = self.state is S.CONNECTING
            if self.retries > (min(c.max_retries, c.setup_retries) if setup else c.max_retries):
                self.state = S.FAILED
                what = "CONNs" if setup else "retries"
                self._events.append(Failed(f"{self.retries - 1} {what} unanswered", setup))
                return
            self._dispatch(In.TIMER, None, now)

    def get_timer(self) -> float | None:
        return self._timer

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        out, self._out = self._out, []
        return out

    def next_event(self) -> Event | None:
        return self._events.pop(0) if self._events else None

    # --- the table -------------------------------------------------------------------------

    def _dispatch(self, kind: SenderInput, seg: Segment | None, now: float) -> None:
        action = TABLE.get((self.state, kind))
        if action is None:
            self.stats.ignored[f"{self.state.name}/{kind.name}"] += 1
            return
        if seg is not None and self._control_at is not None:
            sample = now - self._control_at
            self.srtt = sample if self.srtt is None else self.srtt + (sample - self.srtt) / 8
        self.state = action(self, seg, now)

    def _connected(self, seg: Segment | None, now: float) -> SenderState:
        assert seg is not None
        self.retries = 0
        self.level = seg.level
        self._events.append(Connected(self.peer, seg.level))
        return self._next_wave(now)

    def _nsack(self, seg: Segment | None, now: float) -> SenderState:
        assert seg is not None
        probed = self.state is not S.WAVE
        self.retries = 0
        missing = set(seg.missing)
        self._unacked = {
            s for s in self._unacked if s >= seg.high or (s >= seg.seq and s in missing)
        }
        self.level = seg.level
        self._events.append(LevelSet(self.wave, seg.level, probed))
        self.wave = (self.wave + 1) % 256
        if self.level == 0:  # paper 004 2.2: "the sender will immediately probe"
            self.stats.pauses += 1
            return self._probe(seg, now)
        return self._next_wave(now)

    def _probe(self, seg: Segment | None, now: float) -> SenderState:
        self.stats.probe_cycles += 1
        self._send_control(Segment(Kind.PROBE1, wave=self.wave), now)
        return S.PROBE1

    def _probe2(self, seg: Segment | None, now: float) -> SenderState:
        self.retries = 0
        self._send_control(Segment(Kind.PROBE2, wave=self.wave), now)
        return S.PROBE2

    def _probe3(self, seg: Segment | None, now: float) -> SenderState:
        self.retries = 0
        self._send_control(Segment(Kind.PROBE3, wave=self.wave), now)
        return S.PROBE3

    def _resend(self, seg: Segment | None, now: float) -> SenderState:
        assert self._control is not None
        self._send_control(self._control, now)
        self._control_at = None  # Karn: a reply to a resent segment is no RTT sample
        return self.state

    def _finished(self, seg: Segment | None, now: float) -> SenderState:
        self._timer = None
        self._events.append(Finished())
        return S.DONE

    def _wave(self, seg: Segment | None, now: float) -> SenderState:
        return self._next_wave(now)

    def _next_wave(self, now: float) -> SenderState:
        c = self.config
        resend = sorted(self._unacked)
        total = self._segments_total()
        base = resend[0] if resend else self._next_new
        limit = min(base + WINDOW, total if total is not None else self._whole_segments())
        fresh = max(0, limit - self._next_new)
        have = len(resend) + fresh
        if have == 0:
            if total is not None and self._next_new == total:
                self._send_control(Segment(Kind.FIN, seq=total), now)
                return S.CLOSING
            self._timer = None
            return S.IDLE
        level = self.level
        while level > 1 and c.wave_size(level) > have:
            level -= 1
        if c.wave_size(level) > have and total is None:
            self._timer = None  # paper 004 2.2: wait for "a complete wave"
            return S.IDLE
        count = min(c.wave_size(level), have)
        seqs = resend[:count]
        seqs += range(self._next_new, self._next_new + count - len(seqs))
        self._next_new = max(self._next_new, seqs[-1] + 1)
        for seq in seqs:
            if seq in self._unacked:
                self.stats.data_resent += 1
            self._unacked.add(seq)
            self.stats.data_sent += 1
            payload = bytes(self._data[seq * c.payload_size : (seq + 1) * c.payload_size])
            last = total is not None and seq == total - 1
            self._emit(Segment(Kind.DATA, level, self.wave, count, seq, last, payload=payload))
        self.stats.waves += 1
        self._control = self._control_at = None
        # SEND_T: the wave's baseline slack, then one reply time (docs/wwp.md)
        self._timer = now + c.send_t_slack * c.baseline_time(count) + self._reply_time()
        return S.WAVE

    # --- helpers ---------------------------------------------------------------------------

    def _whole_segments(self) -> int:
        return len(self._data) // self.config.payload_size

    def _segments_total(self) -> int | None:
        """The stream's length in segments once closed; None while the user may write."""
        if not self._closed:
            return None
        return -(-len(self._data) // self.config.payload_size)

    def _send_control(self, seg: Segment, now: float) -> None:
        """Send ``seg`` and arm PROBE_T for it: at least twice the smoothed RTT, doubled
        for each retry in a row (as RFC 6298 5.5 backs off) unless it is a probe and
        ``probe_backoff`` is off (paper 004 2.2: the sender "will immediately probe")."""
        self._control, self._control_at = seg, now
        self._emit(seg)
        backs_off = self.config.probe_backoff or seg.kind in (Kind.CONN, Kind.FIN)
        doublings = min(self.retries, MAX_BACKOFF) if backs_off else 0
        self._timer = now + self._reply_time() * 2**doublings

    def _reply_time(self) -> float:
        """PROBE_T, or twice the smoothed RTT on a path slower than that."""
        probe_t = self.config.probe_t
        return probe_t if self.srtt is None else max(probe_t, 2 * self.srtt)

    def _emit(self, seg: Segment) -> None:
        data = seg.encode()
        self.stats.segments_sent += 1
        self.stats.bytes_sent += len(data)
        self._out.append((data, self.peer))


REPLIES = {
    Kind.CONN_ACK: In.CONN_ACK,
    Kind.NSACK: In.NSACK,
    Kind.PR1_ACK: In.PR1_ACK,
    Kind.PR2_ACK: In.PR2_ACK,
    Kind.FIN_ACK: In.FIN_ACK,
}

TABLE: dict[tuple[SenderState, SenderInput], Action] = {
    (S.CONNECTING, In.CONN_ACK): WwpSender._connected,
    (S.CONNECTING, In.TIMER): WwpSender._resend,
    (S.WAVE, In.NSACK): WwpSender._nsack,
    (S.WAVE, In.TIMER): WwpSender._probe,
    (S.PROBE1, In.PR1_ACK): WwpSender._probe2,
    (S.PROBE1, In.NSACK): WwpSender._nsack,
    (S.PROBE1, In.TIMER): WwpSender._resend,
    (S.PROBE2, In.PR2_ACK): WwpSender._probe3,
    (S.PROBE2, In.NSACK): WwpSender._nsack,
    (S.PROBE2, In.TIMER): WwpSender._resend,
    (S.PROBE3, In.NSACK): WwpSender._nsack,
    (S.PROBE3, In.TIMER): WwpSender._resend,
    (S.IDLE, In.DATA_READY): WwpSender._wave,
    (S.CLOSING, In.FIN_ACK): WwpSender._finished,
    (S.CLOSING, In.TIMER): WwpSender._resend,
}
"""Every (state, input) pair that acts. Any other pair is a late or repeated reply, which
a lossy, reordering path delivers routinely (a PR1_ACK after PROBE1 was resent, an
N-S_ACK of a finished wave): it is ignored and counted in ``stats.ignored``."""
