"""Wrong input to every command: one line on stderr, exit code 2, no traceback, at once.

The commands are discovered from the typer app, so a command registered later is
covered without a change here. Each example gives one command one wrong value: a value
of the wrong type for a number option or argument, a path through a regular file (which
can be neither read nor created) for a path, or an option the command does not have.
Every other required parameter gets a wrong value of its own kind; parameters that take
free text are left at their defaults, since no text is wrong for all of them. The
command must refuse before doing any work: an example taking longer than ``ALARM``
seconds fails.
"""

from __future__ import annotations

import contextlib
import enum
import io
import re
import signal
import sys
import typing
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any
from unittest import mock

import pytest
import typer.main
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wwanlab import __version__
from wwanlab.cli import app, main

ALARM = 20
"""Seconds a command may take to refuse wrong input (the slowest, a Dask scheduler
address that parses but does not answer, is bounded at 10 s)."""

NOT_A_NUMBER = st.one_of(
    # No digit, and none of the letters of inf, nan or infinity: never a number.
    st.text(alphabet="bcdeghjklmopqrstuvwxyz_.,;+-/ é", max_size=8),
    st.sampled_from(["0x1g", "1,5", "1..5"]),
)
NOT_AN_INTEGER = NOT_A_NUMBER | st.sampled_from(["1.5", "2.5e3"])  # numbers, not integers
NOT_FINITE = st.sampled_from(["nan", "inf", "-inf", "NaN", "-Infinity"])
"""Numbers no option of any command means: each number option refuses them."""
WRONG_ADDRESSES = ["[::1:80", "::1]:80", "h:99999", "h:x1", "[::1]:-1"]
NOT_AN_ADDRESS = st.sampled_from(WRONG_ADDRESSES)
"""Wrong for every HOST:PORT (an unbalanced IPv6 bracket, a port out of range or not a
number); a parameter takes an address when its help or metavar says HOST/ADDR:PORT."""
WRONG_URLS = ["http://[::1/", "http://[fe80::1/x", "ftp://h/", "http:///x"]
NOT_A_URL = st.sampled_from(WRONG_URLS)
"""Wrong for every URL parameter: ones the URL parser rejects, another scheme, no host."""
NAME = st.text(alphabet="abcdefghijklmnopqrstuvwxyz-", min_size=1, max_size=8)


