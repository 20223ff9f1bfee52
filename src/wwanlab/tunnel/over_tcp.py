"""Sealed datagrams over one TCP connection, for networks that block UDP.

Some networks (hotel and corporate firewalls, some operators' APNs) pass TCP only. The
tunnel then carries the very same sealed datagrams over one TCP connection, each behind
a 2-octet length (big-endian), so nothing above ``seal`` changes: UDP-GPRS still
numbers, acknowledges and repairs its datagrams (on TCP none is lost, so none is
resent after the first round trip). The client tries UDP first and falls back to TCP
when it has heard nothing authentic ``FALLBACK_AFTER`` after its first datagram left.

At the server a TCP connection is one more way datagrams arrive: ``TcpInbound`` hands
each to the ``TunnelServer`` under the connection's own address (``tcp_address``), so
the answer goes back on that connection. A length outside what ``seal`` accepts ends
the connection before any octet of its datagram is buffered; so do ``MAX_BAD``
datagrams that do not authenticate, and silence: a connection that has not delivered an
authentic datagram ``FIRST_DATAGRAM_WITHIN`` after it opened is closed. Nothing is ever
written to a connection before a datagram authenticated on it.
"""

from __future__ import annotations

from wwanlab.core.address import Address
from wwanlab.link.presets import WWAN_MAX_RTT
from wwanlab.transports.udp_gprs.config import KEEPALIVE_INTERVAL
from wwanlab.tunnel.seal import HEADER_LEN, MAX_DATAGRAM, TAG_LEN, key_id_of
from wwanlab.tunnel.session import TunnelServer

LENGTH_LEN = 2  # octets of the length before each datagram
MIN_DATAGRAM = HEADER_LEN + TAG_LEN  # an empty payload sealed
# Paper 003 section 3: WWAN round trips reach 3 s (the first packet after idle waits for
# a TBF). Three of them without a word back is no slow link but a blocked one: by then
# UDP-GPRS has repaired its first datagram at least once (RTO_INITIAL is 3 s).
FALLBACK_AFTER = 3 * WWAN_MAX_RTT  # 9 s
# A client on TCP sends at least every keep-alive interval (2 s), and its datagram takes
# at most one worst round trip (3 s) to cross; twice that is the grace a connection gets.
FIRST_DATAGRAM_WITHIN = 2 * (KEEPALIVE_INTERVAL + WWAN_MAX_RTT)  # 10 s
MAX_BAD = 4  # ours: datagrams that fail to authenticate before the connection closes
MAX_UNAUTHENTICATED = 256  # ours: TCP connections a server holds before one authenticates


def framed(datagram: bytes) -> bytes:
    """``datagram`` as it crosses a TCP connection: its length, then itself."""
    return len(datagram).to_bytes(LENGTH_LEN, "big") + datagram


def tcp_address(peer: Address) -> Address:
    """The address the server gives a TCP connection's datagrams: the peer's, marked,
    so a UDP peer of the same host and port number is never taken for it."""
    return (f"tcp:{peer[0]}", peer[1])


class BadLength(Exception):
    """A length no sealed datagram has: the connection is not a tunnel peer's."""


class Deframer:
    """Datagrams out of a TCP byte stream. It holds at most one datagram's octets, and
    checks each length before it waits for the octets it announces."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        """The datagrams ``data`` completes; ``BadLength`` for a length out of bounds."""
        self._buffer += data
        out = []
        while len(self._buffer) >= LENGTH_LEN:
            length = int.from_bytes(self._buffer[:LENGTH_LEN], "big")
            if not MIN_DATAGRAM <= length <= MAX_DATAGRAM:
                self._buffer.clear()
                raise BadLength(f"a length of {length} octets")
            if len(self._buffer) < LENGTH_LEN + length:
                break
            out.append(bytes(self._buffer[LENGTH_LEN : LENGTH_LEN + length]))
            del self._buffer[: LENGTH_LEN + length]
        return out


class TcpInbound:
    """One TCP connection at the server: its datagrams to ``server``, and when to hang
    up (``closed`` names why). ``client`` is the key id once a datagram authenticated."""

    def __init__(
        self,
        server: TunnelServer,
        peer: Address,
        now: float,
        within: float = FIRST_DATAGRAM_WITHIN,
    ) -> None:
        self.server = server
        self.address = tcp_address(peer)
        self.deadline = now + within
        self.deframer = Deframer()
        self.bad = 0
        self.client: bytes | None = None
        self.closed: str | None = None

    def receive_data(self, data: bytes, now: float) -> None:
        if self.closed is not None:
            return
        try:
            datagrams = self.deframer.feed(data)
        except BadLength as e:
            self.closed = str(e)
            return
        for datagram in datagrams:
            if self.closed is None:
                self._datagram(datagram, now)
        self.handle_timer(now)  # a trickle of octets does not extend the grace

    def _datagram(self, datagram: bytes, now: float) -> None:
        before = self.server.rejected.total()
        self.server.receive_datagram(datagram, self.address, now)
        if self.server.rejected.total() == before:
            self.client = key_id_of(datagram)
            return
        self.bad += 1
        if self.bad >= MAX_BAD:
            self.closed = f"{self.bad} datagrams that did not authenticate"

    def get_timer(self) -> float | None:
        return self.deadline if self.client is None and self.closed is None else None

    def handle_timer(self, now: float) -> None:
        if self.client is None and self.closed is None and now >= self.deadline:
            self.closed = "no authentic datagram in time"
