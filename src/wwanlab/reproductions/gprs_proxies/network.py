"""Paper 002's GPRS network on the simulator, and one FTP download across it.

Section III and Figure 1: an FTP server (the fixed host, FH) on the Internet, the GGSN
as a router, a 2 Mbit/s link to the SGSN, the SGSN (where the proxy sits, section III:
"between the SGSN and the GGSN"), a 64 kbit/s link to the BSS, the radio interface, the
mobile host (MH)::

    FH --Internet-- GGSN --2 Mbit/s-- SGSN[proxy] --64 kbit/s-- BSS --radio-- MH

Every link is a preset of ``wwanlab.link.presets`` (``internet-gprs-2002`` and the
``gprs-radio-*`` radios, LLC acknowledged mode included), so its parameters and
assumptions are cited there. The download: the FH opens the data connection to the MH
(FTP's active mode, RFC 959), sends the file and closes; throughput is the file's bits
over the time from the FH's SYN to the MH's receipt of the last byte.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from wwanlab.core.events import Event
from wwanlab.energy import RadioLog
from wwanlab.link.base import Direction
from wwanlab.link.delay import HistogramDelay
from wwanlab.link.gprs_cell import emergent_cell, histogram_of
from wwanlab.link.presets import (
    GGSN_SGSN_BPS,
    GPRS_BUSY,
    GPRS_MSS,
    SGSN_BSS_BPS,
    get_preset,
    gprs_radio_stages,
)
from wwanlab.link.rate import Rate
from wwanlab.pep.snoop import SnoopAgent
from wwanlab.pep.split import SplitProxy
from wwanlab.sim import Network
from wwanlab.sim.ipv4 import PROTO_TCP, parse_ipv4
from wwanlab.sim.proxy import ProxyDriver
from wwanlab.tcp import DataReceived, TcpConfig, TcpEndpoint
from wwanlab.tcp.segment import ACK, decode_segment
from wwanlab.tcp.stats import TcpStats

FH_IP = "192.0.2.1"  # RFC 5737 documentation addresses: never routed anywhere real
MH_IP = "198.51.100.1"
FTP_DATA_PORT = 20  # RFC 959: the server's data connection comes from port 20
MH_PORT = 50000
FILE_SIZE = 512 * 1024  # paper 002 III: "a 512 Kbytes data file"
MTU = 1500
MAX_SIM_TIME = 20_000.0  # s: far beyond the slowest download (512 KB at 2.7 kbit/s: ~1600 s)

PROXIES = ("none", "snoop", "split")
# Each cell's radio: a preset, or "emergent" for the busy cell of wwanlab.link.gprs_cell,
# whose FTP packets' service times replace the given 0.8-2 s (its PER stays the paper's).
CELLS = {
    "busy": "gprs-radio-busy",
    "one-user": "gprs-radio-one-user",
    "busy-emergent": "emergent",
}
CELL_SEED = 2003  # the emergent cell's seed: one cell run serves every download

# The Internet between the FH and the GGSN (paper 002 III: Gaussian delay, mean 100 ms):
# "gaussian" draws each packet's delay on its own, so packets overtake one another (the
# internet-gprs-2002 preset); "paced" first puts the FH's segments on its access line at
# SERVER_BPS, so back-to-back segments leave spaced, then draws the same delay; "fifo"
# paces and keeps the order: one path of FIFO queues cannot reorder (Bennett, Partridge,
# Shectman, IEEE/ACM ToN 7(6), 1999: reordering comes from parallel paths inside routers)
# and closely spaced packets see nearly the same queueing delay (Bolot, SIGCOMM 1993).
INTERNETS = ("gaussian", "paced", "fifo")
SERVER_BPS = 1_544_000  # the FH's access line: a T1 (ANSI T1.403 DS1), assumed for 2002


@functools.lru_cache(maxsize=4)
def emergent_service(cell_seed: int) -> HistogramDelay:
    """The emergent busy cell's FTP service time (an LLC resend costs the acknowledgement
    wait plus one more draw of it: ``gprs_radio_stages``)."""
    return histogram_of(emergent_cell(cell_seed).services())


def radio(
    cell: str,
    direction: str,
    *,
    llc_ack: bool,
    cell_seed: int = CELL_SEED,
    options: Mapping[str, Any] | None = None,
) -> Direction:
    """One direction of ``cell``'s radio; both directions behave alike (presets' assumption).
    ``options`` switch the given cells' radio phenomena (``Preset.with_options``)."""
    if CELLS[cell] != "emergent":
        preset = get_preset(CELLS[cell] + ("-llc-ack" if llc_ack else ""))
        return (preset.with_options(**options) if options else preset).build(direction)
    return Direction(gprs_radio_stages(emergent_service(cell_seed), GPRS_BUSY.per, llc_ack))


