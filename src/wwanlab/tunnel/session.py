"""The tunnel's sans-IO ends: sealed UDP-GPRS channels carrying multiplexed streams.

``SealedChannel`` puts ``seal`` under any message channel: datagrams are opened before
the channel sees them (a datagram that does not authenticate is counted by reason and
never answered) and sealed as they leave. ``Streams`` keeps one side's streams on such a
channel and turns frames into events. ``TunnelClient`` is the mobile's end (one channel
to the server); ``TunnelServer`` serves every client whose key it holds on one socket,
one channel each, and creates no state for a datagram that does not authenticate.

Stream states, per side (``->`` next; any other frame for a stream is a peer's error
and resets it). The opener may send DATA right behind its OPEN, without waiting a round
trip for OPENED (on GPRS that round trip is 0.6-3 s), so the side that receives an OPEN
holds the stream OPEN at once; the side that sent it holds it OPENING::

    OPENING   OPENED -> OPEN          REFUSED, RESET -> gone
    OPEN      DATA, CLOSE (peer done: half-closed) -> OPEN      RESET -> gone
              CLOSE sent and received (both done) -> gone
"""

from __future__ import annotations

import random
import zlib
from collections import Counter, deque
from dataclasses import dataclass, field

from wwanlab.core.address import Address
from wwanlab.core.events import Event
from wwanlab.transports.channel import ChannelFailed, MessageChannel, MessageReceived
from wwanlab.transports.udp_gprs import UdpGprsChannel, UdpGprsConfig
from wwanlab.transports.udp_gprs.packet import MAX_CREDIT
from wwanlab.tunnel.frames import (
    DEFLATE,
    MAX_DATA,
    MAX_PROXY,
    Frame,
    FrameError,
    Kind,
    Refusal,
    Techniques,
    decode,
)
from wwanlab.tunnel.seal import (
    HEADER_LEN,
    MAX_DATAGRAM,
    TAG_LEN,
    Association,
    Keys,
    Opener,
    Rejected,
    Sealer,
    client_pair,
    key_id_of,
    server_pair,
)

SEEN_ASSOCIATIONS = 64  # ours: a key's past associations remembered (restarts per MAX_SKEW)
MAX_STREAMS = 256  # ours: open streams per client (a browser opens tens at most)
MAX_INFLATE = 64 * MAX_DATA  # octets one DATA frame may inflate to: a bomb's bound
DEFLATE_INPUT = MAX_DATA - 64  # octets per compressed frame: incompressible ones grow by 5
# The whole 16-bit credit, not UDP-GPRS's 5,914 octets sized to keep a GPRS 3+1 cell's
# buffer low (paper 003 4.3.2): a page load is what the tunnel is for, and measured with
# Chromium (docs/tunnel.md) the full credit loaded paper 003's mail page as fast over
# gprs-one-user and in half the time over a 10 Mbit/s, 50 ms link. --credit lowers it.
CHANNEL_CONFIG = UdpGprsConfig(
    max_datagram=MAX_DATAGRAM - HEADER_LEN - TAG_LEN, credit=MAX_CREDIT, buffer=MAX_CREDIT
)


@dataclass(frozen=True, slots=True)
class TunnelEvent(Event):
    """Base of the tunnel's stream events; ``client`` is the key id (server side)."""

    stream: int
    client: bytes = b""


@dataclass(frozen=True, slots=True)
class OpenRequested(TunnelEvent):
    host: str = ""
    port: int = 0


@dataclass(frozen=True, slots=True)
class StreamOpened(TunnelEvent):
    pass


@dataclass(frozen=True, slots=True)
class StreamRefused(TunnelEvent):
    refusal: Refusal = Refusal.UNREACHABLE
    reason: str = ""


@dataclass(frozen=True, slots=True)
class StreamData(TunnelEvent):
    data: bytes = b""


@dataclass(frozen=True, slots=True)
class StreamClosed(TunnelEvent):
    """The peer sends no more on this stream (our side may still send)."""


@dataclass(frozen=True, slots=True)
class StreamReset(TunnelEvent):
    """The stream is gone both ways."""


@dataclass(frozen=True, slots=True)
class ProxyMessage(Event):
    """A dual-proxy message from the peer, with the techniques the peer runs."""

    data: bytes
    techniques: Techniques
    client: bytes = b""


@dataclass(frozen=True, slots=True)
class TunnelFailed(Event):
    """A client's channel failed or its peer broke the frame rules; its streams are gone."""

    reason: str
    client: bytes = b""


