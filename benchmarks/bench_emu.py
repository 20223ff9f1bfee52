"""The emulator's own ceiling: packets/s and Mbit/s its forwarder moves with no delay or
loss, beside the kernel moving the same traffic without it, and its timer error.

Plain script (as root):  python benchmarks/bench_emu.py [--repeats 3] [--json]

Three paths carry the same stream of IPv4 packets of 1500 and of 100 octets, sent as
fast as a sender process can and counted by a receiver process (both Python, both
outside the forwarder's process, so they do not share its interpreter lock):

* ``socketpair``: sender and receiver joined by one datagram socket pair, the floor
  of what these endpoints can move;
* ``emulator``: sender → socket pair → ``Forwarder`` (two empty Directions: no rate,
  delay or loss) → socket pair → receiver, the emulator's path in its tests;
* ``veth``: UDP between two network namespaces this script creates, joined by a veth
  pair, the kernel forwarding with no emulator (removed at exit).

Rates are the receiver's: (packets - 1) × size over the time from the first to the
last arrival. Targets on the project's 2-core machine: ≥ 50 Mbit/s of 1500-octet
packets and ≥ 20,000 packets/s of 100-octet ones through the emulator. Then the
timer error (actual write minus the link model's delivery time) of gprs-one-user and
serial-9k6 probed through the forwarder, target p99 ≤ 1 ms. Medians of ``--repeats``.
"""

import argparse
import contextlib
import datetime
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from wwanlab.report.provenance import machine_line

SIZES = (1500, 100)
COUNTS = {1500: 30_000, 100: 100_000}  # packets per run: a few seconds at the targets
TARGET_MBPS_1500 = 50.0
TARGET_PPS_100 = 20_000
TARGET_TIMER_P99_MS = 1.0
RECEIVE_IDLE = 1.0  # s without a packet after which a receiver stops counting
BUFFER = 8 * 1024 * 1024  # socket buffers, octets
SO_RCVBUFFORCE, SO_SNDBUFFORCE = 33, 32  # Linux asm-generic/socket.h (root only)
VETH_PORT = 9  # RFC 863 discard
# The timer error runs: the probe's schedule, a few hundred packets in seconds.
TIMER_RUNS: dict[str, tuple[int, int, float]] = {  # count, train, gap
    "gprs-one-user": (60, 60, 0.25),
    "serial-9k6": (6, 8, 1.6),
}
SCRIPT = Path(__file__).resolve()


def log(text: str) -> None:
    print(f"bench_emu: {text}", file=sys.stderr, flush=True)


# --- the sender and receiver processes ---------------------------------------------------


def _packet(size: int) -> bytes:
    from wwanlab.sim.ipv4 import PROTO_UDP, build_ipv4, build_udp

    udp = build_udp("10.0.0.1", "10.0.0.2", 40000, VETH_PORT, bytes(size - 28))
    return build_ipv4("10.0.0.1", "10.0.0.2", PROTO_UDP, udp)


def _force(sock: socket.socket, option: int, fallback: int) -> None:
    try:
        sock.setsockopt(socket.SOL_SOCKET, option, BUFFER)
    except PermissionError:
        sock.setsockopt(socket.SOL_SOCKET, fallback, BUFFER)


def endpoint(args: argparse.Namespace) -> None:
    """``--send``/``--receive`` on an inherited descriptor or a UDP address."""
    if args.udp:
        host, port = args.udp.rsplit(":", 1)
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        if args.role == "receive":
            sock.bind((host, int(port)))
        else:
            sock.connect((host, int(port)))
        data = bytes(args.size - 28)  # the kernel adds IPv4 and UDP headers
    else:
        sock = socket.socket(fileno=args.fd)
        data = _packet(args.size)
    if args.role == "send":
        _force(sock, SO_SNDBUFFORCE, socket.SO_SNDBUF)
        send = sock.send
        for _ in range(args.count):
            send(data)
        return
    _force(sock, SO_RCVBUFFORCE, socket.SO_RCVBUF)
    print("ready", flush=True)
    recv, clock = sock.recv, time.monotonic
    recv(65535)
    first = last = clock()
    n = 1
    sock.settimeout(RECEIVE_IDLE)  # a stream cut short by losses (veth) ends on silence
    while n < args.count:
        try:
            recv(65535)
        except TimeoutError:
            break
        last = clock()
        n += 1
    print(json.dumps({"received": n, "first": first, "last": last}), flush=True)


