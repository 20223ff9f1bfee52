"""The registry of transports the bench can run; each family registers itself.

A ``Transport`` says how to start its server side outside the emulated link (``serve``:
an async context manager yielding the JSON-able parameters its client needs) and how to
fetch one file from inside (``argv``: a command run in the link's namespace that prints
one JSON ``Fetched`` object on stdout, by default ``python -m wwanlab.bench.client``
running ``fetch``). Families live one module each under ``wwanlab.bench.transports``
and are found by walking that package, so a new transport (WWP, the UDP-GPRS
transport) is one new module calling ``register``.
"""

import importlib
import json
import pkgutil
import shutil
import sys
from collections.abc import Callable, Coroutine, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any

from wwanlab.bench.http import Fetched
from wwanlab.core.errors import UsageError
from wwanlab.link.presets import Preset

Params = dict[str, Any]
"""What a server tells its client: addresses, ports, options (JSON-able)."""


@dataclass(frozen=True)
class ServeContext:
    """Where a transport's server side runs and what it serves."""

    host: str  # the host's address as the inner side reaches it (listen here)
    files: Mapping[str, bytes]  # path -> body
    preset: Preset  # the link, for transports whose timers depend on the bearer
    observed: dict[str, Any] = field(default_factory=dict)
    """What the server side saw of the transfer, for its row (kernel TCP: the congestion
    control its connection ran), filled in by the time ``serve`` exits."""


Serve = Callable[[ServeContext], AbstractAsyncContextManager[Params]]
Fetch = Callable[[Params, str], Coroutine[Any, Any, Fetched]]


@dataclass(frozen=True)
class Transport:
    """One way of moving the file; ``ours`` marks wwanlab's own protocols."""

    name: str  # "tcp-cubic", "wtp-paper", ...
    family: str  # "kernel TCP", "WTP/WSP", "QUIC", "KCP"
    description: str
    serve: Serve = field(repr=False)
    fetch: Fetch | None = field(default=None, repr=False)
    argv: Callable[[Params, str], list[str]] | None = field(default=None, repr=False)
    read: Callable[[Mapping[str, Any]], Fetched] = field(default=Fetched.from_json, repr=False)
    """The client's JSON output as a ``Fetched`` (raises ValueError on a failure)."""
    check: Callable[[], str | None] = field(default=lambda: None, repr=False)
    """Why the transport cannot run on this machine (a program or module missing), or None."""
    ours: bool = False

    def command(self, params: Params, path: str) -> list[str]:
        """The client's command line for fetching ``path``."""
        if self.argv is not None:
            return self.argv(params, path)
        return [sys.executable, "-m", "wwanlab.bench.client", self.name, json.dumps(params), path]

    def missing(self) -> str | None:
        """Why this transport cannot run here, or None."""
        return self.check()


def needs_programs(*programs: str) -> Callable[[], str | None]:
    """A ``check`` that the ``programs`` are on PATH."""

    def check() -> str | None:
        absent = [p for p in programs if shutil.which(p) is None]
        return f"{', '.join(absent)} not installed" if absent else None

    return check


REGISTRY: dict[str, Transport] = {}
"""Every registered transport by name, in registration order."""

TRANSPORT_PACKAGE = "wwanlab.bench.transports"


def register(*transports: Transport) -> None:
    for transport in transports:
        if transport.name in REGISTRY:
            raise ValueError(f"transport {transport.name!r} registered twice")
        REGISTRY[transport.name] = transport


def load() -> dict[str, Transport]:
    """Import every module of the transports package (each registers its family)."""
    package = importlib.import_module(TRANSPORT_PACKAGE)
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        importlib.import_module(f"{TRANSPORT_PACKAGE}.{info.name}")
    return REGISTRY


def select(names: str | None) -> list[Transport]:
    """The transports named in a comma-separated list, or every available one."""
    known = load()
    if names is None:
        return [t for t in known.values() if t.missing() is None]
    chosen = []
    for name in (n.strip() for n in names.split(",") if n.strip()):
        if name not in known:
            raise UsageError(f"unknown transport {name!r} (known: {', '.join(known)})")
        if (why := known[name].missing()) is not None:
            raise UsageError(f"transport {name!r} cannot run here: {why}")
        chosen.append(known[name])
    if not chosen:
        raise UsageError("--transports names no transport")
    return chosen
