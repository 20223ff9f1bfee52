"""``wwanlab probe``: measure a link preset in the simulator beside what it configures."""

import math
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from wwanlab import reproductions
from wwanlab.cli.common import output_console, output_folder, print_json
from wwanlab.core.errors import UsageError
from wwanlab.experiments.probe import (
    DEFAULT_COUNT,
    MAX_UNFORCED_COUNT,
    PING_SIZE,
    RATE_PACKET,
    STEADY_INTERVAL,
    LinkUnderTest,
    ProbeResult,
    probe,
    probe_all,
)
from wwanlab.link.presets import get_preset


def register(app: typer.Typer) -> None:
    @app.command(name="probe")
    def probe_command(
        link: Annotated[str | None, typer.Option(help="Link preset to probe.")] = None,
        all_: Annotated[
            bool, typer.Option("--all", help="Probe every preset and write an HTML report.")
        ] = False,
        out: Annotated[Path, typer.Option(help="Report folder for --all.")] = Path(
            "results/report"
        ),
        pcap: Annotated[
            Path | None, typer.Option(help="Capture every probe datagram the link delivers.")
        ] = None,
        seed: Annotated[int, typer.Option(help="Simulation seed.")] = 1,
        count: Annotated[
            int, typer.Option(help="Paced probe datagrams per direction.")
        ] = DEFAULT_COUNT,
        loss: Annotated[
            float | None, typer.Option(help="Override the preset's loss knob (0..1).")
        ] = None,
        rate: Annotated[
            float | None, typer.Option(help="Add a bottleneck of this many bit/s.")
        ] = None,
        trace: Annotated[
            Path | None, typer.Option(help="Add a Mahimahi delivery-trace bottleneck.")
        ] = None,
        json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
        force: Annotated[
            bool,
            typer.Option("--force", help=f"Probe with --count over {MAX_UNFORCED_COUNT:,}."),
        ] = False,
    ) -> None:
        """Send probe trains down and up a preset's link; print rate, delay and loss."""
        if count > MAX_UNFORCED_COUNT and not force:
            raise UsageError(
                f"--count {count:,} is over {MAX_UNFORCED_COUNT:,} probes per direction: "
                "pass --force to run it"
            )
        if all_:
            if link is not None or pcap is not None or loss is not None or rate is not None:
                raise UsageError(
                    "--all probes every preset as configured; drop --link and overrides"
                )
            if trace is not None:
                raise UsageError("--all probes every preset as configured; drop --trace")
            results, index = probe_all(
                output_folder(out),
                seed=seed,
                count=count,
                progress=True,
                front=reproductions.front,
            )
            if json:
                print_json(
                    {"presets": {n: r.to_json() for n, r in results.items()}, "index": str(index)}
                )
            else:
                console = output_console()
                for result in results.values():
                    _print(console, result)
                console.print(f"report: {index}")
            return
        if link is None:
            raise UsageError(
                "name a preset with --link PRESET (see 'wwanlab links'), or use --all"
            )
        under_test = LinkUnderTest(get_preset(link), loss=loss, rate_bps=rate, trace=trace)
        result = probe(under_test, seed=seed, count=count, pcap=pcap)
        if json:
            print_json(result.to_json())
        else:
            _print(output_console(), result)


def _fmt(value: Any, unit: str = "") -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.6g}{unit}"
    return f"{value}{unit}"


EXPLANATION = (
    "configured: what the preset sets (line rate, long-run loss, delay); expected: what the "
    "probe should measure given that, i.e. the IP rate of {packet}-octet datagrams net of "
    "framing and start/stop bits, and the delay plus the framing octets' serialization; "
    "measured: rate from the back-to-back train (the datagrams the line carried, ± the "
    "standard error of a train's sample of a varying service time), loss and delay "
    "(without serialization) from the paced train, each of whose probes finds the link "
    "idle (on GPRS: TBF set-up included). Round trip: {size}-octet echo requests, each "
    "after {gap:.3g} s of idle (first packet), then every {interval:g} s (steady)."
)


def _print(console: Console, result: ProbeResult) -> None:
    table = Table(
        title=f"{result.link} (seed {result.seed}, {result.count} paced probes)",
        caption=EXPLANATION.format(
            packet=RATE_PACKET,
            size=PING_SIZE,
            gap=math.nan if result.round_trip is None else result.round_trip.idle_gap,
            interval=STEADY_INTERVAL,
        ),
    )
    for column in ("direction", "quantity", "configured", "expected", "measured"):
        table.add_column(column)
    for direction, r in result.directions.items():
        m = r.measured()
        rate = r.configured["rate_bps"]
        table.add_row(direction, "line rate (bit/s)", _fmt(rate) if rate else "unlimited", "", "")
        table.add_row(
            "",
            "IP rate (bit/s)",
            "",
            _fmt(r.expected_rate_bps) if math.isfinite(r.expected_rate_bps) else "unlimited",
            _fmt(m["rate_bps"])
            + (f" ± {m['rate_standard_error_bps']:.2g}" if m["rate_standard_error_bps"] else ""),
        )
        loss = _fmt(float(r.configured["loss"]))
        table.add_row("", "loss", loss, loss, f"{m['loss']:.4g} ± {m['loss_standard_error']:.2g}")
        for q in ("p50", "p95"):
            table.add_row(
                "",
                f"one-way delay {q} (ms)",
                _fmt(float(r.configured["delay_ms"][q])),
                _fmt(r.expected_delay_ms[q]),
                _fmt(m["delay_ms"][q]),
            )
        setup = r.configured.get("setup_ms")
        if setup is not None:
            table.add_row("", "TBF set-up mean (ms)", _fmt(float(setup["mean"])), "", "")
    rtt = {} if result.round_trip is None else result.round_trip.to_json()
    for key, label in (("first_packet_ms", "first after idle"), ("steady_ms", "steady")):
        if key not in rtt:
            continue
        for q in ("p50", "p95"):
            table.add_row(
                "both" if key == "first_packet_ms" and q == "p50" else "",
                f"round trip, {label}, {q} (ms)",
                "",
                "",
                _fmt(rtt[key][q]),
            )
    console.print(table)
