"""A UDP-GPRS endpoint: one end of a reliable, ordered message channel over UDP between
a client proxy and a server proxy (paper 003 section 4.3.2; docs/udp-gprs.md).

No handshake: the client picks a session id from its random stream and its first
datagram already carries data; the server adopts the session of the first DATA or
KEEPALIVE that could open one (a keep-alive, for a client whose first DATA were all
lost and that stalled before the server heard it). Both ends send and receive messages
the same way. States and inputs (``->`` next state; ``TABLE`` holds every pair, any
other pair is a bug)::

    IDLE     SEND       pick the session id, send within credit       -> OPEN
             DATAGRAM   (no session yet: every datagram is foreign)
             FOREIGN    drop, count                                   -> IDLE
    LISTEN   SEND       hold the message until a session opens        -> LISTEN
             OPENING    adopt the session and its address; as OPEN/DATAGRAM -> OPEN
             FOREIGN    drop, count                                   -> LISTEN
    OPEN     SEND       queue, send within credit                     -> OPEN
             DATAGRAM   take ack and credit; NAK: resend those; DATA: hold,
                        deliver whole messages in order, NAK new gaps at once,
                        else ACK                                      -> OPEN
             FOREIGN    drop, count                                   -> OPEN
             RTO        resend the newest DATA in flight, back off    -> OPEN
             NAK_DUE    NAK gaps last NAKed nak_interval ago          -> OPEN
             KEEPALIVE  nothing sent for keepalive_interval: send one -> OPEN
             SILENCE    nothing heard for stall_after: LinkStalled    -> STALLED
    STALLED  SEND       queue, send within credit                     -> STALLED
             DATAGRAM   LinkResumed; send a keep-alive at once, resend the newest
                        DATA in flight; as OPEN/DATAGRAM              -> OPEN
             FOREIGN    drop, count                                   -> STALLED
             KEEPALIVE  send one                                      -> STALLED
             DEAD       nothing heard for fail_after: ChannelFailed   -> FAILED
    FAILED   SEND       discard, count                                -> FAILED
             DATAGRAM, FOREIGN   drop                                 -> FAILED

A datagram that does not decode (length, CRC-32, version, type, flags) is dropped and
counted before the table; so is one of this session whose fields a conforming peer
never sends (an ack of DATA never sent, DATA beyond the buffer, a NAK of the future).
A fresh datagram of the session (new DATA, an ack that moves on, a keep-alive with a
higher serial) from a new address moves the peer there: re-attaching to GPRS may give
the mobile a new address, and the session id, not the address, names the session. A
stale one (a late or replayed copy) does not, so it cannot turn the path back.
In STALLED no tail probe or NAK is sent: the keep-alives probe the link, and on
resumption one tail probe and the receiver's NAKs repair what was lost.
"""

import random
from collections.abc import Callable
from enum import Enum, auto

from wwanlab.core.address import Address
from wwanlab.core.errors import WwanlabError
from wwanlab.core.events import Event
from wwanlab.transports.channel import ChannelFailed, MessageReceived
from wwanlab.transports.udp_gprs.config import UdpGprsConfig
from wwanlab.transports.udp_gprs.events import LinkResumed, LinkStalled
from wwanlab.transports.udp_gprs.inbound import Inbound, MessageTooLarge
from wwanlab.transports.udp_gprs.outbound import MAX_BACKOFF, Outbound
from wwanlab.transports.udp_gprs.packet import (
    SEQ_LIMIT,
    Kind,
    Packet,
    PacketError,
    decode,
)
from wwanlab.transports.udp_gprs.stats import UdpGprsStats


class UdpGprsError(WwanlabError):
    """Misuse of an endpoint: a message over the bound, an impossible transition."""


class State(Enum):
    IDLE = auto()  # a client before its first message
    LISTEN = auto()  # a server before a session's first datagram
    OPEN = auto()
    STALLED = auto()
    FAILED = auto()


class Input(Enum):
    SEND = auto()  # send_message()
    DATAGRAM = auto()  # a plausible datagram of this session
    OPENING = auto()  # in LISTEN: a DATA or KEEPALIVE that has heard nothing (ack 0)
    FOREIGN = auto()  # well formed, another session's (or none yet)
    RTO = auto()
    NAK_DUE = auto()
    KEEPALIVE = auto()
    SILENCE = auto()
    DEAD = auto()


S, In = State, Input
Action = Callable[["UdpGprsChannel", Packet | None, float], State]


