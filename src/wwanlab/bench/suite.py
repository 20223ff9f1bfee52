"""One bench across one link (emulated, or loopback for trying things out), stored;
and the report's set of links, run side by side, each on its own emulated link.

Without root the emulator refuses in one line (exit 2); ``--loopback`` runs the same
transports with no link at all, for trying them out.
"""

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wwanlab.bench.page import LinkResult, transports_page
from wwanlab.bench.registry import Transport
from wwanlab.bench.run import (
    BenchConfig,
    BenchLink,
    OpenLink,
    Progress,
    loopback,
    run_bench,
    summarize_bench,
)
from wwanlab.emu.link import EmulatedLink
from wwanlab.experiments.scenario import Row
from wwanlab.experiments.store import ResultStore, table_name
from wwanlab.report.html import write_index
from wwanlab.report.provenance import RunInfo

REPORT_LINKS: tuple[tuple[str, float | None], ...] = (
    ("serial-9k6", 0.0),  # paper 000 section 3.1: 0% and 10% drop
    ("serial-9k6", 0.1),
    ("gprs-busy", None),  # the preset's own loss (paper 002 Table IV)
    ("gprs-one-user", None),  # paper 002 Table V
    ("vdeldrop", None),  # paper 004's On/Off phases
)
QUICK_SIZES = (4000, 12000)  # the report in the main job: the target's threshold size


class EmulatorLink:
    """A ``wwanlab.emu.link.EmulatedLink`` as the bench sees it: counters are what
    entered the link in each direction (the forwarder's summary)."""

    def __init__(self, link: EmulatedLink) -> None:
        self.link = link

    @property
    def host_address(self) -> str:
        return self.link.host_address

    async def spawn(self, argv: list[str], **kwargs: Any) -> asyncio.subprocess.Process:
        return await self.link.spawn(argv, **kwargs)

    def counters(self) -> dict[str, int] | None:
        forwarder = self.link.summary()["forwarder"]
        return {
            f"{what}_{d}": int(forwarder[d][what])
            for d in ("up", "down")
            for what in ("packets", "bytes")
        }


def link_opener(config: BenchConfig, loss: float | None) -> OpenLink:
    """Fresh emulated links of ``config`` (loopback when not ``config.emulated``)."""
    if not config.emulated:
        return loopback

    @contextlib.asynccontextmanager
    async def open_link(seed: int) -> AsyncIterator[BenchLink]:
        async with EmulatedLink(config.preset.name, loss=loss, seed=seed) as link:
            yield EmulatorLink(link)

    return open_link


@dataclass
class LinkRun:
    config: BenchConfig
    loss: float | None  # the override asked for (None: the preset's own)
    rows: list[Row]

    @property
    def experiment(self) -> str:
        """The results table's name, one per link and loss, usable unquoted in SQL."""
        return table_name(
            f"bench_transports_{self.config.preset.name}_{round(self.config.loss * 100)}"
        )

    def result(self) -> LinkResult:
        return LinkResult(
            self.config.preset.name if self.config.emulated else "loopback",
            self.config.loss,
            self.config.capacity,
            summarize_bench(self.rows),
            self.config.loss_before_line,
        )


async def bench_link(
    config: BenchConfig,
    loss: float | None,
    transports: Sequence[Transport],
    progress: Progress,
    parallel: int = 1,
) -> LinkRun:
    opener = link_opener(config, loss)
    rows = await run_bench(opener, transports, config, progress, parallel=parallel)
    return LinkRun(config, loss, rows)


def store(runs: Sequence[LinkRun], db: Path, csv_dir: Path | None) -> list[Path]:
    """Each run's rows into its DuckDB table, and a CSV of it into ``csv_dir``."""
    written = []
    with ResultStore(db) as results:
        for run in runs:
            results.write(run.experiment, run.rows)
            if csv_dir is not None:
                written.append(
                    results.export_csv(run.experiment, csv_dir / f"{run.experiment}.csv")
                )
    return written


async def bench_report(
    configs: Sequence[tuple[BenchConfig, float | None]],
    transports: Sequence[Transport],
    out: Path,
    progress: Progress,
    *,
    quick: bool,
    parallel: int = 1,
) -> tuple[list[LinkRun], Path]:
    """Every link at once (and up to ``parallel`` transports on each), each transfer on
    an emulated link of its own; the page into ``out``."""
    started = time.time()
    runs = await asyncio.gather(
        *(bench_link(c, loss, transports, progress) for c, loss in configs)
    )
    run = RunInfo.collect("quick" if quick else "full", started)
    params: dict[str, object] = {
        "sizes (octets)": ", ".join(map(str, configs[0][0].sizes)),
        "repetitions": configs[0][0].reps,
        "seed": configs[0][0].seed,
    }
    table = [
        {"transport": t.name, "family": t.family, "ours": t.ours, "what": t.description}
        for t in transports
    ]
    page = transports_page([r.result() for r in runs], out, table, params, run)
    write_index(out, [page])
    return list(runs), out / page.filename
