"""Records of what crossed the emulated link: pcaps of both ends and a per-packet log.

``--pcap PREFIX`` writes two classic pcap files (``sim.pcap.PcapWriter``, raw IPv4
records) stamped with wall-clock time, as tcpdump on each side of the link would:
``PREFIX-inner.pcap`` sees the inner side (uplink packets as they enter the link,
downlink packets as they leave it) and ``PREFIX-outer.pcap`` the outer side.

``--log FILE`` writes a CSV with one row per packet once its fate is known: its
direction, IP size, arrival (read), the delivery time the link model scheduled, the
actual departure (write), or the drop reason instead of the last two. Times are Unix
seconds to the microsecond, so rows line up with the pcaps. ``read_log`` reads it back
(for ``--plot`` and ``wwanlab energy``).
"""

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from wwanlab.core.errors import UsageError
from wwanlab.sim.pcap import PcapWriter

INNER, OUTER = "inner", "outer"
LOG_COLUMNS = ("direction", "size", "arrival", "scheduled", "departure", "drop")
# Which side a direction enters the link at, and which side it leaves by.
ENDS = {"down": (OUTER, INNER), "up": (INNER, OUTER)}


def pcap_paths(prefix: Path) -> dict[str, Path]:
    """The two files ``--pcap PREFIX`` writes, by side."""
    return {side: Path(f"{prefix}-{side}.pcap") for side in (INNER, OUTER)}


class Capture:
    """Both ends' pcaps; ``epoch`` turns the forwarder's seconds into Unix time."""

    def __init__(self, prefix: Path, epoch: float) -> None:
        self.epoch = epoch
        self._paths = pcap_paths(prefix)
        self._writers: dict[str, PcapWriter] = {}
        try:
            for side, path in self._paths.items():
                self._writers[side] = PcapWriter(path)
        except OSError as exc:
            self.discard()
            raise UsageError(
                f"cannot write pcap file {str(exc.filename)!r}: {exc.strerror}"
            ) from None

    def entered(self, direction: str, t: float, packet: bytes) -> None:
        self._writers[ENDS[direction][0]].write(self.epoch + t, packet)

    def left(self, direction: str, t: float, packet: bytes) -> None:
        self._writers[ENDS[direction][1]].write(self.epoch + t, packet)

    def close(self) -> None:
        for writer in self._writers.values():
            writer.close()

    def discard(self) -> None:
        """Close and remove the files: a run that could not start leaves nothing behind."""
        self.close()
        for side in self._writers:
            self._paths[side].unlink(missing_ok=True)


class PacketLog:
    """The per-packet CSV log."""

    def __init__(self, path: Path, epoch: float) -> None:
        self.epoch = epoch
        try:
            self._file: TextIO = open(path, "w", newline="")  # noqa: SIM115 - closed in close()
        except OSError as exc:
            raise UsageError(f"cannot write log file {str(path)!r}: {exc.strerror}") from None
        self._writer = csv.writer(self._file)
        self._writer.writerow(LOG_COLUMNS)

    def departed(
        self, direction: str, size: int, arrival: float, scheduled: float, departure: float
    ) -> None:
        e = self.epoch
        self._writer.writerow(
            (
                direction,
                size,
                f"{e + arrival:.6f}",
                f"{e + scheduled:.6f}",
                f"{e + departure:.6f}",
                "",
            )
        )

    def dropped(self, direction: str, size: int, arrival: float, reason: str) -> None:
        self._writer.writerow((direction, size, f"{self.epoch + arrival:.6f}", "", "", reason))

    def close(self) -> None:
        self._file.close()


@dataclass(frozen=True, slots=True)
class LogRow:
    """One packet of a log: ``departure``/``scheduled`` are None for a drop."""

    direction: str
    size: int
    arrival: float
    scheduled: float | None
    departure: float | None
    drop: str


def read_log(path: Path) -> list[LogRow]:
    """The rows of an emulator log; a file that is not one is a ``UsageError``."""
    try:
        with open(path, newline="") as file:
            reader = csv.reader(file)
            header = next(reader, None)
            if header is None or tuple(header) != LOG_COLUMNS:
                raise UsageError(f"{str(path)!r} is not an emulator log (header {header})")
            return [_row(path, n, fields) for n, fields in enumerate(reader, start=2)]
    except OSError as exc:
        raise UsageError(f"cannot read log {str(path)!r}: {exc.strerror}") from None
    except (UnicodeDecodeError, csv.Error) as exc:  # a binary file, a NUL in a field
        raise UsageError(f"{str(path)!r} is not an emulator log: {exc}") from None


def _row(path: Path, line: int, fields: list[str]) -> LogRow:
    try:
        direction, size, arrival, scheduled, departure, drop = fields
        row = LogRow(
            direction,
            int(size),
            float(arrival),
            float(scheduled) if scheduled else None,
            float(departure) if departure else None,
            drop,
        )
    except ValueError:
        raise UsageError(f"{str(path)!r} line {line}: not a log row: {fields}") from None
    if direction not in ENDS or (row.departure is None) == (not drop):
        raise UsageError(f"{str(path)!r} line {line}: not a log row: {fields}")
    return row
