"""One bulk upload from a mobile host over a two-way link, by WWP or by TCP, on the
simulator (paper 004's test: a 5 MB data set from one host to another).

The mobile host (10.0.0.1) sends ``size`` octets to the fixed host (10.0.0.2) across a
single link whose two directions the caller builds (``LinkFactory``), so every loss
model of ``wwanlab.link`` (VDELDROP's On/Off phases among them) applies to data and
acknowledgements alike. WWP runs over UDP in the simulated hosts (the paper runs it
over IP; the 8-octet UDP header is not counted as transport octets). The measured
time runs from the first packet (CONN or SYN) to the end of the teardown at the
sender: WWP's FIN_ACK, TCP's second FIN acknowledged (paper 004 section 3: "from
connection initiation through to connection termination").
"""

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from wwanlab.core.events import Event
from wwanlab.link.base import Direction
from wwanlab.sim import Network
from wwanlab.sim.ipv4 import PROTO_TCP, UDP_HEADER
from wwanlab.tcp import TcpConfig
from wwanlab.tcp.endpoint import TcpEndpoint
from wwanlab.tcp.events import ConnectionClosed, DataReceived, PeerClosed
from wwanlab.tcp.segment import decode_segment
from wwanlab.tcp.stats import Recorder
from wwanlab.transports.wwp import (
    DataReceived as WwpData,
)
from wwanlab.transports.wwp import (
    Finished,
    WwpConfig,
    WwpReceiver,
    WwpSender,
    decode,
)

MOBILE_IP = "10.0.0.1"
FIXED_IP = "10.0.0.2"
MOBILE_PORT = 49152  # RFC 6335 6: the first dynamic port
SINK_PORT = 5001  # assumed: the receiver's port (any would do)
MAX_SIM_TIME = 7200.0  # s of virtual time before a transfer counts as failed

LinkFactory = Callable[[], tuple[Direction, Direction]]
"""Builds fresh (uplink, downlink) directions for one run."""


@dataclass(slots=True)
class Sample:
    """One packet the mobile's radio sent ("tx") or received ("rx")."""

    time: float
    way: str
    size: int  # IP octets
    what: str  # DATA, N-S_ACK, PROBE1..., or tcp / tcp-ack
    seq: int  # WWP segment number or TCP payload offset; -1 for control


@dataclass
class Bulk:
    """What one upload did."""

    protocol: str
    size: int
    complete: bool
    duration: float  # s; NaN when the transfer did not complete
    transport_bytes: int = 0  # transport headers and payload offered to the link, both ways
    sender_bytes: int = 0  # the same, the sender's direction only (no ACKs, no replies)
    ip_bytes: int = 0
    packets: int = 0
    dropped: int = 0
    retransmissions: int = 0  # data segments sent again
    timeouts: int = 0  # SEND_T/PROBE_T or RTO expiries
    probe_cycles: int = 0
    pauses: int = 0  # WWP: N-S_ACKs that set level 0
    radio: list[Sample] = field(default_factory=list, repr=False)

    @property
    def goodput(self) -> float:
        """Octets per second (paper 004: Goodput = Original Data / Connection Time)."""
        return self.size / self.duration if self.complete and self.duration > 0 else math.nan

    def row(self) -> dict[str, Any]:
        return {
            "complete": self.complete,
            "duration_s": self.duration,
            "goodput_Bps": self.goodput,
            "transport_bytes": self.transport_bytes,
            "sender_bytes": self.sender_bytes,
            "ip_bytes": self.ip_bytes,
            "packets": self.packets,
            "dropped": self.dropped,
            "retransmissions": self.retransmissions,
            "timeouts": self.timeouts,
            "probe_cycles": self.probe_cycles,
            "pauses": self.pauses,
        }


