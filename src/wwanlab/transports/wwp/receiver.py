"""The WWP receiver: measures waves, sets levels, answers probes (paper 004 2.2-2.3).

It has no timers: the sender drives every exchange. States and inputs (``->`` next
state; ``TABLE`` lists every pair that acts, any other pair is ignored and counted)::

    LISTEN   CONN            accept the peer, send CONN_ACK(initial level)  -> OPEN
    OPEN     CONN            resend CONN_ACK (the first was lost)           -> OPEN
             DATA            store, deliver in order; a whole wave: level by
                             2.2's rule, send N-S_ACK(wave)                 -> OPEN
             PROBE1          send PR1_ACK, note its time                    -> PROBED1
             PROBE3(answered) resend that cycle's N-S_ACK                   -> OPEN
             FIN(complete)   send FIN_ACK, StreamEnded                      -> CLOSED
    PROBED1  PROBE1          new or repeated cycle: send PR1_ACK again      -> PROBED1
             PROBE2          RTT1 := now - PR1_ACK's time; send PR2_ACK     -> PROBED2
             DATA            as in OPEN (a whole wave ends the cycle)       -> PROBED1|OPEN
             FIN             as in OPEN (the cycle's N-S_ACK came late)     -> CLOSED
    PROBED2  PROBE1(other wave) a new cycle: as in PROBED1 (a repeat: ignored) -> PROBED1
             PROBE2          repeated: send PR2_ACK again, note its time    -> PROBED2
             PROBE3          RTT2 := now - PR2_ACK's time; level from the RTTs
                             and their jitter; send N-S_ACK(wave)           -> OPEN
             DATA, FIN       as in OPEN                         -> PROBED2|OPEN|CLOSED
    CLOSED   FIN             resend FIN_ACK                                 -> CLOSED

Paper 004 2.3: PR1_ACK to PROBE2 is the first RTT, PR2_ACK to PROBE3 the second; the
base they are compared with is the smallest RTT measured without a repeated probe or
answer in between (Karn's rule). The
N-S_ACK names the first missing segment, one past the highest received and every
missing segment between them; the sender resends those. A segment that does not
decode, comes from another address than the CONN's, lies outside the window, or
contradicts the stream's end is counted in ``stats.malformed`` and dropped: no byte
is delivered twice or out of order.
"""

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum, auto

from wwanlab.core.address import Address
from wwanlab.core.events import Event
from wwanlab.transports.wwp.config import CLEAR_RTT, LOADED_RTT, WINDOW, WwpConfig
from wwanlab.transports.wwp.events import DataReceived, StreamEnded
from wwanlab.transports.wwp.levels import probe_level, wave_level
from wwanlab.transports.wwp.segment import Kind, Segment, SegmentError, decode
from wwanlab.transports.wwp.stats import WwpStats


class ReceiverState(Enum):
    LISTEN = auto()
    OPEN = auto()
    PROBED1 = auto()
    PROBED2 = auto()
    CLOSED = auto()


R = ReceiverState
Action = Callable[["WwpReceiver", Segment, float], ReceiverState]


@dataclass
class WaveMeter:
    """The wave being received: when its first segment came, which have come."""

    wave: int
    level: int
    count: int
    first: float
    seqs: set[int]
    answered: bool = False


@dataclass(frozen=True)
class Probe:
    """One probe cycle as the receiver saw it (for traces and tests)."""

    wave: int
    rtt1: float
    rtt2: float
    base: float
    level: int


