"""Small helpers shared by command modules."""

import json
import sys
from typing import Any

from wwanlab.core.errors import UsageError


def print_json(obj: Any) -> None:
    """Print one JSON object on stdout, the contract of every ``--json`` flag."""
    json.dump(obj, sys.stdout, indent=2, sort_keys=False, default=str)
    sys.stdout.write("\n")


def check_probability(name: str, value: float) -> float:
    if not 0.0 <= value <= 1.0:
        raise UsageError(f"{name} must be a probability in [0, 1], got {value}")
    return value
