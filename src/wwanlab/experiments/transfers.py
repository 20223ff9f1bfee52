"""One file transfer over paper 000's testbed, by WAP or by HTTP/TCP, on the simulator.

The testbed (paper 000 section 3.1, Figure 5): a client on a 9.6 kbit/s serial line
(preset ``serial-9k6``) and a content server behind the NISTNet box, which routes and
drops. Here the client's serial link ends at a router named ``nistnet`` and the server
hangs off it on a link without delay or rate (the paper's 10/100 Mbit/s Ethernet is
about a thousand times faster than the serial line). NISTNet's drops are the preset's
Bernoulli loss, in both directions; tests may drop chosen packets with ``drop``, which
the router applies as NISTNet would: a packet going down is dropped before the serial
line (so the trace of the line never shows it), one going up after it.

Both transfers measure what the paper measured: "a connection setup, request/reply and
connection teardown/disconnect", from the client's first packet to the end of the
teardown, and goodput = file size / that time.

- ``wap_transfer``: WSP connection-oriented session over WTP class 2 with SAR (the
  sans-IO ``ClientSession`` and ``WspServer`` of ``wwanlab.wap.wsp.session``, each on its
  own ``WtpEndpoint``, all unchanged): Connect, Get, Disconnect. The server's WTP runs in
  explicit acknowledgement mode (``WtpConfig.explicit_ack``, paper 000 2.2 and Figure 3a):
  its ``WspServer`` acknowledges each method (TR-Invoke.res) and the WTP Ack leaves at
  once, before the Result; the ConnectReply, sent at once, acknowledges the Connect
  implicitly. The transfer ends when the Disconnect (class 0, unacknowledged) has left the client's
  serial line.
A ``RadioLog`` on the client records its own packets for the energy model
(``Transfer.radio``).

- ``http_transfer``: HTTP/1.0 GET over the sans-IO TCP (``HttpClient``/``HttpOrigin``):
  handshake, request, response, the server's FIN, the client's FIN. It ends when the
  client's connection has both FINs sent and acknowledged (``TcpStats.closed_at``).
"""

import dataclasses
import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from wwanlab.core.events import Event
from wwanlab.energy import RadioLog
from wwanlab.link.base import Direction, Drop
from wwanlab.link.presets import SERIAL_MTU, get_preset
from wwanlab.link.rate import Rate
from wwanlab.sim import FORWARD, Channel, Network
from wwanlab.sim.ipv4 import IPV4_MIN_HEADER, PROTO_TCP, UDP_HEADER, parse_ipv4
from wwanlab.sim.router import HookResult
from wwanlab.tcp import TcpConfig
from wwanlab.tcp.segment import decode_segment
from wwanlab.wap.wsp.constants import CONNECTION_ORIENTED_PORT, abort_reason_name
from wwanlab.wap.wsp.events import Connected, MethodInvoke, MethodResult
from wwanlab.wap.wsp.session import ClientSession, WspServer
from wwanlab.wap.wtp.pdu import (
    Abort,
    Ack,
    Invoke,
    NegativeAck,
    Pdu,
    PsnTpi,
    Result,
    SegmentedInvoke,
    SegmentedResult,
    WtpCodecError,
)
from wwanlab.wap.wtp.pdu import decode as decode_wtp
from wwanlab.wap.wtp.timers import WtpConfig
from wwanlab.web.client import HttpClient, Strategy
from wwanlab.web.events import ResponseReceived
from wwanlab.web.origin import HttpOrigin

CLIENT_IP = "10.0.0.1"
SERVER_IP = "10.0.0.2"
CLIENT_PORT = 49152  # RFC 6335 6: the first dynamic port
HTTP_PORT = 80
PATH = "/file"
URL = f"http://{SERVER_IP}{PATH}"
CONTENT_TYPE = "application/octet-stream"  # paper 000 3.1: "a binary file"

PPP_OVERHEAD = 8  # octets per packet on the serial line (serial-9k6 preset, RFC 1662)

# WTP 9.3.1 / 9.3.2: Invoke and Result headers are 3 octets, the Segmented ones 4 (PSN).
SEGMENTED_PDU_HEADER = 4
# Paper 000 3.1: "The MTU for both protocols is set to 1500 octets": WTP segments fill
# an IP packet of 1500 octets, as TCP's MSS 1460 does.
WTP_SEGMENT_SIZE = SERIAL_MTU - IPV4_MIN_HEADER - UDP_HEADER - SEGMENTED_PDU_HEADER

MAX_SIM_TIME = 3600.0  # s of virtual time before a transfer counts as failed

DropHook = Callable[[str, int, bytes], bool]
"""(direction "up" or "down", index of the packet in that direction, IP bytes) -> drop?"""


