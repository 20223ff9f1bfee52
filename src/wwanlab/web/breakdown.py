"""Where a page download's time goes: the latency breakdown of paper 003 Figure 4.

The paper splits the download time, from traces at the mobile, into payload transfer,
DNS lookups, TCP's handshake and slow start, and other under-utilization (section 3).
Here every instant of the download, from 0 to its end ``T``, gets exactly one of five
labels, so the shares sum to 100%. The first rule that applies wins:

1. **payload**: the downlink is transmitting a packet that carries TCP payload (HTTP
   octets, retransmissions included);
2. **other**: the downlink is transmitting any other packet (pure ACKs, SYN/FIN, DNS
   answers) - link time spent on protocol overhead;
3. **dns**: the link is idle while a DNS lookup is outstanding;
4. **tcp 3w/ss**: the link is idle while a connection is between its SYN and the end
   of its first response (handshake and the first round trips of slow start);
5. **under-utilization**: the link is idle and nothing of the above is going on: the
   stop-and-go gaps between one GET's response and the next, waiting for a connection,
   queueing and loss recovery.

When the downlink transmits a packet comes from the packets it delivered: a packet
delivered at ``t`` left the line at ``t - d`` (``d`` the preset's mean one-way delay)
after ``(size + framing) * 8 / rate`` seconds on it. That is exact for the paper-003
presets (constant delay, one rate); on presets with random delays it is an estimate, and
packets the link lost are not counted as transmitted.
"""

from dataclasses import dataclass

from wwanlab.link.presets import Preset
from wwanlab.sim.ipv4 import PROTO_TCP

Interval = tuple[float, float]
SHARES = ("payload", "other", "dns", "tcp", "under")
LABELS = {
    "payload": "Payload",
    "other": "Other (link overhead)",
    "dns": "DNS",
    "tcp": "TCP 3W/SS",
    "under": "Under-utilization",
}


class DownlinkRecorder:
    """A tap on the downlink channel's deliveries: when the line carried what."""

    def __init__(self, preset: Preset) -> None:
        down = preset.configured["down"]
        rate = down.get("rate_bps")
        self._bits_per_s = float(rate) if rate else 0.0
        self._overhead = int(down.get("overhead_bytes") or 0)
        self._delay = float(down.get("delay_ms", {}).get("mean", 0.0)) / 1000
        self.payload: list[Interval] = []
        self.other: list[Interval] = []
        self.delivered_bytes = 0

    def tap(self, now: float, packet: bytes) -> None:
        size = len(packet)
        self.delivered_bytes += size
        end = now - self._delay
        start = end - (size + self._overhead) * 8 / self._bits_per_s if self._bits_per_s else end
        (self.payload if _carries_payload(packet) else self.other).append((start, end))


def _carries_payload(packet: bytes) -> bool:
    if len(packet) < 20 or packet[9] != PROTO_TCP:
        return False
    ihl = (packet[0] & 0x0F) * 4
    total = int.from_bytes(packet[2:4], "big")
    if total < ihl + 13:
        return False
    offset = (packet[ihl + 12] >> 4) * 4
    return total - ihl - offset > 0


def merge(intervals: list[Interval], lo: float, hi: float) -> list[Interval]:
    """The union of ``intervals`` clipped to [lo, hi], as sorted disjoint intervals."""
    out: list[Interval] = []
    for start, end in sorted(intervals):
        start, end = max(start, lo), min(end, hi)
        if end <= start:
            continue
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def length(intervals: list[Interval]) -> float:
    return sum(end - start for start, end in intervals)


def minus(a: list[Interval], b: list[Interval]) -> list[Interval]:
    """Disjoint sorted ``a`` without disjoint sorted ``b``."""
    out: list[Interval] = []
    j = 0
    for start, end in a:
        cursor = start
        while j < len(b) and b[j][1] <= cursor:
            j += 1
        k = j
        while k < len(b) and b[k][0] < end:
            if b[k][0] > cursor:
                out.append((cursor, b[k][0]))
            cursor = max(cursor, b[k][1])
            k += 1
        if cursor < end:
            out.append((cursor, end))
    return out


@dataclass(frozen=True, slots=True)
class Breakdown:
    """Seconds of the download per label; ``shares()`` in percent."""

    total: float
    payload: float
    other: float
    dns: float
    tcp: float
    under: float

    def seconds(self) -> dict[str, float]:
        return {name: getattr(self, name) for name in SHARES}

    def shares(self) -> dict[str, float]:
        """Percent of the total per label (they sum to 100)."""
        if self.total <= 0:
            return dict.fromkeys(SHARES, 0.0)
        return {name: 100 * getattr(self, name) / self.total for name in SHARES}


def breakdown(
    recorder: DownlinkRecorder,
    *,
    dns: list[Interval],
    tcp_setup: list[Interval],
    total: float,
) -> Breakdown:
    """Label every instant of [0, ``total``] by the rules of the module docstring."""
    payload = merge(recorder.payload, 0.0, total)
    busy = merge(recorder.payload + recorder.other, 0.0, total)
    other = minus(busy, payload)
    idle = minus([(0.0, total)] if total > 0 else [], busy)
    lookups = merge(dns, 0.0, total)
    in_dns = _intersect_length(idle, lookups)
    idle_no_dns = minus(idle, lookups)
    setup = merge(tcp_setup, 0.0, total)
    in_setup = _intersect_length(idle_no_dns, setup)
    used = length(payload) + length(other) + in_dns + in_setup
    return Breakdown(
        total, length(payload), length(other), in_dns, in_setup, max(total - used, 0.0)
    )


def _intersect_length(a: list[Interval], b: list[Interval]) -> float:
    return length(a) - length(minus(a, b))
