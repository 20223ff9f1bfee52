"""``wwanlab emulate``: run a command behind an emulated link (a Mahimahi-style shell)."""

import asyncio
import importlib
import json as jsonlib
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from wwanlab.core.errors import UsageError
from wwanlab.emu import shell
from wwanlab.emu.link import EmulatedLink


def register(app: typer.Typer) -> None:
    @app.command(
        name="emulate",
        # The first word that is not an option starts COMMAND, so
        # "wwanlab emulate --link a curl -o f URL" needs no "--" either.
        context_settings={"allow_interspersed_args": False},
    )
    def emulate_command(
        command: Annotated[
            list[str] | None,
            typer.Argument(help="The command to run inside (default: $SHELL).", metavar="COMMAND"),
        ] = None,
        link: Annotated[
            str | None, typer.Option(help="Link preset for both directions (wwanlab links).")
        ] = None,
        downlink: Annotated[
            str | None, typer.Option(help="Preset for the downlink (host to inside).")
        ] = None,
        uplink: Annotated[
            str | None, typer.Option(help="Preset for the uplink (inside to host).")
        ] = None,
        loss: Annotated[
            float | None, typer.Option(help="Override the presets' loss knob (0..1).")
        ] = None,
        seed: Annotated[int, typer.Option(help="Seed of the link models' randomness.")] = 0,
        pcap: Annotated[
            Path | None, typer.Option(help="Write pcaps of both ends to PREFIX-*.pcap.")
        ] = None,
        log: Annotated[Path | None, typer.Option(help="Write one row per packet here.")] = None,
        json: Annotated[
            bool, typer.Option("--json", help="Print the summary as one JSON object on stderr.")
        ] = False,
        plot: Annotated[
            Path | None, typer.Option(help="Draw throughput and delay from a --log file.")
        ] = None,
        out: Annotated[
            Path | None, typer.Option("-o", help="PNG for --plot (default: LOG with .png).")
        ] = None,
    ) -> None:
        """Run COMMAND in a network namespace whose only way out crosses the link.

        The host is at $WWANLAB_HOST inside; other addresses are reached through it.
        COMMAND's exit status is passed on. Needs root.
        """
        if plot is not None:
            _plot(plot, out)
            return
        if out is not None:
            raise UsageError("-o names the picture of --plot; there is no --plot here")
        if link is None:
            raise UsageError("name a preset with --link PRESET (see 'wwanlab links')")
        if not command and "--" in sys.argv[1:]:
            raise UsageError("no command after '--' (leave out '--' to run $SHELL)")
        emulated = EmulatedLink(
            link,
            downlink=downlink,
            uplink=uplink,
            loss=loss,
            seed=seed,
            pcap_prefix=pcap,
            log=log,
        )
        try:
            status, summary = asyncio.run(shell.run(emulated, command or shell.default_command()))
        except OSError as exc:  # the link failed; everything is removed by now
            print(f"wwanlab emulate: the link failed: {exc}", file=sys.stderr)
            raise typer.Exit(1) from None
        _report(summary, json)
        raise typer.Exit(status)


def _plot(log: Path, out: Path | None) -> None:
    """Draw ``log`` into ``out`` (default: the log's name with ``.png``)."""
    try:
        plot = importlib.import_module("wwanlab.emu.plot")
    except ModuleNotFoundError:
        raise UsageError("--plot is not available in this build of wwanlab") from None
    print(plot.plot_log(log, out or log.with_suffix(".png")))


def _report(summary: dict[str, Any], as_json: bool) -> None:
    """The summary goes to stderr, so COMMAND's stdout stays its own."""
    if as_json:
        jsonlib.dump(summary, sys.stderr, default=str)
        sys.stderr.write("\n")
        return
    counters = summary.get("forwarder") or {}
    parts = [
        f"{d} {c.get('packets', '?')} packets {c.get('bytes', '?')} bytes"
        for d in ("down", "up")
        if isinstance(c := counters.get(d), dict)
    ]
    link = summary["downlink"]
    if summary["uplink"] != link:
        link = f"{link} down, {summary['uplink']} up"
    print(f"wwanlab emulate: {link}: {'; '.join(parts)}", file=sys.stderr)