@dataclass(slots=True)
class Packet:
    """One IP packet offered to the serial link, as the trace records it."""

    direction: str  # "up" (client to server) or "down"
    sent: float  # offered to the link
    size: int  # IP octets
    what: str  # a short decoding: WTP PDU names, or TCP flags and lengths
    delivered: float | None = None  # reached the far end of the path (None: dropped)


@dataclass
class Transfer:
    """What one transfer did: time, goodput and what crossed the serial link."""

    protocol: str
    size: int
    complete: bool
    duration: float  # s from the first packet to the end of the teardown; NaN if failed
    packets_up: int = 0
    packets_down: int = 0
    ip_bytes_up: int = 0
    ip_bytes_down: int = 0
    wire_bytes: int = 0  # octets that occupied the serial line (IP + PPP framing)
    dropped_up: int = 0
    dropped_down: int = 0
    retransmissions: int = 0  # data packets sent again (WTP RID set; TCP retransmissions)
    timeouts: int = 0  # retry-timer (WTP R) or RTO expiries
    naks: int = 0  # WTP Negative Acks
    acks: int = 0  # WTP Acks, or pure TCP ACKs
    established: float = math.nan  # s: TCP handshake done at the client (HTTP only)
    response_at: float = math.nan  # s: the body's last octet reached the client (HTTP only)
    trace: list[Packet] = field(default_factory=list, repr=False)
    radio: list[tuple[float, str, int]] = field(default_factory=list, repr=False)
    """The client's own packets: (time, "tx" or "rx", IP octets), for ``wwanlab.energy``."""

    @property
    def goodput_bps(self) -> float:
        """File bits per second of the whole exchange (paper 000 Figure 7)."""
        if not self.complete or self.duration <= 0:
            return math.nan
        return self.size * 8 / self.duration

    def row(self) -> dict[str, Any]:
        """The tidy row of an experiment run (no trace)."""
        return {
            "protocol": self.protocol,
            "size": self.size,
            "complete": self.complete,
            "duration_s": self.duration,
            "goodput_bps": self.goodput_bps,
            "packets_up": self.packets_up,
            "packets_down": self.packets_down,
            "ip_bytes_up": self.ip_bytes_up,
            "ip_bytes_down": self.ip_bytes_down,
            "wire_bytes": self.wire_bytes,
            "dropped_up": self.dropped_up,
            "dropped_down": self.dropped_down,
            "retransmissions": self.retransmissions,
            "timeouts": self.timeouts,
            "naks": self.naks,
            "acks": self.acks,
        }


class Testbed:
    """Client, serial link, the NISTNet router and the server, with a packet trace."""

    def __init__(
        self, seed: int, loss: float, drop: DropHook | None = None, *, ideal: bool = False
    ) -> None:
        preset = get_preset("serial-9k6")
        self.net = Network(seed)
        self.client = self.net.add_host("client", CLIENT_IP)
        self.server = self.net.add_host("server", SERVER_IP)
        self._drop = drop
        self._count = {"up": 0, "down": 0}
        self._scripted_down = 0
        router = self.net.add_router("nistnet", hook=self._hook)
        # ideal: the same exchange on an instant, loss-free line (protocol overhead only)
        self.up = Direction([]) if ideal else preset.build("up", loss=loss)
        down = Direction([]) if ideal else preset.build("down", loss=loss)
        self.serial = self.net.connect(self.client, router, self.up, down, mtu=SERIAL_MTU)
        self.net.connect(router, self.server, Direction([]), Direction([]), mtu=SERIAL_MTU)
        self.trace: list[Packet] = []
        self._open: dict[bytes, list[Packet]] = {}
        self.serial.ab.tx_taps.append(self._tap("up"))
        self.serial.ba.tx_taps.append(self._tap("down"))
        self.client.taps.append(self._arrived_at(self.client.address_bytes))
        self.server.taps.append(self._arrived_at(self.server.address_bytes))
        self.radio = RadioLog(CLIENT_IP)
        self.client.taps.append(self.radio.tap)

    def _hook(self, packet: bytes, channel: Channel | None, now: float) -> HookResult:
        """NISTNet: scripted drops, after the serial line up and before it down."""
        if self._drop is None:
            return FORWARD
        direction = "up" if channel is self.serial.ab else "down"
        index = self._count[direction]
        self._count[direction] += 1
        if not self._drop(direction, index, packet):
            return FORWARD
        if direction == "down":
            self._scripted_down += 1  # never reaches the serial line, so not in the trace
        return Drop("scripted")

    def _tap(self, direction: str) -> Callable[[float, bytes], None]:
        def tap(now: float, packet: bytes) -> None:
            record = Packet(direction, now, len(packet), describe(packet))
            self.trace.append(record)
            self._open.setdefault(_key(packet), []).append(record)

        return tap

    def _arrived_at(self, address: bytes) -> Callable[[float, bytes], None]:
        """A host tap that marks packets addressed to the host as delivered."""

        def tap(now: float, packet: bytes) -> None:
            if packet[16:20] != address:
                return
            key = _key(packet)
            waiting = self._open.get(key)
            if waiting:
                waiting.pop(0).delivered = now
                if not waiting:
                    del self._open[key]

        return tap

    def line_free_after(self, size: int, now: float) -> float:
        """When the client's serial line has sent a packet of ``size`` offered ``now``."""
        rate = next((s for s in self.up.stages if isinstance(s, Rate)), None)
        return now if rate is None else max(now, rate.busy_until) + rate.serialization(size)

    def fill(self, transfer: Transfer) -> None:
        """Copy the serial link's counters and the trace into ``transfer``."""
        up, down = self.serial.ab.stats, self.serial.ba.stats
        transfer.packets_up, transfer.packets_down = up.sent_packets, down.sent_packets
        transfer.ip_bytes_up, transfer.ip_bytes_down = up.sent_bytes, down.sent_bytes
        transfer.dropped_up = sum(1 for p in self.trace if p.direction == "up" and not p.delivered)
        transfer.dropped_down = self._scripted_down + sum(
            1 for p in self.trace if p.direction == "down" and not p.delivered
        )
        # Up, NISTNet drops after the line (every offered packet used it); down, before.
        transfer.wire_bytes = (
            up.sent_bytes
            + PPP_OVERHEAD * up.sent_packets
            + down.delivered_bytes
            + PPP_OVERHEAD * down.delivered_packets
        )
        transfer.trace = self.trace
        transfer.radio = self.radio.packets