def _spawn(
    role: str,
    size: int,
    count: int,
    *,
    fd: int | None = None,
    udp: str | None = None,
    netns: str | None = None,
) -> subprocess.Popen[str]:
    command = [sys.executable, str(SCRIPT), "--role", role, "--size", str(size)]
    command += ["--count", str(count)]
    command += ["--fd", str(fd)] if fd is not None else ["--udp", str(udp)]
    if netns is not None:
        command = ["ip", "netns", "exec", netns, *command]
    return subprocess.Popen(
        command, stdout=subprocess.PIPE, text=True, pass_fds=() if fd is None else (fd,)
    )


def _collect(
    receiver: subprocess.Popen[str], sender: subprocess.Popen[str], size: int
) -> dict[str, float]:
    sender.wait(timeout=120)
    out, _ = receiver.communicate(timeout=120)
    result = json.loads(out.splitlines()[-1])
    span = result["last"] - result["first"]
    n = result["received"]
    pps = (n - 1) / span if span > 0 else float("nan")
    return {"received": n, "pps": pps, "mbps": pps * size * 8 / 1e6}


def _ready(receiver: subprocess.Popen[str]) -> None:
    assert receiver.stdout is not None
    if receiver.stdout.readline().strip() != "ready":
        raise SystemExit("bench_emu: a receiver did not start")


# --- the three paths ------------------------------------------------------------------------


def run_socketpair(size: int, count: int) -> dict[str, float]:
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    with a, b:
        receiver = _spawn("receive", size, count, fd=b.fileno())
        _ready(receiver)
        sender = _spawn("send", size, count, fd=a.fileno())
        return _collect(receiver, sender, size)


def run_emulator(size: int, count: int) -> dict[str, float]:
    import asyncio

    from wwanlab.emu.forwarder import Forwarder
    from wwanlab.link.base import Direction

    phone, inner = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    server, outer = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    for sock in (inner, outer):
        _force(sock, SO_SNDBUFFORCE, socket.SO_SNDBUF)

    async def main() -> dict[str, float]:
        forwarder = Forwarder(
            inner.fileno(),
            outer.fileno(),
            Direction([]),
            Direction([]),
            random.Random(1),
            random.Random(2),
        )
        task = asyncio.create_task(forwarder.run())
        await asyncio.sleep(0.05)
        receiver = _spawn("receive", size, count, fd=phone.fileno())
        await asyncio.to_thread(_ready, receiver)
        sender = _spawn("send", size, count, fd=server.fileno())
        result = await asyncio.to_thread(_collect, receiver, sender, size)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        down = forwarder.summary()["down"]
        result["forwarded"] = down["delivered_packets"]
        return result

    with phone, inner, server, outer:
        return asyncio.run(main())


class Veth:
    """Two namespaces joined by a veth pair, 10.213.0.1/30 and .2; removed on exit."""

    def __init__(self) -> None:
        tag = f"{os.getpid() % 100000}"
        self.a, self.b = f"wwl-bench-a{tag}", f"wwl-bench-b{tag}"
        self.address = "10.213.0.2"

    def __enter__(self) -> "Veth":
        a, b = self.a, self.b
        va, vb = f"wba{a[-5:]}", f"wbb{a[-5:]}"
        try:
            for command in (
                ["ip", "netns", "add", a],
                ["ip", "netns", "add", b],
                [
                    "ip",
                    "link",
                    "add",
                    va,
                    "netns",
                    a,
                    "type",
                    "veth",
                    "peer",
                    "name",
                    vb,
                    "netns",
                    b,
                ],
                ["ip", "-n", a, "addr", "add", "10.213.0.1/30", "dev", va],
                ["ip", "-n", b, "addr", "add", f"{self.address}/30", "dev", vb],
                ["ip", "-n", a, "link", "set", va, "up"],
                ["ip", "-n", b, "link", "set", vb, "up"],
            ):
                subprocess.run(command, check=True, capture_output=True, text=True)
        except (OSError, subprocess.CalledProcessError) as exc:
            self.__exit__()
            detail = getattr(exc, "stderr", "") or exc
            raise SystemExit(
                f"bench_emu: cannot build the veth pair (root needed): {detail}"
            ) from None
        return self

    def __exit__(self, *_: object) -> None:
        for ns in (self.a, self.b):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def run_veth(veth: Veth, size: int, count: int) -> dict[str, float]:
    target = f"{veth.address}:{VETH_PORT}"
    receiver = _spawn("receive", size, count, udp=target, netns=veth.b)
    _ready(receiver)
    sender = _spawn("send", size, count, udp=target, netns=veth.a)
    return _collect(receiver, sender, size)


