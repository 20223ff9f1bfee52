"""Run the bench: every transport, size and repetition across one link; tidy rows.

Each transfer gets a fresh link and a fresh server: the runner opens the link, starts
the transport's server side outside it, spawns the client inside, reads its
``Fetched``, checks the sha256 against the file served, stops the server and reads the
link's packet and byte counters (what entered the link in each direction). Transfers
cannot disturb each other: a transport without congestion control (KCP) leaves minutes
of queued retransmissions on a 9.6 kbit/s line, which a shared link would make the
next transfer wait behind. A transfer that fails, times out or delivers other bytes is
a row with ``complete`` false and its error.

Goodput is file octets * 8 / completion time, the completion time running from the
client's start (before its handshake) to the file's last octet. ``C`` is the link's
IP rate downwards for full-MTU packets, ``C * (1 - p)`` that rate after the link's loss
(the best any transport can do without FEC, which can only spend capacity).
"""

import asyncio
import contextlib
import hashlib
import json
import math
import statistics
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from wwanlab.bench.http import Fetched, file_path
from wwanlab.bench.registry import ServeContext, Transport
from wwanlab.core.errors import UsageError
from wwanlab.core.rng import derive_seed
from wwanlab.experiments.scenario import Row
from wwanlab.experiments.transfers import file_bytes
from wwanlab.link.gprs_radio import GprsRadioStage
from wwanlab.link.presets import Preset
from wwanlab.link.rate import Rate, ServiceTime, TraceRate

DEFAULT_SIZES = (4000, 12000, 33500, 63500)  # octets: paper 000 Figure 7's file sizes
TIMEOUT_FLOOR = 60.0  # s a transfer may take beyond ten times its time at C
SETTLE = 0.5  # s after a transfer before the server stops (FINs, last Acks)
COUNTERS = ("packets_up", "packets_down", "bytes_up", "bytes_down")


class BenchLink(Protocol):
    """What the bench needs of a link: where the host is, running a client inside, and
    the link's counters (None when there is no emulator to count)."""

    @property
    def host_address(self) -> str: ...

    async def spawn(self, argv: list[str], **kwargs: Any) -> asyncio.subprocess.Process: ...

    def counters(self) -> dict[str, int] | None: ...


OpenLink = Callable[[int], AbstractAsyncContextManager[BenchLink]]
"""A fresh link for one transfer, from its seed."""


class LoopbackLink:
    """No emulator: the client runs here and reaches the servers on 127.0.0.1. For
    trying transports out and for tests; nothing is counted, nothing is slowed down."""

    host_address = "127.0.0.1"

    async def spawn(self, argv: list[str], **kwargs: Any) -> asyncio.subprocess.Process:
        return await asyncio.create_subprocess_exec(*argv, **kwargs)

    def counters(self) -> dict[str, int] | None:
        return None


@contextlib.asynccontextmanager
async def loopback(seed: int) -> AsyncIterator[BenchLink]:
    """``OpenLink`` without an emulator."""
    yield LoopbackLink()


def capacity_bps(preset: Preset) -> float:
    """C: the downward IP rate in bit/s for full-MTU packets, at the slowest stage: a
    ``Rate`` charges serialization plus framing, a ``ServiceTime`` (the GPRS radio of
    paper 002's service-time cells) one mean service time whatever the size, a
    ``GprsRadioStage`` its frame at the radio's rate. NaN for a trace link."""
    rates = []
    for stage in preset.build("down").stages:
        if isinstance(stage, Rate):
            octets = stage.bps / stage.bits_per_byte
            rates.append(octets * preset.mtu / (preset.mtu + stage.overhead_bytes) * 8)
        elif isinstance(stage, ServiceTime):
            rates.append(preset.mtu * 8 / stage.service.mean)
        elif isinstance(stage, GprsRadioStage):
            rates.append(preset.mtu * 8 / stage.serialization(preset.mtu))
        elif isinstance(stage, TraceRate):
            return math.nan
    return min(rates, default=math.nan)


@dataclass(frozen=True)
class BenchConfig:
    preset: Preset  # with the loss override applied
    sizes: Sequence[int] = DEFAULT_SIZES
    reps: int = 3
    seed: int = 1
    emulated: bool = True

    def __post_init__(self) -> None:
        if self.reps < 1:
            raise UsageError(f"--reps {self.reps} must be at least 1")
        if not self.sizes or any(not 1 <= s <= 1 << 24 for s in self.sizes):
            raise UsageError("--sizes must list file sizes between 1 and 16777216 octets")

    @property
    def loss(self) -> float:
        """p: the long-run loss downwards, with the preset's override applied."""
        return float(self.preset.configured["down"]["loss"])

    @property
    def capacity(self) -> float:
        return capacity_bps(self.preset)


Progress = Callable[[str], None]
"""Called after each transfer with a line saying what finished."""


