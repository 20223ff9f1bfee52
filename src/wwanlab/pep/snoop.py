"""The Snoop agent (Balakrishnan, Seshan, Amir, Katz, MobiCom 1995; paper 002 section
III): TCP-aware local retransmission at the point where the wired path meets the
wireless one, without splitting the connection.

For each TCP connection whose receiver is behind the wireless side, the agent runs the
two processes of the Snoop paper:

``snoop_data`` (a segment from the fixed host toward the mobile):

| the segment | action |
|---|---|
| new data (not cached) | cache it with its time, forward |
| data the agent has cached (the sender resent it) | mark it sender-resent, forward |
| data the mobile already acknowledged | forward (its ACK was lost upstream) |
| data more than ``WINDOW`` away from any seen | forward, nothing kept (forged?) |
| no data (pure ACK, SYN) | forward |

An out-of-order segment (new to the cache, but below data already seen) has two
readings, chosen by ``out_of_order``: ``"new"`` caches it as new data, so a duplicate
ACK for it draws a local resend, as paper 002 IV.2 says its agent did ("with the
arrival of the first DUPACK, the Snoop agent retransmits"); ``"sender"`` marks it
sender-resent, as the Snoop paper (Balakrishnan et al. 1995, section 3.1, case 3: "lost
earlier due to congestion ... or delivered out of order"), so its duplicate ACKs go on
to the sender.

``snoop_ack`` (an acknowledgement from the mobile toward the fixed host):

| the ACK | action |
|---|---|
| new (acknowledges more) | free the cache up to it, RTT sample, forward |
| older than the last one | drop (spurious) |
| beyond any data seen | forward, state unchanged (the host's TCP ignores it) |
| 1st duplicate, lost segment cached, not resent by the sender | resend it (A) |
| a later duplicate, expected after (A) | drop |
| any other duplicate | forward: the sender must act |

(A): the local, data-driven resend; the ACK is dropped and one more duplicate is
expected per cached segment after the lost one. The RTT sample comes only from a
segment sent once (Karn).

The local timer (``snoop_ack``'s, paper 002 III: "similar to the TCP timer: the RTT of
the TCP segments in the radio link is calculated, and the timer is triggered after
reaching a RTO value"): RTO = SRTT + 4 RTTVAR of the wireless round trip (RFC 6298 2's
estimator), at least ``min_rto``; on expiry the oldest cached segment is resent
(timer-driven) and the RTO doubles until a new ACK.

A connection is forgotten at a RST or once both FINs are acknowledged. Nothing the
agent does changes a byte: it forwards, suppresses duplicate ACKs, and resends copies of
segments it saw, so the receiver's TCP decides what is delivered.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from wwanlab.core.errors import UsageError
from wwanlab.sim.ipv4 import PROTO_TCP, PacketError, parse_ipv4
from wwanlab.tcp.errors import MalformedSegment
from wwanlab.tcp.segment import ACK, FIN, RST, SYN, Segment, decode_segment

SEQ_MOD = 1 << 32
INITIAL_RTO = 1.0  # s before any wireless RTT sample (RFC 6298 2.1's initial value)
MIN_RTO = 0.2  # s: the floor of the local timer (assumption, see docs/gprs.md)
MAX_RTO = 60.0  # s (RFC 6298 2.5)
ALPHA, BETA = 1 / 8, 1 / 4  # RFC 6298 2.3
WINDOW = 1 << 20  # octets around the data seen that a host's segment may plausibly be in
MAX_LOCAL_RESENDS = 4  # local tries of one segment before the agent leaves it to the sender

OUT_OF_ORDER_RULES = ("new", "sender")  # paper 002 IV.2; Balakrishnan et al. 1995

FlowKey = tuple[str, int, str, int]  # fixed host address and port, mobile address and port


def _within(seq: int, edge: int) -> bool:
    """``seq`` lies within ``WINDOW`` octets of ``edge``, before or after it."""
    distance = (seq - edge) % SEQ_MOD
    return distance <= WINDOW or distance >= SEQ_MOD - WINDOW


def _after(a: int, b: int) -> bool:
    """Sequence number ``a`` is after ``b`` (RFC 9293 3.4, modulo 2**32)."""
    return 0 < (a - b) % SEQ_MOD < SEQ_MOD // 2


@dataclass(slots=True)
class _Cached:
    packet: bytes
    end: int  # sequence number after the segment (FIN counted)
    sent_at: float
    local_resends: int = 0
    sender_resent: bool = False


@dataclass(slots=True)
class _Flow:
    cache: dict[int, _Cached] = field(default_factory=dict)  # by starting seq, in order
    sent_end: int | None = None  # the highest sequence number after data seen from the host
    last_ack: int | None = None
    dupacks: int = 0
    expected_dupacks: int = 0
    srtt: float | None = None
    rttvar: float = 0.0
    rto: float = INITIAL_RTO
    deadline: float | None = None
    fins: int = 0  # FIN segments seen, both directions


@dataclass(slots=True)
class SnoopStats:
    """What the agent did, as paper 002's tables count it at the proxy."""

    data_segments: int = 0  # distinct data segments from the fixed host
    data_driven: int = 0  # local resends on a duplicate ACK
    timer_driven: int = 0  # local resends on the agent's timer
    dupacks_suppressed: int = 0
    rtt_samples: int = 0