def run_timer(name: str) -> dict[str, Any]:
    from wwanlab.experiments.probe_emu import probe_emulated

    count, train, gap = TIMER_RUNS[name]
    _, summary = probe_emulated(name, seed=1, count=count, train=train, gap=gap)
    return {
        d: {"packets": summary[d]["delivered_packets"], **summary[d]["timer_error_ms"]}
        for d in ("down", "up")
    } | {"realtime": summary["realtime"]}


# --- report -----------------------------------------------------------------------------


def markdown(result: dict[str, Any]) -> str:
    lines = [
        f"`python benchmarks/bench_emu.py` on {result['date']} ({result['machine']}), "
        f"medians of {result['repeats']} runs (slowest–fastest).\n",
        "| path | IP size | packets/s | Mbit/s | runs, Mbit/s | emulator ÷ path |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for size in SIZES:
        emu = result["paths"]["emulator"][str(size)]["mbps"]
        for path, sizes in result["paths"].items():
            row = sizes[str(size)]
            runs = row["runs_mbps"]
            lines.append(
                f"| {path} | {size} | {row['pps']:,.0f} | {row['mbps']:.1f} "
                f"| {min(runs):.1f}–{max(runs):.1f} | {emu / row['mbps']:.2f} |"
            )
    t = result["targets"]
    lines += ["", "| target | measured | met |", "|---|---:|---|"]
    for label, value, met in t:
        lines.append(f"| {label} | {value} | {'yes' if met else 'NO'} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--role", choices=("send", "receive"), help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--fd", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--udp", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.role:
        endpoint(args)
        return
    if os.geteuid() != 0:
        raise SystemExit("bench_emu: run as root (namespaces, real-time priority)")
    paths: dict[str, dict[str, dict[str, Any]]] = {}
    with Veth() as veth:
        runners = {
            "socketpair": run_socketpair,
            "emulator": run_emulator,
            "veth": lambda size, count: run_veth(veth, size, count),
        }
        for path, run in runners.items():
            paths[path] = {}
            for size in SIZES:
                runs = []
                for i in range(args.repeats):
                    r = run(size, COUNTS[size])
                    log(
                        f"{path} {size} B run {i + 1}/{args.repeats}: {r['pps']:,.0f} packets/s, "
                        f"{r['mbps']:.1f} Mbit/s, {r['received']} received"
                    )
                    runs.append(r)
                paths[path][str(size)] = {
                    "pps": statistics.median(r["pps"] for r in runs),
                    "mbps": statistics.median(r["mbps"] for r in runs),
                    "runs_mbps": [r["mbps"] for r in runs],
                    "received": [r["received"] for r in runs],
                    "sent": COUNTS[size],
                }
    timers: dict[str, list[dict[str, Any]]] = {}
    for name in TIMER_RUNS:
        timers[name] = []
        for i in range(args.repeats):
            t = run_timer(name)
            log(
                f"timer error {name} run {i + 1}/{args.repeats}: p99 down {t['down']['p99']} ms, "
                f"up {t['up']['p99']} ms"
            )
            timers[name].append(t)
    emu = paths["emulator"]
    p99 = {
        name: statistics.median(max(t["down"]["p99"], t["up"]["p99"]) for t in runs)
        for name, runs in timers.items()
    }
    targets = [
        (
            f"emulator, 1500-octet packets ≥ {TARGET_MBPS_1500:g} Mbit/s",
            f"{emu['1500']['mbps']:.1f} Mbit/s",
            emu["1500"]["mbps"] >= TARGET_MBPS_1500,
        ),
        (
            f"emulator, 100-octet packets ≥ {TARGET_PPS_100:,} packets/s",
            f"{emu['100']['pps']:,.0f} packets/s",
            emu["100"]["pps"] >= TARGET_PPS_100,
        ),
    ] + [
        (
            f"timer error p99 ≤ {TARGET_TIMER_P99_MS:g} ms, {name} (worse direction)",
            f"{value:.3f} ms",
            value <= TARGET_TIMER_P99_MS,
        )
        for name, value in p99.items()
    ]
    result = {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d"),
        "machine": machine_line(),
        "repeats": args.repeats,
        "paths": paths,
        "timer_error_ms": timers,
        "targets": targets,
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(markdown(result))


if __name__ == "__main__":
    main()
