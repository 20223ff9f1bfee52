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
from dataclasses import dataclass, field

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


@functools.lru_cache(maxsize=4)
def emergent_service(cell_seed: int) -> HistogramDelay:
    """The emergent busy cell's FTP service time (an LLC resend costs the acknowledgement
    wait plus one more draw of it: ``gprs_radio_stages``)."""
    return histogram_of(emergent_cell(cell_seed).services())


def radio(cell: str, direction: str, *, llc_ack: bool, cell_seed: int = CELL_SEED) -> Direction:
    """One direction of ``cell``'s radio; both directions behave alike (presets' assumption)."""
    if CELLS[cell] != "emergent":
        return get_preset(CELLS[cell] + ("-llc-ack" if llc_ack else "")).build(direction)
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


def reno_2002() -> TcpConfig:
    """TCP Reno with MSS 430 (paper 002 III, Table 1); the rest the RFCs' defaults."""
    return TcpConfig.for_variant("reno", mss=GPRS_MSS)


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
) -> Download:
    """Download the file over ``cell`` (one of ``CELLS``) with ``proxy`` at the SGSN;
    ``radio_log`` (for ``MH_IP``), if given, records the mobile's own packets."""
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
    internet = get_preset("internet-gprs-2002")
    net.connect(fh, ggsn, internet.build("down"), internet.build("up"), mtu=MTU)
    core = GGSN_SGSN_BPS
    net.connect(ggsn, sgsn, Direction([Rate(core)]), Direction([Rate(core)]), mtu=MTU)
    edge = SGSN_BSS_BPS
    net.connect(sgsn, bss, Direction([Rate(edge)]), Direction([Rate(edge)]), mtu=MTU)
    down, up = (radio(cell, d, llc_ack=llc_ack, cell_seed=cell_seed) for d in ("down", "up"))
    net.connect(bss, mh, down, up, mtu=MTU)

    agent: SnoopAgent | SplitProxy | None = None
    if proxy == "snoop":
        agent = SnoopAgent({MH_IP})
    elif proxy == "split":
        agent = SplitProxy({MH_IP}, config, config, net.kernel.stream("tcp", "proxy"))
    if agent is not None:
        ProxyDriver(sgsn, agent)

    if radio_log is not None:
        mh.taps.append(radio_log.tap)
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
    result = Download(complete, seconds, sender.stats(conn), rtt_samples=samples)
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
