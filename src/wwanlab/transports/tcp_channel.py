"""A ``MessageChannel`` (``transports.channel``) over one connection of the project's
sans-IO TCP: each message framed by a 4-octet big-endian length (RFC 9293 gives a byte
stream; the frame restores message boundaries).

    frame   length u32 | message (length octets, at most ``max_message``)

One end connects (``TcpChannel.connect``: the SYN leaves with the first message, so the
handshake costs what it costs a browser's first request), the other listens
(``TcpChannel.listen``) and takes the first connection that arrives; any later one is
reset, since a channel has exactly two ends.

    state        event                              action / next state
    IDLE         send_message (connecting end)      active OPEN, queue frame / OPEN
    LISTENING    connection established             adopt it / OPEN
    OPEN         another connection established     reset that one / OPEN
    OPEN         data                               deliver whole frames / OPEN
    OPEN         length above max_message           ChannelFailed, reset / FAILED
    OPEN         FIN, RST or TCP gives up           ChannelFailed / FAILED
    FAILED       send_message                       dropped (ChannelFailed was said)
"""

import enum
import random

from wwanlab.core.address import Address
from wwanlab.core.contract import Endpoint
from wwanlab.core.events import Event
from wwanlab.core.layer import Layer
from wwanlab.tcp import (
    ConnectionAborted,
    ConnectionEstablished,
    ConnectionReset,
    DataReceived,
    PeerClosed,
    TcpConfig,
    TcpEndpoint,
    TcpEvent,
)
from wwanlab.transports.channel import ChannelFailed, MessageReceived

FRAME_HEADER = 4  # octets of the length prefix
MAX_MESSAGE = 32 * 1024 * 1024  # octets: above any one web object plus its header


class ChannelState(enum.Enum):
    IDLE = "idle"
    LISTENING = "listening"
    OPEN = "open"
    FAILED = "failed"


class TcpChannel(Layer):
    """One end of a message channel over one TCP connection."""

    def __init__(
        self,
        endpoint: TcpEndpoint,
        remote: Address | None,
        max_message: int = MAX_MESSAGE,
    ) -> None:
        self.tcp = endpoint
        self.max_message = max_message
        self.state = ChannelState.IDLE if remote is not None else ChannelState.LISTENING
        self._remote = remote
        self._conn: int | None = None
        self._buffer = bytearray()
        self._events: list[Event] = []

    @classmethod
    def connect(
        cls,
        local: Address,
        remote: Address,
        config: TcpConfig,
        rng: random.Random,
        max_message: int = MAX_MESSAGE,
    ) -> "TcpChannel":
        """The connecting end, bound at ``local``; it opens on the first message."""
        return cls(TcpEndpoint(local[0], local[1], config, rng), remote, max_message)

    @classmethod
    def listen(
        cls,
        local: Address,
        config: TcpConfig,
        rng: random.Random,
        max_message: int = MAX_MESSAGE,
    ) -> "TcpChannel":
        """The listening end at ``local``."""
        endpoint = TcpEndpoint(local[0], local[1], config, rng)
        endpoint.listen()
        return cls(endpoint, None, max_message)

    @property
    def connection(self) -> int | None:
        """The TCP connection id carrying the channel, once there is one."""
        return self._conn

    def send_message(self, data: bytes, now: float) -> None:
        if len(data) > self.max_message:
            raise ValueError(f"message of {len(data)} octets exceeds {self.max_message}")
        if self.state is ChannelState.FAILED:
            return
        if self.state is ChannelState.IDLE:
            assert self._remote is not None
            self._conn = self.tcp.connect(self._remote, now)
            self.state = ChannelState.OPEN
        if self._conn is None:
            raise ValueError("the listening end sends only once a peer has connected")
        self.tcp.send(self._conn, len(data).to_bytes(FRAME_HEADER, "big") + data)

    def _pump(self, now: float) -> None:
        while (event := self.tcp.next_event()) is not None:
            if not isinstance(event, TcpEvent):
                continue
            if isinstance(event, ConnectionEstablished):
                if self.state is ChannelState.LISTENING:
                    self._conn = event.conn_id
                    self.state = ChannelState.OPEN
                elif event.conn_id != self._conn:
                    self.tcp.abort(event.conn_id, now)
                continue
            if event.conn_id != self._conn or self.state is not ChannelState.OPEN:
                continue
            if isinstance(event, DataReceived):
                self._buffer += event.data
                self._frames(now)
            elif isinstance(event, PeerClosed):
                self._fail("the peer closed the connection", now)
            elif isinstance(event, ConnectionReset):
                self._fail("the peer reset the connection", now)
            elif isinstance(event, ConnectionAborted):
                self._fail(f"TCP gave up: {event.reason}", now)

    def _frames(self, now: float) -> None:
        buffer = self._buffer
        while len(buffer) >= FRAME_HEADER:
            size = int.from_bytes(buffer[:FRAME_HEADER], "big")
            if size > self.max_message:
                self._fail(f"frame of {size} octets exceeds {self.max_message}", now)
                if self._conn is not None:
                    self.tcp.abort(self._conn, now)
                return
            if len(buffer) < FRAME_HEADER + size:
                return
            self._events.append(
                MessageReceived(bytes(buffer[FRAME_HEADER : FRAME_HEADER + size]), now)
            )
            del buffer[: FRAME_HEADER + size]

    def _fail(self, reason: str, now: float) -> None:
        self.state = ChannelState.FAILED
        self._buffer.clear()
        self._events.append(ChannelFailed(reason, now))

    def _lower(self) -> Endpoint:
        return self.tcp
