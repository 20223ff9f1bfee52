"""Kannel 1.4.5 as a real WAP peer: bearerbox + wapbox as a gateway, fakewap as a client.

Kannel's bearerbox owns the WDP (UDP) side and hands datagrams over a TCP "box"
connection to wapbox, which runs WTP/WSP and fetches from HTTP. In 1.4.5 the WDP
ports are fixed in bearerbox (9200 connectionless WSP, 9201 WSP over WTP); only the
address is configurable (``wdp-interface-name``). So that several gateways can run on
one machine, each ``KannelGateway`` binds its own loopback address (127.0.0.2, .3, ...)
with the standard ports, and picks free TCP ports for its admin page and box link.

``run_fakewap`` runs ``/usr/lib/kannel/test/fakewap`` (the flags are those of its
``-h``) and parses the summary it logs. Only loopback addresses are ever used.
"""

import contextlib
import errno
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import TracebackType

from wwanlab.core.errors import WwanlabError

BEARERBOX = Path("/usr/sbin/bearerbox")
WAPBOX = Path("/usr/sbin/wapbox")
FAKEWAP = Path("/usr/lib/kannel/test/fakewap")

# Fixed in Kannel 1.4.5's bearerbox (gw/bb_udp.c); WAP WDP assigns them (WAP-259 Annex B).
WSP_CONNECTIONLESS_PORT = 9200
WSP_CONNECTION_ORIENTED_PORT = 9201

# Kannel log levels: 0 debug, 1 info, 2 warning, 3 error, 4 panic.
LOG_DEBUG = 0
LOG_WARNING = 2

START_ATTEMPTS = 3


class KannelError(WwanlabError):
    """Kannel did not start, did not become ready, or fakewap could not be run."""


def kannel_installed() -> bool:
    """True when bearerbox, wapbox and fakewap are all present and executable."""
    return all(os.access(p, os.X_OK) for p in (BEARERBOX, WAPBOX, FAKEWAP))