def leaf_commands(
    command: Any, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every command of the click tree under ``command``, with its words."""
    subcommands = getattr(command, "commands", None)
    if subcommands is None:
        yield path, command
        return
    for name, sub in sorted(subcommands.items()):
        yield from leaf_commands(sub, (*path, name))


def all_commands(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """The words of every command and group, the root included."""
    yield path
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        yield from all_commands(sub, (*path, name))


ROOT = typer.main.get_command(app)
COMMANDS = list(leaf_commands(ROOT))


def python_type(param: Any) -> Any:
    """The Python type a parameter converts to (its list's item type for a list)."""
    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is not None:  # typers that convert with their own type descriptors
        kind = descriptor.annotation
    else:  # typers that use click's own parameter types
        kind = {"integer": int, "float": float, "path": Path, "boolean": bool}.get(
            param.type.name, str
        )
    if typing.get_origin(kind) is list:
        (kind,) = typing.get_args(kind)
    return kind


def is_flag(param: Any) -> bool:
    return bool(getattr(param, "is_flag", False))


def takes_address(param: Any) -> bool:
    said = f"{getattr(param, 'help', '') or ''} {param.metavar or ''}"
    return any(shape in said for shape in ("HOST:PORT", "ADDR:PORT", "HOST[:PORT]"))


def wrong_value(param: Any, regular_file: Path) -> st.SearchStrategy[str] | None:
    """Values wrong for ``param`` whatever the command, or None if it takes any text."""
    kind = python_type(param)
    if kind is bool or is_flag(param):
        return None
    if kind is int:
        return NOT_AN_INTEGER
    if kind is float:
        return NOT_A_NUMBER | NOT_FINITE
    if kind is str and takes_address(param):
        return NOT_AN_ADDRESS
    if kind is str and param.name == "url":
        return NOT_A_URL
    if isinstance(kind, type) and issubclass(kind, Path):
        return NAME.map(lambda name: str(regular_file / name))
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        choices = {str(m.value) for m in kind}
        return NAME.filter(lambda text: text not in choices)
    return None


def arguments(
    draw: st.DrawFn, command: Any, fault: Any, value: str, regular_file: Path
) -> list[str]:
    """Options first (as ``--opt=value``), then ``--``, then the positional arguments."""
    options: list[str] = []
    positional: list[str] = []
    for param in command.params:
        if param is fault:
            given = value
        elif param.required:
            strategy = wrong_value(param, regular_file)
            given = draw(strategy if strategy is not None else NAME)
        else:
            continue
        if param.param_type_name == "option":
            long = [o for o in param.opts if o.startswith("--")]
            options.extend([f"{long[0]}={given}"] if long else [param.opts[0], given])
        else:
            positional.append(given)
    return [*options, "--", *positional]


@st.composite
def wrong_invocation(
    draw: st.DrawFn, regular_file: Path, words: tuple[str, ...] | None = None
) -> list[str]:
    if words is None:
        words, command = draw(st.sampled_from(COMMANDS))
    else:
        command = dict(COMMANDS)[words]
    faults = [
        (param, strategy)
        for param in command.params
        if getattr(param, "expose_value", True)
        and (strategy := wrong_value(param, regular_file)) is not None
    ]
    choice = draw(st.integers(0, len(faults)))
    if choice == len(faults):  # an option no command has
        return [*words, "--no-such-option", *arguments(draw, command, None, "", regular_file)]
    param, strategy = faults[choice]
    return [*words, *arguments(draw, command, param, draw(strategy), regular_file)]


class TookTooLong(BaseException):
    """Raised by the alarm: a BaseException, so that no command's handler swallows it."""


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise TookTooLong


def invoke(args: list[str]) -> tuple[int, str, str]:
    """``wwanlab ARGS`` in this process: exit code, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(ALARM)
    try:
        with (
            mock.patch.object(sys, "argv", ["wwanlab", *args]),
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
        ):
            main()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except TookTooLong:
        pytest.fail(f"wwanlab {' '.join(args)} ran {ALARM} s before refusing its input")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    return code, out.getvalue(), err.getvalue()


def assert_one_line_error(args: list[str], code: int, out: str, err: str) -> str:
    shown = f"wwanlab {' '.join(args)}"
    assert code == 2, f"{shown}: exit {code}, stderr {err!r}"
    assert out == "", f"{shown}: printed {out!r}"
    assert err.startswith("wwanlab: error: "), f"{shown}: {err!r}"
    assert err.count("\n") == 1 and err.endswith("\n"), f"{shown}: {err!r}"
    assert "Traceback" not in err
    return err


@pytest.fixture(scope="module")
def regular_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("wrong-input") / "regular-file"
    path.write_text("a file, so that no path beneath it exists or can be made\n")
    return path


def test_every_command_is_discovered() -> None:
    words = {" ".join(w) for w, _ in COMMANDS}
    assert {"run", "reproduce", "probe", "links", "pdu decode", "version"} <= words


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_wrong_input_to_any_command_is_one_line_and_exit_2(
    data: st.DataObject, regular_file: Path
) -> None:
    args = data.draw(wrong_invocation(regular_file))
    assert_one_line_error(args, *invoke(args))


@pytest.mark.parametrize("words", [w for w, _ in COMMANDS], ids=" ".join)
@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_each_command_refuses_wrong_input(
    words: tuple[str, ...], data: st.DataObject, regular_file: Path
) -> None:
    """The property above, drawn for each command in turn, so none goes untried."""
    args = data.draw(wrong_invocation(regular_file, words))
    assert_one_line_error(args, *invoke(args))


def test_the_commands_tried_are_those_the_help_lists() -> None:
    code, out, _ = invoke(["--help"])
    listed = set(re.findall(r"^│ (\w[\w-]*) ", out, flags=re.MULTILINE))
    assert code == 0 and listed == {words[0] for words, _ in COMMANDS}


@pytest.mark.parametrize(
    ("args", "param"),
    [
        (["pep", "split"], "listen"),
        (["pep", "split"], "to"),
        (["wwp", "send"], "address"),
        (["gateway"], "status"),
        (["get"], "gateway"),
        (["soap", "call"], "url"),
        (["get"], "url"),
        (["tunnel", "client"], "server"),
        (["tunnel", "client"], "socks"),
        (["tunnel", "server"], "listen"),
    ],
)
def test_address_and_url_parameters_are_recognised(args: list[str], param: str) -> None:
    """The hostile address and URL values reach the parameters they are meant for."""
    command = dict(COMMANDS)[tuple(args)]
    (found,) = [p for p in command.params if p.name == param]
    assert wrong_value(found, Path("/")) in (NOT_AN_ADDRESS, NOT_A_URL)


@pytest.mark.parametrize("words", list(all_commands(ROOT)), ids=" ".join)
def test_h_is_help_on_every_command(words: tuple[str, ...]) -> None:
    code, out, err = invoke([*words, "-h"])
    assert (code, err) == (0, "")
    assert "Usage: wwanlab" in out
    assert invoke([*words, "--help"]) == (code, out, err)


def test_version_option() -> None:
    assert invoke(["--version"]) == (0, f"wwanlab {__version__}\n", "")


HOSTILE_PLACES = [
    ["pep", "split", "--listen", "127.0.0.1:0", "--to", "{}"],
    ["pep", "split", "--listen", "{}", "--to", "127.0.0.1:1"],
    ["wwp", "send", "{file}", "{}"],
    ["gateway", "--port-cl", "0", "--port-co", "0", "--status", "{}"],
    ["get", "http://127.0.0.1/", "--gateway", "{}"],
    ["soap", "call", "http://127.0.0.1:1/", "nop", "--via", "wsp", "--gateway", "{}"],
    ["tunnel", "client", "--server", "{}", "--key", "{file}"],
    ["tunnel", "client", "--server", "127.0.0.1:7447", "--key", "{file}", "--socks", "{}"],
    ["tunnel", "server", "--key", "{file}", "--listen", "{}"],
]
URL_PLACES = [["get", "{}"], ["soap", "call", "{}", "nop"]]


@pytest.mark.parametrize(
    "args",
    [
        [a.replace("{}", value) for a in place]
        for places, values in ((HOSTILE_PLACES, WRONG_ADDRESSES), (URL_PLACES, WRONG_URLS))
        for place in places
        for value in values
    ],
    ids=" ".join,
)
def test_hostile_address_or_url_with_everything_else_right(
    args: list[str], regular_file: Path
) -> None:
    """One hostile value, every other argument valid: refused at once, one line."""
    args = [a.replace("{file}", str(regular_file)) for a in args]
    assert_one_line_error(args, *invoke(args))
