import csv
from pathlib import Path

import duckdb
import pytest
from tests.experiments import kinds  # noqa: F401  (registers the test kinds)

from wwanlab.core.errors import UsageError
from wwanlab.experiments.runner import run_scenario
from wwanlab.experiments.scenario import Row, Scenario
from wwanlab.experiments.store import ResultStore, table_name


def test_rows_round_trip_with_types(tmp_path: Path) -> None:
    scenario = Scenario("draws-1", "test-draws", sweep={"params.scale": [1, 2.5]}, seed=3)
    rows = run_scenario(scenario, jobs=1)
    db = tmp_path / "r" / "w.duckdb"
    with ResultStore(db) as store:
        assert store.write("draws-1", rows) == "draws_1"
        assert store.tables() == ["draws_1"]
        assert store.read("draws-1") == rows
    con = duckdb.connect(str(db))
    types = dict(
        con.execute(
            "SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = 'draws_1'"
        ).fetchall()
    )
    con.close()
    # seeds are 64-bit unsigned; an int/float sweep becomes DOUBLE
    assert types == {
        "scenario": "VARCHAR",
        "run": "BIGINT",
        "repetition": "BIGINT",
        "seed": "UBIGINT",
        "params.scale": "DOUBLE",
        "i": "BIGINT",
        "x": "DOUBLE",
    }


def test_write_replaces_and_tables_are_separate(tmp_path: Path) -> None:
    with ResultStore(tmp_path / "w.duckdb") as store:
        store.write("a", [{"v": 1, "ok": True}, {"v": 2, "ok": None}])
        store.write("a", [{"v": 3, "ok": False}])
        store.write("b", [{"name": "x"}])
        assert store.read("a") == [{"v": 3, "ok": False}]
        assert store.read("b") == [{"name": "x"}]
        with pytest.raises(UsageError, match="no results table 'c'"):
            store.read("c")


def test_csv_export(tmp_path: Path) -> None:
    rows: list[Row] = [{"run": 0, "x": 0.5, "label": "a,b"}, {"run": 1, "x": None, "label": "c"}]
    with ResultStore(tmp_path / "w.duckdb") as store:
        store.write("e", rows)
        path = store.export_csv("e", tmp_path / "out" / "e.csv")
    with path.open() as f:
        read = list(csv.reader(f))
    assert read == [["run", "x", "label"], ["0", "0.5", "a,b"], ["1", "", "c"]]


def test_table_names_are_identifiers() -> None:
    assert table_name("probe gprs/1") == "probe_gprs_1"
    assert table_name("3g") == "t_3g"
    assert table_name("bench-serial-9k6") == "bench_serial_9k6"
    assert table_name("select") == "t_select" and table_name("Cross") == "t_Cross"
    assert table_name("duration") == "duration"  # an unreserved keyword is a fine name


@pytest.mark.parametrize("experiment", ["bench-serial-9k6", "probe gprs/1", "3g", "order", "by"])
def test_tables_are_queried_unquoted_and_read_by_the_experiment_name(
    tmp_path: Path, experiment: str
) -> None:
    with ResultStore(tmp_path / "q.duckdb") as store:
        table = store.write(experiment, [{"x": 1}, {"x": 2}])
        assert store.query(f"SELECT sum(x) FROM {table}") == [(3,)]
        assert store.read(experiment) == [{"x": 1}, {"x": 2}]


def test_mixed_types_rejected(tmp_path: Path) -> None:
    with ResultStore(tmp_path / "w.duckdb") as store, pytest.raises(ValueError, match="'v'"):
        store.write("m", [{"v": 1}, {"v": "one"}])


def test_awkward_values_survive_the_bulk_load(tmp_path: Path) -> None:
    """The bulk load goes through CSV: quoting, NULLs and extremes must not be mangled."""
    rows: list[Row] = [
        {"s": 'comma, "quote"\nnewline', "x": float("inf"), "n": 2**64 - 1, "b": True},
        {"s": "", "x": -0.5, "n": 0, "b": False},
        {"s": "\\N is text here", "x": None, "n": None, "b": None},
        {"s": None, "x": 1e-300, "n": 7, "b": True},
    ]
    with ResultStore(tmp_path / "db.duckdb") as store:
        store.write("awkward", rows)
        back = store.read("awkward")
    assert [r["s"] for r in back] == [rows[0]["s"], "", "\\N is text here", None]
    assert [r["x"] for r in back] == [float("inf"), -0.5, None, 1e-300]
    assert [r["n"] for r in back] == [2**64 - 1, 0, None, 7]
    assert [r["b"] for r in back] == [True, False, None, True]
