"""One TCP bulk transfer across one simulated link: the simulator's reference workload.

A sender host and a receiver host joined by one point-to-point link, each direction a
drop-tail queue in front of a ``Rate``, a constant propagation delay and, on the data
direction only, Bernoulli loss applied as the packet arrives (so a lost packet has held
the queue and the line, as an error model at the receiving interface does). The
sender connects, writes ``size`` octets and closes; the transfer is done when the
receiver holds every octet. ``benchmarks/bench_vs_ns3.py`` runs the same scenario in
ns-3, and ``tests/sim/test_golden_results.py`` pins a small one's bytes.
"""

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from wwanlab.core.events import Event
from wwanlab.link.base import Direction, Stage
from wwanlab.link.delay import ConstantDelay
from wwanlab.link.loss import BernoulliLoss
from wwanlab.link.queue import DropTailQueue
from wwanlab.link.rate import Rate
from wwanlab.sim.ipv4 import PROTO_TCP
from wwanlab.sim.network import Network
from wwanlab.tcp import DataReceived, TcpConfig, TcpEndpoint
from wwanlab.tcp.stats import TcpStats

SENDER_IP = "10.1.0.1"
RECEIVER_IP = "10.1.0.2"
SENDER_PORT = 49152  # RFC 6335 6: the first dynamic port
RECEIVER_PORT = 5001  # iperf's port, as the usual bulk-transfer sink
PPP_HEADER = 2  # octets ns-3's PointToPointNetDevice adds per packet (its PPP protocol field)
MAX_SIM_TIME = 1e6  # s of virtual time before a transfer counts as failed
PAYLOAD_PIECE = 1 << 20  # octets of payload drawn at a time; a multiple of 4


@dataclass(frozen=True, slots=True)
class BulkLink:
    """The link: rate, one-way delay, queue limit, loss on the data direction, framing."""

    bps: float
    delay: float
    queue_packets: int
    loss: float = 0.0
    overhead_bytes: int = PPP_HEADER
    bits_per_byte: float = 8
    mtu: int = 1500

    def direction(self, loss: float) -> Direction:
        line = Rate(self.bps, self.overhead_bytes, bits_per_byte=self.bits_per_byte)
        stages: list[Stage] = [DropTailQueue(line, packets=self.queue_packets)]
        stages.append(ConstantDelay(self.delay))
        if loss > 0:
            stages.append(BernoulliLoss(loss))
        return Direction(stages)


@dataclass(frozen=True, slots=True)
class BulkResult:
    """What the transfer did, and what the simulator did to run it."""

    size: int
    complete: bool
    seconds: float  # virtual time from the SYN to the receiver holding the last octet
    sender: TcpStats
    link_packets: int  # packets offered to either direction of the link
    events: int  # kernel callbacks run

    @property
    def goodput_bps(self) -> float:
        return self.size * 8 / self.seconds if self.complete else math.nan


def payload(size: int, seed: int) -> Iterator[bytes]:
    """The octets of ``random.Random(seed).randbytes(size)``, in pieces of
    ``PAYLOAD_PIECE``.

    ``randbytes`` lays out 32-bit draws in order, each little-endian, so pieces of a
    multiple of 4 octets join into the same octets. Drawn whole, Python first builds and
    converts one integer of the whole size, which costs more; handed to the sender piece
    by piece, the pieces are never joined (the TCP send buffer keeps them as they are).
    """
    rng = random.Random(seed)
    for at in range(0, size, PAYLOAD_PIECE):
        yield rng.randbytes(min(PAYLOAD_PIECE, size - at))


def bulk_transfer(
    size: int,
    link: BulkLink,
    config: TcpConfig,
    seed: int,
    *,
    pcap: str | Path | BinaryIO | None = None,
) -> BulkResult:
    """Send ``size`` random octets from sender to receiver; ``pcap`` captures the link
    as it delivers (both directions)."""
    net = Network(seed)
    sender_host = net.add_host("sender", SENDER_IP)
    receiver_host = net.add_host("receiver", RECEIVER_IP)
    wire = net.connect(
        sender_host,
        receiver_host,
        link.direction(link.loss),
        link.direction(0.0),
        mtu=link.mtu,
        name="bulk",
    )
    if pcap is not None:
        net.capture(wire, pcap, point="rx")
    receiver = TcpEndpoint(RECEIVER_IP, RECEIVER_PORT, config, net.kernel.stream("tcp", "rx"))
    receiver.listen()
    received = [0]
    done: list[float] = []

    def on_receiver(event: Event) -> None:
        if isinstance(event, DataReceived):
            received[0] += len(event.data)
            if received[0] >= size and not done:
                done.append(net.kernel.now)

    receiver_host.bind_transport(PROTO_TCP, RECEIVER_PORT, receiver, on_event=on_receiver)
    sender = TcpEndpoint(SENDER_IP, SENDER_PORT, config, net.kernel.stream("tcp", "tx"))
    binding = sender_host.bind_transport(PROTO_TCP, SENDER_PORT, sender)
    conn = sender.connect((RECEIVER_IP, RECEIVER_PORT), net.kernel.now)
    for piece in payload(size, seed):
        sender.send(conn, piece)
    sender.close(conn)
    binding.flush()
    try:
        net.run(until=MAX_SIM_TIME)
    finally:
        net.close()
    complete = bool(done) and received[0] == size
    return BulkResult(
        size=size,
        complete=complete,
        seconds=done[0] if complete else math.nan,
        sender=sender.stats(conn),
        link_packets=wire.ab.stats.sent_packets + wire.ba.stats.sent_packets,
        events=net.kernel.events_run,
    )
