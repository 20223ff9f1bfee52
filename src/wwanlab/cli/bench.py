"""``wwanlab bench transports``: every transport across one emulated link;
``wwanlab bench report``: the report's links side by side and the transports page;
``wwanlab bench pages``: a real browser's page loads, direct, kcptun and tunnel."""

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from wwanlab.bench import registry
from wwanlab.bench.pages import CASES, FULL, QUICK, PagesConfig, run_pages
from wwanlab.bench.pages_page import pages_page, summary
from wwanlab.bench.run import DEFAULT_SIZES, BenchConfig
from wwanlab.bench.suite import QUICK_SIZES, REPORT_LINKS, bench_link, bench_report, store
from wwanlab.cli.common import (
    DbOption,
    JsonOption,
    check_before_work,
    check_probability,
    print_json,
)
from wwanlab.core.errors import UsageError
from wwanlab.core.progress import Advance, track
from wwanlab.experiments.store import DEFAULT_DB
from wwanlab.link.presets import get_preset
from wwanlab.report.html import write_index

DEFAULT_SIZES_TEXT = ",".join(map(str, DEFAULT_SIZES))

SizesOption = Annotated[
    str, typer.Option("--sizes", help="File sizes in octets, comma-separated.")
]
RepsOption = Annotated[int, typer.Option("--reps", help="Repetitions of each transfer.")]
TransportsOption = Annotated[
    str | None,
    typer.Option("--transports", help="Comma-separated names (default: every available)."),
]
SeedOption = Annotated[int, typer.Option("--seed", help="Seed of the file and the link.")]
ForceOption = Annotated[
    bool, typer.Option("--force", help="Run even past the work bound (hours of real time).")
]
MAX_TRANSFERS = 2_000  # transfers or page loads on emulated links, each in real time
ParallelOption = Annotated[
    int,
    typer.Option("--parallel", help="Transports at once, each on emulated links of its own."),
]


def check_parallel(parallel: int) -> int:
    if parallel < 1:
        raise UsageError(f"--parallel {parallel} must be at least 1")
    return parallel


def check_work(total: int, what: str, force: bool) -> None:
    """Refuse, unless ``force``, more than ``MAX_TRANSFERS`` of work that runs in real time."""
    if total > MAX_TRANSFERS and not force:
        raise UsageError(
            f"{total:,} {what} is over {MAX_TRANSFERS:,} (each in real time on an emulated "
            "link): pass --force to run them"
        )


def parse_sizes(text: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(s) for s in text.split(",") if s.strip())
    except ValueError:
        raise UsageError(f"--sizes {text!r} is not a comma-separated list of octets") from None
    if not sizes:
        raise UsageError("--sizes lists no size")
    return sizes


def _fmt(value: object, scale: float = 1.0, digits: int = 1) -> str:
    if not isinstance(value, (int, float)) or value != value:
        return "-"
    return f"{value / scale:.{digits}f}"


def print_table(summary: list[dict[str, object]], title: str) -> None:
    print(title)
    head = (
        f"{'transport':<11}{'cc':>7}{'size':>7}{'goodput kbit/s':>16}{'p10-p90':>18}{'%C':>7}"
        f"{'%C(1-p)':>9}{'time s':>8}{'hs s':>7}{'up B':>8}{'down B':>9}{'fail':>5}"
    )
    print(head)
    for r in summary:
        spread = f"{_fmt(r['goodput_p10'], 1000, 2)}-{_fmt(r['goodput_p90'], 1000, 2)}"
        cc = r.get("congestion_control") or "-"  # read from the server's socket
        print(
            f"{r['transport']!s:<11}{cc!s:>7}{r['size']!s:>7}{_fmt(r['goodput_bps'], 1000, 2):>16}"
            f"{spread:>18}{_fmt(r['pct_c']):>7}{_fmt(r['pct_c_loss']):>9}"
            f"{_fmt(r['completion_s'], 1, 2):>8}{_fmt(r['handshake_s'], 1, 2):>7}"
            f"{_fmt(r['bytes_up'], 1, 0):>8}{_fmt(r['bytes_down'], 1, 0):>9}{r['failed']!s:>5}"
        )


def _each(advance: Advance) -> Callable[[str], None]:
    """The bench's per-transfer callback (it names the transfer) as one unit of progress."""
    return lambda what: advance()


