"""Small helpers shared by command modules."""

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from wwanlab.core.errors import UsageError

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


def print_json(obj: Any) -> None:
    """Print one JSON object on stdout, the contract of every ``--json`` flag."""
    json.dump(obj, sys.stdout, indent=2, sort_keys=False, default=str)
    sys.stdout.write("\n")


def check_probability(name: str, value: float) -> float:
    if not 0.0 <= value <= 1.0:
        raise UsageError(f"{name} must be a probability in [0, 1], got {value}")
    return value