class RttMeter:
    """RTT samples at the fixed host, as paper 002's Figures 2 and 3 plot them: from a
    data segment's first transmission to the first ACK that covers it (Karn: a segment
    sent twice gives none)."""

    def __init__(self) -> None:
        self.samples: list[tuple[float, float]] = []
        self._base: int | None = None
        self._sent: dict[int, float] = {}  # end offset -> first send time
        self._resent: set[int] = set()

    def _offset(self, seq: int) -> int:
        if self._base is None:
            self._base = seq
        return (seq - self._base) % (1 << 32)

    def tap(self, now: float, packet: bytes) -> None:
        ip, payload = parse_ipv4(packet, verify=False)
        if ip.protocol != PROTO_TCP:
            return
        seg = decode_segment(payload)
        if ip.src == FH_IP and seg.payload:
            end = self._offset(seg.seq) + len(seg.payload)
            if end in self._sent:
                self._resent.add(end)
            else:
                self._sent[end] = now
        elif ip.dst == FH_IP and seg.flags & ACK and self._base is not None:
            ack = self._offset(seg.ack)
            for end in [e for e in self._sent if e <= ack]:
                sent = self._sent.pop(end)
                if end not in self._resent:
                    self.samples.append((now, now - sent))


def reno_2002(*, recover: bool = False) -> TcpConfig:
    """TCP Reno with MSS 430 (paper 002 III, Table 1); the rest the RFCs' defaults;
    ``recover``: no fast retransmit after a timeout until new data is acknowledged (the
    guard of ns-2's Reno, ``TcpConfig.reno_recover``)."""
    return TcpConfig.for_variant("reno", mss=GPRS_MSS, reno_recover=recover)


def internet(kind: str, direction: str) -> Direction:
    """One direction of the Internet of ``INTERNETS``; only the FH's side is paced."""
    if kind not in INTERNETS:
        raise ValueError(f"unknown Internet {kind!r} (known: {', '.join(INTERNETS)})")
    net = get_preset("internet-gprs-2002").build(direction)
    if kind == "gaussian":
        return net
    paced = [Rate(SERVER_BPS)] if direction == "down" else []
    return Direction(paced + net.stages, fifo=kind == "fifo")


class ReorderMeter:
    """Which of the FH's data segments, sent once, reach the GGSN after a later one."""

    def __init__(self) -> None:
        self._base: int | None = None  # the first data segment's sequence number
        self._sent: dict[int, int] = {}  # offset -> times the FH sent it
        self._arrived: list[int] = []  # offsets in order of arrival at the GGSN

    def _offset(self, packet: bytes) -> int | None:
        seq = _data_seq(packet, FH_IP)
        if seq is None:
            return None
        if self._base is None:
            self._base = seq
        return (seq - self._base) % (1 << 32)

    def at_fh(self, now: float, packet: bytes) -> None:
        offset = self._offset(packet)
        if offset is not None:
            self._sent[offset] = self._sent.get(offset, 0) + 1

    def at_ggsn(self, now: float, packet: bytes) -> None:
        offset = self._offset(packet)
        if offset is not None:
            self._arrived.append(offset)

    def counts(self) -> tuple[int, int]:
        """(segments sent once, of them overtaken by a later one)."""
        once = [q for q in self._arrived if self._sent.get(q) == 1]
        late, highest = 0, -1
        for q in once:
            if q < highest:
                late += 1
            highest = max(highest, q)
        return len(once), late


def _data_seq(packet: bytes, src: str) -> int | None:
    ip, payload = parse_ipv4(packet, verify=False)
    if ip.protocol != PROTO_TCP or ip.src != src:
        return None
    seg = decode_segment(payload)
    return seg.seq if seg.payload else None