class SnoopAgent:
    """Snoop for every TCP connection to an address in ``mobiles``."""

    def __init__(
        self,
        mobiles: set[str] | frozenset[str],
        *,
        min_rto: float = MIN_RTO,
        out_of_order: str = "new",
    ) -> None:
        if out_of_order not in OUT_OF_ORDER_RULES:
            known = ", ".join(OUT_OF_ORDER_RULES)
            raise UsageError(f"unknown out-of-order rule {out_of_order!r} (known: {known})")
        self.mobiles = frozenset(mobiles)
        self.min_rto = min_rto
        self.out_of_order = out_of_order
        self.stats = SnoopStats()
        self._flows: dict[FlowKey, _Flow] = {}
        self._out: list[bytes] = []

    # --- the PacketProxy contract -----------------------------------------------------

    def receive_packet(self, packet: bytes, now: float) -> bool:
        try:
            ip, payload = parse_ipv4(packet, verify=False)
        except PacketError:
            return True  # not ours to judge: the router checks headers
        if ip.protocol != PROTO_TCP or len(payload) < 20:
            return True
        try:
            seg = decode_segment(payload)
        except MalformedSegment:
            return True  # the receiving TCP drops it; the proxy keeps no state for it
        if ip.dst in self.mobiles:
            return self._snoop_data((ip.src, seg.src_port, ip.dst, seg.dst_port), seg, packet, now)
        if ip.src in self.mobiles:
            return self._snoop_ack((ip.dst, seg.dst_port, ip.src, seg.src_port), seg, now)
        return True

    def packets_to_send(self, now: float) -> list[bytes]:
        out, self._out = self._out, []
        return out

    def get_timer(self) -> float | None:
        deadlines = [f.deadline for f in self._flows.values() if f.deadline is not None]
        return min(deadlines) if deadlines else None

    def handle_timer(self, now: float) -> None:
        for flow in self._flows.values():
            if flow.deadline is not None and flow.deadline <= now:
                self._on_timeout(flow, now)

    # --- snoop_data ---------------------------------------------------------------------

    def _snoop_data(self, key: FlowKey, seg: Segment, packet: bytes, now: float) -> bool:
        if seg.flags & RST:
            self._flows.pop(key, None)
            return True
        flow = self._flows.setdefault(key, _Flow())
        if seg.flags & SYN:
            flow.sent_end = (seg.seq + 1) % SEQ_MOD  # the host's ISN: data starts here
            return True
        length = len(seg.payload) + (1 if seg.flags & FIN else 0)
        if length == 0:
            return True
        if flow.sent_end is not None and not _within(seg.seq, flow.sent_end):
            return True  # far from any data seen (forged?): passed on, nothing kept
        if seg.flags & FIN:
            flow.fins += 1
        end = (seg.seq + length) % SEQ_MOD
        reordered = flow.sent_end is not None and _after(flow.sent_end, end)
        if flow.sent_end is None or _after(end, flow.sent_end):
            flow.sent_end = end
        if flow.last_ack is not None and not _after(end, flow.last_ack):
            return True  # acknowledged already: the sender missed the ACK
        cached = flow.cache.get(seg.seq)
        if cached is not None:
            cached.sender_resent = True
            cached.packet = packet
            return True
        resent = reordered and self.out_of_order == "sender"
        flow.cache[seg.seq] = _Cached(packet, end, now, sender_resent=resent)
        self.stats.data_segments += 1
        if flow.deadline is None:
            flow.deadline = now + flow.rto
        return True

    # --- snoop_ack ----------------------------------------------------------------------

    def _snoop_ack(self, key: FlowKey, seg: Segment, now: float) -> bool:
        flow = self._flows.get(key)
        if flow is None or not seg.flags & ACK:
            return True
        if seg.flags & RST:
            del self._flows[key]
            return True
        if seg.flags & FIN:
            flow.fins += 1
        ack = seg.ack
        if flow.sent_end is not None and _after(ack, flow.sent_end):
            return True  # acknowledges data never sent: not the agent's to act on (forged?)
        if flow.last_ack is None or _after(ack, flow.last_ack):
            self._new_ack(flow, ack, now)
            if flow.fins >= 2 and not flow.cache:
                del self._flows[key]
            return True
        if ack != flow.last_ack:
            return False  # older than one seen: spurious
        if seg.payload or seg.flags & (SYN | FIN):
            return True  # carries something of its own: not a duplicate (RFC 5681 2)
        return self._dupack(flow, ack, now)

    def _new_ack(self, flow: _Flow, ack: int, now: float) -> None:
        for seq in list(flow.cache):
            cached = flow.cache[seq]
            if _after(cached.end, ack):
                break
            del flow.cache[seq]
            if cached.local_resends == 0 and not cached.sender_resent:
                self._sample(flow, now - cached.sent_at)
        flow.last_ack = ack
        flow.dupacks = 0
        flow.expected_dupacks = 0
        flow.rto = self._rto(flow)
        flow.deadline = now + flow.rto if flow.cache else None

    def _dupack(self, flow: _Flow, ack: int, now: float) -> bool:
        flow.dupacks += 1
        lost = flow.cache.get(ack)
        if lost is None or lost.sender_resent or lost.local_resends >= MAX_LOCAL_RESENDS:
            return True
        if flow.dupacks == 1:
            self._resend(lost, now)
            self.stats.data_driven += 1
            flow.expected_dupacks = sum(1 for s in flow.cache if _after(s, ack))
            flow.deadline = now + flow.rto
            self.stats.dupacks_suppressed += 1
            return False
        if flow.dupacks <= flow.expected_dupacks:
            self.stats.dupacks_suppressed += 1
            return False
        return True

    # --- the local timer ----------------------------------------------------------------

    def _on_timeout(self, flow: _Flow, now: float) -> None:
        oldest = next(iter(flow.cache.values()), None)
        if oldest is None or oldest.local_resends >= MAX_LOCAL_RESENDS:
            flow.deadline = None
            return
        self._resend(oldest, now)
        self.stats.timer_driven += 1
        flow.rto = min(flow.rto * 2, MAX_RTO)
        flow.deadline = now + flow.rto

    def _resend(self, cached: _Cached, now: float) -> None:
        cached.local_resends += 1
        self._out.append(cached.packet)

    def _sample(self, flow: _Flow, rtt: float) -> None:
        """RFC 6298 2.2-2.3 on the wireless round trip."""
        self.stats.rtt_samples += 1
        if flow.srtt is None:
            flow.srtt, flow.rttvar = rtt, rtt / 2
        else:
            flow.rttvar = (1 - BETA) * flow.rttvar + BETA * abs(flow.srtt - rtt)
            flow.srtt = (1 - ALPHA) * flow.srtt + ALPHA * rtt

    def _rto(self, flow: _Flow) -> float:
        if flow.srtt is None:
            return flow.rto
        return min(max(flow.srtt + 4 * flow.rttvar, self.min_rto), MAX_RTO)
