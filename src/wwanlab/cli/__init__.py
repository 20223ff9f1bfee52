"""The ``wwanlab`` command: a thin typer app; every command calls a library function.

Each command lives in its own module here with a ``register(app)`` function. Errors a
user caused (``UsageError``) become one line on stderr and exit code 2, never a
traceback; typer's own usage errors already exit with 2.
"""

import importlib
import sys

import typer

from wwanlab import __version__
from wwanlab.core.errors import UsageError

app = typer.Typer(
    name="wwanlab",
    help="A lab for moving data fast over slow, lossy, high-latency wireless links.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """A lab for moving data fast over slow, lossy, high-latency wireless links."""


@app.command()
def version() -> None:
    """Print wwanlab's version."""
    print(__version__)


COMMAND_MODULES: list[str] = [
    "run",
    "reproduce",
    "links",
    "probe",
    "wbxml",
    "gateway",
    "get",
    "pdu",
    "soap",
    "emulate",
    "bench",
]
"""Modules under ``wwanlab.cli`` that add commands; each adds its own line here."""

for _name in COMMAND_MODULES:
    importlib.import_module(f"wwanlab.cli.{_name}").register(app)


def main() -> None:
    try:
        app()
    except UsageError as exc:
        print(f"wwanlab: error: {exc}", file=sys.stderr)
        sys.exit(2)