async def run_bench(
    open_link: OpenLink,
    transports: Sequence[Transport],
    config: BenchConfig,
    progress: Progress = lambda what: None,
    *,
    parallel: int = 1,
) -> list[Row]:
    """Every transport x repetition x size once; one row each, in that order. Up to
    ``parallel`` transports run at once, each on links of its own. The link of a
    repetition and size has the same seed for every transport."""
    files = {file_path(size): file_bytes(size, config.seed) for size in config.sizes}
    digests = {path: hashlib.sha256(body).hexdigest() for path, body in files.items()}
    slots = asyncio.Semaphore(parallel)

    async def bench_one(transport: Transport) -> list[Row]:
        rows: list[Row] = []
        async with slots:
            for rep in range(config.reps):
                for size in config.sizes:
                    seed = derive_seed(config.seed, "bench", str(size), str(rep))
                    async with open_link(seed) as link:
                        ctx = ServeContext(link.host_address, files, config.preset)
                        row = await _transfer(link, transport, ctx, size, digests, config)
                    rows.append({**row, "rep": rep, "seed": seed})
                    done = f"{row['completion_s']:.2f} s" if row["complete"] else row["error"]
                    progress(f"{row['link']} {transport.name} {size} B: {done}")
        return rows

    per_transport = await asyncio.gather(*(bench_one(t) for t in transports))
    return [row for rows in per_transport for row in rows]


async def _transfer(
    link: BenchLink,
    transport: Transport,
    ctx: ServeContext,
    size: int,
    digests: Mapping[str, str],
    config: BenchConfig,
) -> Row:
    path = file_path(size)
    timeout = TIMEOUT_FLOOR + (
        10 * size * 8 / config.capacity if math.isfinite(config.capacity) else 0.0
    )
    before = link.counters()
    fetched: Fetched | None = None
    error = ""
    async with transport.serve(ctx) as params:
        proc = await link.spawn(
            transport.command(params, path),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            out, err = await asyncio.wait_for(proc.communicate(), timeout)
        except TimeoutError:
            proc.kill()
            await proc.wait()
            error = f"no answer in {timeout:.0f} s"
        else:
            error = _failure(transport, out, err, proc.returncode)
            if not error:
                fetched = transport.read(json.loads(out))
        await asyncio.sleep(SETTLE)
    after = link.counters()
    if fetched is not None and (fetched.sha256 != digests[path] or fetched.size != size):
        error, fetched = f"wrong body ({fetched.size} octets, sha256 {fetched.sha256[:12]})", None
    return _row(transport, size, fetched, error, before, after, config)


def _failure(transport: Transport, out: bytes, err: bytes, status: int | None) -> str:
    """Why the client's output is not a ``Fetched`` ("" when it is one)."""
    try:
        transport.read(json.loads(out))
    except (ValueError, KeyError, TypeError) as exc:
        lines = err.decode(errors="replace").strip().splitlines()
        return lines[-1] if lines else str(exc) or f"client exited with {status}"
    return ""


def _row(
    transport: Transport,
    size: int,
    fetched: Fetched | None,
    error: str,
    before: Mapping[str, int] | None,
    after: Mapping[str, int] | None,
    config: BenchConfig,
) -> Row:
    capacity, loss = config.capacity, config.loss
    complete = fetched is not None
    seconds = fetched.complete_s if fetched is not None else math.nan
    goodput = size * 8 / seconds if complete and seconds > 0 else math.nan
    emulated = config.emulated and math.isfinite(capacity)
    row: Row = {
        "link": config.preset.name if config.emulated else "loopback",
        "loss": loss,
        "transport": transport.name,
        "family": transport.family,
        "ours": transport.ours,
        "size": size,
        "complete": complete,
        "error": error,
        "handshake_s": fetched.handshake_s if fetched is not None else None,
        "completion_s": seconds,
        "goodput_bps": goodput,
        "pct_c": 100 * goodput / capacity if emulated else None,
        "pct_c_loss": 100 * goodput / (capacity * (1 - loss)) if emulated else None,
    }
    for name in COUNTERS:
        row[name] = after[name] - before[name] if before and after else None
    return row


def deciles(values: Sequence[float]) -> tuple[float, float]:
    """p10 and p90 by linear interpolation between order statistics (NaN if empty)."""
    if not values:
        return math.nan, math.nan
    if len(values) == 1:
        return values[0], values[0]
    cuts = statistics.quantiles(values, n=10, method="inclusive")
    return cuts[0], cuts[-1]


def summarize_bench(rows: Sequence[Row]) -> list[Row]:
    """Per transport and size: completion and goodput median with p10-p90, the
    goodput's % of C and of C(1-p), the median handshake and bytes on the wire."""
    groups: dict[tuple[str, int], list[Row]] = {}
    for row in rows:
        groups.setdefault((row["transport"], row["size"]), []).append(row)
    out: list[Row] = []
    for (transport, size), group in groups.items():
        done = [r for r in group if r["complete"]]

        def med(column: str, rs: Sequence[Row] = done) -> float | None:
            values = [float(r[column]) for r in rs if r[column] is not None]
            return statistics.median(values) if values else None

        goodputs = [r["goodput_bps"] for r in done]
        times = [r["completion_s"] for r in done]
        out.append(
            {
                "link": group[0]["link"],
                "loss": group[0]["loss"],
                "transport": transport,
                "family": group[0]["family"],
                "ours": group[0]["ours"],
                "size": size,
                "runs": len(group),
                "failed": len(group) - len(done),
                "completion_s": med("completion_s"),
                "completion_p10": deciles(times)[0],
                "completion_p90": deciles(times)[1],
                "goodput_bps": med("goodput_bps"),
                "goodput_p10": deciles(goodputs)[0],
                "goodput_p90": deciles(goodputs)[1],
                "pct_c": med("pct_c"),
                "pct_c_loss": med("pct_c_loss"),
                "handshake_s": med("handshake_s"),
                "bytes_up": med("bytes_up", group),
                "bytes_down": med("bytes_down", group),
            }
        )
    return out