class UdpGprsChannel:
    """One end of a UDP-GPRS session; a ``transports.channel.MessageChannel``.

    Make the mobile's end with ``client(peer, rng)`` and the proxy's with ``server()``.
    """

    def __init__(
        self, peer: Address | None, session: int | None, config: UdpGprsConfig | None = None
    ) -> None:
        self.config = config or UdpGprsConfig()
        self.peer = peer
        self.session = session
        self.state = S.IDLE if peer is not None else S.LISTEN
        self.stats = UdpGprsStats()
        self.outbound = Outbound(self.config)
        self.inbound = Inbound(self.config)
        self._rto_at: float | None = None
        self._last_sent = 0.0
        self._last_heard = 0.0
        self._stalled_at = 0.0
        self._ack_owed = False
        self._nak_owed = False
        self._peer_serial = 0  # the highest keep-alive serial heard
        self._out: list[tuple[bytes, Address]] = []
        self._events: list[Event] = []

    @classmethod
    def client(
        cls, peer: Address, rng: random.Random, config: UdpGprsConfig | None = None
    ) -> "UdpGprsChannel":
        """The end that opens the session; its id is drawn from ``rng`` now."""
        return cls(peer, rng.getrandbits(32), config)

    @classmethod
    def server(cls, config: UdpGprsConfig | None = None) -> "UdpGprsChannel":
        """The end that waits for a client's first datagram."""
        return cls(None, None, config)

    # --- commands --------------------------------------------------------------------

    def send_message(self, data: bytes, now: float) -> None:
        """Queue ``data`` as one message; raises UdpGprsError past ``max_message``."""
        if len(data) > self.config.max_message:
            raise UdpGprsError(f"message of {len(data)} octets over {self.config.max_message}")
        self._dispatch(In.SEND, None, now, data)

    @property
    def unacknowledged(self) -> int:
        """Fragments queued or in flight: 0 once the peer holds every message sent."""
        return len(self.outbound.waiting) + len(self.outbound.in_flight)

    # --- the sans-IO contract --------------------------------------------------------

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        try:
            pkt = decode(data, self.config.max_datagram)
        except PacketError:
            self.stats.malformed += 1
            return
        if self.state is S.LISTEN:
            opens = pkt.kind in (Kind.DATA, Kind.KEEPALIVE) and pkt.ack == 0
            kind = In.OPENING if opens else In.FOREIGN
        elif self.state is S.IDLE or pkt.session != self.session:
            kind = In.FOREIGN  # an idle client has sent nothing, so nothing is its session's
        else:
            kind = In.DATAGRAM
        if kind is not In.FOREIGN and not self._plausible(pkt):
            self.stats.malformed += 1
            return
        if kind is not In.FOREIGN and addr != self.peer and self.state is not S.FAILED:
            if self.peer is None:
                self.peer = addr
            elif self._fresh(pkt):
                self.stats.migrations += 1
                self.peer = addr
        self._dispatch(kind, pkt, now)

    def handle_timer(self, now: float) -> None:
        fired: set[Input] = set()  # each timer at most once: one may disarm another
        while due := [k for k, when in self._deadlines() if when <= now and k not in fired]:
            fired.add(due[0])
            self._dispatch(due[0], None, now)

    def get_timer(self) -> float | None:
        times = [when for _, when in self._deadlines()]
        return min(times) if times else None

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        out, self._out = self._out, []
        return out

    def next_event(self) -> Event | None:
        return self._events.pop(0) if self._events else None

    # --- the table -------------------------------------------------------------------

    def _dispatch(self, kind: Input, pkt: Packet | None, now: float, data: bytes = b"") -> None:
        action = TABLE.get((self.state, kind))
        if action is None:
            raise UdpGprsError(f"no transition for {kind.name} in {self.state.name}")
        if kind is In.SEND:
            self._queue(data)
        self.state = action(self, pkt, now)
        if self.state in (S.OPEN, S.STALLED):
            self._flush(now)

    def _deadlines(self) -> list[tuple[Input, float]]:
        """The armed timers in the order they are handled when due together."""
        out: list[tuple[Input, float]] = []
        if self.state is S.OPEN:
            out.append((In.SILENCE, self._last_heard + self.config.stall_after))
            if self._rto_at is not None:
                out.append((In.RTO, self._rto_at))
            nak = self.inbound.next_nak()
            if nak is not None:
                out.append((In.NAK_DUE, nak))
        elif self.state is S.STALLED:
            out.append((In.DEAD, self._last_heard + self.config.fail_after))
        if self.state in (S.OPEN, S.STALLED):
            out.append((In.KEEPALIVE, self._last_sent + self.config.keepalive_interval))
        return out

    def _open(self, pkt: Packet | None, now: float) -> State:
        self._last_heard = self._last_sent = now  # silence counts from the session's start
        return S.OPEN

    def _hold(self, pkt: Packet | None, now: float) -> State:
        return self.state

    def _discard(self, pkt: Packet | None, now: float) -> State:
        self.stats.discarded += 1
        return S.FAILED

    def _adopt(self, pkt: Packet | None, now: float) -> State:
        assert pkt is not None
        self.session = pkt.session
        self._open(pkt, now)
        return self._take(pkt, now)

    def _take(self, pkt: Packet | None, now: float) -> State:
        assert pkt is not None
        self._last_heard = now
        if pkt.kind is Kind.KEEPALIVE:
            self._peer_serial = max(self._peer_serial, pkt.seq)
        out = self.outbound
        if out.acknowledge(pkt.ack, pkt.credit, now):
            self._rto_at = now + out.rto if out.in_flight else None
        if pkt.kind is Kind.NAK:
            for first, count in pkt.missing:
                for seq in range(max(first, out.peer_ack), first + count):
                    self._resend(seq, now)
        elif pkt.kind is Kind.DATA:
            return self._data(pkt, now)
        return S.OPEN

    def _data(self, pkt: Packet, now: float) -> State:
        try:
            messages = self.inbound.take(pkt.seq, pkt.payload, pkt.end)
        except MessageTooLarge as e:
            return self._fail(str(e), now)
        self._ack_owed = True
        if messages is None:
            self.stats.duplicates += 1
            return S.OPEN
        for message in messages:
            self.stats.messages_received += 1
            self._events.append(MessageReceived(message, now))
        # GPRS delivers in order (4.3.2), so a gap is a loss: NAK it at once (``due``
        # leaves out what was NAKed less than nak_interval ago)
        self._nak_owed = self.inbound.gaps
        return S.OPEN

    def _resume(self, pkt: Packet | None, now: float) -> State:
        """The link is back: tell the peer at once (it may be stalled too) with a tail
        probe, or a keep-alive when nothing is in flight."""
        self._events.append(LinkResumed(now, now - self._stalled_at))
        state = self._take(pkt, now)
        if state is S.OPEN:
            if self.outbound.in_flight:
                self._tail_probe(now)
            else:
                self._keepalive(pkt, now)
        return state

    def _stall(self, pkt: Packet | None, now: float) -> State:
        self.stats.stalls += 1
        self._stalled_at = now
        self._rto_at = None
        self._events.append(LinkStalled(now, now - self._last_heard))
        return S.STALLED

    def _dead(self, pkt: Packet | None, now: float) -> State:
        return self._fail(f"nothing heard for {now - self._last_heard:.1f} s", now)

    def _rto(self, pkt: Packet | None, now: float) -> State:
        """The tail rule: a lost last datagram leaves no gap to NAK, so resend it; the
        receiver then NAKs any gap below it or acknowledges."""
        self.stats.tail_probes += 1
        self.outbound.backoff = min(2 * self.outbound.backoff, MAX_BACKOFF)
        self._tail_probe(now)
        return S.OPEN

    def _nak_due(self, pkt: Packet | None, now: float) -> State:
        self._nak_owed = True
        return S.OPEN

    def _keepalive(self, pkt: Packet | None, now: float) -> State:
        self.stats.keepalives_sent += 1
        serial = self.stats.keepalives_sent
        self._send(Packet(Kind.KEEPALIVE, self._session, *self._ack_credit(), serial), now)
        return self.state

    def _stray(self, pkt: Packet | None, now: float) -> State:
        self.stats.stray += 1
        return self.state

    # --- output ----------------------------------------------------------------------

    def _queue(self, data: bytes) -> None:
        if self.state is S.FAILED:
            return
        self.stats.messages_sent += 1
        self.outbound.queue(data)

    def _flush(self, now: float) -> None:
        """New DATA within credit, then an owed NAK, else an owed ACK."""
        out = self.outbound
        sent_any = False
        while out.sendable():
            seq, sent = out.take(now)
            self._send(
                Packet(Kind.DATA, self._session, *self._ack_credit(), seq, sent.end, sent.payload),
                now,
            )
            self.stats.data_sent += 1
            sent_any = True
        if sent_any:
            due = now + out.rto  # over the whole flight just sent
            if self._rto_at is None:
                self._rto_at = due  # RFC 6298 5.1
            elif out.config.line_bps:
                # ours: on a line of known rate, not before what was just sent can cross
                self._rto_at = max(self._rto_at, due)
        if self._nak_owed:
            self._nak_owed = False
            missing = self.inbound.due(now)
            if missing:
                self.stats.naks_sent += 1
                self._send(
                    Packet(Kind.NAK, self._session, *self._ack_credit(), missing=tuple(missing)),
                    now,
                )
        if self._ack_owed:
            self.stats.acks_sent += 1
            self._send(Packet(Kind.ACK, self._session, *self._ack_credit()), now)

    def _resend(self, seq: int, now: float) -> None:
        sent = self.outbound.in_flight.get(seq)
        if sent is None:
            return
        sent.resent = True
        self.stats.data_sent += 1
        self.stats.data_resent += 1
        self._send(
            Packet(Kind.DATA, self._session, *self._ack_credit(), seq, sent.end, sent.payload),
            now,
        )

    def _tail_probe(self, now: float) -> None:
        if self.outbound.in_flight:
            self._resend(max(self.outbound.in_flight), now)
            self._rto_at = now + self.outbound.rto
        else:
            self._rto_at = None

    def _send(self, pkt: Packet, now: float) -> None:
        assert self.peer is not None
        data = pkt.encode()
        self._ack_owed = False  # every datagram carries the ack
        self._last_sent = now
        self.stats.datagrams_sent += 1
        self.stats.bytes_sent += len(data)
        self._out.append((data, self.peer))

    def _fail(self, reason: str, now: float) -> State:
        self._rto_at = None
        self.outbound.waiting.clear()
        self._events.append(ChannelFailed(reason, now))
        return S.FAILED

    # --- helpers ---------------------------------------------------------------------

    @property
    def _session(self) -> int:
        assert self.session is not None
        return self.session

    def _ack_credit(self) -> tuple[int, int]:
        return self.inbound.next, self.inbound.advertised

    def _fresh(self, pkt: Packet) -> bool:
        """The datagram tells something new, so it was sent after everything seen."""
        if pkt.ack > self.outbound.peer_ack:
            return True
        if pkt.kind is Kind.KEEPALIVE:
            return pkt.seq > self._peer_serial
        inbound = self.inbound
        return pkt.kind is Kind.DATA and pkt.seq >= inbound.next and pkt.seq not in inbound.held

    def _plausible(self, pkt: Packet) -> bool:
        """What a conforming peer of this session can send."""
        out = self.outbound
        if pkt.ack > out.next_seq:
            return False  # acknowledges DATA never sent
        if pkt.kind is Kind.NAK:
            return all(first + count <= out.next_seq for first, count in pkt.missing)
        if pkt.kind is Kind.DATA:
            return pkt.seq < SEQ_LIMIT and self.inbound.plausible(pkt.seq, pkt.payload)
        return True


