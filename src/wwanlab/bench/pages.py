"""``wwanlab bench pages``: a real browser's page load time over an emulated link,
direct, through kcptun, and through ``wwanlab tunnel``.

Everything runs in a network and mount namespace of the bench's own (``unshare``): the
page model's origins and DNS (``bench.sites``) on RFC 2544 addresses, the tunnel's and
kcptun's server ends beside them, and ``/etc/resolv.conf`` bound to the bench's DNS
server. Each run makes an ``EmulatedLink`` from there and starts, inside it, headless
Chromium (``bench.chromium``) and, for a proxied case, the proxy's client end. A run is
one browser loading the page twice: the first visit (empty cache) and the revisit
(the cache revalidates every object), each timed by the browser's Navigation Timing,
and the octets that crossed the slow link counted by the emulator.

Cases:

- ``direct``: the browser resolves names and fetches over the link itself.
- ``kcptun``: Debian's kcptun with its usual settings (``--mode fast``, its defaults for
  the rest: AES, compression, FEC 10+3), carrying the browser's SOCKS5 connections to
  Debian's microsocks at the server side (kcptun is a port forwarder; a SOCKS server
  behind it is how it carries a browser).
- ``tunnel`` and ``tunnel-*``: ``wwanlab tunnel client`` inside, its server outside, the
  browser on the client's HTTP proxy (the tunnel's techniques act on the plain-HTTP
  requests that come through it, not on SOCKS5); ``TUNNEL_CASES`` says which techniques
  each case turns off or on.

The worker runs in a PID namespace of its own too, as its first process: when it ends,
however it ends, the kernel kills every process left in the namespace (kcptun-server,
microsocks, Chromium, a tunnel client), and ``run_pages`` passes SIGINT and SIGTERM on
to it, so a bench stopped by a signal stops its programs with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from wwanlab.aio.tunnel import TunnelServerProxy
from wwanlab.bench.chromium import Browser, chromium_path, command
from wwanlab.bench.programs import running
from wwanlab.bench.sites import (
    BENCH_NET,
    DNS_ADDRESS,
    KCPTUN_ADDRESS,
    TUNNEL_ADDRESS,
    Served,
    serve_page,
    site_addresses,
)
from wwanlab.core.errors import UsageError
from wwanlab.emu.link import EmulatedLink
from wwanlab.experiments.scenario import Row
from wwanlab.link.presets import get_preset
from wwanlab.transports.udp_gprs.packet import MAX_CREDIT
from wwanlab.tunnel.policy import parse_networks
from wwanlab.tunnel.seal import Keys, new_key_file, read_key_file
from wwanlab.tunnel.session import CHANNEL_CONFIG
from wwanlab.web.page import WebObject
from wwanlab.web.pages import SITES, page_for

TUNNEL_CASES: dict[str, tuple[str, ...]] = {
    "tunnel": (),
    "tunnel-none": ("--no-compress", "--no-push", "--no-cache"),
    "tunnel-compress": ("--no-push", "--no-cache"),
    "tunnel-push": ("--no-compress", "--no-cache"),
    "tunnel-cache": ("--no-compress", "--no-push"),
    "tunnel-images": ("--images", "30"),
}
"""Each tunnel case's flags for ``wwanlab tunnel client``, whose compression, parse-and-push
and CHK caching are on by default. ``tunnel``: all of paper 003's techniques together
(section 4.5, Table 9's client-reconfigured solution less lossy images); ``tunnel-none``: the
transport alone (UDP-GPRS, DNS at the server); ``tunnel-compress``: lossless compression
alone (section 4.1.1); ``tunnel-push``: parse-and-push alone (4.2.3); ``tunnel-cache``: CHK
caching with delta encoding alone (4.1.3), which shows on the revisit; ``tunnel-images``:
all of them plus lossy image recompression (4.1.1's variable-fidelity content) at JPEG
quality 30, the tunnel's default quality (the paper names none: it reduced the images'
depth, about halving their octets, Table 3)."""
CASES = ("direct", "kcptun", *TUNNEL_CASES)
QUICK_CASES = ("direct", "kcptun", "tunnel")
HTTP_PORT = 8118  # the tunnel client's HTTP proxy (its default --http)
TUNNEL_PORT = 7447
KCPTUN_PORT = 29900
SOCKS_PORT = 1080
KCPTUN_ARGS = ("--mode", "fast", "--key", "wwanlab-bench")  # kcptun's README's usual choice
VISITS = ("first", "revisit")
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
STOP_GRACE = 20.0  # s for a stopped worker to close its browser, proxies and link


@dataclass(frozen=True)
class PagesConfig:
    links: tuple[str, ...]
    pages: tuple[str, ...]
    cases: tuple[str, ...] = CASES
    reps: int = 3
    seed: int = 0
    check_bodies: bool = False
    tunnel_credit: int | None = None  # the tunnel client's --credit (None: its default)

    def __post_init__(self) -> None:
        for link in self.links:
            get_preset(link)  # a UsageError naming an unknown preset
        for page in self.pages:
            if page not in SITES:  # a site is known without generating its page (0.3 s)
                page_for(page)  # a UsageError naming a missing file, or a bad HAR
        unknown = [c for c in self.cases if c not in CASES]
        if unknown:
            raise UsageError(f"unknown case {unknown[0]!r} (known: {', '.join(CASES)})")
        if self.reps < 1:
            raise UsageError("--reps must be at least 1")
        credit = self.tunnel_credit
        if credit is not None and not CHANNEL_CONFIG.max_datagram <= credit <= MAX_CREDIT:
            raise UsageError(
                f"--tunnel-credit {credit} outside {CHANNEL_CONFIG.max_datagram}..{MAX_CREDIT}"
            )


QUICK = PagesConfig(
    links=("gprs-one-user", "ref-10m-50ms"), pages=("mail",), cases=QUICK_CASES, reps=2
)
FULL = PagesConfig(
    links=("gprs-one-user", "gprs-busy", "gprs-3plus1", "ref-10m-50ms"),
    pages=("mail", "yahoo", "amazon", "cnn"),
    reps=5,
)


def check_can_run(cases: Sequence[str]) -> None:
    """Refuse, in one line, what this machine lacks for ``cases``."""
    if os.geteuid() != 0:
        raise UsageError("bench pages needs root (network namespaces)")
    needed = ["setpriv", "unshare", "nsenter", "ip", "bash"]
    if "kcptun" in cases:
        needed += ["kcptun-client", "kcptun-server", "microsocks"]
    missing = [p for p in needed if shutil.which(p) is None]
    if missing:
        raise UsageError(
            f"bench pages needs {', '.join(missing)} (scripts/setup.sh installs them)"
        )
    chromium_path()


def run_pages(config: PagesConfig, *, progress: bool = True) -> list[Row]:
    """Run the bench in namespaces of its own; its rows (one per page load). A SIGINT or
    SIGTERM stops the worker first, then this process as that signal would have; if
    this process is killed outright, ``unshare`` is too (``setpriv --pdeathsig``), and
    with it the worker."""
    check_can_run(config.cases)
    argv = [
        "setpriv", "--pdeathsig", "KILL",
        "unshare", "--net", "--mount", "--propagation", "private",
        "--pid", "--kill-child", "--mount-proc", "--",
        sys.executable, "-m", "wwanlab.bench.pages", json.dumps(asdict(config)),
    ]  # fmt: skip
    with (
        subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=None if progress else subprocess.DEVNULL
        ) as unshare,
        _passing_on_signals(unshare) as received,
    ):
        out, _ = unshare.communicate()
    if received:
        signal.raise_signal(received[0])  # its own handler again: KeyboardInterrupt, or exit
    if unshare.returncode != 0:
        raise RuntimeError(f"bench pages failed (exit {unshare.returncode})")
    rows: list[Row] = json.loads(out)
    return rows


@contextlib.contextmanager
def _passing_on_signals(unshare: subprocess.Popen[bytes]) -> Iterator[list[int]]:
    """While the worker runs, SIGINT and SIGTERM go to it (``unshare --fork`` ignores them
    and passes none on); it gets ``STOP_GRACE`` seconds to close its links and programs,
    then ``unshare`` is killed, and with it (``--kill-child``) the worker and everything in
    its PID namespace. Yields the signals received, in order."""
    received: list[int] = []
    timer = threading.Timer(STOP_GRACE, unshare.kill)

    def pass_on(signum: int, _frame: object) -> None:
        received.append(signum)
        children = Path(f"/proc/{unshare.pid}/task/{unshare.pid}/children")
        with contextlib.suppress(OSError):
            for pid in children.read_text().split():
                os.kill(int(pid), signum)
        if not timer.is_alive():
            timer.start()

    previous = {sig: signal.signal(sig, pass_on) for sig in STOP_SIGNALS}
    try:
        yield received
    finally:
        timer.cancel()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _set_up_namespace(addresses: Sequence[str], resolv: Path) -> None:
    """The bench's own namespace: loopback holding every bench address (local to the
    whole namespace, so the emulated link's traffic reaches them), and
    ``/etc/resolv.conf`` naming the bench's DNS server (in this mount namespace only)."""
    batch = ["link set lo up", *(f"addr add {a}/32 dev lo" for a in addresses)]
    subprocess.run(["ip", "-batch", "-"], input="\n".join(batch), text=True, check=True)
    resolv.write_text(f"nameserver {DNS_ADDRESS}\noptions timeout:5 attempts:2\n")
    subprocess.run(["mount", "--bind", str(resolv), "/etc/resolv.conf"], check=True)


async def _wait_listening(host: str, port: int, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        try:
            _, writer = await asyncio.open_connection(host, port)
        except OSError:
            if loop.time() > deadline:
                raise
            await asyncio.sleep(0.05)
            continue
        writer.close()
        return


@contextlib.asynccontextmanager
async def _servers(key_file: Path, cases: Sequence[str]) -> AsyncIterator[None]:
    """The proxies' server ends, near the origins."""
    async with contextlib.AsyncExitStack() as stack:
        if any(c in TUNNEL_CASES for c in cases):
            tunnel = TunnelServerProxy(
                [Keys.from_psk(read_key_file(key_file))], parse_networks([str(BENCH_NET)])
            )
            await tunnel.start((TUNNEL_ADDRESS, TUNNEL_PORT))
            stack.callback(tunnel.close)
        if "kcptun" in cases:
            socks = await asyncio.create_subprocess_exec(
                "microsocks", "-i", KCPTUN_ADDRESS, "-p", str(SOCKS_PORT),
                stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
            )  # fmt: skip
            stack.callback(socks.kill)
            await _wait_listening(KCPTUN_ADDRESS, SOCKS_PORT)
            server = [
                "kcptun-server", "--listen", f"{KCPTUN_ADDRESS}:{KCPTUN_PORT}",
                "--target", f"{KCPTUN_ADDRESS}:{SOCKS_PORT}", *KCPTUN_ARGS,
            ]  # fmt: skip
            await stack.enter_async_context(running(server, "listening on"))
        yield


@contextlib.asynccontextmanager
async def _proxy(
    case: str, link: EmulatedLink, key_file: Path, credit: int | None
) -> AsyncIterator[str | None]:
    """The case's client end inside ``link``; the browser's proxy URL (None: direct)."""
    if case == "direct":
        yield None
    elif case in TUNNEL_CASES:
        argv = [
            sys.executable, "-m", "wwanlab", "tunnel", "client",
            "--server", f"{TUNNEL_ADDRESS}:{TUNNEL_PORT}", "--key", str(key_file),
            "--socks", f"127.0.0.1:{SOCKS_PORT}", "--http", f"127.0.0.1:{HTTP_PORT}",
            *TUNNEL_CASES[case],
        ]  # fmt: skip
        if credit is not None:
            argv += ["--credit", str(credit)]
        async with running(argv, "http proxy on", spawner=link.spawn):
            yield f"http://127.0.0.1:{HTTP_PORT}"
    else:
        argv = [
            "kcptun-client", "--localaddr", f"127.0.0.1:{SOCKS_PORT}",
            "--remoteaddr", f"{KCPTUN_ADDRESS}:{KCPTUN_PORT}", *KCPTUN_ARGS,
        ]  # fmt: skip
        async with running(argv, "listening on", spawner=link.spawn):
            yield f"socks5://127.0.0.1:{SOCKS_PORT}"


def _link_octets(link: EmulatedLink) -> int:
    """Octets that crossed the slow link so far, both ways."""
    counters = link.summary()["forwarder"] or {}
    return sum(int(counters.get(d, {}).get("bytes", 0)) for d in ("down", "up"))


async def _one_run(
    config: PagesConfig,
    link_name: str,
    page_name: str,
    served: Served,
    case: str,
    rep: int,
    key_file: Path,
) -> list[Row]:
    async with (
        EmulatedLink(link_name, seed=config.seed + rep) as link,
        _proxy(case, link, key_file, config.tunnel_credit) as proxy,
    ):
        with tempfile.TemporaryDirectory() as profile:
            browser = await Browser.start(link.spawn, command(Path(profile), proxy=proxy))
            try:
                rows = await _visits(config, link, browser, served, rep)
            finally:
                await browser.close()
    return [{"link": link_name, "page": page_name, "case": case, "rep": rep, **r} for r in rows]


async def _visits(
    config: PagesConfig, link: EmulatedLink, browser: Browser, served: Served, rep: int
) -> list[Row]:
    """The first visit and the revisit of the page ``served`` in one browser."""
    if config.check_bodies:
        await browser.record_bodies()
    rows: list[Row] = []
    for visit in VISITS:
        before, started = _link_octets(link), time.monotonic()
        load = await link.guard(browser.load(served.main_url))
        row: Row = {
            "visit": visit,
            "plt_ms": round(load.plt_ms, 1),
            "wall_s": round(time.monotonic() - started, 3),
            "link_octets": _link_octets(link) - before,
            "objects": len(load.resources) + 1,
            "document_ms": round(float(load.navigation.get("responseEnd", 0.0)), 1),
            "resources": load.resources if rep == 0 else [],
        }
        if config.check_bodies and visit == "first":
            row["bodies"] = _check_bodies(browser.bodies(), served.bodies)
        rows.append(row)
    return rows


def _check_bodies(got: dict[str, bytes], site: dict[str, WebObject]) -> dict[str, int]:
    """How many of the objects the origins served arrived byte for byte, differed, or
    never arrived."""
    same = differ = 0
    for url, obj in site.items():
        body = gzip.decompress(obj.body) if obj.encoding == "gzip" else obj.body
        if url not in got:
            continue
        if got[url] in (body, obj.body):
            same += 1
        else:
            differ += 1
    return {"same": same, "differ": differ, "missing": len(site) - same - differ}


async def _worker(config: PagesConfig) -> list[Row]:
    _stop_on_signals()
    addresses = {DNS_ADDRESS, TUNNEL_ADDRESS, KCPTUN_ADDRESS}
    for name in config.pages:
        addresses.update(site_addresses(page_for(name)).values())
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as scratch:
        _set_up_namespace(sorted(addresses), Path(scratch) / "resolv.conf")
        key_file = Path(scratch) / "bench.key"
        new_key_file(key_file)
        total = len(config.pages) * len(config.links) * len(config.cases) * config.reps
        done = 0
        async with _servers(key_file, config.cases):
            for page_name in config.pages:
                async with serve_page(page_for(page_name)) as served:
                    for link_name in config.links:
                        for case in config.cases:
                            for rep in range(config.reps):
                                rows += await _one_run(
                                    config, link_name, page_name, served, case, rep, key_file
                                )
                                done += 1
                                first = rows[-2]
                                print(
                                    f"bench pages: {done}/{total} {page_name} on {link_name}, "
                                    f"{case}, run {rep + 1}: {first['plt_ms'] / 1000:.2f} s, "
                                    f"revisit {rows[-1]['plt_ms'] / 1000:.2f} s",
                                    file=sys.stderr,
                                    flush=True,
                                )
    return rows


def _stop_on_signals() -> None:
    """SIGINT or SIGTERM cancels the running task once, so every program and link it
    started closes on the way out. The worker is its PID namespace's first process,
    which the kernel gives no signal it has no handler for."""
    task = asyncio.current_task()
    assert task is not None
    loop = asyncio.get_running_loop()
    for sig in STOP_SIGNALS:
        loop.add_signal_handler(sig, lambda: task.cancelling() or task.cancel())


def main(argv: Sequence[str]) -> None:
    """Inside the bench's namespace: run and print the rows as JSON on stdout."""
    raw = json.loads(argv[0])
    config = PagesConfig(
        tuple(raw["links"]),
        tuple(raw["pages"]),
        tuple(raw["cases"]),
        int(raw["reps"]),
        int(raw["seed"]),
        bool(raw["check_bodies"]),
        raw["tunnel_credit"],
    )
    try:
        rows = asyncio.run(_worker(config))
    except asyncio.CancelledError:
        print("bench pages: stopped by a signal", file=sys.stderr)
        sys.exit(1)
    json.dump(rows, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1:])
