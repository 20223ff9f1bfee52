"""Hosts: an IPv4 address and sans-IO endpoints bound to protocol ports.

Each binding drives its endpoint with the one driver shape of ``core.contract``: after
any input (a datagram, a timer, or ``flush()`` after a command) drain the endpoint's
events, send its datagrams, re-arm its one timer. UDP endpoints exchange payloads and
the host writes the UDP and IPv4 headers; other transports (TCP) hand over complete
segments and the host only wraps them in IPv4 and demultiplexes arrivals by the
destination port in segment octets 2..3 (RFC 793 §3.1 puts it there for TCP as
RFC 768 does for UDP).
"""

from collections.abc import Callable

from wwanlab.core.address import Address
from wwanlab.core.contract import Endpoint
from wwanlab.core.events import Event
from wwanlab.sim.ipv4 import (
    IPV4_MIN_HEADER,
    IPV4_VERSION,
    PROTO_UDP,
    UDP_HEADER,
    IpFlow,
    UdpFlow,
    bytes_to_ip,
    ip_to_bytes,
)
from wwanlab.sim.kernel import Handle, Kernel
from wwanlab.sim.link import Channel, Node

EventCallback = Callable[[Event], None]

MAX_CACHED_FLOWS = 4096  # destinations whose headers a binding keeps prebuilt


