"""Declarative scenarios: what to run, with which parameters, how many times.

A scenario names an experiment *kind* (a registered function
``run_one(params, seed) -> rows``), its base parameters (link preset and overrides,
protocol stack, workload, free parameters), a ``sweep`` whose lists expand into the
cartesian product of runs, a number of repetitions and one seed. Every run gets its own
seed derived from the scenario seed and the run's parameters, so adding a sweep value
never changes the numbers of the runs that were already there.

Parameters are handed to ``run_one`` flat, with dotted names (``"link.preset"``,
``"link.overrides.loss"``, ``"workload.count"``): the same names become the columns of
the results table, and a sweep names the parameter it varies the same way.
"""

from __future__ import annotations

import importlib
import itertools
import json
import math
import pkgutil
import tomllib
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wwanlab.core.errors import UsageError
from wwanlab.core.rng import derive_seed

Row = dict[str, Any]
"""One tidy result row: column name to a scalar (bool, int, float, str or None)."""

RunOne = Callable[[dict[str, Any], int], list[Row]]
"""An experiment kind: ``run_one(params, seed)`` returns the run's rows."""

KINDS: dict[str, RunOne] = {}
"""Registered experiment kinds by name."""

KIND_PARAMETERS: dict[str, Mapping[str, Parameter]] = {}
"""The parameters each kind declares it reads (kinds that declare none take any)."""

KIND_MODULES: list[str] = ["wwanlab.experiments.probe", "wwanlab.experiments.fec_arq"]
"""Modules of this package that register kinds on import; a scenario file may name any of
their kinds. The papers' kinds are registered as their modules are imported, which the
program running a scenario file does first (``wwanlab.reproductions.load``): this floor
does not name the reproductions."""

MAX_RUNS = 10_000
"""Runs a scenario may expand to unless forced: at the simulator's thousands of runs a
minute that is minutes to an hour on a laptop; a typo in a sweep is orders beyond it."""

PARAM_SECTIONS = ("link", "stack", "workload", "params")
"""Tables of a scenario file that hold parameters (``params`` for anything else)."""

TOP_LEVEL_KEYS = frozenset(
    {"name", "kind", "description", "seed", "repetitions", "sweep", *PARAM_SECTIONS}
)

Scalar = bool | int | float | str


@dataclass(frozen=True)
class Parameter:
    """A parameter a kind reads: its type and range, checked when a scenario is built so
    that a wrong value is a usage error at load time, not a failure inside a run."""

    type: type[bool] | type[int] | type[float] | type[str]
    required: bool = False
    minimum: float | None = None
    maximum: float | None = None
    choices: Collection[str] = ()
    bound: float | None = None  # above it only when forced: a run's work grows with it

    def check(self, name: str, value: Scalar) -> None:
        """Raise ``UsageError`` unless ``value`` is of this parameter's type and range."""
        if self.type is bool:
            ok = isinstance(value, bool)
        elif self.type is int:
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif self.type is float:  # TOML writes 1 for 1.0: integers are numbers too
            ok = isinstance(value, int | float) and not isinstance(value, bool)
        else:
            ok = isinstance(value, str)
        if not ok:
            raise UsageError(f"{name} must be {_TYPE_NAMES[self.type]}, got {value!r}")
        if isinstance(value, int | float) and not isinstance(value, bool):
            if not math.isfinite(value):
                raise UsageError(f"{name} must be finite, got {value!r}")
            if self.minimum is not None and value < self.minimum:
                raise UsageError(f"{name} must be at least {self.minimum:g}, got {value!r}")
            if self.maximum is not None and value > self.maximum:
                raise UsageError(f"{name} must be at most {self.maximum:g}, got {value!r}")
        if self.choices and value not in self.choices:
            known = ", ".join(sorted(self.choices))
            raise UsageError(f"{name} must be one of {known}; got {value!r}")


_TYPE_NAMES = {bool: "true or false", int: "an integer", float: "a number", str: "a string"}


