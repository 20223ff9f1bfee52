"""Split TCP (I-TCP, Bakre and Badrinath 1997; paper 002 section II): the proxy ends the
fixed host's connection to a mobile and opens its own to the mobile, and relays the
bytes between the two through a bounded buffer.

Transparent, as paper 002 places it between the GGSN and the SGSN: toward the fixed host
the proxy answers with the mobile's address and port, toward the mobile it speaks with
the fixed host's, so neither end is configured for it. Each side is one ``TcpEndpoint``
of ``wwanlab.tcp`` with a configuration of its own (the wireless side may be tuned).

| event | action |
|---|---|
| SYN from a fixed host to a mobile | the wired side (as the mobile) accepts it |
| SYN from a mobile to a fixed host (M) | the wireless side (as the fixed host) accepts it |
| any other segment of a connection not split | passed on untouched |
| wired side established | the wireless side (as the fixed host) connects |
| wireless side established (M) | the wired side (as the mobile) connects |
| bytes from the fixed host | buffered, passed on within the bound (B) |
| bytes from the mobile | passed to the wired side |
| FIN from one side | once its bytes have passed, FIN to the other |
| RST or abort on one side | abort the other |

(M): only with ``mobile_opens`` (a browser on the mobile opens its connections; paper
002's FTP data connections are opened by the fixed host, and its proxy splits only
those). Such a relay ends when both of its sides have closed.

(B): bytes pass to the wireless side while it holds fewer than ``buffer`` octets the
mobile has not acknowledged, and the wired window reopens only as they pass.

The wired side's receive window is the buffer's bound: the fixed host can never have
more than ``receive_buffer`` octets waiting at the proxy beyond what the wireless side
holds, so memory stays bounded whatever the mobile does.
"""

from __future__ import annotations

import contextlib
import dataclasses
import random
from collections import deque
from dataclasses import dataclass, field

from wwanlab.core.address import Address
from wwanlab.sim.ipv4 import PROTO_TCP, PacketError, build_ipv4, parse_ipv4
from wwanlab.tcp import (
    ConnectionAborted,
    ConnectionClosed,
    ConnectionEstablished,
    ConnectionReset,
    DataReceived,
    PeerClosed,
    TcpConfig,
    TcpEndpoint,
)
from wwanlab.tcp.errors import ConnectionNotOpen, MalformedSegment
from wwanlab.tcp.events import TcpEvent
from wwanlab.tcp.segment import ACK, SYN, decode_segment
from wwanlab.tcp.stats import TcpStats

RELAY_BUFFER = 64 * 1024  # octets the wireless side may hold unacknowledged


@dataclass
class Relay:
    """One split connection: the fixed host's ``wired`` side, the mobile's ``wireless``.

    The side that accepted the connection is a listener shared with other relays; the
    other side's endpoint belongs to the relay alone."""

    fixed: Address
    mobile: Address
    wired: TcpEndpoint
    wireless: TcpEndpoint
    wired_id: int
    wireless_id: int
    mobile_opened: bool = False
    down: deque[bytes] = field(default_factory=deque)  # fixed host -> mobile, waiting
    handed: int = 0  # octets given to the wireless side so far
    wired_fin: bool = False
    wireless_fin_sent: bool = False
    wired_closed: bool = False  # ConnectionClosed seen on that side
    wireless_closed: bool = False
    done: bool = False


