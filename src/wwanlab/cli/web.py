"""``wwanlab web``: one simulated page download, its timeline and latency breakdown."""

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from wwanlab.cli.common import (
    JsonOption,
    check_probability,
    output_console,
    output_file,
    output_folder,
    print_json,
)
from wwanlab.core.errors import UsageError
from wwanlab.core.progress import track
from wwanlab.pep.options import OPTIONS, apply, parse_options
from wwanlab.web.breakdown import LABELS, SHARES
from wwanlab.web.browser import STRATEGIES, PageDownload, Setup, download
from wwanlab.web.page import Page
from wwanlab.web.pages import SITES, generate, load

MAX_FAILURES_SHOWN = 20  # failed objects listed in the text output (all are in --json)


def load_page(spec: str, seed: int) -> Page:
    """A Table 1 site name (generated for ``seed``), a HAR file or a page folder."""
    if spec in SITES:
        return generate(spec, seed)
    if Path(spec).exists():
        return load(spec)
    known = ", ".join(SITES)
    raise UsageError(f"{spec!r} is neither a site ({known}) nor a HAR file or folder")


def register(app: typer.Typer) -> None:
    @app.command(name="web")
    def web_command(
        page: Annotated[
            str,
            typer.Argument(
                metavar="PAGE_OR_SITE",
                help="A Table 1 site name (e.g. cnn), a HAR file or a folder.",
            ),
        ],
        link: Annotated[str, typer.Option(help="Access link preset.")] = "gprs-3plus1",
        strategy: Annotated[
            str, typer.Option(help=f"Browser strategy: {', '.join(STRATEGIES)}.")
        ] = "http1.1",
        connections: Annotated[
            int | None, typer.Option(help="Connections per server (default: the strategy's).")
        ] = None,
        opt: Annotated[
            str,
            typer.Option("--opt", help=f"Optimizations, comma-separated: {', '.join(OPTIONS)}."),
        ] = "",
        loss: Annotated[
            float | None, typer.Option(help="Override the link's loss knob (0..1).")
        ] = None,
        seed: Annotated[int, typer.Option(help="Seed of the page and the simulation.")] = 1,
        plot: Annotated[
            Path | None, typer.Option(help="Draw the timeline and breakdown (.png or .svg).")
        ] = None,
        json: JsonOption = False,
    ) -> None:
        """Download a page once in the simulator: total time, throughput, where the time
        went (paper 003 Figure 4) and the objects that failed."""
        if loss is not None:
            check_probability("--loss", loss)
        if plot is not None:
            from wwanlab.web.plot import plot_format

            plot_format(plot)
            output_file(output_folder(plot.parent, "--plot") / plot.name, "--plot")
        options = parse_options(opt)
        setup = Setup(link=link, loss=loss, strategy=strategy, connections=connections)
        chosen, setup = apply(options, load_page(page, seed), setup)
        with track(f"web {page}", len(chosen.objects) + 1) as advance:
            result = download(chosen, setup, seed, progress=advance)
        drawn = None
        if plot is not None:
            from wwanlab.web.plot import plot_download

            try:
                drawn = plot_download(result, plot)
            except OSError as exc:
                raise UsageError(f"cannot write --plot {str(plot)!r}: {exc.strerror}") from None
        if json:
            doc = to_json(result, [o.name for o in options])
            if drawn is not None:
                doc["plot"] = str(drawn)
            print_json(doc)
            return
        _print(output_console(), result, [o.name for o in options])
        if drawn is not None:
            print(f"plot: {drawn}")


def to_json(result: PageDownload, options: list[str]) -> dict[str, Any]:
    setup = result.setup
    return {
        "page": result.page,
        "link": setup.link,
        "strategy": setup.strategy,
        "connections": setup.connections,
        "options": options,
        "seed": result.seed,
        "complete": result.complete,
        "total_time_s": result.total_time,
        "body_bytes": result.body_bytes,
        "downlink_bytes": result.downlink_bytes,
        "throughput_bps": result.throughput_bps,
        "dns_queries": result.dns_queries,
        "tcp_connections": len(result.connections),
        "breakdown_s": result.breakdown.seconds(),
        "breakdown_percent": result.breakdown.shares(),
        "failures": [
            {"url": o.url, "reason": o.failure or f"HTTP {o.status}"} for o in result.failures
        ],
        "objects": [
            {
                "url": o.url,
                "status": o.status,
                "bytes": o.size,
                "requested_s": o.requested,
                "sent_s": o.sent,
                "finished_s": o.finished,
                "connection": o.connection,
                "failure": o.failure,
            }
            for o in result.objects
        ],
        "lookups": [
            {
                "name": x.name,
                "started_s": x.started,
                "finished_s": x.finished,
                "address": x.address,
            }
            for x in result.lookups
        ],
    }


def _print(console: Console, result: PageDownload, options: list[str]) -> None:
    setup = result.setup
    console.print(
        f"{result.page} over {setup.link}, {setup.strategy}"
        + (f" x{setup.connections}" if setup.connections else "")
        + (f", options {', '.join(options)}" if options else "")
        + f", seed {result.seed}"
    )
    console.print(
        f"total {result.total_time:.2f} s, {result.body_bytes:,} body octets, "
        f"{result.throughput_bps / 1000:.1f} kbit/s; {len(result.connections)} TCP "
        f"connections, {result.dns_queries} DNS queries"
    )
    table = Table("component", "seconds", "share")
    seconds = result.breakdown.seconds()
    shares = result.breakdown.shares()
    for name in SHARES:
        table.add_row(LABELS[name], f"{seconds[name]:.2f}", f"{shares[name]:.1f}%")
    console.print(table)
    failures = result.failures
    if not failures:
        console.print(f"all {len(result.objects)} objects arrived")
        return
    console.print(f"{len(failures)} of {len(result.objects)} objects failed:")
    for record in failures[:MAX_FAILURES_SHOWN]:
        console.print(f"  {record.url}: {record.failure or f'HTTP {record.status}'}")
    if len(failures) > MAX_FAILURES_SHOWN:
        console.print(f"  ... and {len(failures) - MAX_FAILURES_SHOWN} more (see --json)")