def _key(packet: bytes) -> bytes:
    """A packet without TTL and header checksum, which the router rewrites (RFC 791)."""
    return packet[:8] + packet[9:10] + packet[12:]


def describe(packet: bytes) -> str:
    """A one-line decoding of a simulated packet for traces and tests."""
    header, payload = parse_ipv4(packet, verify=False)
    if header.protocol == PROTO_TCP:
        seg = decode_segment(payload)
        flags = "".join(
            n for bit, n in ((2, "S"), (1, "F"), (8, "P"), (4, "R")) if seg.flags & bit
        )
        ack = "." if seg.flags & 0x10 else ""
        sack = f" sack{len(seg.sack_blocks)}" if seg.sack_blocks else ""
        return f"tcp {flags}{ack} len {len(seg.payload)}{sack}"
    try:
        pdus = decode_wtp(payload[UDP_HEADER:])
    except WtpCodecError:
        return "udp ?"
    return " + ".join(_wtp_name(p) for p in pdus)


def _wtp_name(pdu: Pdu) -> str:
    rid = " rid" if getattr(pdu, "rid", False) else ""
    match pdu:
        case Invoke():
            return f"Invoke{rid}"
        case Result():
            return f"Result{rid}{' gtr' if pdu.gtr else ''}{' ttr' if pdu.ttr else ''}"
        case SegmentedInvoke() | SegmentedResult():
            kind = "SegInvoke" if isinstance(pdu, SegmentedInvoke) else "SegResult"
            trailer = " gtr" if pdu.gtr else " ttr" if pdu.ttr else ""
            return f"{kind} {pdu.psn}{rid}{trailer}"
        case Ack():
            psn = next((t.psn for t in pdu.tpis if isinstance(t, PsnTpi)), None)
            return f"Ack{rid}{'' if psn is None else f' psn {psn}'}"
        case NegativeAck():
            return f"Nak {list(pdu.missing)}"
        case _:
            assert isinstance(pdu, Abort)
            return f"Abort {abort_reason_name(pdu.reason, pdu.abort_type)}"


def file_bytes(size: int, seed: int) -> bytes:
    """The served file: incompressible octets (paper 000 3.1: "a raw data stream")."""
    return random.Random(seed).randbytes(size)


# --- WAP ----------------------------------------------------------------------------------


