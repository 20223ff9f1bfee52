"""Simulator speed: bare kernel events/s and packets/s through host -> router -> host.

Plain script:  python benchmarks/bench_sim.py [--repeats 5] [--json] [--write]

``--write`` replaces the "## Simulator" section of docs/performance.md with the
results. There is no real peer to compare against (the simulator is ours alone), so
the figures are absolute, medians of ``--repeats`` runs, with targets of 500,000
events/s and 100,000 packets/s on the project's 2-core machine.
"""

import argparse
import datetime
import json
import re
import statistics
import time
from pathlib import Path

from wwanlab.core.address import Address
from wwanlab.core.events import Event
from wwanlab.link.base import Direction
from wwanlab.link.delay import ConstantDelay
from wwanlab.link.queue import DropTailQueue
from wwanlab.link.rate import Rate
from wwanlab.report.provenance import machine_line
from wwanlab.sim import Host, Network
from wwanlab.sim.ipv4 import UdpFlow
from wwanlab.sim.kernel import Kernel

EVENTS_TARGET = 500_000
PACKETS_TARGET = 100_000
LINK_BPS = 100e6  # a fast line, so the run is about per-packet cost, not waiting
PAYLOAD = 512  # UDP payload octets: 540-octet IP packets
DOC = Path(__file__).resolve().parent.parent / "docs" / "performance.md"


def bench_kernel(events: int) -> float:
    """Events/s of callbacks that each schedule the next one (100 chains)."""
    kernel = Kernel()
    remaining = [events]

    def tick() -> None:
        remaining[0] -= 1
        if remaining[0] > 0:
            kernel.call_at(kernel.now + 0.001, tick)

    for i in range(100):
        kernel.call_at(i * 1e-6, tick)
    start = time.process_time()
    ran = kernel.run()
    return ran / (time.process_time() - start)


class Paced:
    """Sends ``count`` datagrams to ``peer``, one every ``interval``, on its timer."""

    def __init__(self, peer: Address, count: int, interval: float) -> None:
        self.peer = peer
        self.left = count
        self.interval = interval
        self.timer: float | None = 0.0
        self.out: list[tuple[bytes, Address]] = []
        self.payload = bytes(PAYLOAD)

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        pass

    def handle_timer(self, now: float) -> None:
        self.out.append((self.payload, self.peer))
        self.left -= 1
        self.timer = now + self.interval if self.left else None

    def get_timer(self) -> float | None:
        return self.timer

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        out, self.out = self.out, []
        return out

    def next_event(self) -> Event | None:
        return None


class Counter:
    def __init__(self) -> None:
        self.received = 0

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        self.received += 1

    def handle_timer(self, now: float) -> None:
        pass

    def get_timer(self) -> float | None:
        return None

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        return []

    def next_event(self) -> Event | None:
        return None


def line() -> Direction:
    return Direction([DropTailQueue(Rate(LINK_BPS, 8), packets=50), ConstantDelay(0.01)])


INTERVAL = (PAYLOAD + 28 + 8) * 8 / LINK_BPS  # exactly the line's pace


def two_hops() -> tuple[Network, Host, Counter]:
    """Host a -> router r -> host b, with ``Counter`` bound to UDP port 9 of b."""
    net = Network(seed=1)
    a = net.add_host("a", "10.0.0.1")
    b = net.add_host("b", "10.0.1.1")
    r = net.add_router("r")
    net.connect(a, r, line(), line())
    net.connect(r, b, line(), line())
    sink = Counter()
    b.bind_udp(9, sink)
    return net, a, sink


def run_path(net: Network, sink: Counter, packets: int) -> float:
    start = time.process_time()
    net.run()
    elapsed = time.process_time() - start
    if sink.received != packets:
        raise RuntimeError(f"only {sink.received} of {packets} packets arrived")
    return packets / elapsed


def bench_path(packets: int) -> float:
    """Packets/s delivered end to end: an endpoint's payloads, each built into a packet."""
    net, a, sink = two_hops()
    a.bind_udp(5, Paced(("10.0.1.1", 9), packets, INTERVAL)).flush()
    return run_path(net, sink, packets)