def register(app: typer.Typer) -> None:
    bench = typer.Typer(help="Benchmarks on the emulated links.", no_args_is_help=True)
    app.add_typer(bench, name="bench")

    @bench.command()
    def transports(
        link: Annotated[str, typer.Option("--link", help="Link preset (wwanlab links).")],
        loss: Annotated[
            float | None, typer.Option("--loss", help="Override the preset's loss knob.")
        ] = None,
        sizes: SizesOption = DEFAULT_SIZES_TEXT,
        reps: RepsOption = 5,
        names: TransportsOption = None,
        seed: SeedOption = 1,
        loopback: Annotated[
            bool,
            typer.Option(
                "--loopback", help="No emulator: client and servers on 127.0.0.1 (a trial)."
            ),
        ] = False,
        parallel: ParallelOption = 1,
        db: DbOption = DEFAULT_DB,
        csv: Annotated[
            Path | None, typer.Option("--csv", help="Folder for the rows as CSV.")
        ] = None,
        json: JsonOption = False,
        force: ForceOption = False,
    ) -> None:
        """Move the same random file with every transport between a client inside the
        emulated link and a server outside; sha256 checked on each transfer."""
        check_before_work(db=db, out=csv)
        preset = get_preset(link)
        if loss is not None:
            preset = preset.with_loss(check_probability("--loss", loss))
        config = BenchConfig(preset, parse_sizes(sizes), reps, seed, emulated=not loopback)
        chosen = registry.select(names)
        total = len(chosen) * reps * len(config.sizes)
        check_work(total, "transfers", force)
        with track("transfers", total, enabled=not json) as advance:
            run = asyncio.run(
                bench_link(config, loss, chosen, _each(advance), check_parallel(parallel))
            )
        store([run], db, csv)
        result = run.result()
        if json:
            print_json(
                {
                    "link": result.link,
                    "loss": result.loss,
                    "capacity_bps": result.capacity_bps,
                    "loss_before_line": result.loss_before_line,
                    "table": run.experiment,
                    "summary": list(result.summary),
                    "rows": run.rows,
                }
            )
            return
        print_table(
            list(result.summary),
            f"{result.label} (C {result.capacity_bps / 1000:.2f} kbit/s; rows in {db} "
            f"table {run.experiment})",
        )
        print(result.loss_note())

    @bench.command()
    def report(
        out: Annotated[Path, typer.Option("--out", help="Report folder.")] = Path(
            "results/report"
        ),
        quick: Annotated[
            bool, typer.Option("--quick", help=f"Sizes {QUICK_SIZES}, one repetition.")
        ] = False,
        reps: RepsOption = 5,
        names: TransportsOption = None,
        seed: SeedOption = 1,
        parallel: ParallelOption = 3,
        db: DbOption = DEFAULT_DB,
        json: JsonOption = False,
    ) -> None:
        """Every transport on serial-9k6 at 0% and 10%, gprs-busy, gprs-one-user and
        vdeldrop at once (one emulated link each); writes the transports page."""
        check_before_work(db=db, out=out)
        sizes = QUICK_SIZES if quick else DEFAULT_SIZES
        reps = 1 if quick else reps
        configs = []
        for name, loss in REPORT_LINKS:
            preset = get_preset(name) if loss is None else get_preset(name).with_loss(loss)
            configs.append((BenchConfig(preset, sizes, reps, seed), loss))
        chosen = registry.select(names)
        total = len(configs) * len(chosen) * reps * len(sizes)
        with track("transfers", total, enabled=not json) as advance:
            runs, page = asyncio.run(
                bench_report(
                    configs,
                    chosen,
                    out,
                    _each(advance),
                    quick=quick,
                    parallel=check_parallel(parallel),
                )
            )
        store(runs, db, out / "data")
        if json:
            print_json({"page": str(page), "links": [r.result().label for r in runs]})
            return
        print(f"wrote {page}")

    @bench.command()
    def pages(
        out: Annotated[Path, typer.Option("--out", help="Report folder.")] = Path(
            "results/report"
        ),
        quick: Annotated[
            bool,
            typer.Option(
                "--quick",
                help=f"Links {', '.join(QUICK.links)}, page {', '.join(QUICK.pages)}, "
                f"{QUICK.reps} runs.",
            ),
        ] = False,
        links: Annotated[
            str | None, typer.Option("--links", help="Comma-separated link presets.")
        ] = None,
        page_names: Annotated[
            str | None, typer.Option("--pages", help="Comma-separated page models or HAR files.")
        ] = None,
        cases: Annotated[
            str | None,
            typer.Option(
                "--cases",
                help=f"Comma-separated, of {', '.join(CASES)} (--quick: "
                f"{', '.join(QUICK.cases)}; otherwise all).",
            ),
        ] = None,
        reps: Annotated[int | None, typer.Option("--reps", help="Runs of each case.")] = None,
        tunnel_credit: Annotated[
            int | None,
            typer.Option("--tunnel-credit", help="The tunnel client's --credit (octets)."),
        ] = None,
        seed: SeedOption = 0,
        json: JsonOption = False,
        force: ForceOption = False,
    ) -> None:
        """Load paper 003's page models in headless Chromium over emulated links,
        direct, through kcptun and through wwanlab tunnel (its techniques together and
        each alone); writes the bench-pages page."""
        base = QUICK if quick else FULL
        config = PagesConfig(
            tuple(links.split(",")) if links else base.links,
            tuple(page_names.split(",")) if page_names else base.pages,
            tuple(cases.split(",")) if cases else base.cases,
            base.reps if reps is None else reps,
            seed,
            tunnel_credit=tunnel_credit,
        )
        check_work(
            len(config.links) * len(config.pages) * len(config.cases) * config.reps,
            "runs of a browser",
            force,
        )
        check_before_work(out=out)
        started = time.time()
        rows = run_pages(config)
        page = pages_page(rows, out, mode="quick" if quick else "full", started=started)
        index = write_index(out, [page])
        table = summary(rows)
        if json:
            print_json({"page": str(out / page.filename), "index": str(index), "runs": table})
            return
        print(
            f"{'link':<16}{'page':<8}{'case':<16}{'visit':<9}{'runs':>5}{'PLT s':>9}{'octets':>9}"
        )
        for r in table:
            print(
                f"{r['link']:<16}{r['page']:<8}{r['case']:<16}{r['visit']:<9}{r['runs']:>5}"
                f"{r['plt_s']:>9.2f}{r['link_octets']:>9}"
            )
        print(f"wrote {out / page.filename}")
