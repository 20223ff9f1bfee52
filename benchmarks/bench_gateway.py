"""Gateway throughput and latency: ours beside Kannel 1.4.5, same load, same run.

    python benchmarks/bench_gateway.py [--repeats 3] [--rss-transactions 100000] [--json]
        [--cases "loadgen CL x8,loadgen CO x8"]

Everything on loopback: the in-memory origin (its own process; ``--origin static``, the
default, is ``peers/static_origin.py``, ``aiohttp`` the tests' ``OriginServer``), our gateway
(``wwanlab gateway``, its own process, uvloop) and Kannel's bearerbox + wapbox as
shipped (``KannelGateway``, default sockets). Each case runs ``--repeats`` times and the
medians are reported:

* fakewap ``-M 1 -c 8 -i 0`` (connection-oriented; one fakewap transaction is a whole
  session: Connect, Get, Disconnect) -- the shape of the first Kannel measurement;
  our gateway runs with ``--fakewap-quirks`` so fakewap's shared-TID Acks count;
* fakewap ``-M 0`` as 8 processes (connectionless; ``-c 8`` is unsafe there);
* our load generator (``wwanlab.aio.loadgen``), sessions per transaction as fakewap
  (``co``), and connectionless (``cl``), at concurrency 8 and 32, with p50/p99.

Then the RSS of our gateway process is sampled every tenth of ``--rss-transactions``
connectionless and connection-oriented transactions. Requests fetch ``/deck.wml``
(WML compiled to WMLC by both gateways).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import uvloop

from wwanlab.aio.loadgen import LoadSpec, run_load, run_load_processes
from wwanlab.peers.kannel import (
    FakewapOptions,
    KannelGateway,
    run_fakewap,
    run_fakewap_processes,
)

ORIGIN_CODE = {
    # The default: fixed responses, keep-alive, no framework (peers/static_origin.py), so
    # that the origin takes as little as it can of the CPU both gateways share with it.
    "static": """
import asyncio, uvloop
from wwanlab.peers.static_origin import StaticOrigin
async def main():
    origin = StaticOrigin()
    await origin.start()
    print(origin.port, flush=True)
    await asyncio.Event().wait()
uvloop.run(main())
""",
    # The aiohttp origin of the tests (the measurements before 2026-11-28).
    "aiohttp": """
import asyncio, uvloop
from wwanlab.peers.origin import OriginServer
async def main():
    origin = OriginServer()
    origin.requests = _Null()
    await origin.start()
    print(origin.port, flush=True)
    await asyncio.Event().wait()
class _Null(list):
    def append(self, item): pass  # a benchmark must not grow the origin's record
