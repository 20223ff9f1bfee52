"""``wwanlab energy LOG --link PRESET``: a radio model's joules from an emulator log."""

from pathlib import Path
from typing import Annotated

import typer

from wwanlab.cli.common import JsonOption, print_json
from wwanlab.core.errors import UsageError
from wwanlab.energy import MODELS, get_model
from wwanlab.energy.emulator_log import read_log_energy
from wwanlab.link.presets import get_preset


def register(app: typer.Typer) -> None:
    @app.command(name="energy")
    def energy_command(
        log: Annotated[Path, typer.Argument(help="A log of 'wwanlab emulate --log'.")],
        link: Annotated[str, typer.Option(help="The preset the log was run with.")],
        uplink: Annotated[
            str | None, typer.Option(help="The uplink's preset, if not --link's.")
        ] = None,
        downlink: Annotated[
            str | None, typer.Option(help="The downlink's preset, if not --link's.")
        ] = None,
        model: Annotated[str, typer.Option(help=f"Radio model: {', '.join(MODELS)}.")] = "gprs",
        delivered: Annotated[
            int | None,
            typer.Option(help="Octets of data moved, for J/MB (default: IP octets delivered)."),
        ] = None,
        json: JsonOption = False,
    ) -> None:
        """Joules, seconds per radio state and J/MB of the mobile (the command inside)."""
        radio = get_model(model)
        up, down = get_preset(uplink or link), get_preset(downlink or link)
        if delivered is not None and delivered <= 0:
            raise UsageError(f"--delivered must be positive, got {delivered}")
        found = read_log_energy(log, radio, up, down)
        if found.packets == 0:  # 0 J would read as a measurement of an idle radio
            raise UsageError(f"{str(log)!r} holds no packet of the mobile: nothing to charge")
        octets = delivered or found.delivered
        result = {
            "model": radio.name,
            "uplink": up.name,
            "downlink": down.name,
            "packets": found.packets,
            "delivered_up": found.delivered_up,
            "delivered_down": found.delivered_down,
            "per_mb_of": octets,
            **found.report.to_json(octets),
        }
        if json:
            print_json(result)
            return
        states = ", ".join(f"{s} {t:.3f} s" for s, t in found.report.seconds.items() if t)
        per_mb = result["j_per_mb"]
        print(
            f"{radio.name}: {found.report.joules:.3f} J for {found.packets} packets"
            + (f", {per_mb:.3f} J/MB of {octets} octets" if per_mb is not None else "")
            + (f"; {states}" if states else "")
        )
