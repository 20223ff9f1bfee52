"""The machinery of a paper's reproduction: registered by name, run by ``wwanlab reproduce``.

The reproductions themselves live in the package ``wwanlab.reproductions``, one module
(or sub-package) per paper; importing it registers them. A reproduction runs the
scenarios of a paper's setup, compares the results with the paper's published numbers
and says, claim by claim, whether each holds. Its body is a function of a ``Context``,
which executes scenarios on the chosen executor, keeps their rows in the results
database and CSV files, and tells it where its figures go; the body returns a
``ReproductionResult`` whose page joins the report.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from wwanlab.core.errors import UsageError
from wwanlab.experiments.runner import run_scenario
from wwanlab.experiments.scenario import Row, Scenario, package_modules
from wwanlab.experiments.store import DEFAULT_DB, ResultStore
from wwanlab.report.html import ReportPage, write_index

REPRODUCTION_PACKAGES: list[str] = ["wwanlab.reproductions"]
"""Packages whose every module registers its reproduction on import."""

REPRODUCTIONS: dict[str, Reproduction] = {}
"""Registered reproductions by name (filled by importing ``REPRODUCTION_PACKAGES``)."""


@dataclass(frozen=True)
class Claim:
    """A sentence of the paper tested on our data."""

    claim: str  # the paper's sentence, quoted
    paper: str  # the published number or text, with its table/figure
    ours: str  # our number or text, measured the same way
    holds: bool


@dataclass
class ReproductionResult:
    """What a reproduction found: its claims and the report page showing them."""

    name: str
    claims: Sequence[Claim]
    page: ReportPage
    tables: Sequence[str] = field(default_factory=list)  # results tables written

    @property
    def held(self) -> int:
        return sum(1 for c in self.claims if c.holds)


@dataclass
class Context:
    """Where and how a reproduction runs: quick or full, output folder, executor."""

    reproduction: Reproduction
    quick: bool
    out: Path
    jobs: int | None = None
    scheduler: str | None = None
    progress: bool = False
    db: Path = DEFAULT_DB
    tables: list[str] = field(default_factory=list)

    def execute(self, scenario: Scenario, *, serial: bool = False) -> list[Row]:
        """Run ``scenario``, store its rows (table and ``out/<name>.csv``), return them.

        ``serial`` runs one run at a time in this process: runs that time real sockets
        must not share the CPU with each other.
        """
        rows = run_scenario(
            scenario,
            jobs=1 if serial else self.jobs,
            scheduler=None if serial else self.scheduler,
            progress=self.progress,
        )
        with ResultStore(self.db) as store:
            table = store.write(scenario.name, rows)
            store.export_csv(scenario.name, self.out / f"{scenario.name}.csv")
        self.tables.append(table)
        return rows

    def figure_path(self, filename: str) -> Path:
        """Where to save a figure of this reproduction (beside its page)."""
        path = self.out / "figures" / self.reproduction.name / filename
        path.parent.mkdir(parents=True, exist_ok=True)
        return path


@dataclass(frozen=True)
class Reproduction:
    """A paper's results, reproducible by name.

    ``body(context)`` runs the scenarios (smaller ones when ``context.quick``) and
    returns the result; ``paper`` cites the paper (e.g. ``"papers/000: Section 5"``).
    """

    name: str
    paper: str
    title: str
    body: Callable[[Context], ReproductionResult]

    def run(
        self,
        quick: bool,
        out: Path,
        jobs: int | None = None,
        scheduler: str | None = None,
        *,
        progress: bool = False,
        db: Path = DEFAULT_DB,
    ) -> ReproductionResult:
        context = Context(self, quick, Path(out), jobs, scheduler, progress, Path(db))
        result = self.body(context)
        if not result.tables:
            result.tables = list(context.tables)
        return result


def register(reproduction: Reproduction) -> Reproduction:
    """Add ``reproduction`` to ``REPRODUCTIONS``; names are unique."""
    existing = REPRODUCTIONS.get(reproduction.name)
    if existing is not None and existing is not reproduction:
        raise ValueError(f"reproduction {reproduction.name!r} is already registered")
    REPRODUCTIONS[reproduction.name] = reproduction
    return reproduction


def load_reproductions() -> dict[str, Reproduction]:
    """Import every reproduction module; the registered reproductions by name."""
    for module in package_modules(REPRODUCTION_PACKAGES):
        importlib.import_module(module)
    return REPRODUCTIONS


def select(name: str) -> list[Reproduction]:
    """``all`` (every registered reproduction, by name) or the one named ``name``."""
    registered = load_reproductions()
    if name == "all":
        return [registered[n] for n in sorted(registered)]
    if name not in registered:
        known = ", ".join(sorted(registered)) or "none registered"
        raise UsageError(f"unknown reproduction {name!r} (known: {known})")
    return [registered[name]]


def reproduce(
    reproductions: Sequence[Reproduction],
    *,
    quick: bool,
    out: Path,
    jobs: int | None = None,
    scheduler: str | None = None,
    progress: bool = False,
    db: Path = DEFAULT_DB,
) -> list[ReproductionResult]:
    """Run each reproduction, then write its page and the index under ``out``."""
    results = [r.run(quick, out, jobs, scheduler, progress=progress, db=db) for r in reproductions]
    if results:
        write_index(out, [r.page for r in results])
    return results