TABLE: dict[tuple[State, Input], Action] = {
    (S.IDLE, In.SEND): UdpGprsChannel._open,
    (S.IDLE, In.FOREIGN): UdpGprsChannel._stray,
    (S.LISTEN, In.SEND): UdpGprsChannel._hold,
    (S.LISTEN, In.OPENING): UdpGprsChannel._adopt,
    (S.LISTEN, In.FOREIGN): UdpGprsChannel._stray,
    (S.OPEN, In.SEND): UdpGprsChannel._hold,
    (S.OPEN, In.DATAGRAM): UdpGprsChannel._take,
    (S.OPEN, In.FOREIGN): UdpGprsChannel._stray,
    (S.OPEN, In.RTO): UdpGprsChannel._rto,
    (S.OPEN, In.NAK_DUE): UdpGprsChannel._nak_due,
    (S.OPEN, In.KEEPALIVE): UdpGprsChannel._keepalive,
    (S.OPEN, In.SILENCE): UdpGprsChannel._stall,
    (S.STALLED, In.SEND): UdpGprsChannel._hold,
    (S.STALLED, In.DATAGRAM): UdpGprsChannel._resume,
    (S.STALLED, In.FOREIGN): UdpGprsChannel._stray,
    (S.STALLED, In.KEEPALIVE): UdpGprsChannel._keepalive,
    (S.STALLED, In.DEAD): UdpGprsChannel._dead,
    (S.FAILED, In.SEND): UdpGprsChannel._discard,
    (S.FAILED, In.DATAGRAM): UdpGprsChannel._stray,
    (S.FAILED, In.FOREIGN): UdpGprsChannel._stray,
}
"""Every (state, input) pair that can occur; ``_dispatch`` raises on any other."""
