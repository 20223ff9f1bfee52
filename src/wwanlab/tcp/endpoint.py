"""A sans-IO TCP endpoint: one local address and port, many connections.

The driver hands it complete TCP segments (the IP layer stays with the driver) and
takes complete segments back, each with the remote address to send it to. Connections
are demultiplexed by remote address; a listening endpoint accepts any number of them.
"""

import random

from wwanlab.core.address import Address
from wwanlab.core.events import Event
from wwanlab.tcp import segment as wire
from wwanlab.tcp.config import TcpConfig
from wwanlab.tcp.connection import SEQ_MOD, TcpConnection
from wwanlab.tcp.errors import ConnectionNotOpen, MalformedSegment
from wwanlab.tcp.segment import ACK, RST, SYN, Segment
from wwanlab.tcp.state import State
from wwanlab.tcp.stats import Recorder, TcpStats


class TcpEndpoint:
    """All TCP connections of ``(local_ip, local_port)``; see ``wwanlab.core.contract``."""

    def __init__(
        self,
        local_ip: str,
        local_port: int,
        config: TcpConfig,
        rng: random.Random,
        recorder: Recorder | None = None,
    ) -> None:
        self.local: Address = (local_ip, local_port)
        self.config = config
        self._rng = rng
        self._recorder = recorder
        self._listening = False
        self._by_remote: dict[Address, TcpConnection] = {}
        self._by_id: dict[int, TcpConnection] = {}
        self._pending: set[int] = set()  # connections whose commands await output
        self._out: list[tuple[bytes, Address]] = []
        self._events: list[Event] = []
        self._pseudo_sums: dict[str, int] = {}
        self.bad_segments = 0  # dropped for checksum or format errors

    # --- commands ---------------------------------------------------------------------

    def listen(self) -> None:
        """Accept connections from any remote address (RFC 9293 3.10.1, passive OPEN)."""
        self._listening = True

    def connect(self, remote: Address, now: float) -> int:
        """Open a connection to ``remote`` (active OPEN); returns its connection id."""
        if remote in self._by_remote:
            raise ConnectionNotOpen(f"a connection to {remote} already exists")
        conn = self._new(remote)
        conn.open_active(now)
        return conn.conn_id

    def send(self, conn_id: int, data: bytes) -> None:
        """Queue ``data`` (RFC 9293 3.10.2); it leaves at the next ``datagrams_to_send``."""
        conn = self._open(conn_id)
        if not conn.can_send:
            raise ConnectionNotOpen(f"connection {conn_id} is closing")
        conn.send(data)
        self._pending.add(conn_id)

    def close(self, conn_id: int) -> None:
        """Send a FIN after the queued data (RFC 9293 3.10.4)."""
        conn = self._open(conn_id)
        if not conn.can_send:
            raise ConnectionNotOpen(f"connection {conn_id} is already closing")
        conn.close()
        if conn.closed:
            self._forget(conn)
        else:
            self._pending.add(conn_id)

    def acknowledge_received(self, conn_id: int, size: int) -> None:
        """With ``auto_consume=False``: the user has taken ``size`` delivered bytes, so
        the receive window may reopen (as h2's ``acknowledge_received_data``)."""
        self.connection(conn_id).acknowledge_received(size)
        self._pending.add(conn_id)

    def abort(self, conn_id: int, now: float) -> None:
        """Reset the connection (RFC 9293 3.10.5)."""
        conn = self._open(conn_id)
        conn.abort(now, "user abort")
        self._forget(conn)

    # --- queries ----------------------------------------------------------------------

    def connection(self, conn_id: int) -> TcpConnection:
        """The connection object (open or finished), for state, cwnd and stats."""
        try:
            return self._by_id[conn_id]
        except KeyError:
            raise ConnectionNotOpen(f"no connection {conn_id}") from None

    def stats(self, conn_id: int) -> TcpStats:
        return self.connection(conn_id).stats

    def state(self, conn_id: int) -> State:
        return self.connection(conn_id).state

    @property
    def open_connections(self) -> list[int]:
        return [c.conn_id for c in self._by_remote.values()]

    # --- the sans-IO contract ---------------------------------------------------------

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        """Take one TCP segment that came from ``addr``."""
        pseudo = self._pseudo_sums.get(addr[0])
        if pseudo is None:
            pseudo = self._pseudo_sums[addr[0]] = wire.pseudo_header_sum(addr[0], self.local[0])
        try:
            if not wire.checksum_ok(data, pseudo):
                raise MalformedSegment("bad checksum")
            seg = wire.decode_segment(data)
        except MalformedSegment:
            self.bad_segments += 1
            return
        if seg.dst_port != self.local[1]:
            self.bad_segments += 1
            return
        # The segment's own source port is authoritative: drivers that see only IP
        # addresses (a host multiplexing by port, a test harness) may pass any port.
        addr = (addr[0], seg.src_port)
        conn = self._by_remote.get(addr)
        if conn is not None and conn.accepts_new_syn(seg):
            conn.end_time_wait(now)  # RFC 1122 4.2.2.13: a new SYN may end TIME-WAIT
            self._forget(conn)
            conn = None
        if conn is None:
            self._no_connection(seg, addr, now)
            return
        conn.on_segment(seg, now)
        if conn.closed:
            self._forget(conn)

    def handle_timer(self, now: float) -> None:
        for conn in list(self._by_remote.values()):
            timer = conn.get_timer()
            if timer is not None and timer <= now:
                conn.handle_timer(now)
                if conn.closed:
                    self._forget(conn)

    def get_timer(self) -> float | None:
        best: float | None = None
        for conn in self._by_remote.values():
            t = conn.get_timer()
            if t is not None and (best is None or t < best):
                best = t
        return best

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        for conn_id in sorted(self._pending):
            conn = self._by_id[conn_id]
            if not conn.closed:
                conn.output(now)
        self._pending.clear()
        out = self._out[:]
        self._out.clear()  # connections hold this list: empty it in place
        return out

    def next_event(self) -> Event | None:
        if self._events:
            return self._events.pop(0)
        return None

    # --- internals --------------------------------------------------------------------

    def _new(self, remote: Address) -> TcpConnection:
        conn_id = len(self._by_id) + 1
        conn = TcpConnection(
            conn_id,
            self.local,
            remote,
            self.config,
            self._rng,
            self._out,
            self._events,
            self._recorder,
        )
        self._by_id[conn_id] = conn
        self._by_remote[remote] = conn
        return conn

    def _open(self, conn_id: int) -> TcpConnection:
        conn = self.connection(conn_id)
        if conn.closed or self._by_remote.get(conn.remote) is not conn:
            raise ConnectionNotOpen(f"connection {conn_id} is closed")
        return conn

    def _forget(self, conn: TcpConnection) -> None:
        if self._by_remote.get(conn.remote) is conn:
            del self._by_remote[conn.remote]
        self._pending.discard(conn.conn_id)

    def _no_connection(self, seg: Segment, addr: Address, now: float) -> None:
        """RFC 9293 3.10.7.1 (CLOSED) and 3.10.7.2 (LISTEN)."""
        if seg.flags & RST:
            return
        if self._listening and seg.flags & SYN and not seg.flags & ACK:
            self._new(addr).open_passive(seg, now)
            return
        if seg.flags & ACK:
            seq, ack, flags = seg.ack, 0, RST
        else:
            seg_len = len(seg.payload) + (1 if seg.flags & SYN else 0) + (seg.flags & 1)
            seq, ack, flags = 0, (seg.seq + seg_len) % SEQ_MOD, RST | ACK
        pseudo = wire.pseudo_header_sum(self.local[0], addr[0])
        reset = wire.encode_segment(self.local[1], addr[1], seq, ack, flags, 0, b"", b"", pseudo)
        self._out.append((reset, addr))
