"""A SIGTERM that comes while ``wwanlab`` starts is held, not acted on at once.

Before a command runs, wwanlab spends 1-2 s importing its commands' modules. A server
with a clean stop (``tunnel server``, ``tunnel client``) installs its handler only
then, so a SIGTERM in that window used to end it by the default action (status 143),
without its stop. ``hold`` (the first thing the program does) records SIGTERM instead;
once the command is known, a command with a clean stop ``take``s what was held and
stops at once, and every other command ``release``s it: SIGTERM's default action
again, a held one acted on now, so those commands end as they always did.
"""

import signal
import sys
from pathlib import Path
from types import FrameType

_held: list[int] = []
_holding = False


def is_the_program() -> bool:
    """Whether this process is the ``wwanlab`` command (its script or ``python -m
    wwanlab``), not a program that imports the command line (a test)."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    by_module = spec is not None and spec.name == "wwanlab.__main__"
    return by_module or Path(sys.argv[0]).name == "wwanlab"


def hold() -> None:
    """From now on, record SIGTERM rather than end."""
    global _holding
    _holding = True
    signal.signal(signal.SIGTERM, _record)


def _record(signum: int, _frame: FrameType | None) -> None:
    _held.append(signum)


def release() -> None:
    """For a command without a clean stop of its own: SIGTERM's default action again,
    and one held meanwhile acted on now."""
    global _holding
    if not _holding:
        return
    _holding = False
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if _held:
        signal.raise_signal(signal.SIGTERM)


def take() -> bool:
    """For a command with a clean stop, once its own handler is installed: whether a
    SIGTERM came before it."""
    global _holding
    _holding = False
    return bool(_held)
