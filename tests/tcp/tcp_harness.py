"""Helpers shared by the TCP tests: two endpoints in a Pair and a readable segment log."""

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from wwanlab.core.pair import CLIENT_ADDR, SERVER_ADDR, Pair, Side
from wwanlab.tcp import DataReceived, TcpConfig, TcpEndpoint
from wwanlab.tcp.segment import ACK, FIN, PSH, RST, SYN, Segment, decode_segment
from wwanlab.tcp.stats import CwndSample

FLAG_NAMES = ((SYN, "S"), (FIN, "F"), (RST, "R"), (PSH, "P"), (ACK, "."))


def flags(seg: Segment) -> str:
    """tcpdump-style flags: ``S``, ``S.``, ``.``, ``P.``, ``F.``, ``FP.``."""
    return "".join(name for bit, name in FLAG_NAMES if seg.flags & bit)


@dataclass
class Lab:
    """A client and a listening server endpoint joined by a ``Pair``."""

    pair: Pair
    client: TcpEndpoint
    server: TcpEndpoint
    trace: list[CwndSample]

    def segments(self, side: Side, delivered_only: bool = False) -> list[tuple[float, Segment]]:
        return [
            (s.sent_at, decode_segment(s.data))
            for s in self.pair.sent(side)
            if not delivered_only or s.delivered_at is not None
        ]

    def received(self, side: Side) -> bytes:
        events = self.pair.server_events if side == "server" else self.pair.client_events
        return b"".join(e.data for e in events if isinstance(e, DataReceived))

    def client_offset(self, seg: Segment) -> int:
        """A client data segment's offset in the byte stream (0 = first data byte)."""
        iss = self.client.connection(1).iss
        return (seg.seq - iss - 1) % (1 << 32)


def make_lab(
    config: TcpConfig,
    server_config: TcpConfig | None = None,
    latency: float = 0.05,
    drop: Callable[[Side, int, bytes], bool] | None = None,
    **pair_args: object,
) -> Lab:
    trace: list[CwndSample] = []
    client = TcpEndpoint(*CLIENT_ADDR, config, random.Random(1), recorder=trace.append)
    server = TcpEndpoint(*SERVER_ADDR, server_config or config, random.Random(2))
    server.listen()
    pair = Pair(client, server, latency=latency, drop=drop, **pair_args)  # type: ignore[arg-type]
    return Lab(pair, client, server, trace)


def drop_client_data(
    offsets: Iterable[int], times: int = 1
) -> tuple[Callable[[Side, int, bytes], bool], list[float]]:
    """A drop hook losing the first ``times`` transmissions of client data at ``offsets``.

    The ISN is learnt from the client's SYN (its first segment). Also returns a list
    that collects the send-side index of each dropped datagram.
    """
    remaining = dict.fromkeys(offsets, times)
    isn: list[int] = []
    dropped: list[float] = []

    def hook(side: Side, index: int, data: bytes) -> bool:
        if side != "client":
            return False
        seg = decode_segment(data)
        if seg.flags & SYN:
            isn.append(seg.seq)
            return False
        if not seg.payload:
            return False
        offset = (seg.seq - isn[0] - 1) % (1 << 32)
        if remaining.get(offset, 0) > 0:
            remaining[offset] -= 1
            dropped.append(index)
            return True
        return False

    return hook, dropped


def bulk(lab: Lab, size: int, seed: int = 7, close: bool = False) -> tuple[int, bytes]:
    """Connect at t=0 and queue ``size`` random bytes from the client."""
    data = random.Random(seed).randbytes(size)
    conn = lab.client.connect(SERVER_ADDR, 0.0)
    lab.client.send(conn, data)
    if close:
        lab.client.close(conn)
    return conn, data
