"""The tunnel server's memory under a flood of forged datagrams, and per genuine client.

Plain script:  python benchmarks/bench_tunnel_flood.py [--rate 10000] [--seconds 10]
               [--clients 1,20] [--via socks|http]

Flood: a `wwanlab tunnel server` on loopback in a subprocess gets ``--rate`` forged
datagrams a second for ``--seconds`` from one UDP socket, in four kinds in turn: random
octets, datagrams sealed under keys it does not hold, its own key id with a bad tag
(a timely new association, so the server derives its keys and tries the tag), and
replays of one genuine datagram (which a second socket sent once, so the key has an
association). It prints the server's VmRSS (/proc/PID/status) before, at most during,
and after the flood, the datagrams the server refused by reason (what it prints on
SIGTERM), and the datagrams the flooding socket received back: the server answers
nothing unauthenticated, so that must be 0.

Clients: for each N in ``--clients``, a server with N keys, and N tunnel clients
(``wwanlab.aio.tunnel``, in this process) that each fetch ``--fetches`` objects of
``--object`` octets from a loopback origin through their SOCKS5 proxy, one TCP
connection (one stream) each; the server's VmRSS before any client and after all
fetched, and the difference per client.
"""

import argparse
import ast
import asyncio
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from wwanlab.aio.tunnel import TunnelClientProxy
from wwanlab.core.pair import SERVER_ADDR
from wwanlab.tunnel.frames import Techniques
from wwanlab.tunnel.seal import (
    TAG_LEN,
    VERSION,
    Association,
    Keys,
    client_pair,
    new_key_file,
    read_key_file,
)
from wwanlab.tunnel.session import TunnelClient

SETTLE = 1.0  # s the server is left alone before a memory reading
BATCH = 100  # datagrams sent back to back, the batches paced to the rate


def rss_kib(pid: int, field: str = "VmRSS") -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"no {field} for process {pid}")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(keys: list[Path], port: int, allow: list[str]) -> subprocess.Popen[str]:
    args = [sys.executable, "-c", "from wwanlab.cli import main; main()", "tunnel", "server"]
    for key in keys:
        args += ["--key", str(key)]
    for network in allow:
        args += ["--allow", network]
    args += ["--listen", f"127.0.0.1:{port}", "--tcp-listen", "none"]
    server = subprocess.Popen(args, stderr=subprocess.PIPE, text=True)
    assert server.stderr is not None
    line = server.stderr.readline()
    if "tunnel server on udp" not in line:
        raise SystemExit(f"the server did not start: {line}{server.stderr.read()}")
    return server


def stop_server(server: subprocess.Popen[str]) -> Counter[str]:
    """SIGTERM; the refused datagrams by reason, as the server prints them."""
    server.send_signal(signal.SIGTERM)
    _, err = server.communicate(timeout=30)
    for line in err.splitlines():
        if line.startswith("refused datagrams: "):
            return Counter(ast.literal_eval(line.removeprefix("refused datagrams: ")))
    raise SystemExit(f"the server printed no counters: {err}")


def forgeries(keys: Keys, genuine: bytes, rng: random.Random, count: int) -> list[bytes]:
    """``count`` forged datagrams, the four kinds in turn."""
    other, _ = client_pair(Keys.from_psk(rng.randbytes(32)), Association.new(time.time(), 1))
    out = []
    for i in range(count):
        kind = i % 4
        if kind == 0:
            out.append(rng.randbytes(rng.randrange(1, 1472)))
        elif kind == 1:
            out.append(other.seal(rng.randbytes(rng.randrange(0, 1000))))
        elif kind == 2:
            association = Association.new(time.time() + 1, rng.getrandbits(32)).encode()
            header = bytes([VERSION]) + keys.key_id + association + rng.randbytes(8)
            out.append(header + rng.randbytes(rng.randrange(TAG_LEN, 1000)))
        else:
            out.append(genuine)
    return out


@dataclass
class Flood:
    sent: int
    seconds: float
    back: int  # datagrams the flooding socket received
    rss: tuple[int, int, int, int]  # KiB: before, most during, after, high-water mark
    refused: Counter[str]