def experiment_kind(
    name: str, parameters: Mapping[str, Parameter] | None = None
) -> Callable[[RunOne], RunOne]:
    """Register ``run_one`` as the experiment kind ``name`` (a decorator).

    ``parameters`` declares every parameter the kind reads; a scenario of the kind is
    then checked against it when built (unknown names, wrong types, missing values).
    """

    def register(run_one: RunOne) -> RunOne:
        existing = KINDS.get(name)
        if existing is not None and existing is not run_one:
            raise ValueError(f"experiment kind {name!r} is already registered")
        KINDS[name] = run_one
        if parameters is not None:
            KIND_PARAMETERS[name] = parameters
        return run_one

    return register


def package_modules(packages: Sequence[str]) -> list[str]:
    """The names of the modules and sub-packages directly inside ``packages``."""
    names: list[str] = []
    for name in packages:
        package = importlib.import_module(name)
        names.extend(f"{name}.{m.name}" for m in pkgutil.iter_modules(package.__path__))
    return sorted(names)


def load_kinds(packages: Sequence[str] = ()) -> dict[str, RunOne]:
    """Import every module that registers built-in kinds and every module of ``packages``;
    the registered kinds by name."""
    for module in [*KIND_MODULES, *package_modules(packages)]:
        importlib.import_module(module)
    return KINDS


def get_kind(name: str) -> RunOne:
    """The kind ``name``, importing the modules that register the built-in kinds."""
    if name not in KINDS:
        load_kinds()
    try:
        return KINDS[name]
    except KeyError:
        known = ", ".join(sorted(KINDS)) or "none"
        raise UsageError(f"unknown experiment kind {name!r} (known: {known})") from None


@dataclass(frozen=True)
class Run:
    """One execution of a kind: its place in the scenario, parameters and seed."""

    scenario: str
    kind: str
    index: int
    repetition: int
    params: Mapping[str, Scalar]
    seed: int


