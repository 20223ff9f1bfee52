"""Small helpers shared by command modules."""

import asyncio
import json
import math
import os
import signal
import sys
import tempfile
import urllib.parse
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from wwanlab.core.errors import UsageError
from wwanlab.experiments.runner import check_executor
from wwanlab.experiments.store import ResultStore

# Options several commands share, declared once.
JobsOption = Annotated[
    int | None, typer.Option("--jobs", help="Worker processes (default: one per CPU).")
]
SchedulerOption = Annotated[
    str | None,
    typer.Option("--scheduler", help="Dask scheduler address, e.g. tcp://host:8786."),
]
DbOption = Annotated[Path, typer.Option("--db", help="Results database (DuckDB).")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]
RetryIntervalOption = Annotated[
    float, typer.Option(help="WTP retry interval R in seconds (WTP 9.4.1).")
]
RetryLinkOption = Annotated[
    str | None,
    typer.Option(
        metavar="PRESET",
        help="Size R at each start to what was sent, for this link preset's "
        "line (tuned, not WTP's fixed R; docs/transports.md).",
    ),
]


PIPE_WIDTH = 1000
"""Line width for tables written to a pipe or file: wide enough that no cell is cut."""


def output_console() -> Console:
    """Where tables for people go: fitted to the terminal, or, when stdout is a pipe or
    a file, laid out at ``PIPE_WIDTH`` so that names stay whole for grep and logs."""
    return Console() if sys.stdout.isatty() else Console(width=PIPE_WIDTH)


def print_json(obj: Any) -> None:
    """Print one JSON object on stdout, the contract of every ``--json`` flag."""
    json.dump(obj, sys.stdout, indent=2, sort_keys=False, default=str)
    sys.stdout.write("\n")


def check_probability(name: str, value: float) -> float:
    if not 0.0 <= value <= 1.0:
        raise UsageError(f"{name} must be a probability in [0, 1], got {value}")
    return value


def check_timeout(value: float, option: str = "--timeout") -> float:
    """A client's time-out: a finite number of seconds above zero."""
    if not value > 0 or math.isinf(value):
        raise UsageError(f"{option} {value} is not a positive number of seconds")
    return value


def check_http_url(url: str) -> str:
    """An absolute ``http://`` URL with a host, or a ``UsageError`` naming what is wrong
    (a URL the parser rejects, e.g. an unbalanced IPv6 bracket, included)."""
    if not url.lower().startswith("http://"):
        raise UsageError(f"URL {url!r} is not an absolute http:// URL")
    try:
        host = urllib.parse.urlsplit(url).hostname
    except ValueError as exc:
        raise UsageError(f"URL {url!r}: {exc}") from None
    if not host:
        raise UsageError(f"URL {url!r} has no host")
    return url


def serve_until_signal(serve: Callable[[asyncio.Event], Coroutine[Any, Any, None]]) -> None:
    """Run a server's ``serve(stop)`` until SIGINT or SIGTERM sets ``stop``; the server
    then closes what it holds and returns, so a signal ends it with its summary and exit
    code 0, never a traceback."""

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await serve(stop)

    asyncio.run(main())


def output_folder(path: Path, option: str = "--out") -> Path:
    """Create the output folder ``path`` now, before any work, so that a file in the way
    or a folder that cannot be written is reported at once, not after minutes of runs."""
    if path.exists() and not path.is_dir():
        raise UsageError(f"{option} {str(path)!r} is a file, not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        reason = exc.strerror or exc
        raise UsageError(f"cannot create folder {str(path)!r} for {option}: {reason}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise UsageError(f"cannot write in folder {str(path)!r} for {option}")
    return path


def output_file(path: Path, option: str) -> Path:
    """Refuse, before any work, an output file that is a folder, is in no folder, or
    cannot be written (the work would be lost at the end)."""
    if path.is_dir():
        raise UsageError(f"{option} {str(path)!r} is a folder, not a file")
    folder = path.parent
    if not folder.is_dir():
        raise UsageError(f"cannot write {path}: no folder {str(folder)!r}")
    try:  # as root, os.access says yes to folders such as /proc that refuse new files
        tempfile.TemporaryFile(dir=folder).close()
    except OSError as exc:
        raise UsageError(f"{option} {str(path)!r}: cannot write there: {exc.strerror}") from None
    if path.exists() and not os.access(path, os.W_OK):
        raise UsageError(f"{option} {str(path)!r}: cannot write it")
    return path


def check_before_work(
    *,
    jobs: int | None = None,
    scheduler: str | None = None,
    out: Path | None = None,
    db: Path | None = None,
) -> None:
    """Refuse a bad job count, scheduler address, output folder or results database
    before any work (and before creating anything)."""
    check_executor(jobs, scheduler)
    if out is not None:
        output_folder(out)
    if db is not None:
        with ResultStore(db):  # opens (creates) it: a bad path fails here, not after the runs
            pass
