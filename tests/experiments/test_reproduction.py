from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.experiments import kinds  # noqa: F401  (registers the test kinds)

from wwanlab.core.errors import UsageError
from wwanlab.experiments import reproduction as registry
from wwanlab.experiments.reproduction import (
    AblationRun,
    Claim,
    ClaimPart,
    Context,
    PaperFigure,
    Reproduction,
    ReproductionResult,
    index_front,
    paper_status,
    register,
    reproduce,
    reproduction_page,
    select,
)
from wwanlab.experiments.scenario import Scenario
from wwanlab.experiments.store import ResultStore
from wwanlab.report import ClaimsTable, Figure, ReportPage, Section, Table, Text
from wwanlab.report.plots import line_plot
from wwanlab.reproductions import PAPERS


def body(context: Context) -> ReproductionResult:
    n = 2 if context.quick else 5
    rows = context.execute(Scenario("toy-draws", "test-draws", params={"params.n": n}, seed=1))
    mean = sum(r["x"] for r in rows) / len(rows)
    claims = [Claim("draws lie in [0, 1)", "[0, 1)", f"mean {mean:.3f}", 0 <= mean < 1)]
    page = ReportPage("Toy", [Section("Claims", [ClaimsTable(claims)])], slug="toy")
    return ReproductionResult("toy", claims, page)


TOY = Reproduction("toy", "papers/none", "A toy reproduction", body)


@pytest.fixture(autouse=True)
def empty_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests see only the reproductions they register, not the papers' ones."""
    monkeypatch.setattr(registry, "REPRODUCTIONS", {})


@pytest.fixture
def toy_registered() -> Iterator[None]:
    register(TOY)
    yield
    del registry.REPRODUCTIONS["toy"]


def test_select_and_unknown(toy_registered: None) -> None:
    assert select("toy", registry.REPRODUCTIONS) == [TOY]
    assert select("all", registry.REPRODUCTIONS) == [TOY]
    with pytest.raises(UsageError, match="unknown reproduction 'nope' \\(known: toy\\)"):
        select("nope", registry.REPRODUCTIONS)
    with pytest.raises(ValueError, match="already registered"):
        register(Reproduction("toy", "p", "t", body))


def test_empty_registry_selects_nothing() -> None:
    assert select("all", registry.REPRODUCTIONS) == []
    with pytest.raises(UsageError, match="none registered"):
        select("toy", registry.REPRODUCTIONS)


def test_reproduce_writes_store_csv_page_and_index(toy_registered: None, tmp_path: Path) -> None:
    out = tmp_path / "report"
    db = tmp_path / "w.duckdb"
    (result,) = reproduce([TOY], quick=True, out=out, jobs=1, db=db)
    assert result.held == 1 and result.tables == ["toy_draws"]
    assert (out / "toy.html").exists() and (out / "index.html").exists()
    assert (out / "toy-draws.csv").read_text().count("\n") == 1 + 2
    with ResultStore(db) as store:
        assert len(store.read("toy-draws")) == 2


def paged_body(context: Context) -> ReproductionResult:
    """The toy on the shared page skeleton."""
    rows = context.execute(Scenario("toy-draws", "test-draws", params={"params.n": 2}, seed=1))
    claims = [
        Claim.of_parts(
            "both halves", "2 parts", "see parts", [ClaimPart("a", True), ClaimPart("b", False)]
        )
    ]
    figure = PaperFigure(
        "Figure 1: draws",
        Figure(
            line_plot(
                [0, 1],
                {"x": [r["x"] for r in rows]},
                context.figure_path("f.png"),
                xlabel="i",
                ylabel="x",
            )
        ),
        "the paper's Figure 1 did not survive extraction",
        Table.from_rows(rows, caption="The draws"),
    )
    page = reproduction_page(
        context,
        title="Toy",
        summary="a toy",
        setup=[Text("two draws")],
        claims=claims,
        figures=[figure],
        assumptions=["uniform draws"],
        findings=["nothing to find"],
    )
    return ReproductionResult("toy", claims, page)


