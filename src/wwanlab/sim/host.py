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
    PROTO_UDP,
    PacketError,
    build_ipv4,
    build_udp,
    ip_to_bytes,
    parse_ipv4,
    parse_udp,
)
from wwanlab.sim.kernel import Handle, Kernel
from wwanlab.sim.link import Channel
from wwanlab.sim.node import Node

EventCallback = Callable[[Event], None]


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
        dst_ip, dst_port = addr
        if self.protocol == PROTO_UDP:
            data = build_udp(host.address, dst_ip, self.port, dst_port, data)
        host.send_packet(
            build_ipv4(host.address, dst_ip, self.protocol, data, identification=host.next_id())
        )

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
        if packet[16:20] == self.address_bytes:
            self.kernel.call_at(self.kernel.now, self.receive, packet, None)
            return
        channel = self._route(packet)
        if channel is None:
            stats.drop("no-route", len(packet))
            return
        channel.send(packet)

    def receive(self, packet: bytes, channel: Channel | None) -> None:
        stats = self.stats
        size = len(packet)
        stats.received_packets += 1
        stats.received_bytes += size
        if channel is not None:
            for tap in self.taps:
                tap(self.kernel.now, packet)
        try:
            header, payload = parse_ipv4(packet)
            if header.dst != self.address:
                stats.drop("not-for-me", size)
                return
            if header.more_fragments or header.fragment_offset:
                stats.drop("fragment", size)
                return
            if header.protocol == PROTO_UDP:
                udp, payload = parse_udp(packet[12:16], packet[16:20], payload)
                src_port, dst_port = udp.src_port, udp.dst_port
            else:
                if len(payload) < 4:
                    raise PacketError(f"segment of {len(payload)} octets has no ports")
                src_port = int.from_bytes(payload[0:2], "big")
                dst_port = int.from_bytes(payload[2:4], "big")
        except PacketError:
            stats.drop("malformed", size)
            return
        binding = self.bindings.get((header.protocol, dst_port))
        if binding is None:
            stats.drop("no-port", size)
            return
        stats.delivered_packets += 1
        stats.delivered_bytes += size
        binding.endpoint.receive_datagram(payload, (header.src, src_port), self.kernel.now)
        binding.flush()