class Binding:
    """One endpoint bound to (protocol, port) on a host, and its driver."""

    def __init__(
        self,
        host: "Host",
        protocol: int,
        port: int,
        endpoint: Endpoint,
        on_event: EventCallback | None,
    ) -> None:
        self.host = host
        self.protocol = protocol
        self.port = port
        self.endpoint = endpoint
        self.on_event = on_event
        self.events: list[Event] = []  # drained events, when there is no ``on_event``
        self._timer: Handle | None = None
        self._flows: dict[Address, UdpFlow] = {}  # by destination, for UDP
        self._ip_flows: dict[str, IpFlow] = {}  # by destination address, other protocols
        self._flushing = False
        self._again = False

    def flush(self) -> None:
        """Drain events, send datagrams and re-arm the timer; call after any command."""
        if self._flushing:  # an event callback issued a command: loop once more
            self._again = True
            return
        self._flushing = True
        endpoint = self.endpoint
        try:
            while True:
                self._again = False
                while (event := endpoint.next_event()) is not None:
                    if self.on_event is None:
                        self.events.append(event)
                    else:
                        self.on_event(event)
                for data, addr in endpoint.datagrams_to_send(self.host.kernel.now):
                    self._send(data, addr)
                if not self._again:
                    break
        finally:
            self._flushing = False
        self._arm()

    def close(self) -> None:
        """Unbind: cancel the timer and stop delivering to the endpoint."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.host.unbind(self)

    def _send(self, data: bytes, addr: Address) -> None:
        host = self.host
        if self.protocol == PROTO_UDP:
            flow = self._flows.get(addr)
            if flow is None:
                dst_ip, dst_port = addr
                flow = UdpFlow(host.address, dst_ip, self.port, dst_port)
                if len(self._flows) >= MAX_CACHED_FLOWS:
                    self._flows.clear()
                self._flows[addr] = flow
            host.send_packet(flow.packet(data, host.next_id()))
            return
        ip_flow = self._ip_flows.get(addr[0])
        if ip_flow is None:
            ip_flow = IpFlow(host.address, addr[0], self.protocol)
            if len(self._ip_flows) >= MAX_CACHED_FLOWS:
                self._ip_flows.clear()
            self._ip_flows[addr[0]] = ip_flow
        host.send_packet(ip_flow.packet(data, host.next_id()))

    def _arm(self) -> None:
        kernel = self.host.kernel
        when = self.endpoint.get_timer()
        if when is not None and when < kernel.now:
            when = kernel.now
        timer = self._timer
        if timer is not None:
            if not timer.cancelled and timer.when == when:
                return
            timer.cancel()
        self._timer = None if when is None else kernel.call_at(when, self._fire)

    def _fire(self) -> None:
        self._timer = None
        self.endpoint.handle_timer(self.host.kernel.now)
        self.flush()

    def __repr__(self) -> str:
        return f"<Binding {self.host.name} proto={self.protocol} port={self.port}>"


class Host(Node):
    """An end system with one IPv4 address; it never forwards packets."""

    def __init__(self, kernel: Kernel, name: str, address: str) -> None:
        super().__init__(kernel, name)
        self.address = address
        self.address_bytes = ip_to_bytes(address)
        self.bindings: dict[tuple[int, int], Binding] = {}
        self._next_id = 0

    def bind_udp(
        self, port: int, endpoint: Endpoint, *, on_event: EventCallback | None = None
    ) -> Binding:
        """Deliver UDP to ``port`` to ``endpoint``; its datagrams leave from ``port``."""
        return self.bind_transport(PROTO_UDP, port, endpoint, on_event=on_event)

    def bind_transport(
        self,
        protocol: int,
        port: int,
        endpoint: Endpoint,
        *,
        on_event: EventCallback | None = None,
    ) -> Binding:
        """Bind an endpoint of IP protocol ``protocol`` to a local port.

        For UDP the endpoint sends payloads; for any other protocol it sends complete
        segments (their own ports and checksum) and receives them whole.
        """
        if not (0 < port <= 0xFFFF and 0 <= protocol <= 255):
            raise ValueError(f"bad protocol {protocol} or port {port}")
        key = (protocol, port)
        if key in self.bindings:
            raise ValueError(f"{self.name}: protocol {protocol} port {port} already bound")
        binding = Binding(self, protocol, port, endpoint, on_event)
        self.bindings[key] = binding
        return binding

    def unbind(self, binding: Binding) -> None:
        if self.bindings.get((binding.protocol, binding.port)) is binding:
            del self.bindings[(binding.protocol, binding.port)]

    def next_id(self) -> int:
        """IPv4 Identification: a per-host counter (RFC 6864 §4.1 allows any for DF)."""
        ident = self._next_id
        self._next_id = (ident + 1) & 0xFFFF
        return ident

    def send_packet(self, packet: bytes) -> None:
        """Send a complete IPv4 packet toward its destination address."""
        stats = self.stats
        stats.sent_packets += 1
        stats.sent_bytes += len(packet)
        for tap in self.taps:
            tap(self.kernel.now, packet)
        destination = packet[16:20]
        if destination == self.address_bytes:
            self.kernel.post_at(self.kernel.now, self.receive, packet, None)
            return
        channel = self.routes.get(destination)
        if channel is None:
            stats.drop("no-route", len(packet))
            return
        channel.send(packet)

    def receive(self, packet: bytes, channel: Channel | None) -> None:
        """Check, demultiplex and deliver one arriving packet, or count why not.

        The checks are ``parse_ipv4``'s and ``parse_udp``'s, in their order and with
        their drop reasons, made on the bytes in place: every packet comes through here.
        """
        stats = self.stats
        size = len(packet)
        stats.received_packets += 1
        stats.received_bytes += size
        if channel is not None and self.taps:
            now = self.kernel.now
            for tap in self.taps:
                tap(now, packet)
        if size < IPV4_MIN_HEADER or packet[0] >> 4 != IPV4_VERSION:
            stats.drop("malformed", size)
            return
        hlen = (packet[0] & 0x0F) * 4
        total = packet[2] << 8 | packet[3]
        # The header is intact when its one's-complement sum is 0xFFFF, i.e. when its
        # value is a multiple of 0xFFFF (never 0 with version 4): see internet_checksum.
        if (
            hlen < IPV4_MIN_HEADER
            or total < hlen
            or total > size
            or int.from_bytes(packet[:hlen], "big") % 0xFFFF
        ):
            stats.drop("malformed", size)
            return
        if packet[16:20] != self.address_bytes:
            stats.drop("not-for-me", size)
            return
        if packet[6] & 0x3F or packet[7]:  # More Fragments or a Fragment Offset
            stats.drop("fragment", size)
            return
        protocol = packet[9]
        if protocol == PROTO_UDP:
            length = packet[hlen + 4] << 8 | packet[hlen + 5] if total - hlen >= UDP_HEADER else 0
            end = hlen + length
            if length < UDP_HEADER or end > total:
                stats.drop("malformed", size)
                return
            # RFC 768: a zero checksum means none was computed. Otherwise pseudo-header
            # (addresses in octets 12..19, protocol, length) and datagram sum to 0xFFFF;
            # an odd datagram is padded with a zero octet.
            if (packet[hlen + 6] or packet[hlen + 7]) and (
                int.from_bytes(packet[12:20], "big")
                + (PROTO_UDP << 16 | length)
                + (int.from_bytes(packet[hlen:end], "big") << (length & 1) * 8)
            ) % 0xFFFF:
                stats.drop("malformed", size)
                return
            payload = packet[hlen + UDP_HEADER : end]
        else:
            if total - hlen < 4:  # RFC 793 §3.1 and RFC 768: ports lead the segment
                stats.drop("malformed", size)
                return
            payload = packet[hlen:total]
        binding = self.bindings.get((protocol, packet[hlen + 2] << 8 | packet[hlen + 3]))
        if binding is None:
            stats.drop("no-port", size)
            return
        stats.delivered_packets += 1
        stats.delivered_bytes += size
        source = (bytes_to_ip(packet[12:16]), packet[hlen] << 8 | packet[hlen + 1])
        binding.endpoint.receive_datagram(payload, source, self.kernel.now)
        binding.flush()