@dataclass(frozen=True)
class Download:
    """One FTP download's outcome, counted as paper 002's Tables 2 and 3 count."""

    complete: bool
    seconds: float
    fh: TcpStats
    proxy_segments: int = 0  # data segments the proxy passed or sent toward the MH
    proxy_data_driven: int = 0
    proxy_timer_driven: int = 0
    rtt_samples: list[tuple[float, float]] = field(default_factory=list)  # (time, RTT) at FH
    radio_packets: int = 0  # IP packets offered to the radio, both directions
    radio_lost: int = 0  # of them, lost on the radio (after LLC's retries, if on)
    once: int = 0  # FH data segments sent once (that reached the GGSN)
    reordered: int = 0  # of them, reaching the GGSN after a later segment

    @property
    def radio_loss_pct(self) -> float:
        return 100 * self.radio_lost / self.radio_packets if self.radio_packets else math.nan

    @property
    def throughput_kbps(self) -> float:
        return FILE_SIZE * 8 / self.seconds / 1000 if self.complete else math.nan

    @property
    def segments(self) -> int:
        """The file in MSS-sized segments: the base of every retransmission percentage."""
        return -(-FILE_SIZE // GPRS_MSS)


def download(
    cell: str,
    proxy: str,
    seed: int,
    *,
    llc_ack: bool = False,
    tcp: TcpConfig | None = None,
    rtt: bool = False,
    cell_seed: int = CELL_SEED,
    radio_log: RadioLog | None = None,
    net_kind: str = "gaussian",
    out_of_order: str = "new",
    radio_options: Mapping[str, Any] | None = None,
) -> Download:
    """Download the file over ``cell`` (one of ``CELLS``) with ``proxy`` at the SGSN,
    across the Internet ``net_kind`` (``INTERNETS``); a Snoop agent reads out-of-order
    segments by ``out_of_order`` (``wwanlab.pep.snoop``); ``radio_log`` (for ``MH_IP``),
    if given, records the mobile's own packets."""
    if cell not in CELLS:
        raise ValueError(f"unknown cell {cell!r} (known: {', '.join(CELLS)})")
    if proxy not in PROXIES:
        raise ValueError(f"unknown proxy {proxy!r} (known: {', '.join(PROXIES)})")
    config = tcp or reno_2002()
    net = Network(seed)
    fh = net.add_host("fh", FH_IP)
    mh = net.add_host("mh", MH_IP)
    ggsn = net.add_router("ggsn")
    sgsn = net.add_router("sgsn")
    bss = net.add_router("bss")
    net.connect(fh, ggsn, internet(net_kind, "down"), internet(net_kind, "up"), mtu=MTU)
    core = GGSN_SGSN_BPS
    net.connect(ggsn, sgsn, Direction([Rate(core)]), Direction([Rate(core)]), mtu=MTU)
    edge = SGSN_BSS_BPS
    net.connect(sgsn, bss, Direction([Rate(edge)]), Direction([Rate(edge)]), mtu=MTU)
    down, up = (
        radio(cell, d, llc_ack=llc_ack, cell_seed=cell_seed, options=radio_options)
        for d in ("down", "up")
    )
    air = net.connect(bss, mh, down, up, mtu=MTU)

    agent: SnoopAgent | SplitProxy | None = None
    if proxy == "snoop":
        agent = SnoopAgent({MH_IP}, out_of_order=out_of_order)
    elif proxy == "split":
        agent = SplitProxy({MH_IP}, config, config, net.kernel.stream("tcp", "proxy"))
    if agent is not None:
        ProxyDriver(sgsn, agent)

    if radio_log is not None:
        mh.taps.append(radio_log.tap)
    order = ReorderMeter()
    fh.taps.append(order.at_fh)
    ggsn.taps.append(order.at_ggsn)
    meter = RttMeter() if rtt else None
    if meter is not None:
        fh.taps.append(meter.tap)
    receiver = TcpEndpoint(MH_IP, MH_PORT, config, net.kernel.stream("tcp", "mh"))
    receiver.listen()
    data = random.Random(seed).randbytes(FILE_SIZE)
    received = bytearray()
    done: list[float] = []

    def on_mh(event: Event) -> None:
        if isinstance(event, DataReceived):
            received.extend(event.data)
            if len(received) >= FILE_SIZE and not done:
                done.append(net.kernel.now)

    mh.bind_transport(PROTO_TCP, MH_PORT, receiver, on_event=on_mh)
    sender = TcpEndpoint(FH_IP, FTP_DATA_PORT, config, net.kernel.stream("tcp", "fh"))
    binding = fh.bind_transport(PROTO_TCP, FTP_DATA_PORT, sender)
    conn = sender.connect((MH_IP, MH_PORT), net.kernel.now)
    sender.send(conn, data)
    sender.close(conn)
    binding.flush()
    net.run(until=MAX_SIM_TIME)
    net.close()
    complete = bool(done) and received == data  # every byte, once, in order
    seconds = done[0] if complete else math.nan
    samples = meter.samples if meter is not None else []
    counters = [channel.stats for channel in air.channels]
    once, late = order.counts()
    result = Download(
        complete,
        seconds,
        sender.stats(conn),
        rtt_samples=samples,
        radio_packets=sum(c.sent_packets for c in counters),
        radio_lost=sum(c.dropped_packets for c in counters),
        once=once,
        reordered=late,
    )
    if isinstance(agent, SnoopAgent):
        s = agent.stats
        return _with(result, s.data_segments, s.data_driven, s.timer_driven)
    if isinstance(agent, SplitProxy):
        stats = agent.wireless_stats()
        sent = sum(s.segments_sent for s in stats)
        timer = sum(s.timer_retransmissions for s in stats)
        return _with(result, sent, sum(s.retransmissions for s in stats) - timer, timer)
    return result


def _with(result: Download, segments: int, data: int, timer: int) -> Download:
    return dataclasses.replace(
        result, proxy_segments=segments, proxy_data_driven=data, proxy_timer_driven=timer
    )