class Testbed:
    """Two hosts, one link, and the mobile's radio log."""

    def __init__(self, seed: int, link: LinkFactory) -> None:
        self.net = Network(seed)
        self.mobile = self.net.add_host("mobile", MOBILE_IP)
        self.fixed = self.net.add_host("fixed", FIXED_IP)
        up, down = link()
        self.link = self.net.connect(self.mobile, self.fixed, up, down, mtu=1500)
        self.radio: list[Sample] = []
        self.transport_bytes = {"up": 0, "down": 0}
        self.link.ab.tx_taps.append(self._tap("tx", count="up"))
        self.link.ba.tx_taps.append(self._tap("", count="down"))
        self.link.ba.rx_taps.append(self._tap("rx", count=None))

    def _tap(self, way: str, *, count: str | None) -> Callable[[float, bytes], None]:
        def tap(now: float, packet: bytes) -> None:
            header = (packet[0] & 0x0F) * 4
            if packet[9] == PROTO_TCP:
                seg = decode_segment(packet[header:])
                offset = header + (packet[header + 12] >> 4) * 4
                length = len(packet) - offset
                what, seq = ("tcp", seg.seq) if length else ("tcp-ack", -1)
                transport = len(packet) - header
            else:
                body = packet[header + UDP_HEADER :]
                wwp = decode(body, len(body))
                what, seq = wwp.kind.name, wwp.seq if wwp.kind.name == "DATA" else -1
                transport = len(body)
            if count:
                self.transport_bytes[count] += transport
            if way:
                self.radio.append(Sample(now, way, len(packet), what, seq))

        return tap

    def fill(self, result: Bulk) -> None:
        up, down = self.link.ab.stats, self.link.ba.stats
        result.transport_bytes = sum(self.transport_bytes.values())
        result.sender_bytes = self.transport_bytes["up"]
        result.ip_bytes = up.sent_bytes + down.sent_bytes
        result.packets = up.sent_packets + down.sent_packets
        result.dropped = (
            up.sent_packets - up.delivered_packets + down.sent_packets - down.delivered_packets
        )
        result.radio = self.radio


def wwp_bulk(size: int, link: LinkFactory, seed: int, config: WwpConfig) -> Bulk:
    """Upload ``size`` random octets by WWP; complete when every octet arrived in order."""
    bed = Testbed(seed, link)
    data = random.Random(seed).randbytes(size)
    sender = WwpSender((FIXED_IP, SINK_PORT), config)
    receiver = WwpReceiver(config)
    chunks: list[bytes] = []
    end: list[float] = []

    def on_receiver(event: Event) -> None:
        if isinstance(event, WwpData):
            chunks.append(event.data)

    def on_sender(event: Event) -> None:
        if isinstance(event, Finished):
            end.append(bed.net.now)

    bed.fixed.bind_udp(SINK_PORT, receiver, on_event=on_receiver)
    binding = bed.mobile.bind_udp(MOBILE_PORT, sender, on_event=on_sender)
    sender.connect(0.0)
    sender.send(data, 0.0)
    sender.close(0.0)
    binding.flush()
    bed.net.run(until=MAX_SIM_TIME)
    bed.net.close()
    complete = bool(end) and b"".join(chunks) == data
    result = Bulk("wwp", size, complete, end[0] if complete else math.nan)
    bed.fill(result)
    result.retransmissions = sender.stats.data_resent
    result.timeouts = sender.stats.timeouts
    result.probe_cycles = sender.stats.probe_cycles
    result.pauses = sender.stats.pauses
    return result


def tcp_bulk(
    size: int,
    link: LinkFactory,
    seed: int,
    config: TcpConfig,
    recorder: Recorder | None = None,
) -> Bulk:
    """Upload ``size`` random octets by TCP; the sender closes after the data, the
    receiver when it sees the FIN. ``recorder`` sees the sender's cwnd changes."""
    bed = Testbed(seed, link)
    kernel = bed.net.kernel
    data = random.Random(seed).randbytes(size)
    server = TcpEndpoint(FIXED_IP, SINK_PORT, config, kernel.stream("tcp", "fixed"))
    server.listen()
    client = TcpEndpoint(MOBILE_IP, MOBILE_PORT, config, kernel.stream("tcp", "mobile"), recorder)
    chunks: list[bytes] = []
    end: list[float] = []

    def on_server(event: Event) -> None:
        if isinstance(event, DataReceived):
            chunks.append(event.data)
        elif isinstance(event, PeerClosed):
            server.close(event.conn_id)

    def on_client(event: Event) -> None:
        if isinstance(event, ConnectionClosed):
            end.append(bed.net.now)

    bed.fixed.bind_transport(PROTO_TCP, SINK_PORT, server, on_event=on_server)
    binding = bed.mobile.bind_transport(PROTO_TCP, MOBILE_PORT, client, on_event=on_client)
    conn = client.connect((FIXED_IP, SINK_PORT), 0.0)
    client.send(conn, data)
    client.close(conn)
    binding.flush()
    bed.net.run(until=MAX_SIM_TIME)
    bed.net.close()
    complete = bool(end) and b"".join(chunks) == data
    result = Bulk(f"tcp-{config.variant.value}", size, complete, end[0] if complete else math.nan)
    bed.fill(result)
    stats = client.stats(conn)
    result.retransmissions = stats.retransmissions
    result.timeouts = stats.timeouts
    return result