def wap_transfer(
    size: int,
    loss: float,
    seed: int,
    *,
    drop: DropHook | None = None,
    pcap: str | None = None,
    ideal: bool = False,
    wtp: WtpConfig | None = None,
) -> Transfer:
    """Fetch a ``size``-octet file by WSP/WTP class 2 over the serial link.

    ``wtp`` replaces the WTP defaults (Kannel's, with segments filling the MTU) at both
    ends; the server's always runs in explicit acknowledgement mode (paper 000 3.1).
    """
    bed = Testbed(seed, loss, drop, ideal=ideal)
    net, kernel = bed.net, bed.net.kernel
    if pcap is not None:
        net.capture(bed.serial, pcap)
    data = file_bytes(size, seed)
    client_wtp = wtp or WtpConfig(segment_size=WTP_SEGMENT_SIZE)
    server_wtp = dataclasses.replace(client_wtp, explicit_ack=True)
    server = WspServer(kernel.stream("wtp", "server"), wtp_config=server_wtp)

    def on_server(event: Event) -> None:
        if isinstance(event, MethodInvoke):
            # the web server answers at once; the explicit Ack is already queued ahead
            server.reply(event.handle, 200, (("Content-Type", CONTENT_TYPE),), data, kernel.now)

    bed.server.bind_udp(CONNECTION_ORIENTED_PORT, server, on_event=on_server)
    session = ClientSession(
        (SERVER_IP, CONNECTION_ORIENTED_PORT),
        kernel.stream("wtp", "client"),
        wtp_config=client_wtp,
    )
    bodies: list[bytes] = []

    def on_client(event: Event) -> None:
        if isinstance(event, Connected):
            session.get(URL, kernel.now)
        elif isinstance(event, MethodResult):
            bodies.append(event.body)
            session.disconnect(kernel.now)

    binding = bed.client.bind_udp(CLIENT_PORT, session, on_event=on_client)
    end: list[float] = []

    def see_disconnect_off(now: float, packet: bytes) -> None:
        """The Disconnect (class 0 Invoke after the reply) ends the measurement when
        its last bit has left the client's serial line."""
        if bodies and not end and describe(packet) == "Invoke":
            end.append(bed.line_free_after(len(packet), now))

    bed.serial.ab.tx_taps.append(see_disconnect_off)
    session.connect(kernel.now)
    binding.flush()
    net.run(until=MAX_SIM_TIME)
    net.close()
    complete = bodies == [data] and bool(end)
    result = Transfer("wap", size, complete, end[0] if complete else math.nan)
    bed.fill(result)
    for pkt in bed.trace:
        result.naks += pkt.what.count("Nak")
        result.acks += pkt.what.count("Ack")
        if " rid" in pkt.what and "Ack" not in pkt.what:
            result.retransmissions += 1
    fired = session.wtp.fired + server.wtp.fired
    result.timeouts = sum(n for name, n in fired.items() if "/TIMER_TO_R/" in name)
    return result


# --- HTTP/TCP -----------------------------------------------------------------------------


def http_transfer(
    size: int,
    loss: float,
    seed: int,
    *,
    variant: str = "sack",
    drop: DropHook | None = None,
    pcap: str | None = None,
    ideal: bool = False,
    tcp: TcpConfig | None = None,
) -> Transfer:
    """Fetch a ``size``-octet file by HTTP/1.0 over TCP ``variant`` on the serial link
    (``tcp`` replaces the variant's RFC defaults)."""
    bed = Testbed(seed, loss, drop, ideal=ideal)
    net, kernel = bed.net, bed.net.kernel
    if pcap is not None:
        net.capture(bed.serial, pcap)
    data = file_bytes(size, seed)
    config = tcp or TcpConfig.for_variant(variant)
    origin = HttpOrigin(SERVER_IP, HTTP_PORT, config, kernel.stream("tcp", "server"), {PATH: data})
    bed.server.bind_transport(PROTO_TCP, HTTP_PORT, origin)
    client = HttpClient(
        CLIENT_IP,
        (SERVER_IP, HTTP_PORT),
        config,
        kernel.stream("tcp", "client"),
        Strategy("HTTP/1.0"),
        first_port=CLIENT_PORT,
        max_ports=1,
    )
    binding = bed.client.bind_transport(PROTO_TCP, CLIENT_PORT, client)
    client.get(PATH, kernel.now)
    binding.flush()
    net.run(until=MAX_SIM_TIME)
    net.close()
    responses = [e for e in binding.events if isinstance(e, ResponseReceived)]
    bodies = [e.body for e in responses]
    client_tcp = client.stack.endpoint(CLIENT_PORT)
    stats = client_tcp.stats(1)
    try:
        server_stats = [origin.tcp.stats(1)]
    except KeyError:  # the SYN never arrived
        server_stats = []
    complete = bodies == [data] and stats.closed_at is not None
    duration = stats.closed_at if complete and stats.closed_at is not None else math.nan
    result = Transfer(f"http-{variant}", size, complete, duration)
    if complete:
        result.response_at = responses[0].at
        result.established = stats.established_at or math.nan
    bed.fill(result)
    both = [stats, *server_stats]
    result.retransmissions = sum(s.retransmissions for s in both)
    result.timeouts = sum(s.timeouts for s in both)
    result.acks = sum(s.pure_acks_sent for s in both)
    return result
