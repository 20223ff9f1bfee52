"""The machinery of a paper's reproduction: registered by name, run by ``wwanlab reproduce``.

The reproductions themselves live above, in ``wwanlab.reproductions``, one module (or
sub-package) per paper; importing a module registers its reproduction, and the program
that runs them hands this module the packages to import and the list of papers (this
floor names neither). A reproduction runs the
scenarios of a paper's setup, compares the results with the paper's published numbers
and says, claim by claim, whether each holds. Its body is a function of a ``Context``,
which executes scenarios on the chosen executor, keeps their rows in the results
database and CSV files, and tells it where its figures go; the body returns a
``ReproductionResult`` whose page joins the report, laid out by ``reproduction_page``
the same way for every paper (claims with the run's metadata beside them, figures
with the paper's numbers, assumptions, raw tables folded).
"""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from wwanlab.core.errors import UsageError
from wwanlab.experiments.runner import run_scenario
from wwanlab.experiments.scenario import Row, Scenario, package_modules
from wwanlab.experiments.store import DEFAULT_DB, ResultStore
from wwanlab.report.html import (
    Assumptions,
    Block,
    ClaimsTable,
    Figure,
    Folded,
    Links,
    ReportPage,
    Section,
    Table,
    Text,
    write_index,
)
from wwanlab.report.provenance import RunInfo


@dataclass(frozen=True)
class Paper:
    """One of the papers, and the name its reproduction registers under."""

    id: str  # the number of its file in papers/
    title: str
    reproduction: str  # the name its reproduction registers under


REPRODUCTIONS: dict[str, Reproduction] = {}
"""Registered reproductions by name (filled by ``register``, as each module is imported)."""


@dataclass(frozen=True)
class ClaimPart:
    """One testable part of a claim (one curve's knee, one sender of a band)."""

    what: str
    holds: bool
    ours: str = ""


@dataclass(frozen=True)
class AblationRun:
    """One run of an ablation: the claim's measure with the suspected mechanism set one
    way (``variant`` says which, e.g. "TBF set-up off"), and the claim's test on it."""

    variant: str
    ours: str
    holds: bool | None = None  # None where the claim's test does not apply to the run


@dataclass(frozen=True)
class WhyMiss:
    """Why a claim does not hold: the mechanism in one sentence, shown by an ablation
    (runs that change only that mechanism, side by side with the reproduction's own)."""

    mechanism: str
    ablation: tuple[AblationRun, ...]


@dataclass(frozen=True)
class Claim:
    """A sentence of the paper tested on our data.

    A claim that says several things, or is tested against several plausible set-ups,
    carries ``parts``; it holds when every part does, and its verdict names which held
    (``Claim.of_parts``). ``extension`` marks a claim of this project's (energy, today's
    transports), counted apart from the paper's; ``why`` explains a miss
    (``with_why``), and the page shows it under "Why it misses".
    """

    claim: str  # the paper's sentence, quoted
    paper: str  # the published number or text, with its table/figure
    ours: str  # our number or text, measured the same way
    holds: bool
    parts: tuple[ClaimPart, ...] = ()
    extension: bool = False
    why: WhyMiss | None = None

    @classmethod
    def of_parts(
        cls,
        claim: str,
        paper: str,
        ours: str,
        parts: Sequence[ClaimPart],
        *,
        extension: bool = False,
    ) -> Claim:
        return cls(claim, paper, ours, all(p.holds for p in parts), tuple(parts), extension)

    def with_why(self, mechanism: str, ablation: Sequence[AblationRun]) -> Claim:
        """This claim with its miss explained (kept, but not shown, when it holds)."""
        return replace(self, why=WhyMiss(mechanism, tuple(ablation)))