class WwpReceiver:
    """Receives one stream from the first address that sends it a CONN."""

    def __init__(self, config: WwpConfig | None = None) -> None:
        self.config = config or WwpConfig()
        self.state = R.LISTEN
        self.stats = WwpStats()
        self.peer: Address | None = None
        self.opened_at: float | None = None  # when the first CONN arrived
        self.level = self.config.initial_level
        self.cum = 0  # every segment below is delivered
        self.high = 0  # one past the highest segment received
        self.last: int | None = None  # the LAST segment's number, once seen
        self.delivered = 0  # octets
        self.min_rtt: float | None = None
        self.probes: list[Probe] = []
        self._buffer: dict[int, bytes] = {}
        self._meter: WaveMeter | None = None
        self._sent_at = 0.0  # when the last PR1_ACK / PR2_ACK left
        self._rtt1 = 0.0
        self._cycle = -1  # the wave number of the probe cycle under way
        self._clean = self._clean1 = True  # the RTT being measured, RTT1: unambiguous
        self._answer: Segment | None = None  # the last N-S_ACK, for a repeated PROBE3
        self._out: list[tuple[bytes, Address]] = []
        self._events: list[Event] = []

    # --- the sans-IO contract ----------------------------------------------------------

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        try:
            seg = decode(data, self.config.payload_size)
        except SegmentError:
            self.stats.malformed += 1
            return
        if (self.peer is not None and addr != self.peer) or not self._valid(seg):
            self.stats.malformed += 1
            return
        if self.peer is None and seg.kind is Kind.CONN:
            self.peer = addr
        action = TABLE.get((self.state, seg.kind))
        if action is None:
            self.stats.ignored[f"{self.state.name}/{seg.kind.name}"] += 1
            return
        self.state = action(self, seg, now)

    def handle_timer(self, now: float) -> None:
        pass

    def get_timer(self) -> float | None:
        return None

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        out, self._out = self._out, []
        return out

    def next_event(self) -> Event | None:
        return self._events.pop(0) if self._events else None

    # --- checks ------------------------------------------------------------------------

    def _valid(self, seg: Segment) -> bool:
        c = self.config
        if seg.kind is Kind.CONN:
            return (seg.seq, seg.count, seg.level) == (c.payload_size, c.wave_unit, c.levels)
        if seg.kind is not Kind.DATA:
            return seg.kind in (Kind.PROBE1, Kind.PROBE2, Kind.PROBE3, Kind.FIN)
        if seg.level > c.levels or seg.count > c.wave_size(c.levels):
            return False
        if seg.seq >= self.cum + WINDOW:
            return False  # beyond the window: never sent by a sender that keeps to it
        if self.last is not None and (seg.seq > self.last or (seg.last and seg.seq != self.last)):
            return False  # contradicts the stream's end
        if seg.last:
            return seg.seq >= self.high - 1  # nothing was received beyond the end
        return len(seg.payload) == c.payload_size

    # --- actions ---------------------------------------------------------------------------

    def _accept(self, seg: Segment, now: float) -> ReceiverState:
        c = self.config
        if self.opened_at is None:
            self.opened_at = now
        self._send(Segment(Kind.CONN_ACK, self.level, count=c.wave_unit, seq=c.payload_size))
        return R.OPEN

    def _data(self, seg: Segment, now: float) -> ReceiverState:
        self._store(seg)
        meter = self._meter
        if meter is None or _newer(seg.wave, meter.wave):
            meter = self._meter = WaveMeter(seg.wave, seg.level, seg.count, now, set())
        elif seg.wave != meter.wave:
            return self.state  # a late segment of an earlier wave: data only
        meter.seqs.add(seg.seq)
        if meter.answered or len(meter.seqs) < meter.count:
            return self.state
        # paper 004 2.2: B from the rest of the wave at BT, T as measured
        baseline = self.config.baseline_time(meter.count - 1)
        self.level = wave_level(now - meter.first, baseline, self.config.levels)
        meter.answered = True
        self._nsack(meter.wave)
        return R.OPEN

    def _probe1(self, seg: Segment, now: float) -> ReceiverState:
        # Karn's rule: after a second PR1_ACK, a PROBE2 may answer either one
        self._clean = seg.wave != self._cycle
        self._cycle = seg.wave
        self._send(Segment(Kind.PR1_ACK, wave=seg.wave))
        self._sent_at = now
        return R.PROBED1

    def _new_cycle(self, seg: Segment, now: float) -> ReceiverState:
        """A PROBE1 of this cycle is a late repeat; of another wave, a new cycle."""
        if seg.wave == self._cycle:
            self.stats.ignored["PROBED2/PROBE1 repeated"] += 1
            return R.PROBED2
        return self._probe1(seg, now)

    def _probe2(self, seg: Segment, now: float) -> ReceiverState:
        self._rtt1 = now - self._sent_at
        self._clean1, self._clean = self._clean, True
        self._send(Segment(Kind.PR2_ACK, wave=seg.wave))
        self._sent_at = now
        return R.PROBED2

    def _repeat_probe2(self, seg: Segment, now: float) -> ReceiverState:
        self._clean = False
        self._send(Segment(Kind.PR2_ACK, wave=seg.wave))
        self._sent_at = now
        return R.PROBED2

    def _probe3(self, seg: Segment, now: float) -> ReceiverState:
        rtt2 = now - self._sent_at
        # Only unambiguous samples (Karn's rule) may lower the base RTT: one too small
        # would make every later RTT look like congestion and pause WWP for good.
        clean = [r for r, ok in ((self._rtt1, self._clean1), (rtt2, self._clean)) if ok]
        if clean:
            self.min_rtt = min(clean) if self.min_rtt is None else min(self.min_rtt, *clean)
        seen = self.min_rtt if self.min_rtt is not None else min(self._rtt1, rtt2)
        base = max(seen, self.config.rtt_floor)
        self.level = probe_level(
            self.level,
            self._rtt1,
            rtt2,
            base,
            self.config.levels,
            clear=CLEAR_RTT,
            loaded=LOADED_RTT,
        )
        self.probes.append(Probe(seg.wave, self._rtt1, rtt2, base, self.level))
        if self._meter is not None and self._meter.wave == seg.wave:
            self._meter.answered = True
        self._nsack(seg.wave)
        return R.OPEN

    def _repeat_answer(self, seg: Segment, now: float) -> ReceiverState:
        if self._answer is not None and self._answer.wave == seg.wave:
            self._send(self._answer)
        else:
            self.stats.ignored["OPEN/PROBE3 unanswered"] += 1
        return R.OPEN

    def _fin(self, seg: Segment, now: float) -> ReceiverState:
        complete = seg.seq == self.cum and (
            self.last == seg.seq - 1 if seg.seq else self.last is None
        )
        if not complete:
            self.stats.malformed += 1  # a FIN before the data it closes: forged or stale
            return self.state
        self._send(Segment(Kind.FIN_ACK, seq=seg.seq))
        if self.state is not R.CLOSED:
            self._events.append(StreamEnded(self.delivered))
        return R.CLOSED

    # --- helpers ---------------------------------------------------------------------------

    def _store(self, seg: Segment) -> None:
        if seg.seq < self.cum or seg.seq in self._buffer:
            self.stats.repeated += 1
            return
        self._buffer[seg.seq] = seg.payload
        self.high = max(self.high, seg.seq + 1)
        if seg.last:
            self.last = seg.seq
        chunks = []
        while self.cum in self._buffer:
            chunks.append(self._buffer.pop(self.cum))
            self.cum += 1
        if chunks:
            data = b"".join(chunks)
            self.delivered += len(data)
            self._events.append(DataReceived(data))

    def _nsack(self, wave: int) -> None:
        high = max(self.high, self.cum)
        missing = tuple(s for s in range(self.cum, high) if s not in self._buffer)
        self._answer = Segment(
            Kind.NSACK, self.level, wave, seq=self.cum, high=high, missing=missing
        )
        self._send(self._answer)

    def _send(self, seg: Segment) -> None:
        assert self.peer is not None
        data = seg.encode()
        self.stats.segments_sent += 1
        self.stats.bytes_sent += len(data)
        self._out.append((data, self.peer))


