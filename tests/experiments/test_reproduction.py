from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.experiments import kinds  # noqa: F401  (registers the test kinds)

from wwanlab.core.errors import UsageError
from wwanlab.experiments import reproduction as registry
from wwanlab.experiments.reproduction import (
    Claim,
    Context,
    Reproduction,
    ReproductionResult,
    register,
    reproduce,
    select,
)
from wwanlab.experiments.scenario import Scenario
from wwanlab.experiments.store import ResultStore
from wwanlab.report import ClaimsTable, ReportPage, Section


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
    monkeypatch.setattr(registry, "REPRODUCTION_PACKAGES", [])
    monkeypatch.setattr(registry, "REPRODUCTIONS", {})


@pytest.fixture
def toy_registered() -> Iterator[None]:
    register(TOY)
    yield
    del registry.REPRODUCTIONS["toy"]


def test_select_and_unknown(toy_registered: None) -> None:
    assert select("toy") == [TOY]
    assert select("all") == [TOY]
    with pytest.raises(UsageError, match="unknown reproduction 'nope' \\(known: toy\\)"):
        select("nope")
    with pytest.raises(ValueError, match="already registered"):
        register(Reproduction("toy", "p", "t", body))


def test_empty_registry_selects_nothing() -> None:
    assert select("all") == []
    with pytest.raises(UsageError, match="none registered"):
        select("toy")


def test_reproduce_writes_store_csv_page_and_index(toy_registered: None, tmp_path: Path) -> None:
    out = tmp_path / "report"
    db = tmp_path / "w.duckdb"
    (result,) = reproduce([TOY], quick=True, out=out, jobs=1, db=db)
    assert result.held == 1 and result.tables == ["toy_draws"]
    assert (out / "toy.html").exists() and (out / "index.html").exists()
    assert (out / "toy-draws.csv").read_text().count("\n") == 1 + 2
    with ResultStore(db) as store:
        assert len(store.read("toy-draws")) == 2
