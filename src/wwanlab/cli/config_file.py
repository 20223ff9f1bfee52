"""Options of a command read from a TOML file (``--config FILE``); the command line wins.

A key is an option's long name without the dashes (``port-co = 9201``), its value of the
option's type: integer, float (an integer is taken too), string, boolean, or an array of
strings for a repeatable option. An unknown key or a wrong type is a ``UsageError``
naming the file and the key, so the command never starts half configured.
"""

import tomllib
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

from wwanlab.core.errors import UsageError

_GIVEN = frozenset({"COMMANDLINE", "ENVIRONMENT"})  # click's ParameterSource names
_TYPE_NAMES = {int: "an integer", float: "a number", bool: "true or false", str: "a string"}
_PLURALS = {int: "integers", float: "numbers", bool: "booleans", str: "strings"}


def apply_config_file(
    ctx: typer.Context, path: Path | None, command: Callable[..., None], values: dict[str, Any]
) -> None:
    """Fill ``values`` (parameter name -> value) from the TOML file at ``path`` for every
    option of ``command`` not given on the command line."""
    if path is None:
        return
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path} is not TOML: {exc}") from None
    hints = typing.get_type_hints(command)
    options = {
        name.replace("_", "-"): name
        for name in values
        if name != "config" and hints.get(name) is not typer.Context
    }
    for key, value in table.items():
        name = options.get(key)
        if name is None:
            known = ", ".join(sorted(options))
            raise UsageError(f"{path}: unknown key {key!r} (known: {known})")
        value = _checked(path, key, hints[name], value)
        source = ctx.get_parameter_source(name)
        if source is None or source.name not in _GIVEN:
            values[name] = value


def _checked(path: Path, key: str, hint: Any, value: Any) -> Any:
    """``value`` as the option's type (an integer for a float option becomes a float);
    an option of another type (a path) is written as a string."""
    kind = _unoptional(hint)
    if kind not in _TYPE_NAMES and typing.get_origin(kind) is not list:
        return kind(_checked(path, key, str, value))
    if typing.get_origin(kind) is list:
        (item,) = typing.get_args(kind)
        if not isinstance(value, list) or not all(_is(v, item) for v in value):
            raise UsageError(f"{path}: {key} must be an array of {_PLURALS[item]}")
        return [_as(item, v) for v in value]
    if not _is(value, kind):
        shown = repr(value)[:40]
        raise UsageError(f"{path}: {key} must be {_TYPE_NAMES[kind]}, not {shown}")
    return _as(kind, value)


def _unoptional(hint: Any) -> Any:
    """``X`` of ``X | None``."""
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        (kind,) = [a for a in typing.get_args(hint) if a is not type(None)]
        return kind
    return hint


def _is(value: Any, kind: type) -> bool:
    """Whether TOML's ``value`` can stand for ``kind``; a boolean is no number here."""
    if isinstance(value, bool):
        return kind is bool
    if kind is float:
        return isinstance(value, (int, float))
    return isinstance(value, kind)


def _as(kind: type, value: Any) -> Any:
    return float(value) if kind is float else value