class SealedChannel:
    """A message channel whose every datagram is sealed (``seal``)."""

    def __init__(self, channel: MessageChannel, sealer: Sealer, opener: Opener) -> None:
        self.channel = channel
        self.sealer = sealer
        self.opener = opener
        self.rejected: Counter[str] = Counter()

    def send_message(self, data: bytes, now: float) -> None:
        self.channel.send_message(data, now)

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        try:
            plain = self.opener.open(data)
        except Rejected as e:
            self.rejected[e.reason] += 1
            return
        self.channel.receive_datagram(plain, addr, now)

    def handle_timer(self, now: float) -> None:
        self.channel.handle_timer(now)

    def get_timer(self) -> float | None:
        return self.channel.get_timer()

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        return [(self.sealer.seal(d), a) for d, a in self.channel.datagrams_to_send(now)]

    def next_event(self) -> Event | None:
        return self.channel.next_event()


class Deflate:
    """A stream's two raw DEFLATE streams (RFC 1951): ours, flushed at every frame, and
    the peer's, inflated with a bound per frame (``limit`` octets)."""

    def __init__(self, limit: int = MAX_INFLATE) -> None:
        self._out = zlib.compressobj(6, zlib.DEFLATED, -15)
        self._in = zlib.decompressobj(-15)
        self.limit = limit

    def compress(self, data: bytes) -> bytes:
        return self._out.compress(data) + self._out.flush(zlib.Z_SYNC_FLUSH)

    def inflate(self, data: bytes) -> bytes:
        """The octets ``data`` stands for; ``FrameError`` past ``limit`` or for data
        that is not DEFLATE."""
        try:
            out = self._in.decompress(data, self.limit)
        except zlib.error as e:
            raise FrameError(f"a frame that does not inflate: {e}") from None
        if self._in.unconsumed_tail:
            raise FrameError(f"a frame that inflates past {self.limit} octets")
        return out


@dataclass
class Streams:
    """One side's streams on one channel: frames in, events out."""

    channel: SealedChannel
    client: bytes = b""
    opening: set[int] = field(default_factory=set)
    open: set[int] = field(default_factory=set)
    deflate: dict[int, Deflate] = field(default_factory=dict)
    closed_out: set[int] = field(default_factory=set)  # we sent CLOSE
    closed_in: set[int] = field(default_factory=set)  # the peer sent CLOSE
    failed: bool = False
    # PROXY frames of a side whose techniques compress: one DEFLATE stream each way for
    # the association, so the URLs and header fields of a page's objects, much alike,
    # cross once (paper 003 4.1.1)
    proxy_deflate: Deflate = field(default_factory=lambda: Deflate(MAX_PROXY))

    def send(self, frame: Frame, now: float) -> None:
        if self.failed:
            return
        self.channel.send_message(frame.encode(), now)
        if frame.kind is Kind.CLOSE and frame.stream in self.open | self.opening:
            self._closed(frame.stream, self.closed_out, self.closed_in)

    def _closed(self, stream: int, this_way: set[int], other_way: set[int]) -> None:
        """A stream done one way; done both ways it is forgotten (its state freed)."""
        if stream in other_way:
            self.forget(stream)
        else:
            this_way.add(stream)

    def send_data(self, stream: int, data: bytes, now: float) -> None:
        """``data`` on ``stream`` as DATA frames (compressed where the stream is)."""
        codec = self.deflate.get(stream)
        step = MAX_DATA if codec is None else DEFLATE_INPUT
        for i in range(0, len(data), step):
            piece = data[i : i + step]
            if codec is not None:
                piece = codec.compress(piece)
            self.send(Frame(Kind.DATA, stream, piece), now)

    def events(self) -> list[Event]:
        """Everything the channel delivered since the last call, as stream events."""
        out: list[Event] = []
        while (event := self.channel.next_event()) is not None:
            if isinstance(event, MessageReceived) and not self.failed:
                try:
                    out.extend(self._frame(decode(event.data), event.at))
                except FrameError as e:
                    out.append(self._fail(f"peer broke the frame rules: {e}"))
            elif isinstance(event, ChannelFailed) and not self.failed:
                out.append(self._fail(f"channel failed: {event.reason}"))
        return out

    def holds(self, stream: int) -> bool:
        """Whether ``stream`` is still open, one way at least."""
        return stream in self.open or stream in self.opening

    def forget(self, stream: int) -> None:
        self.opening.discard(stream)
        self.open.discard(stream)
        self.deflate.pop(stream, None)
        self.closed_out.discard(stream)
        self.closed_in.discard(stream)

    def _fail(self, reason: str) -> TunnelFailed:
        self.failed = True
        for held in (self.opening, self.open, self.deflate, self.closed_out, self.closed_in):
            held.clear()
        return TunnelFailed(reason, self.client)

    def send_proxy(self, data: bytes, techniques: Techniques, now: float) -> None:
        """One dual-proxy message to the peer (at most ``MAX_PROXY_MESSAGE`` octets)."""
        if techniques.compress:
            data = self.proxy_deflate.compress(data)
        self.send(Frame(Kind.PROXY, 0, data, techniques=techniques), now)

    def _frame(self, f: Frame, now: float) -> list[Event]:
        s, c = f.stream, self.client
        if f.kind is Kind.PROXY:
            assert f.techniques is not None
            data = f.data
            if f.techniques.compress:
                data = self.proxy_deflate.inflate(data)  # FrameError fails the channel
            return [ProxyMessage(data, f.techniques, c)] if data else []
        if f.kind is Kind.OPEN:
            if s in self.open or s in self.opening:
                raise FrameError(f"OPEN of stream {s}, which is open")
            if len(self.open) + len(self.opening) >= MAX_STREAMS:
                self.send(Frame(Kind.REFUSED, s, b"too many streams", refusal=Refusal.LIMIT), now)
                return []
            self.open.add(s)  # the opener may send at once: data rides behind its OPEN
            if f.flags & DEFLATE:
                self.deflate[s] = Deflate()
            return [OpenRequested(s, c, f.host, f.port)]
        if s not in self.open and s not in self.opening:
            return []  # a frame that crossed our RESET: nothing left to tell
        if f.kind is Kind.OPENED and s in self.opening:
            self.opening.discard(s)
            self.open.add(s)
            return [StreamOpened(s, c)]
        if f.kind is Kind.REFUSED and s in self.opening:
            self.forget(s)
            assert f.refusal is not None
            return [StreamRefused(s, c, f.refusal, f.data.decode("utf-8", "replace"))]
        if f.kind is Kind.RESET:
            self.forget(s)
            return [StreamReset(s, c)]
        if f.kind is Kind.DATA and s in self.open and s not in self.closed_in:
            codec = self.deflate.get(s)
            if codec is None:
                return [StreamData(s, c, f.data)]
            try:
                data = codec.inflate(f.data)
            except FrameError:
                self.forget(s)
                self.send(Frame(Kind.RESET, s), now)
                return [StreamReset(s, c)]
            return [StreamData(s, c, data)] if data else []
        if f.kind is Kind.CLOSE and s in self.open and s not in self.closed_in:
            self._closed(s, self.closed_in, self.closed_out)
            return [StreamClosed(s, c)]
        self.forget(s)
        self.send(Frame(Kind.RESET, s), now)
        return [StreamReset(s, c)]


