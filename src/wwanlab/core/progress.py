"""Progress of long work on stderr: a bar on a terminal, a plain line every few seconds
otherwise, so that a run under CI or with its stderr in a log file is never silent for
minutes and never fills the log with a bar's redraws."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol, TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

PLAIN_INTERVAL = 5.0
"""Seconds between two plain progress lines (work shorter than this prints none)."""


class Advance(Protocol):
    """Called once per finished unit of work, or with the number of units finished."""

    def __call__(self, units: int = 1) -> None: ...


@contextmanager
def track(
    description: str,
    total: int,
    *,
    enabled: bool = True,
    stream: TextIO | None = None,
    interval: float = PLAIN_INTERVAL,
) -> Iterator[Advance]:
    """Report ``total`` units of ``description`` on ``stream`` (stderr by default).

    On a terminal: a rich bar, removed when done. Otherwise: every ``interval`` seconds
    a line ``wwanlab: DESCRIPTION: DONE/TOTAL (P%) after S s``, from a timer thread so
    that one long unit does not silence it, and a closing line if any was printed.
    """
    out = sys.stderr if stream is None else stream
    if not enabled:
        yield _nothing
    elif out.isatty():
        with _bar(description, total, out) as advance:
            yield advance
    else:
        with _plain_lines(description, total, out, interval) as advance:
            yield advance


def _nothing(units: int = 1) -> None:
    """Advance nothing: progress reporting is off."""


@contextmanager
def _bar(description: str, total: int, out: TextIO) -> Iterator[Advance]:
    bar = Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(file=out),
        transient=True,
    )
    with bar:
        task = bar.add_task(description, total=total)

        def advance(units: int = 1) -> None:
            bar.advance(task, units)

        yield advance


@contextmanager
def _plain_lines(description: str, total: int, out: TextIO, interval: float) -> Iterator[Advance]:
    done = 0
    start = time.monotonic()
    printed = False
    stop = threading.Event()

    def line(prefix: str) -> None:
        nonlocal printed
        percent = f" ({100 * done // total}%)" if total else ""
        elapsed = time.monotonic() - start
        counts = f"{prefix}{done}/{total}{percent}"
        out.write(f"wwanlab: {description}: {counts} after {elapsed:.0f} s\n")
        out.flush()
        printed = True

    def report() -> None:
        while not stop.wait(interval):
            line("")

    def advance(units: int = 1) -> None:
        nonlocal done
        done += units

    timer = threading.Thread(target=report, name="wwanlab-progress", daemon=True)
    timer.start()
    try:
        yield advance
    finally:
        stop.set()
        timer.join()
        if printed:
            line("finished " if done == total else "stopped at ")
