"""Energy from the emulator's per-packet log (``wwanlab emulate --log``).

The mobile is the command inside the emulator: every uplink row is a packet it sent
(at its arrival, when the link read it from the mobile), every downlink row that
departed is one that reached it (at its departure, when the link wrote it to the
mobile). A downlink packet the link dropped never reached the mobile's radio. That is
the simulator's ``RadioLog`` rule: the host's own packets, sent and received. Airtime
comes from the link's presets (``energy.on_line``).
"""

from dataclasses import dataclass
from pathlib import Path

from wwanlab.emu.capture import LogRow, read_log
from wwanlab.energy.model import EnergyReport, RadioModel, account, on_line
from wwanlab.energy.radio_log import Packet
from wwanlab.link.presets import Preset


@dataclass(frozen=True)
class LogEnergy:
    """A log's energy, and the IP octets the link delivered each way (for J/MB)."""

    report: EnergyReport
    packets: int  # charged: sent by the mobile or received by it
    delivered_up: int
    delivered_down: int

    @property
    def delivered(self) -> int:
        return self.delivered_up + self.delivered_down


def mobile_packets(rows: list[LogRow]) -> list[Packet]:
    """The mobile's own packets in a log (module docstring)."""
    out: list[Packet] = []
    for row in rows:
        if row.direction == "up":
            out.append((row.arrival, "tx", row.size))
        elif row.departure is not None:
            out.append((row.departure, "rx", row.size))
    return out


def log_energy(rows: list[LogRow], model: RadioModel, up: Preset, down: Preset) -> LogEnergy:
    """Charge the log's mobile packets to ``model``, with airtime on the ``up`` preset's
    uplink and the ``down`` preset's downlink."""
    packets = mobile_packets(rows)
    airtime = on_line(up.build("up").stages, down.build("down").stages)

    def delivered(direction: str) -> int:
        return sum(r.size for r in rows if r.direction == direction and r.departure is not None)

    return LogEnergy(
        account(packets, model, airtime), len(packets), delivered("up"), delivered("down")
    )


def read_log_energy(path: Path, model: RadioModel, up: Preset, down: Preset) -> LogEnergy:
    """``log_energy`` of the log at ``path`` (a file that is not one: ``UsageError``)."""
    return log_energy(read_log(path), model, up, down)