class TunnelClient:
    """The mobile's end: one sealed UDP-GPRS channel to ``server``; a sans-IO endpoint
    with the commands ``open_stream``, ``send``, ``close`` and ``reset``."""

    def __init__(
        self,
        server: Address,
        keys: Keys,
        rng: random.Random,
        wall: float,
        config: UdpGprsConfig = CHANNEL_CONFIG,
    ) -> None:
        sealer, opener = client_pair(keys, Association.new(wall, rng.getrandbits(32)))
        channel = UdpGprsChannel.client(server, rng, config)
        self.streams = Streams(SealedChannel(channel, sealer, opener))
        self._next_stream = 1
        self._events: list[Event] = []

    def open_stream(self, host: str, port: int, now: float, *, compress: bool = True) -> int:
        """A new stream to ``host``:``port``, its octets compressed both ways unless
        ``compress`` is off (for content already compressed, such as TLS)."""
        stream = self._next_stream
        self._next_stream += 2
        self.streams.opening.add(stream)
        if compress:
            self.streams.deflate[stream] = Deflate()
        flags = DEFLATE if compress else 0
        self.streams.send(Frame(Kind.OPEN, stream, host=host, port=port, flags=flags), now)
        return stream

    def send(self, stream: int, data: bytes, now: float) -> None:
        self.streams.send_data(stream, data, now)

    def close(self, stream: int, now: float) -> None:
        self.streams.send(Frame(Kind.CLOSE, stream), now)

    def send_proxy(self, data: bytes, techniques: Techniques, now: float) -> None:
        self.streams.send_proxy(data, techniques, now)

    def holds(self, stream: int) -> bool:
        return self.streams.holds(stream)

    def reset(self, stream: int, now: float) -> None:
        self.streams.forget(stream)
        self.streams.send(Frame(Kind.RESET, stream), now)

    @property
    def heard(self) -> bool:
        """Whether a datagram from the server has authenticated (over TCP or UDP)."""
        return self.streams.channel.opener.window.newest >= 0

    @property
    def unacknowledged(self) -> int:
        """Fragments queued or in flight on the channel (for back-pressure)."""
        channel = self.streams.channel.channel
        assert isinstance(channel, UdpGprsChannel)
        return channel.unacknowledged

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        self.streams.channel.receive_datagram(data, addr, now)
        self._events += self.streams.events()

    def handle_timer(self, now: float) -> None:
        self.streams.channel.handle_timer(now)
        self._events += self.streams.events()

    def get_timer(self) -> float | None:
        return self.streams.channel.get_timer()

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        return self.streams.channel.datagrams_to_send(now)

    def next_event(self) -> Event | None:
        self._events += self.streams.events()
        return self._events.pop(0) if self._events else None