def test_page_skeleton_orders_claims_run_figures_assumptions_and_raw(tmp_path: Path) -> None:
    toy = Reproduction("toy", "papers/none", "A toy reproduction", paged_body)
    register(toy)
    try:
        front = index_front(paper_status(PAPERS, registry.REPRODUCTIONS))
        reproduce([toy], quick=True, out=tmp_path, jobs=1, db=tmp_path / "w.duckdb", front=front)
    finally:
        del registry.REPRODUCTIONS["toy"]
    page = (tmp_path / "toy.html").read_text()
    order = [
        "<h2>Claims</h2>",
        "partly holds",
        "nothing to find",
        "<h2>This run</h2>",
        "<td>git commit</td>",
        "<td>run</td><td>quick</td>",
        "<td>machine load</td>",
        "<h2>Figure 1: draws</h2>",
        'src="figures/toy/f.png"',
        "Paper: the paper&#x27;s Figure 1 did not survive extraction",
        "<h2>Set-up and assumptions</h2>",
        "<li>uniform draws</li>",
        "<h2>Raw tables</h2>",
        "<details><summary>The draws</summary>",
        '<a href="toy-draws.csv">toy-draws.csv</a>',
    ]
    at = [page.index(s) for s in order]
    assert at == sorted(at)
    # the index says which papers are reproduced (none of the five here)
    index = (tmp_path / "index.html").read_text()
    assert "None of the 5 papers is reproduced today." in index
    assert index.count("<td>not yet</td>") == 5


def test_paper_status_follows_the_registry() -> None:
    assert [p["status"] for p in paper_status(PAPERS, registry.REPRODUCTIONS)] == ["not yet"] * 5
    register(Reproduction("wave-and-wait", "papers/004", "WWP", body))
    try:
        status = {
            p["reproduction"]: p["status"] for p in paper_status(PAPERS, registry.REPRODUCTIONS)
        }
    finally:
        del registry.REPRODUCTIONS["wave-and-wait"]
    assert status["wave-and-wait"] == "reproduced" and status["wap-vs-tcp"] == "not yet"


def test_index_front_says_only_what_is_true() -> None:
    def said(reproduced: int) -> str:
        status = [{"status": "reproduced"}] * reproduced + [{"status": "not yet"}] * (
            5 - reproduced
        )
        text = index_front(status)[0]
        assert isinstance(text, Text)
        return text.text

    assert said(5) == "All 5 papers are reproduced today."
    assert said(4) == (
        "4 of the 5 papers are reproduced today; the other one is not yet, and its row says so."
    )
    assert said(3) == (
        "3 of the 5 papers are reproduced today; the other 2 are not yet, and their rows say so."
    )
    assert said(0) == "None of the 5 papers is reproduced today."


def test_misses_are_explained_and_extensions_counted_apart(tmp_path: Path) -> None:
    ablation = (AblationRun("TBF set-up on (as run)", "2.1 kbit/s", False),)
    missed = Claim("A beats B", "+20%", "-3%", False).with_why("B's link idles", ablation)
    unexplained = Claim("C beats D", "+5%", "-1%", False)
    energy = Claim("A saves joules", "n/a", "12%", True, extension=True)
    ctx = Context(TOY, quick=True, out=tmp_path)
    page = reproduction_page(
        ctx,
        title="T",
        summary="s",
        setup=[],
        claims=[missed, unexplained, energy],
        figures=[],
        assumptions=[],
        calibration=["queue length, on Table 9's idle row (no claim tests it)"],
    )
    titles = [s.title for s in page.sections]
    assert titles[:5] == [
        "Claims",
        "This project's extensions (not the paper's claims)",
        "This run",  # the run's metadata beside the verdicts
        "Why it misses",
        "Calibrated on",
    ]
    text = page.render(tmp_path)
    assert "Mechanism: B&#x27;s link idles" in text and "TBF set-up on (as run)" in text
    assert "C beats D Not explained yet" in text
    result = ReproductionResult("toy", [missed, unexplained, energy], page)
    assert (result.held, len(result.paper_claims), len(result.extensions)) == (0, 2, 1)