uvloop.run(main())
""",
}


def free_udp_pair(host: str = "127.0.0.1") -> int:
    """A port p with p and p+1 both free for UDP."""
    for _ in range(100):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.bind((host, 0))
            port = int(s.getsockname()[1])
        if port >= 65535:
            continue
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.bind((host, port + 1))
            return port
        except OSError:
            continue
    raise RuntimeError("no free UDP port pair")


@contextmanager
def origin_process(kind: str) -> Iterator[tuple[int, int]]:
    """(pid, port) of the origin of ``ORIGIN_CODE[kind]`` in a process of its own."""
    code = ORIGIN_CODE[kind]
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        yield proc.pid, int(proc.stdout.readline())
    finally:
        proc.terminate()
        proc.wait(10)


@contextmanager
def our_gateway() -> Iterator[tuple[int, int]]:
    """(pid, connectionless port); connection-oriented is the port + 1."""
    port = free_udp_pair()
    exe = shutil.which("wwanlab") or str(Path(sys.executable).with_name("wwanlab"))
    proc = subprocess.Popen(
        [exe, "gateway", "--port-cl", str(port), "--port-co", str(port + 1),
         "--allow-origin", "127.0.0.0/8", "--log-level", "warning", "--fakewap-quirks"],
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                    s.bind(("127.0.0.1", port + 1))
            except OSError:
                break  # bound by the gateway
            time.sleep(0.1)
        yield proc.pid, port
    finally:
        proc.terminate()
        proc.wait(10)


def cpu_seconds(pids: list[int]) -> float:
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / ticks


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def client_cpu_seconds() -> float:
    """CPU of this process (the load generator) and of its ended children (fakewap)."""
    own, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def measured(run: Callable[[], dict[str, Any]], pids: list[int], origin: int) -> dict[str, Any]:
    """Run one case; add the gateway's CPU use per wall second, and the CPU per
    transaction of the gateway, of the origin and of the clients: the three share the
    machine's cores, so what the others take bounds the gateway's rate."""
    cpu0, origin0, client0 = cpu_seconds(pids), cpu_seconds([origin]), client_cpu_seconds()
    t0 = time.perf_counter()
    row = run()
    wall = time.perf_counter() - t0
    used = cpu_seconds(pids) - cpu0
    count = max(row["transactions"], 1)
    row["gateway_cpu"] = round(used / wall, 2)
    row["cpu_ms_per_tx"] = round(1000 * used / count, 3)
    row["origin_ms_per_tx"] = round(1000 * (cpu_seconds([origin]) - origin0) / count, 3)
    row["client_ms_per_tx"] = round(1000 * (client_cpu_seconds() - client0) / count, 3)
    return row


def fakewap_co(host: str, port: int | None, url: str, m: int) -> dict[str, Any]:
    opts = FakewapOptions(gateway=host, port=port, clients=8, max_requests=m, debug=0)
    r = run_fakewap([url], opts, timeout=300)
    return {
        "tps": r.transactions_per_second,
        "transactions": r.transactions,
        "ok": r.replies_ok == r.transactions == m and not r.errors,
        "avg_ms": None if r.average_s is None else r.average_s * 1000,
    }


def fakewap_cl(host: str, port: int | None, url: str, m: int) -> dict[str, Any]:
    opts = FakewapOptions(
        gateway=host, port=port, connectionless=True, clients=1, max_requests=m, debug=0
    )
    batch = run_fakewap_processes([url], opts, 8, timeout=300)
    return {
        "tps": batch.transactions_per_second,
        "transactions": batch.transactions,
        "ok": batch.ok,
        "avg_ms": None,
    }


def loadgen(
    address: tuple[str, int], url: str, spec: LoadSpec, processes: int = 1
) -> dict[str, Any]:
    if processes > 1:
        r = run_load_processes(address, url, spec, processes)
    else:
        r = uvloop.run(run_load(address, url, spec))
    return {
        "tps": r.transactions_per_second,
        "transactions": r.completed,
        "ok": r.failures == 0 and r.bad_status == 0,
        "p50_ms": r.percentile(0.5) * 1000,
        "p99_ms": r.percentile(0.99) * 1000,
    }


def median_row(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"runs": len(rows), "all_ok": all(r["ok"] for r in rows)}
    for key in rows[0]:
        values = [r[key] for r in rows if isinstance(r.get(key), (int, float))]
        if key != "ok" and values:
            out[key] = round(statistics.median(values), 2)
    out["tps_runs"] = [round(r["tps"], 1) for r in rows]
    return out


def cases(
    host: str, cl_port: int | None, co_port: int | None, url: str, n: int
) -> dict[str, Callable[[], dict[str, Any]]]:
    cl_addr = (host, cl_port or 9200)
    co_addr = (host, co_port or 9201)
    return {
        "fakewap CO -c 8": lambda: fakewap_co(host, co_port, url, n),
        "fakewap CL 8 processes": lambda: fakewap_cl(host, cl_port, url, n // 8),
        "loadgen CO x8": lambda: loadgen(co_addr, url, LoadSpec("co", 8, n)),
        "loadgen CO x32": lambda: loadgen(co_addr, url, LoadSpec("co", 32, n)),
        "loadgen CL x8": lambda: loadgen(cl_addr, url, LoadSpec("cl", 8, 2 * n)),
        "loadgen CL x32": lambda: loadgen(cl_addr, url, LoadSpec("cl", 32, 2 * n)),
        "loadgen CO 2 proc x16": lambda: loadgen(co_addr, url, LoadSpec("co", 16, n), 2),
        "loadgen CL 2 proc x16": lambda: loadgen(cl_addr, url, LoadSpec("cl", 16, 2 * n), 2),
    }


def rss_run(pid: int, cl_port: int, url: str, total: int) -> list[dict[str, Any]]:
    """RSS after each tenth of ``total`` transactions, half CL, half CO sessions."""
    samples: list[dict[str, Any]] = [{"transactions": 0, "rss_kib": rss_kib(pid)}]
    step = max(total // 10, 1)
    done = 0
    while done < total:
        connectionless = (done // step) % 2 == 0
        spec = LoadSpec("cl" if connectionless else "co", 16, step)
        port = cl_port if connectionless else cl_port + 1
        result = uvloop.run(run_load(("127.0.0.1", port), url, spec))
        done += result.completed + result.failures
        samples.append({"transactions": done, "rss_kib": rss_kib(pid), "mode": str(spec.mode)})
    return samples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--transactions", type=int, default=400, help="per run")
    parser.add_argument("--rss-transactions", type=int, default=100_000)
    parser.add_argument("--rss-only", action="store_true", help="skip the comparison")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--origin",
        choices=sorted(ORIGIN_CODE),
        default="static",
        help="the HTTP origin both gateways fetch from (default: static)",
    )
    parser.add_argument(
        "--cases", help="comma-separated case names to run (default: all); e.g. 'loadgen CL x8'"
    )
    args = parser.parse_args()
    known = list(cases("", None, None, "", 0))
    chosen = known if args.cases is None else [c.strip() for c in args.cases.split(",")]
    if unknown := [c for c in chosen if c not in known]:
        parser.error(f"unknown case {unknown[0]!r}; the cases are: {', '.join(known)}")

    report: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()} {os.cpu_count()} CPUs, {platform.platform()}",
        "load_average": os.getloadavg(),
        "python": platform.python_version(),
        "origin": args.origin,
        "results": {},
    }
    with origin_process(args.origin) as (origin_pid, origin_port):
        url = f"http://127.0.0.1:{origin_port}/deck.wml"
        with our_gateway() as (pid, port):
            every = cases("127.0.0.1", port, port + 1, url, args.transactions)
            ours = {name: every[name] for name in chosen}
            for name, run in ({} if args.rss_only else ours).items():
                rows = [measured(run, [pid], origin_pid) for _ in range(args.repeats)]
                report["results"][f"ours | {name}"] = median_row(rows)
                print(name, "ours", report["results"][f"ours | {name}"], file=sys.stderr)
            if args.rss_transactions:
                report["rss"] = rss_run(pid, port, url, args.rss_transactions)
        if args.rss_only:
            print(json.dumps(report, indent=2))
            return 0
        with KannelGateway(log_level=2) as kannel:
            every = cases(kannel.wdp_host, None, None, url, args.transactions)
            theirs = {name: every[name] for name in chosen}
            pids = list(kannel.pids().values())
            for name, run in theirs.items():
                rows = [measured(run, pids, origin_pid) for _ in range(args.repeats)]
                report["results"][f"kannel | {name}"] = median_row(rows)
                print(name, "kannel", report["results"][f"kannel | {name}"], file=sys.stderr)
    for name in ours:
        a, b = report["results"][f"ours | {name}"], report["results"][f"kannel | {name}"]
        a["ratio_tps"] = round(a["tps"] / b["tps"], 2) if b.get("tps") else None
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"{'case':28} {'ours tx/s':>10} {'Kannel tx/s':>12} {'ratio':>6} "
              f"{'ours p50/p99 ms':>17} {'Kannel p50/p99 ms':>18}")  # fmt: skip
        for name in ours:
            a, b = report["results"][f"ours | {name}"], report["results"][f"kannel | {name}"]
            lat_a = f"{a.get('p50_ms', '-')}/{a.get('p99_ms', '-')}"
            lat_b = f"{b.get('p50_ms', '-')}/{b.get('p99_ms', '-')}"
            print(f"{name:28} {a['tps']:>10} {b['tps']:>12} {a['ratio_tps']!s:>6} "
                  f"{lat_a:>17} {lat_b:>18}")  # fmt: skip
        if "rss" in report:
            rss = [(s["transactions"], s["rss_kib"]) for s in report["rss"]]
            print("RSS (KiB) by transactions:", rss)
    return 0


if __name__ == "__main__":
    sys.exit(main())
