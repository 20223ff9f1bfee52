"""The ``wwanlab`` command: a thin typer app; every command calls a library function.

Each command lives in its own module here with a ``register(app)`` function. Every
input error, the user's (``UsageError``) or click's own (a value of the wrong type, a
missing argument), becomes one line on stderr and exit code 2, never a traceback.
"""

import importlib
import re
import sys
from typing import Any, NoReturn

import typer
from typer import rich_utils

from wwanlab import __version__
from wwanlab.cli import startup
from wwanlab.core.errors import UsageError

if startup.is_the_program():
    startup.hold()  # before the commands' modules load (1-2 s)

app = typer.Typer(
    name="wwanlab",
    help="A lab for moving data fast over slow, lossy, high-latency wireless links.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},  # inherited by every command
)


def _print_version(value: bool) -> None:
    if value:
        print(f"wwanlab {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    ctx: typer.Context,
    version: bool = typer.Option(
        False,
        "--version",
        callback=_print_version,
        is_eager=True,
        help="Print wwanlab's version and exit.",
    ),
) -> None:
    """A lab for moving data fast over slow, lossy, high-latency wireless links."""
    if ctx.invoked_subcommand != "tunnel":  # its server and client take a held SIGTERM
        startup.release()


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
    "energy",
    "wwp",
    "pep",
    "bench",
    "web",
    "tunnel",
]
"""Modules under ``wwanlab.cli`` that add commands; each adds its own line here."""

for _name in COMMAND_MODULES:
    importlib.import_module(f"wwanlab.cli.{_name}").register(app)


CLICK_ERRORS = importlib.import_module(typer.BadParameter.__module__)
"""The exception classes of the click typer parses with (its own copy in newer typers)."""

NO_ARGS_IS_HELP = getattr(CLICK_ERRORS, "NoArgsIsHelpError", ())
"""A group run without a command (click 8.2 and later; before, it exits by itself)."""


def error_line(message: str) -> str:
    """``message`` as the one line every input error prints."""
    return "wwanlab: error: " + " ".join(message.split())


NUMBER = re.compile(r"-(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")
"""A negative number, which click takes for an option when it stands alone."""


def raise_usage(exc: Any) -> NoReturn:
    """Exit 2 with click's usage error as one line and where to look for help."""
    message = exc.format_message().rstrip(".")
    if exc.ctx is not None:
        message += f"; see '{exc.ctx.command_path} -h'"
    print(error_line(message), file=sys.stderr)
    sys.exit(2)


def main() -> None:
    try:
        code = app(standalone_mode=False, prog_name="wwanlab")
    except NO_ARGS_IS_HELP as exc:
        rich_utils.rich_format_error(exc)  # a bare group: its help, as before
        sys.exit(exc.exit_code)
    except CLICK_ERRORS.NoSuchOption as exc:
        if not NUMBER.fullmatch(exc.option_name):
            raise_usage(exc)
        words = exc.ctx.command_path if exc.ctx is not None else "wwanlab"
        message = (
            f"{exc.option_name} is read as an option, not as a negative number: "
            f"put -- before it ({words} ... -- {exc.option_name})"
        )
        print(error_line(message), file=sys.stderr)
        sys.exit(2)
    except CLICK_ERRORS.UsageError as exc:
        raise_usage(exc)
    except CLICK_ERRORS.ClickException as exc:
        print(error_line(exc.format_message()), file=sys.stderr)
        sys.exit(2)
    except typer.Abort:
        print("wwanlab: aborted", file=sys.stderr)
        sys.exit(130)
    except UsageError as exc:
        print(error_line(str(exc)), file=sys.stderr)
        sys.exit(2)
    sys.exit(code if isinstance(code, int) else 0)
