"""``wwanlab links``: the link presets, what each configures, and where it comes from."""

from typing import Annotated, Any

import typer
from rich.table import Column, Table

from wwanlab.cli.common import output_console, print_json
from wwanlab.core.errors import UsageError
from wwanlab.link.presets import PRESETS, Preset, get_preset


def _presets(names: list[str]) -> list[Preset]:
    """The named presets (all when none are named); an unknown name is a usage error."""
    try:
        return [get_preset(n) for n in names] if names else list(PRESETS.values())
    except UsageError as exc:
        # A bad argument: click reports it and exits with 2, under CliRunner too.
        raise typer.BadParameter(str(exc), param_hint="NAME") from None


def _rate(configured: dict[str, Any]) -> str:
    bps = configured["rate_bps"]
    if bps is None:
        return "-"
    return f"{bps / 1e6:g} Mbit/s" if bps >= 1e6 else f"{bps / 1e3:.4g} kbit/s"


def _delay(configured: dict[str, Any]) -> str:
    d = configured["delay_ms"]
    if d["p50"] == d["p95"] == d["mean"]:
        return f"{d['mean']:.4g} ms"
    return f"mean {d['mean']:.4g}, p50 {d['p50']:.4g}, p95 {d['p95']:.4g} ms"


def _loss(configured: dict[str, Any]) -> str:
    return f"{configured['loss'] * 100:.3g}%"


def _short_citation(citation: str) -> str:
    """``paper 002 section IV`` for ``002_ca0a221da0385ee1.txt section IV``."""
    head, _, rest = citation.partition(" ")
    if head.endswith(".txt") and head[:3].isdigit():
        return f"paper {head[:3]} {rest}"
    return citation


def _radio_lines(configured: dict[str, Any]) -> list[str]:
    """What a GPRS radio direction configures beyond rate, delay and loss."""
    lines = []
    setup = configured.get("setup_ms")
    if setup is not None:
        lines.append(
            f"TBF set-up on an idle direction: mean {setup['mean']:.4g}, p95 "
            f"{setup['p95']:.4g} ms; TBF released {configured['release_s']:g} s after the "
            "last frame (0: with its queue)"
        )
        first = configured["first_packet_delay_ms"]
        lines.append(
            f"first packet after idle: p50 {first['p50']:.4g}, p95 {first['p95']:.4g} ms "
            "(delay plus set-up)"
        )
    if "overlap" in configured:
        how = "overlaps between packets" if configured["overlap"] else "holds the line"
        lines.append(f"latency {how}")
    if "llc_retry_mean_ms" in configured:
        lines.append(
            f"LLC resend ({configured['llc_retry']}): mean {configured['llc_retry_mean_ms']:.4g}"
            " ms each"
        )
    for kind, o in (configured.get("outages") or {}).items():
        lines.append(f"{kind}: {o['per_hour']:g} per hour, mean {o['mean_s']:g} s each")
    return lines


def register(app: typer.Typer) -> None:
    @app.command(name="links")
    def links_command(
        names: Annotated[
            list[str] | None, typer.Argument(help="Presets to show (default: all).")
        ] = None,
        json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
        verbose: Annotated[
            bool, typer.Option("--verbose", "-v", help="Also list each preset's assumptions.")
        ] = False,
    ) -> None:
        """List the link presets: rates, delay, loss (per direction) and citation."""
        presets = _presets(names or [])
        if json:
            print_json({"presets": [p.to_json() for p in presets]})
            return
        name = Column("name", no_wrap=True)  # a preset name is typed back: never wrap it
        table = Table(name, "rate down / up", "delay down", "loss down / up", "citation")
        for preset in presets:
            down, up = preset.configured["down"], preset.configured["up"]
            table.add_row(
                preset.name,
                f"{_rate(down)} / {_rate(up)}",
                _delay(down),
                f"{_loss(down)} / {_loss(up)}",
                _short_citation(preset.citation),
            )
        console = output_console()
        console.print(table)
        if verbose:
            for preset in presets:
                console.print(f"\n[bold]{preset.name}[/]: {preset.title}")
                console.print(f"  loss knob (with_loss): {preset.loss_knob}")
                for direction in ("down", "up"):
                    for line in _radio_lines(preset.configured[direction]):
                        console.print(f"  {direction}: {line}")
                if preset.switches:
                    console.print(
                        "  options (Preset.with_options, or the name "
                        f"{preset.name}[key=value,...]):"
                    )
                    for key, what in preset.switches.items():
                        console.print(f"    {key}: {what}")
                for assumption in preset.assumptions:
                    console.print(f"  - {assumption}")