class TunnelServer:
    """Every client whose key is in ``keyring`` on one socket: a sans-IO endpoint whose
    events carry the client's key id, with the commands ``accept``, ``refuse``,
    ``send``, ``close`` and ``reset``.

    A datagram creates state only once it authenticates under a known key. Each key has
    one association at a time; one that is timely (``seal.Association``), not older than
    the current one and not among the key's last ``SEEN_ASSOCIATIONS`` replaces it, so a
    restarted client is served at once (even within the same second) and a recorded old
    run never again.
    ``wall_offset`` turns the ``now`` given in (any monotonic clock) into Unix time.
    """

    def __init__(self, keyring: list[Keys], wall_offset: float) -> None:
        self.keys = {k.key_id: k for k in keyring}
        self.wall_offset = wall_offset
        self.clients: dict[bytes, Streams] = {}
        self.associations: dict[bytes, Association] = {}
        self.seen: dict[bytes, deque[Association]] = {}
        self.rejected: Counter[str] = Counter()
        self._events: list[Event] = []

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        try:
            key_id = key_id_of(data)
        except Rejected as e:
            self.rejected[e.reason] += 1
            return
        keys = self.keys.get(key_id)
        if keys is None:
            self.rejected["key"] += 1
            return
        association = Association.of(data)
        streams = self.clients.get(key_id)
        if association != self.associations.get(key_id):
            streams = self._associate(keys, association, data, now)
            if streams is None:
                return
        assert streams is not None
        before = streams.channel.rejected.total()
        streams.channel.receive_datagram(data, addr, now)
        if streams.channel.rejected.total() > before:
            self.rejected.update(streams.channel.rejected)
            streams.channel.rejected.clear()
        self._events += streams.events()

    def _associate(
        self, keys: Keys, association: Association, data: bytes, now: float
    ) -> Streams | None:
        """A new association's channel, if it is newer, timely and authentic."""
        current = self.associations.get(keys.key_id)
        seen = self.seen.setdefault(keys.key_id, deque(maxlen=SEEN_ASSOCIATIONS))
        stale = current is not None and association.started < current.started
        if stale or association in seen or not association.timely(now + self.wall_offset):
            self.rejected["association"] += 1
            return None
        sealer, opener = server_pair(keys, association)
        try:
            opener.open(data, accept=False)
        except Rejected as e:
            self.rejected[e.reason] += 1
            return None
        if keys.key_id in self.clients:
            self._events.append(TunnelFailed("client started a new association", keys.key_id))
        streams = Streams(
            SealedChannel(UdpGprsChannel.server(CHANNEL_CONFIG), sealer, opener), keys.key_id
        )
        self.clients[keys.key_id] = streams
        self.associations[keys.key_id] = association
        seen.append(association)
        return streams

    def accept(self, client: bytes, stream: int, now: float) -> None:
        streams = self.clients[client]
        if stream in streams.open:
            streams.send(Frame(Kind.OPENED, stream), now)

    def refuse(self, client: bytes, stream: int, refusal: Refusal, why: str, now: float) -> None:
        streams = self.clients[client]
        streams.forget(stream)
        streams.send(Frame(Kind.REFUSED, stream, why.encode()[:200], refusal=refusal), now)

    def send(self, client: bytes, stream: int, data: bytes, now: float) -> None:
        self.clients[client].send_data(stream, data, now)

    def close(self, client: bytes, stream: int, now: float) -> None:
        self.clients[client].send(Frame(Kind.CLOSE, stream), now)

    def send_proxy(self, client: bytes, data: bytes, techniques: Techniques, now: float) -> None:
        self.clients[client].send_proxy(data, techniques, now)

    def holds(self, client: bytes, stream: int) -> bool:
        streams = self.clients.get(client)
        return streams is not None and streams.holds(stream)

    def reset(self, client: bytes, stream: int, now: float) -> None:
        streams = self.clients[client]
        streams.forget(stream)
        streams.send(Frame(Kind.RESET, stream), now)

    def unacknowledged(self, client: bytes) -> int:
        channel = self.clients[client].channel.channel
        assert isinstance(channel, UdpGprsChannel)
        return channel.unacknowledged

    def handle_timer(self, now: float) -> None:
        for streams in list(self.clients.values()):
            streams.channel.handle_timer(now)
            self._events += streams.events()

    def get_timer(self) -> float | None:
        times = [t for s in self.clients.values() if (t := s.channel.get_timer()) is not None]
        return min(times) if times else None

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        return [d for s in self.clients.values() for d in s.channel.datagrams_to_send(now)]

    def next_event(self) -> Event | None:
        for streams in self.clients.values():
            self._events += streams.events()
        return self._events.pop(0) if self._events else None