class SplitProxy:
    """Split TCP for every connection a fixed host opens to an address in ``mobiles``
    and, with ``mobile_opens``, every connection such a mobile opens."""

    def __init__(
        self,
        mobiles: set[str] | frozenset[str],
        wired: TcpConfig,
        wireless: TcpConfig,
        rng: random.Random,
        *,
        buffer: int = RELAY_BUFFER,
        mobile_opens: bool = False,
    ) -> None:
        # the relay reopens the wired window itself, as the bytes pass on
        wired = dataclasses.replace(wired, auto_consume=False)
        self.mobiles = frozenset(mobiles)
        self.wired_config = wired
        self.wireless_config = wireless
        self.buffer = buffer
        self.mobile_opens = mobile_opens
        self._rng = rng
        self._listeners: dict[Address, TcpEndpoint] = {}  # the mobile's address -> wired
        self._accepting: dict[Address, TcpEndpoint] = {}  # a fixed address -> wireless
        self._relays: dict[tuple[Address, Address], Relay] = {}  # (fixed, mobile)
        self._by_wired: dict[tuple[Address, int], Relay] = {}  # (mobile, wired conn id)
        self._by_wireless: dict[tuple[Address, int], Relay] = {}  # (fixed, its conn id)
        self._out: list[bytes] = []
        self.relays: list[Relay] = []  # every relay ever made, for statistics

    # --- the PacketProxy contract -----------------------------------------------------

    def receive_packet(self, packet: bytes, now: float) -> bool:
        try:
            ip, segment = parse_ipv4(packet, verify=False)
        except PacketError:
            return True
        if ip.protocol != PROTO_TCP or len(segment) < 20:
            return True
        try:
            seg = decode_segment(segment)
        except MalformedSegment:
            return True  # the receiving TCP drops it; the proxy keeps no state for it
        opening = bool(seg.flags & SYN) and not seg.flags & ACK
        if ip.dst in self.mobiles:
            mobile, fixed = (ip.dst, seg.dst_port), (ip.src, seg.src_port)
            relay = self._relays.get((fixed, mobile))
            listener = self._listeners.get(mobile)
            if relay is None and listener is None:
                if not opening:
                    # not a fixed host opening a connection (a SYN-ACK answers the
                    # mobile's own SYN): a connection the proxy does not split
                    return True
                listener = self._listeners[mobile] = TcpEndpoint(
                    mobile[0], mobile[1], self.wired_config, self._rng
                )
                listener.listen()
            endpoint = relay.wired if relay is not None else listener
            assert endpoint is not None
            endpoint.receive_datagram(segment, fixed, now)
        elif ip.src in self.mobiles:
            mobile, fixed = (ip.src, seg.src_port), (ip.dst, seg.dst_port)
            relay = self._relays.get((fixed, mobile))
            if relay is not None:
                relay.wireless.receive_datagram(segment, mobile, now)
            elif not self.mobile_opens:
                return True
            else:
                accepting = self._accepting.get(fixed)
                if accepting is None:
                    if not opening:
                        return True
                    accepting = self._accepting[fixed] = TcpEndpoint(
                        fixed[0], fixed[1], self.wireless_config, self._rng
                    )
                    accepting.listen()
                accepting.receive_datagram(segment, mobile, now)
        else:
            return True
        self._pump(now)
        return False

    def packets_to_send(self, now: float) -> list[bytes]:
        out, self._out = self._out, []
        return out

    def get_timer(self) -> float | None:
        times = [t for e in self._endpoints() if (t := e.get_timer()) is not None]
        return min(times) if times else None

    def handle_timer(self, now: float) -> None:
        for endpoint in self._endpoints():
            timer = endpoint.get_timer()
            if timer is not None and timer <= now:
                endpoint.handle_timer(now)
        self._pump(now)

    # --- statistics ---------------------------------------------------------------------

    def wireless_stats(self) -> list[TcpStats]:
        """The proxy's own sending side toward each mobile (paper 002's "Proxy" rows)."""
        return [r.wireless.stats(r.wireless_id) for r in self.relays]

    # --- relaying -----------------------------------------------------------------------

    def _opened(self, relay: Relay) -> None:
        """Called when a relay is made, both sides' connections known; for subclasses."""

    def _endpoints(self) -> list[TcpEndpoint]:
        seen = {id(e): e for e in self._listeners.values()}
        seen.update((id(e), e) for e in self._accepting.values())
        for relay in self._relays.values():
            own = relay.wired if relay.mobile_opened else relay.wireless
            seen[id(own)] = own
        return list(seen.values())

    def _pump(self, now: float) -> None:
        """Drain every endpoint's events, relay, then collect every endpoint's segments."""
        busy = True
        while busy:
            busy = False
            for mobile, listener in list(self._listeners.items()):
                while (event := listener.next_event()) is not None:
                    busy = True
                    self._on_wired(mobile, listener, event, now)
            for fixed, accepting in list(self._accepting.items()):
                while (event := accepting.next_event()) is not None:
                    busy = True
                    self._on_accepting(fixed, accepting, event, now)
            for relay in list(self._relays.values()):
                if relay.mobile_opened:
                    while (event := relay.wired.next_event()) is not None:
                        busy = True
                        self._wired_event(relay, event, now)
                else:
                    while (event := relay.wireless.next_event()) is not None:
                        busy = True
                        self._on_wireless(relay, event)
                self._move(relay)
        for mobile, listener in self._listeners.items():
            for data, addr in listener.datagrams_to_send(now):
                self._out.append(build_ipv4(mobile[0], addr[0], PROTO_TCP, data))
        for fixed, accepting in self._accepting.items():
            for data, addr in accepting.datagrams_to_send(now):
                self._out.append(build_ipv4(fixed[0], addr[0], PROTO_TCP, data))
        for relay in list(self._relays.values()):
            if relay.mobile_opened:
                for data, addr in relay.wired.datagrams_to_send(now):
                    self._out.append(build_ipv4(relay.mobile[0], addr[0], PROTO_TCP, data))
            else:
                for data, addr in relay.wireless.datagrams_to_send(now):
                    self._out.append(build_ipv4(relay.fixed[0], addr[0], PROTO_TCP, data))
            if relay.done:
                del self._relays[(relay.fixed, relay.mobile)]
                if relay.mobile_opened:
                    del self._by_wireless[(relay.fixed, relay.wireless_id)]
                else:
                    del self._by_wired[(relay.mobile, relay.wired_id)]

    def _on_wired(self, mobile: Address, wired: TcpEndpoint, event: object, now: float) -> None:
        """An event of the wired listener that accepts fixed hosts as ``mobile``."""
        if isinstance(event, ConnectionEstablished):
            fixed = event.remote
            wireless = TcpEndpoint(fixed[0], fixed[1], self.wireless_config, self._rng)
            new = Relay(fixed, mobile, wired, wireless, event.conn_id, 0)
            new.wireless_id = wireless.connect(mobile, now)
            self._relays[(fixed, mobile)] = new
            self._by_wired[(mobile, event.conn_id)] = new
            self.relays.append(new)
            self._opened(new)
            return
        if not isinstance(event, TcpEvent):
            return
        relay = self._by_wired.get((mobile, event.conn_id))
        if relay is not None:
            self._wired_event(relay, event, now)

    def _on_accepting(
        self, fixed: Address, wireless: TcpEndpoint, event: object, now: float
    ) -> None:
        """An event of the wireless listener that accepts mobiles as ``fixed``."""
        if isinstance(event, ConnectionEstablished):
            mobile = event.remote
            wired = TcpEndpoint(mobile[0], mobile[1], self.wired_config, self._rng)
            new = Relay(fixed, mobile, wired, wireless, 0, event.conn_id, mobile_opened=True)
            new.wired_id = wired.connect(fixed, now)
            self._relays[(fixed, mobile)] = new
            self._by_wireless[(fixed, event.conn_id)] = new
            self.relays.append(new)
            self._opened(new)
            return
        if not isinstance(event, TcpEvent):
            return
        relay = self._by_wireless.get((fixed, event.conn_id))
        if relay is not None:
            self._on_wireless(relay, event)

    def _wired_event(self, relay: Relay, event: object, now: float) -> None:
        if isinstance(event, DataReceived):
            relay.down.append(event.data)
        elif isinstance(event, PeerClosed):
            relay.wired_fin = True
        elif isinstance(event, ConnectionClosed):
            relay.wired_closed = True
            relay.done = relay.done or (relay.mobile_opened and relay.wireless_closed)
        elif isinstance(event, ConnectionReset | ConnectionAborted):
            self._abort(relay, now)

    def _on_wireless(self, relay: Relay, event: object) -> None:
        if isinstance(event, DataReceived):
            # when the fixed host has gone, the mobile's bytes have nowhere to go
            with contextlib.suppress(ConnectionNotOpen):
                relay.wired.send(relay.wired_id, event.data)
        elif isinstance(event, PeerClosed):
            with contextlib.suppress(ConnectionNotOpen):
                relay.wired.close(relay.wired_id)
        elif isinstance(event, ConnectionClosed):
            relay.wireless_closed = True
            relay.done = not relay.mobile_opened or relay.wired_closed
        elif isinstance(event, ConnectionReset | ConnectionAborted):
            with contextlib.suppress(ConnectionNotOpen):
                relay.wired.abort(relay.wired_id, 0.0)
            relay.done = True

    def _move(self, relay: Relay) -> None:
        """Pass buffered bytes to the wireless side within the bound; FIN after them."""
        try:
            conn = relay.wireless.connection(relay.wireless_id)
        except ConnectionNotOpen:
            return
        # octets the mobile has acknowledged (snd_una counts the SYN once past it)
        acked = 0 if conn.snd_una == conn.iss else conn.snd_una - conn.iss - 1
        while relay.down and relay.handed - acked < self.buffer:
            chunk = relay.down.popleft()
            try:
                relay.wireless.send(relay.wireless_id, chunk)
            except ConnectionNotOpen:
                relay.down.clear()
                return
            relay.handed += len(chunk)
            relay.wired.acknowledge_received(relay.wired_id, len(chunk))
        if relay.wired_fin and not relay.down and not relay.wireless_fin_sent:
            relay.wireless_fin_sent = True
            with contextlib.suppress(ConnectionNotOpen):
                relay.wireless.close(relay.wireless_id)

    def _abort(self, relay: Relay, now: float) -> None:
        relay.down.clear()
        with contextlib.suppress(ConnectionNotOpen):
            relay.wireless.abort(relay.wireless_id, now)
        relay.done = True
