"""Constructor checks shared by the link models.

A link model is built from user input (a preset override, a scenario file, a command
line), so a bad parameter raises ``UsageError`` with one line naming it; the CLI turns
that into exit code 2.
"""

import math
from pathlib import Path

from wwanlab.core.errors import UsageError


def read_trace(path: str | Path, what: str) -> str:
    """The text of an ASCII trace file; ``what`` names it in the error."""
    try:
        return Path(path).read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {what} {str(path)!r}: {exc}") from None


def probability(name: str, value: float) -> float:
    """``value`` if it is a probability in [0, 1]."""
    if not (isinstance(value, int | float) and 0.0 <= value <= 1.0):
        raise UsageError(f"{name} must be a probability in [0, 1], got {value!r}")
    return float(value)


def non_negative(name: str, value: float) -> float:
    """``value`` if it is a finite number >= 0."""
    if not (isinstance(value, int | float) and math.isfinite(value) and value >= 0):
        raise UsageError(f"{name} must be a finite number >= 0, got {value!r}")
    return float(value)


def positive(name: str, value: float) -> float:
    """``value`` if it is a finite number > 0."""
    if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
        raise UsageError(f"{name} must be a finite number > 0, got {value!r}")
    return float(value)


def count(name: str, value: int, *, minimum: int = 0) -> int:
    """``value`` if it is an integer >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise UsageError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return value