def _free_tcp_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def udp_port_in_use(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.bind((host, port))
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                return True
            raise
    return False


def free_wdp_host(first: int = 2, last: int = 254) -> str:
    """The first loopback address 127.0.0.N on which both WDP ports are free."""
    for n in range(first, last + 1):
        host = f"127.0.0.{n}"
        if not any(
            udp_port_in_use(host, p)
            for p in (WSP_CONNECTIONLESS_PORT, WSP_CONNECTION_ORIENTED_PORT)
        ):
            return host
    raise KannelError("no loopback address 127.0.0.2-254 has UDP ports 9200 and 9201 free")


@dataclass(frozen=True)
class KannelConfig:
    """What varies between two gateways; everything else is fixed in ``render``."""

    wdp_host: str
    admin_port: int
    wapbox_port: int
    workdir: Path
    admin_password: str = "wwanlab"
    log_level: int = LOG_DEBUG

    def render(self) -> str:
        """The kannel.conf text: a core group and a wapbox group, WAP only, no SMS."""
        d = self.workdir
        return (
            "group = core\n"
            f"admin-port = {self.admin_port}\n"
            "admin-interface = 127.0.0.1\n"
            f'admin-password = "{self.admin_password}"\n'
            'admin-deny-ip = "*.*.*.*"\n'
            'admin-allow-ip = "127.0.0.1"\n'
            f"wapbox-port = {self.wapbox_port}\n"
            'box-deny-ip = "*.*.*.*"\n'
            'box-allow-ip = "127.0.0.1"\n'
            f'wdp-interface-name = "{self.wdp_host}"\n'
            f'log-file = "{d / "bearerbox.log"}"\n'
            f"log-level = {self.log_level}\n"
            f'access-log = "{d / "bearerbox-access.log"}"\n'
            "\n"
            "group = wapbox\n"
            "bearerbox-host = 127.0.0.1\n"  # wapbox reads the port from the core group
            f'log-file = "{d / "wapbox.log"}"\n'
            f"log-level = {self.log_level}\n"
            f'access-log = "{d / "wapbox-access.log"}"\n'
        )


class KannelGateway:
    """bearerbox + wapbox on loopback, as a context manager.

    >>> with KannelGateway() as gw:  # doctest: +SKIP
    ...     run_fakewap([url], FakewapOptions(gateway=gw.wdp_host))

    The work directory (config, logs, stdout/stderr of both boxes) is a fresh temporary
    directory removed on exit unless ``keep_dir`` or a given ``workdir``.
    """

    def __init__(
        self,
        *,
        wdp_host: str | None = None,
        workdir: Path | None = None,
        log_level: int = LOG_DEBUG,
        keep_dir: bool = False,
        startup_timeout: float = 15.0,
        env: Mapping[str, str] | None = None,
    ) -> None:
        if not kannel_installed():
            raise KannelError(f"Kannel is not installed ({BEARERBOX}, {WAPBOX}, {FAKEWAP})")
        self._own_dir = workdir is None
        self._fixed_host = wdp_host is not None
        self.workdir = Path(tempfile.mkdtemp(prefix="kannel-")) if workdir is None else workdir
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.keep_dir = keep_dir
        self.startup_timeout = startup_timeout
        self.config = KannelConfig(
            wdp_host=wdp_host or free_wdp_host(),
            admin_port=_free_tcp_port(),
            wapbox_port=_free_tcp_port(),
            workdir=self.workdir,
            log_level=log_level,
        )
        self.config_path = self.workdir / "kannel.conf"
        self.env = dict(env or {})  # added to both boxes' environment (LD_PRELOAD, ...)
        self._procs: dict[str, subprocess.Popen[bytes]] = {}

    @property
    def wdp_host(self) -> str:
        return self.config.wdp_host

    def wdp_address(self, connectionless: bool = False) -> tuple[str, int]:
        port = WSP_CONNECTIONLESS_PORT if connectionless else WSP_CONNECTION_ORIENTED_PORT
        return (self.wdp_host, port)

    @property
    def bearerbox_log(self) -> Path:
        return self.workdir / "bearerbox.log"

    @property
    def wapbox_log(self) -> Path:
        return self.workdir / "wapbox.log"

    def pids(self) -> dict[str, int]:
        return {name: p.pid for name, p in self._procs.items()}

    def status(self) -> str:
        """bearerbox's plain-text status page (``/status.txt`` on the admin port)."""
        url = (
            f"http://127.0.0.1:{self.config.admin_port}/status.txt"
            f"?password={self.config.admin_password}"
        )
        with urllib.request.urlopen(url, timeout=2) as reply:
            body: bytes = reply.read()
        return body.decode("utf-8", "replace")

    def wdp_counters(self) -> tuple[int, int]:
        """(received, sent) WDP datagram totals from the status page."""
        m = re.search(r"WDP: received (\d+) \(\d+ queued\), sent (\d+)", self.status())
        if m is None:
            raise KannelError("bearerbox status page has no WDP line")
        return int(m.group(1)), int(m.group(2))

    def start(self) -> None:
        """Start both boxes and wait until they serve.

        Another program may bind the chosen address between ``free_wdp_host`` and
        bearerbox's own bind; when the address was chosen here, start-up is tried again
        on the next free address, ``START_ATTEMPTS`` times in all.
        """
        for attempt in range(1, START_ATTEMPTS + 1):
            try:
                self._start_once()
                return
            except KannelError:
                if self._fixed_host or attempt == START_ATTEMPTS:
                    raise
                self._terminate()
                self.config = replace(self.config, wdp_host=free_wdp_host())

    def _start_once(self) -> None:
        self.config_path.write_text(self.config.render())
        self._spawn("bearerbox", BEARERBOX)
        self._wait(self._admin_up, "bearerbox admin page")
        self._spawn("wapbox", WAPBOX)
        self._wait(self._wapbox_online, "wapbox on-line in bearerbox status")
        self._wait(self._wdp_bound, f"UDP {self.wdp_host}:9200/9201 bound")

    def stop(self) -> None:
        """End both boxes; remove a temporary work directory unless it is kept."""
        self._terminate()
        if self._own_dir and not self.keep_dir:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def _terminate(self) -> None:
        """SIGTERM wapbox then bearerbox; SIGKILL whichever is still alive after 5 s."""
        for name in ("wapbox", "bearerbox"):
            proc = self._procs.pop(name, None)
            if proc is None:
                continue
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=5)

    def __enter__(self) -> "KannelGateway":
        try:
            self.start()
        except BaseException:
            self.keep_dir = True  # keep the logs that explain the failure
            self.stop()
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def _spawn(self, name: str, program: Path) -> None:
        out = (self.workdir / f"{name}.stdout").open("wb")
        with out:
            # -v: the level of what the box prints on stderr, debug unless told.
            verbosity = ["-v", str(self.config.log_level)]
            self._procs[name] = subprocess.Popen(
                [str(program), *verbosity, str(self.config_path)],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=self.workdir,
                env={**os.environ, **self.env},
                start_new_session=True,
            )

    def _wait(self, ready: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            for name, proc in self._procs.items():
                if proc.poll() is not None:
                    raise KannelError(
                        f"{name} exited with {proc.returncode} while waiting for {what}; "
                        f"logs in {self.workdir}"
                    )
            if ready():
                return
            time.sleep(0.05)
        raise KannelError(f"timed out after {self.startup_timeout} s waiting for {what}")

    def _admin_up(self) -> bool:
        try:
            return "Status: running" in self.status()
        except (urllib.error.URLError, OSError):
            return False

    def _wapbox_online(self) -> bool:
        try:
            return re.search(r"wapbox, IP 127\.0\.0\.1 \(on-line", self.status()) is not None
        except (urllib.error.URLError, OSError):
            return False

    def _wdp_bound(self) -> bool:
        return all(
            udp_port_in_use(self.wdp_host, p)
            for p in (WSP_CONNECTIONLESS_PORT, WSP_CONNECTION_ORIENTED_PORT)
        )


# fakewap -------------------------------------------------------------------------------

_LOG_LINE = re.compile(r"^\S+ \S+ \[\d+\] \[\d+\] (?P<level>[A-Z]+): (?P<text>.*)$")
_SUMMARY = re.compile(r"fakewap: (\d+) client threads made total (\d+) transactions\.")
_RUNNING = re.compile(r"fakewap: total running time ([\d.]+) seconds")
_TIMES = re.compile(
    r"fakewap: time of best, worst and average transaction: ([\d.]+) s, ([\d.]+) s, "
    r"([\d.a-z-]+) s"
)
_BAD_STATUS = re.compile(r"received reply with status (\d+)")


@dataclass(frozen=True)
class FakewapResult:
    """What one fakewap run did, from its log and from our own wall clock.

    fakewap's own "running time" is a difference of whole seconds (``time()``), so
    ``transactions_per_second`` divides by ``wall_time`` measured around the process.
    One fakewap "transaction" in connection-oriented mode is a whole session:
    Connect, Get (or Post), Disconnect.
    """

    returncode: int
    wall_time: float
    clients: int
    transactions: int
    replies_ok: int
    bad_statuses: tuple[int, ...]
    timeouts: int
    dropped: int
    nacks: int
    errors: tuple[str, ...]
    best_s: float | None
    worst_s: float | None
    average_s: float | None
    reported_running_time_s: float | None
    log: str = field(repr=False)

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.errors and self.replies_ok == self.transactions

    @property
    def transactions_per_second(self) -> float:
        return self.transactions / self.wall_time if self.wall_time > 0 else math.inf


def parse_fakewap_log(log: str, returncode: int, wall_time: float) -> FakewapResult:
    """Parse fakewap's log (its stderr) into a ``FakewapResult``."""
    clients = transactions = replies_ok = timeouts = dropped = nacks = 0
    bad: list[int] = []
    errors: list[str] = []
    best = worst = average = running = None
    for raw in log.splitlines():
        m = _LOG_LINE.match(raw)
        if m is None:
            continue
        level, text = m.group("level"), m.group("text")
        if level in ("ERROR", "PANIC"):
            errors.append(text)
        if "Received WSP Reply with status code 200OK" in text:
            replies_ok += 1
        elif s := _BAD_STATUS.search(text):
            bad.append(int(s.group(1)))
        elif "Timeout while receiving" in text:
            timeouts += 1
        elif text.startswith("Dropped packet"):
            dropped += 1
        elif text.startswith("Sending WTP_NACK"):
            nacks += 1
        elif s := _SUMMARY.search(text):
            clients, transactions = int(s.group(1)), int(s.group(2))
        elif s := _RUNNING.search(text):
            running = float(s.group(1))
        elif s := _TIMES.search(text):
            best, worst = float(s.group(1)), float(s.group(2))
            mean = float(s.group(3))  # "-nan" when no transaction finished
            average = None if math.isnan(mean) else mean
    return FakewapResult(
        returncode=returncode,
        wall_time=wall_time,
        clients=clients,
        transactions=transactions,
        replies_ok=replies_ok,
        bad_statuses=tuple(bad),
        timeouts=timeouts,
        dropped=dropped,
        nacks=nacks,
        errors=tuple(errors),
        best_s=best,
        worst_s=worst,
        average_s=average,
        reported_running_time_s=running,
        log=log,
    )


@dataclass(frozen=True)
class FakewapOptions:
    """fakewap's options (its ``-h``); ``command`` checks them and builds the argv."""

    gateway: str
    port: int | None = None  # None: fakewap's default, 9200 with -M 0, 9201 with -M 1
    connectionless: bool = False  # -M 0 (else -M 1)
    clients: int = 1  # -c: threads, each with its own UDP socket
    max_requests: int = 1  # -m: total over all clients
    interval: float = 0.0  # -i: per client, minimum seconds from one start to the next
    loss_percent: int = 0  # -l: drop this share of RECEIVED datagrams (0..99)
    post_file: Path | None = None  # -P: Post this file instead of Get
    out_file: Path | None = None  # -w: write the last reply body here
    transaction_class: int | None = None  # -t: class of the Connect/Get Invoke
    tid_new: bool = False  # -n: set TIDnew on Invokes
    tid_step: int | None = None  # -d: difference between successive TIDs
    user_agent: str | None = None  # -A
    source: str | None = None  # -I addr[:port]: bind the client sockets here
    debug: int = 1  # -D: 0 summary only, 1 one line per PDU, 2 hex dumps
    accept_failure: bool = False  # -F: keep waiting after a receive timeout

    def command(self, urls: Sequence[str]) -> list[str]:
        if not urls:
            raise KannelError("fakewap needs at least one URL")
        if not self.gateway.startswith("127."):
            raise KannelError(f"fakewap gateway must be a loopback address, got {self.gateway}")
        if not 0 <= self.loss_percent <= 99:
            raise KannelError(f"fakewap loss must be 0..99 percent, got {self.loss_percent}")
        if self.max_requests < 1:
            # fakewap's -m 0 is meant as "unlimited" but its loop stops after the first.
            raise KannelError("fakewap max_requests must be >= 1")
        cmd = [str(FAKEWAP), "-g", self.gateway, "-M", "0" if self.connectionless else "1"]
        cmd += ["-c", str(self.clients), "-m", str(self.max_requests)]
        cmd += ["-i", repr(self.interval), "-D", str(self.debug)]
        if self.port is not None:
            cmd += ["-p", str(self.port)]
        if self.loss_percent:
            cmd += ["-l", str(self.loss_percent)]
        if self.post_file is not None:
            cmd += ["-P", str(self.post_file)]
        if self.out_file is not None:
            cmd += ["-w", str(self.out_file)]
        if self.transaction_class is not None:
            cmd += ["-t", str(self.transaction_class)]
        if self.tid_new:
            cmd.append("-n")
        if self.tid_step is not None:
            cmd += ["-d", str(self.tid_step)]
        if self.user_agent is not None:
            cmd += ["-A", self.user_agent]
        if self.source is not None:
            if not self.source.startswith("127."):
                raise KannelError(f"fakewap source must be a loopback address: {self.source}")
            cmd += ["-I", self.source]
        if self.accept_failure:
            cmd.append("-F")
        return [*cmd, *urls]


def run_fakewap(
    urls: Sequence[str], options: FakewapOptions, *, timeout: float = 60.0
) -> FakewapResult:
    """Run fakewap to completion (killed after ``timeout`` s) and parse its log."""
    cmd = options.command(urls)
    start = time.monotonic()
    proc = subprocess.Popen(
        cmd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
        wall = time.monotonic() - start
        result = parse_fakewap_log(out.decode("utf-8", "replace"), -9, wall)
        raise KannelError(
            f"fakewap did not finish in {timeout} s "
            f"({result.replies_ok} replies, {result.timeouts} timeouts)"
        ) from None
    finally:
        with contextlib.suppress(ProcessLookupError):
            if proc.poll() is None:
                proc.kill()
    wall = time.monotonic() - start
    return parse_fakewap_log(out.decode("utf-8", "replace"), proc.returncode, wall)


@dataclass(frozen=True)
class FakewapBatch:
    """Several fakewap processes run side by side, and the wall time of them all."""

    results: tuple[FakewapResult, ...]
    wall_time: float

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results)

    @property
    def transactions(self) -> int:
        return sum(r.transactions for r in self.results)

    @property
    def transactions_per_second(self) -> float:
        return self.transactions / self.wall_time if self.wall_time > 0 else math.inf


def run_fakewap_processes(
    urls: Sequence[str], options: FakewapOptions, processes: int, *, timeout: float = 60.0
) -> FakewapBatch:
    """Run ``processes`` fakewap processes at once, each with ``options``.

    fakewap's client threads (-c) share one unlocked TID counter, and in connectionless
    mode a thread matches its reply on bits of that shared TID: with -M 0 -c > 1 a
    thread now and then ignores its reply, waits 10 s and panics. Separate processes
    each count their own TIDs, so this is how to load Kannel connectionless.
    """
    with ThreadPoolExecutor(max_workers=processes) as pool:
        start = time.monotonic()
        futures = [
            pool.submit(run_fakewap, urls, options, timeout=timeout) for _ in range(processes)
        ]
        results = tuple(f.result() for f in futures)
    return FakewapBatch(results, time.monotonic() - start)