def _newer(a: int, b: int) -> bool:
    """Wave number ``a`` comes after ``b`` (modulo 256, half the circle ahead)."""
    return 0 < (a - b) % 256 < 128


TABLE: dict[tuple[ReceiverState, Kind], Action] = {
    (R.LISTEN, Kind.CONN): WwpReceiver._accept,
    (R.OPEN, Kind.CONN): WwpReceiver._accept,
    (R.OPEN, Kind.DATA): WwpReceiver._data,
    (R.OPEN, Kind.PROBE1): WwpReceiver._probe1,
    (R.OPEN, Kind.PROBE3): WwpReceiver._repeat_answer,
    (R.OPEN, Kind.FIN): WwpReceiver._fin,
    (R.PROBED1, Kind.PROBE1): WwpReceiver._probe1,
    (R.PROBED1, Kind.PROBE2): WwpReceiver._probe2,
    (R.PROBED1, Kind.DATA): WwpReceiver._data,
    (R.PROBED1, Kind.FIN): WwpReceiver._fin,
    (R.PROBED2, Kind.PROBE1): WwpReceiver._new_cycle,
    (R.PROBED2, Kind.PROBE2): WwpReceiver._repeat_probe2,
    (R.PROBED2, Kind.PROBE3): WwpReceiver._probe3,
    (R.PROBED2, Kind.DATA): WwpReceiver._data,
    (R.PROBED2, Kind.FIN): WwpReceiver._fin,
    (R.CLOSED, Kind.FIN): WwpReceiver._fin,
}
"""Every (state, segment kind) pair that acts; any other is a late or repeated segment
(or one that makes no sense in the state) and is ignored and counted."""