@dataclass(frozen=True)
class Scenario:
    """A named experiment: a kind, base parameters, sweeps, repetitions and a seed."""

    name: str
    kind: str
    params: Mapping[str, Scalar] = field(default_factory=dict)
    sweep: Mapping[str, Sequence[Scalar]] = field(default_factory=dict)
    repetitions: int = 1
    seed: int = 0
    description: str = ""

    def __post_init__(self) -> None:
        if not self.name or not all(c.isalnum() or c in "-_" for c in self.name):
            raise UsageError(f"scenario name {self.name!r} must be letters, digits, '-' or '_'")
        if isinstance(self.repetitions, bool) or not isinstance(self.repetitions, int):
            raise UsageError(f"repetitions must be an integer, got {self.repetitions!r}")
        if self.repetitions < 1:
            raise UsageError(f"repetitions must be at least 1, got {self.repetitions}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise UsageError(f"seed must be an integer, got {self.seed!r}")
        for key, value in self.params.items():
            _check_name("parameter", key)
            _check_scalar(key, value)
        for key, values in self.sweep.items():
            _check_name("sweep key", key)
            if isinstance(values, str | bytes) or not isinstance(values, Sequence):
                raise UsageError(f"sweep {key!r} must be a list of values")
            if not values:
                raise UsageError(f"sweep {key!r} has no values")
            for value in values:
                _check_scalar(key, value)
        get_kind(self.kind)
        declared = KIND_PARAMETERS.get(self.kind)
        if declared is not None:
            _check_declared(self.kind, declared, self.params, self.sweep)

    def run_count(self) -> int:
        """How many runs ``runs()`` will make, counted without making them."""
        return math.prod(len(v) for v in self.sweep.values()) * self.repetitions

    def size(self) -> str:
        """The run count as the product it is, for a person deciding to start."""
        points = " x ".join(str(len(v)) for v in self.sweep.values()) or "1"
        return (
            f"{self.run_count():,} runs ({points} sweep points x {self.repetitions} repetitions)"
        )

    def check_size(self, force: bool = False) -> None:
        """Refuse, unless ``force``, a scenario over ``MAX_RUNS`` runs or with a parameter
        over its kind's work bound (``Parameter.bound``)."""
        if force:
            return
        if self.run_count() > MAX_RUNS:
            raise UsageError(
                f"scenario {self.name!r} is {self.size()}, over the bound of {MAX_RUNS:,}; "
                "pass --force to run it anyway"
            )
        declared = KIND_PARAMETERS.get(self.kind, {})
        for key, parameter in declared.items():
            values = [
                *([self.params[key]] if key in self.params else []),
                *self.sweep.get(key, []),
            ]
            for value in values:
                if (
                    parameter.bound is not None
                    and isinstance(value, int | float)
                    and value > parameter.bound
                ):
                    raise UsageError(
                        f"{key} = {value:g} is over its bound of {parameter.bound:g}; "
                        "pass --force to run it anyway"
                    )

    def runs(self) -> list[Run]:
        """Every run: the sweep's cartesian product (in file order) times the repetitions."""
        keys = list(self.sweep)
        points = itertools.product(*(self.sweep[k] for k in keys))
        runs: list[Run] = []
        for point in points:
            varied = dict(zip(keys, point, strict=True))
            params = {**self.params, **varied}
            for repetition in range(self.repetitions):
                seed = derive_seed(self.seed, self.name, _canonical(varied), str(repetition))
                runs.append(Run(self.name, self.kind, len(runs), repetition, params, seed))
        return runs


def _check_name(what: str, key: str) -> None:
    section, dot, rest = key.partition(".")
    if section not in PARAM_SECTIONS or not dot or not rest:
        sections = ", ".join(f"{s}." for s in PARAM_SECTIONS)
        raise UsageError(f"{what} {key!r} must start with one of {sections}")


def _check_scalar(key: str, value: object) -> None:
    if not isinstance(value, Scalar):
        raise UsageError(f"parameter {key!r} must be a number, string or boolean, got {value!r}")


def _check_declared(
    kind: str,
    declared: Mapping[str, Parameter],
    params: Mapping[str, Scalar],
    sweep: Mapping[str, Sequence[Scalar]],
) -> None:
    for key in [*params, *sweep]:
        if key not in declared:
            raise UsageError(
                f"kind {kind!r} has no parameter {key!r} (it reads: {', '.join(declared)})"
            )
    for key, parameter in declared.items():
        if parameter.required and key not in params and key not in sweep:
            raise UsageError(f"kind {kind!r} needs parameter {key!r}")
        for value in [*([params[key]] if key in params else []), *sweep.get(key, [])]:
            parameter.check(key, value)


def _canonical(point: Mapping[str, Scalar]) -> str:
    return json.dumps(sorted(point.items()), separators=(",", ":"))


def _flatten(prefix: str, table: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    for key, value in table.items():
        name = f"{prefix}.{key}"
        if isinstance(value, dict):
            yield from _flatten(name, value)
        else:
            yield name, value


def scenario_from_dict(data: Mapping[str, Any], *, source: str = "scenario") -> Scenario:
    """Build a scenario from a parsed TOML document (or the same shape in Python)."""
    unknown = sorted(set(data) - TOP_LEVEL_KEYS)
    if unknown:
        raise UsageError(f"{source}: unknown key {unknown[0]!r}")
    for required in ("name", "kind"):
        if required not in data:
            raise UsageError(f"{source}: missing key {required!r}")
        if not isinstance(data[required], str):
            raise UsageError(f"{source}: {required!r} must be a string")
    params: dict[str, Any] = {}
    for section in PARAM_SECTIONS:
        table = data.get(section, {})
        if not isinstance(table, dict):
            raise UsageError(f"{source}: {section!r} must be a table")
        params.update(_flatten(section, table))
    sweep = data.get("sweep", {})
    if not isinstance(sweep, dict):
        raise UsageError(f"{source}: 'sweep' must be a table")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise UsageError(f"{source}: 'description' must be a string")
    try:
        return Scenario(
            name=data["name"],
            kind=data["kind"],
            params=params,
            sweep=sweep,
            repetitions=data.get("repetitions", 1),
            seed=data.get("seed", 0),
            description=description,
        )
    except UsageError as exc:
        raise UsageError(f"{source}: {exc}") from None


def load_scenario(path: Path | str) -> Scenario:
    """Read a scenario TOML file; any problem is a ``UsageError`` naming the file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read scenario file {str(path)!r}: {exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"malformed scenario file {str(path)!r}: {exc}") from None
    return scenario_from_dict(data, source=str(path))