@dataclass
class ReproductionResult:
    """What a reproduction found: its claims and the report page showing them."""

    name: str
    claims: Sequence[Claim]
    page: ReportPage
    tables: Sequence[str] = field(default_factory=list)  # results tables written
    numbers: Mapping[str, Any] = field(default_factory=dict)
    """Headline measurements beyond the claims (JSON-able), for ``reproduce --json``."""

    @property
    def paper_claims(self) -> list[Claim]:
        """The paper's claims, without this project's extensions."""
        return [c for c in self.claims if not c.extension]

    @property
    def extensions(self) -> list[Claim]:
        """This project's own claims (energy, today's transports), counted apart."""
        return [c for c in self.claims if c.extension]

    @property
    def held(self) -> int:
        """How many of the paper's claims hold (extensions not counted)."""
        return sum(1 for c in self.paper_claims if c.holds)


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
    csv_files: list[Path] = field(default_factory=list)
    started: float = field(default_factory=time.time)

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
            csv = store.export_csv(scenario.name, self.out / f"{scenario.name}.csv")
        self.tables.append(table)
        self.csv_files.append(csv)
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
    ``on_paper()`` applies the same claim tests to the paper's own published numbers
    (where it prints them): a test the paper itself fails is a defect of the test, and
    the suite checks that every one holds there. ``extensions`` names this project's own
    claims, listed apart from the paper's.
    """

    name: str
    paper: str
    title: str
    body: Callable[[Context], ReproductionResult]
    on_paper: Callable[[], Sequence[Claim]] | None = None
    extensions: tuple[str, ...] = ()

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


@dataclass(frozen=True)
class PaperFigure:
    """A figure standing for one of the paper's, with what the paper publishes for it
    (drawn in the figure where the text gives numbers) and the table behind it."""

    title: str
    figure: Figure
    paper: str  # the paper's numbers as drawn, or why there are none
    table: Table | None = None  # the raw numbers behind it, folded at the page's end
    shown: Sequence[Block] = ()  # blocks shown under it (a table that is the paper's)


def reproduction_page(
    ctx: Context,
    *,
    title: str,
    summary: str,
    setup: Sequence[Block],
    claims: Sequence[Claim],
    figures: Sequence[PaperFigure],
    assumptions: Sequence[str],
    findings: Sequence[str] = (),
    calibration: Sequence[str] = (),
) -> ReportPage:
    """A reproduction's page in the order every reproduction uses: the claims (and what
    the numbers say about them; the project's extensions in a table of their own), and
    beside these verdicts the run's metadata (version, commit, date, quick or full, run
    time, machine and its load: what a reader needs to weigh them), then why each claim
    that misses does (``why_it_misses``), what was calibrated on which numbers
    (``calibration``, each naming numbers no claim tests), each figure with the paper's
    numbers, the set-up and assumptions, and last the raw tables folded with links to
    the CSV files."""
    paper_claims = [c for c in claims if not c.extension]
    extensions = [c for c in claims if c.extension]
    sections = [Section("Claims", [ClaimsTable(paper_claims), *(Text(f) for f in findings)])]
    if extensions:
        sections.append(
            Section(
                "This project's extensions (not the paper's claims)",
                [ClaimsTable(extensions)],
            )
        )
    run = RunInfo.collect("quick" if ctx.quick else "full", ctx.started)
    sections.append(Section("This run", [run.block()]))
    sections.append(Section("Why it misses", why_it_misses(claims)))
    sections.append(
        Section(
            "Calibrated on",
            [Assumptions(calibration)] if calibration else [Text("Nothing was calibrated.")],
        )
    )
    sections += [
        Section(f.title, [f.figure, Text(f"Paper: {f.paper}"), *f.shown]) for f in figures
    ]
    sections.append(Section("Set-up and assumptions", [*setup, Assumptions(assumptions)]))
    folded: list[Block] = [
        Folded(f.table.caption or f.title, [f.table]) for f in figures if f.table is not None
    ]
    links = [(Path(os.path.relpath(p, ctx.out)).as_posix(), p.name) for p in ctx.csv_files]
    if links:
        folded.append(Links(links, "Every run, one row each:"))
    sections.append(Section("Raw tables", folded))
    return ReportPage(title, sections, slug=ctx.reproduction.name, summary=summary)


def why_it_misses(claims: Sequence[Claim]) -> list[Block]:
    """Each claim that does not hold with its mechanism and ablation; a miss that is not
    explained yet says so (never silently left out)."""
    misses = [c for c in claims if not c.holds]
    if not misses:
        return [Text("Every claim holds.")]
    blocks: list[Block] = []
    for c in misses:
        if c.why is None:
            blocks.append(Text(f"{c.claim} Not explained yet: no ablation has been run."))
            continue
        rows = [
            {
                "run": r.variant,
                "ours": r.ours,
                "claim": "n/a" if r.holds is None else ("holds" if r.holds else "misses"),
            }
            for r in c.why.ablation
        ]
        blocks.append(Text(f"{c.claim} Mechanism: {c.why.mechanism}"))
        blocks.append(Table.from_rows(rows, caption="Ablation: only this mechanism changes"))
    return blocks


def paper_status(
    papers: Sequence[Paper], registered: Mapping[str, Reproduction]
) -> list[dict[str, str]]:
    """Each of the papers with its reproduction's name and "reproduced" when that name is
    ``registered``, "not yet" otherwise."""
    return [
        {
            "paper": p.id,
            "title": p.title,
            "reproduction": p.reproduction,
            "status": "reproduced" if p.reproduction in registered else "not yet",
        }
        for p in papers
    ]


def index_front(status: Sequence[Mapping[str, str]]) -> list[Block]:
    """What the report's index says first: which papers (``paper_status``) are
    reproduced today."""
    done = sum(1 for s in status if s["status"] == "reproduced")
    if done == len(status):
        said = f"All {done} papers are reproduced today."
    elif done == 0:
        said = f"None of the {len(status)} papers is reproduced today."
    else:
        rest = len(status) - done
        others = (
            "the other one is not yet, and its row says"
            if rest == 1
            else (f"the other {rest} are not yet, and their rows say")
        )
        said = f"{done} of the {len(status)} papers are reproduced today; {others} so."
    return [Text(said), Table.from_rows([dict(s) for s in status], caption="The papers")]


def write_report_index(out: Path, pages: Sequence[ReportPage], front: Sequence[Block]) -> Path:
    """``write_index`` with ``front`` (``index_front``: the papers' status) above the pages."""
    return write_index(out, pages, front=front)


def register(reproduction: Reproduction) -> Reproduction:
    """Add ``reproduction`` to ``REPRODUCTIONS``; names are unique."""
    existing = REPRODUCTIONS.get(reproduction.name)
    if existing is not None and existing is not reproduction:
        raise ValueError(f"reproduction {reproduction.name!r} is already registered")
    REPRODUCTIONS[reproduction.name] = reproduction
    return reproduction


def load_reproductions(packages: Sequence[str]) -> dict[str, Reproduction]:
    """Import every module of ``packages``; the registered reproductions by name."""
    for module in package_modules(packages):
        importlib.import_module(module)
    return REPRODUCTIONS


def select(name: str, registered: Mapping[str, Reproduction]) -> list[Reproduction]:
    """``all`` (every one of ``registered``, by name) or the one named ``name``."""
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
    front: Sequence[Block] = (),
) -> list[ReproductionResult]:
    """Run each reproduction, then write its page and the index (``front`` first) under
    ``out``."""
    results = [r.run(quick, out, jobs, scheduler, progress=progress, db=db) for r in reproductions]
    if results:
        write_report_index(out, [r.page for r in results], front)
    return results