def bench_prebuilt(packets: int) -> float:
    """The same path, sending one prebuilt IPv4 packet from a kernel callback: no endpoint,
    no driver, no building; what is left is the links, the router and the receiver."""
    net, a, sink = two_hops()
    packet = UdpFlow("10.0.0.1", "10.0.1.1", 5, 9).packet(bytes(PAYLOAD))
    kernel = net.kernel
    left = [packets]

    def send() -> None:
        a.send_packet(packet)
        left[0] -= 1
        if left[0]:
            kernel.post_at(kernel.now + INTERVAL, send)

    kernel.post_at(0.0, send)
    return run_path(net, sink, packets)


def markdown(result: dict[str, object]) -> str:
    ev, pk = result["events_per_s"], result["packets_per_s"]
    ev_runs, pk_runs = result["events_runs"], result["packets_runs"]
    pre, pre_runs = result["prebuilt_packets_per_s"], result["prebuilt_runs"]
    assert isinstance(ev, float) and isinstance(pk, float) and isinstance(pre, float)
    assert isinstance(ev_runs, list) and isinstance(pk_runs, list)
    assert isinstance(pre_runs, list)
    return (
        f"`python benchmarks/bench_sim.py` on {result['date']} ({result['machine']}). "
        f"Rates are per second of CPU time of the benchmark process (the machine is "
        f"shared by several busy processes, so wall time says more about them than "
        f"about us); medians of {result['repeats']} runs, with the slowest and "
        f"fastest run.\n\n"
        "| measure | median | runs | target | met |\n"
        "|---|---:|---:|---:|---|\n"
        f"| bare kernel: callbacks that each schedule the next | {ev:,.0f} events/s "
        f"| {min(ev_runs):,.0f}–{max(ev_runs):,.0f} "
        f"| {EVENTS_TARGET:,} | {'yes' if ev >= EVENTS_TARGET else 'no'} |\n"
        f"| UDP host → router → host, {PAYLOAD}-octet payloads, per link drop-tail queue "
        f"+ {LINK_BPS / 1e6:g} Mbit/s `Rate` + `ConstantDelay` | {pk:,.0f} packets/s "
        f"| {min(pk_runs):,.0f}–{max(pk_runs):,.0f} "
        f"| {PACKETS_TARGET:,} | {'yes' if pk >= PACKETS_TARGET else 'no'} |\n"
        f"| the same path, forwarding one prebuilt packet sent from a kernel callback "
        f"(no endpoint, no driver, no packet building) | {pre:,.0f} packets/s "
        f"| {min(pre_runs):,.0f}–{max(pre_runs):,.0f} | — | — |\n"
    )


def write_section(text: str) -> None:
    doc = DOC.read_text()
    pattern = re.compile(r"(## Simulator\n)(.*?)(?=\n## |\Z)", re.S)
    if not pattern.search(doc):
        raise SystemExit(f"no '## Simulator' section in {DOC}")
    notes = ""
    match = pattern.search(doc)
    assert match is not None
    # Keep the hand-written subsections (### ...) that follow the generated table.
    marker = "\n### "
    if marker in match.group(2):
        notes = match.group(2)[match.group(2).index(marker) :].rstrip("\n") + "\n"
    body = "\n" + text + notes
    DOC.write_text(doc[: match.start(2)] + body + doc[match.end(2) :])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--events", type=int, default=500_000)
    parser.add_argument("--packets", type=int, default=50_000)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--write", action="store_true", help="update docs/performance.md")
    args = parser.parse_args()
    events = [bench_kernel(args.events) for _ in range(args.repeats)]
    packets = [bench_path(args.packets) for _ in range(args.repeats)]
    prebuilt = [bench_prebuilt(args.packets) for _ in range(args.repeats)]
    result: dict[str, object] = {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d"),
        "machine": machine_line(),
        "repeats": args.repeats,
        "events_per_s": statistics.median(events),
        "events_runs": events,
        "packets_per_s": statistics.median(packets),
        "packets_runs": packets,
        "prebuilt_packets_per_s": statistics.median(prebuilt),
        "prebuilt_runs": prebuilt,
        "payload_octets": PAYLOAD,
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(markdown(result))
    if args.write:
        write_section(markdown(result))


if __name__ == "__main__":
    main()
