"""Where a page's numbers came from: wwanlab's version and git commit, when, how long,
quick or full, on what machine and how busy it was, so that a reader can tell two
reports apart and judge a timing.

The commit is read with ``git`` from the checkout the package was imported from; an
installed package (or a machine without git) says "unknown".
"""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import wwanlab
from wwanlab.report.html import Params

UNKNOWN = "unknown"
GIT_TIMEOUT = 5.0  # s; a hung git must not hold up a report
CPUINFO = Path("/proc/cpuinfo")


def _git(*args: str, cwd: Path) -> str | None:
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def git_commit(package_dir: Path | None = None) -> str:
    """The commit of the checkout holding ``package_dir`` (default: wwanlab's own), with
    " (uncommitted changes)" when its files differ from it; "unknown" outside a checkout
    of wwanlab (an installed package inside some other repository included)."""
    here = (package_dir or Path(wwanlab.__file__).parent).resolve()
    top = _git("rev-parse", "--show-toplevel", cwd=here)
    if top is None or Path(top).resolve() / "src" / here.name != here:
        return UNKNOWN
    commit = _git("rev-parse", "HEAD", cwd=here)
    if commit is None:
        return UNKNOWN
    dirty = _git("status", "--porcelain", "--untracked-files=no", cwd=here)
    return commit + (" (uncommitted changes)" if dirty else "")


def cpu_model(cpuinfo: Path = CPUINFO) -> str:
    """The CPU's model name from ``/proc/cpuinfo``, else the platform's, else "unknown"."""
    try:
        for line in cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and value.strip():
                return value.strip()
    except OSError:
        pass
    return platform.processor() or UNKNOWN


def load_average() -> tuple[float, float, float] | None:
    """The machine's 1, 5 and 15 minute load averages, None where the system keeps none.

    Other processes sharing the cores stretch a run's wall time (and the emulator's
    timing), so a page records how busy the machine was."""
    try:
        return os.getloadavg()
    except OSError:
        return None


def machine_line() -> str:
    """CPU model, cores and Python version: the line a benchmark prints about itself."""
    return f"{cpu_model()}, {os.cpu_count()} cores, Python {platform.python_version()}"


@dataclass(frozen=True)
class RunInfo:
    """The metadata every report page carries."""

    version: str
    commit: str
    date: str  # UTC, ISO 8601 to the second, when the run started
    mode: str  # "quick", "full", or what the command ran
    seconds: float  # wall time of the run
    cores: int
    cpu: str
    load: tuple[float, float, float] | None  # load averages when the run ended

    @classmethod
    def collect(cls, mode: str, started: float, *, now: float | None = None) -> RunInfo:
        """The metadata of a run that started at ``started`` (``time.time()``)."""
        end = time.time() if now is None else now
        date = datetime.datetime.fromtimestamp(started, datetime.UTC)
        return cls(
            version=wwanlab.__version__,
            commit=git_commit(),
            date=date.isoformat(timespec="seconds").replace("+00:00", "Z"),
            mode=mode,
            seconds=end - started,
            cores=os.cpu_count() or 0,
            cpu=cpu_model(),
            load=load_average(),
        )

    def block(self) -> Params:
        return Params(
            {
                "wwanlab version": self.version,
                "git commit": self.commit,
                "date (UTC)": self.date,
                "run": self.mode,
                "run time": f"{self.seconds:.1f} s",
                "machine": f"{self.cores} cores, {self.cpu}, {platform.system()} "
                f"{platform.machine()}",
                "machine load": UNKNOWN
                if self.load is None
                else ", ".join(f"{x:.2f}" for x in self.load)
                + " (1, 5 and 15 min averages, at the end of the run)",
            },
            caption="This run",
        )