def flood(rate: int, seconds: float) -> Flood:
    with tempfile.TemporaryDirectory() as tmp:
        key_file = Path(tmp) / "key"
        new_key_file(key_file)
        keys = Keys.from_psk(read_key_file(key_file))
        port = free_port()
        server = start_server([key_file], port, [])
        try:
            time.sleep(SETTLE)
            before = rss_kib(server.pid)
            # one genuine datagram, from its own socket: an OPEN the policy will refuse
            client = TunnelClient(SERVER_ADDR, keys, random.Random(), time.time())
            client.open_stream("127.0.0.1", 9, 0.0)
            (genuine, _), *_ = client.datagrams_to_send(0.0)
            honest = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            honest.sendto(genuine, ("127.0.0.1", port))
            rng = random.Random(1)
            batch_count = int(rate * seconds) // BATCH
            datagrams = forgeries(keys, genuine, rng, 4000)
            flooder = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            flooder.setblocking(False)
            sent = back = 0
            peak = before
            started = time.monotonic()
            for b in range(batch_count):
                for i in range(BATCH):
                    flooder.sendto(
                        datagrams[(b * BATCH + i) % len(datagrams)], ("127.0.0.1", port)
                    )
                    sent += 1
                while True:
                    try:
                        flooder.recv(2048)
                        back += 1
                    except BlockingIOError:
                        break
                if b % (rate // BATCH // 2 or 1) == 0:
                    peak = max(peak, rss_kib(server.pid))
                pause = started + (b + 1) * BATCH / rate - time.monotonic()
                if pause > 0:
                    time.sleep(pause)
            elapsed = time.monotonic() - started
            peak = max(peak, rss_kib(server.pid))
            time.sleep(2 * SETTLE)
            while True:
                try:
                    flooder.recv(2048)
                    back += 1
                except BlockingIOError:
                    break
            after = rss_kib(server.pid)
            high = rss_kib(server.pid, "VmHWM")
        finally:
            refused = stop_server(server)
    return Flood(sent, elapsed, back, (before, peak, after, high), refused)


async def clients_case(count: int, size: int, fetches: int, via: str) -> tuple[int, int, int]:
    """Server VmRSS (KiB) with ``count`` keys before any client, after each fetched
    ``fetches`` objects of ``size`` octets through its own client, one connection each,
    and its high-water mark. ``via`` ``http``: through the client's HTTP proxy, so each
    object takes the dual proxy (a different URL each: the server's store fills)."""
    body = random.Random(2).randbytes(size)

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.0 200 OK\r\nContent-Length: %d\r\n\r\n" % size + body)
        await writer.drain()
        writer.close()

    origin = await asyncio.start_server(handle, "127.0.0.1", 0)
    origin_port = origin.sockets[0].getsockname()[1]
    with tempfile.TemporaryDirectory() as tmp:
        files = [Path(tmp) / f"key{i}" for i in range(count)]
        for f in files:
            new_key_file(f)
        port = free_port()
        server = start_server(files, port, ["127.0.0.1/32"])
        try:
            await asyncio.sleep(SETTLE)
            before = rss_kib(server.pid)
            proxies = []
            for f in files:
                proxy = TunnelClientProxy(
                    ("127.0.0.1", port),
                    Keys.from_psk(read_key_file(f)),
                    transport="udp",
                    techniques=Techniques() if via == "http" else None,
                )
                socks, http = await proxy.start(("127.0.0.1", 0), ("127.0.0.1", 0))
                assert socks is not None and http is not None
                proxies.append((proxy, (socks if via == "socks" else http)[1]))
            get = fetch if via == "socks" else fetch_http
            for n in range(fetches):
                got = await asyncio.gather(*(get(s, origin_port, n) for _, s in proxies))
                if any(g != body for g in got):
                    raise SystemExit("a client's object did not arrive byte for byte")
            await asyncio.sleep(SETTLE)
            after = rss_kib(server.pid)
            high = rss_kib(server.pid, "VmHWM")
            for proxy, _ in proxies:
                await proxy.close()
        finally:
            stop_server(server)
            origin.close()
    return before, after, high


async def fetch(socks: int, port: int, _: int) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", socks)
    writer.write(b"\x05\x01\x00\x05\x01\x00\x01\x7f\x00\x00\x01" + port.to_bytes(2, "big"))
    reply = await reader.readexactly(12)
    if reply[:4] != b"\x05\x00\x05\x00":
        raise SystemExit(f"SOCKS5 refused: {reply!r}")
    writer.write(b"GET / HTTP/1.0\r\n\r\n")
    data = await asyncio.wait_for(reader.read(), 120)
    writer.close()
    return data.partition(b"\r\n\r\n")[2]


async def fetch_http(http: int, port: int, n: int) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", http)
    writer.write(b"GET http://127.0.0.1:%d/%d HTTP/1.1\r\nHost: x\r\n\r\n" % (port, n))
    data = await asyncio.wait_for(reader.read(), 120)
    writer.close()
    return data.partition(b"\r\n\r\n")[2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=int, default=10_000, help="forged datagrams a second")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", default="1,20", help="numbers of genuine clients")
    parser.add_argument("--object", type=int, default=100_000, help="octets of each object")
    parser.add_argument("--fetches", type=int, default=5, help="objects each client gets")
    parser.add_argument(
        "--via",
        choices=("socks", "http"),
        default="socks",
        help="the clients' proxy: SOCKS5 (streams) or HTTP (the dual proxy, all techniques)",
    )
    args = parser.parse_args()
    result = flood(args.rate, args.seconds)
    before, peak, after, high = result.rss
    refused = result.refused
    print(f"flood: {result.sent} forged datagrams in {result.seconds:.1f} s to one server")
    print("  server VmRSS KiB   before  during(max)  after  VmHWM")
    print(f"                   {before:7d}  {peak:11d}  {after:5d}  {high:5d}")
    print(f"  refused by reason: {dict(sorted(refused.items()))}, total {refused.total()}")
    print(f"  never read by the server (socket buffer full): {result.sent - refused.total()}")
    print(f"  datagrams sent back to the flooding socket: {result.back}")
    print("clients  VmRSS before KiB  after KiB  VmHWM KiB  per client KiB")
    grown = {}
    for count in (int(c) for c in args.clients.split(",")):
        c_before, c_after, c_high = asyncio.run(
            clients_case(count, args.object, args.fetches, args.via)
        )
        grown[count] = c_after - c_before
        per = grown[count] / count
        print(f"{count:7d}  {c_before:16d}  {c_after:9d}  {c_high:9d}  {per:14.1f}")
    if len(grown) > 1:  # the first client also pays for code paths run once
        (a, da), (b, db) = min(grown.items()), max(grown.items())
        print(f"each client past the first {a}: {(db - da) / (b - a):.1f} KiB")


if __name__ == "__main__":
    main()
