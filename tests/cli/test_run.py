import json
from pathlib import Path

import pytest
from distributed import LocalCluster
from tests.experiments import kinds  # noqa: F401  (registers the test kinds)
from tests.experiments.invoke import wwanlab

from wwanlab.experiments.scenario import load_scenario
from wwanlab.experiments.store import ResultStore

SCENARIO = """
name = "cli-draws"
kind = "test-draws"
description = "draws for the CLI test"
seed = 9
repetitions = 2
[params]
n = 2
[sweep]
"params.scale" = [1.0, 2.0]
"""


def test_run_writes_db_csv_and_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.toml"
    path.write_text(SCENARIO)
    db = tmp_path / "w.duckdb"
    out = tmp_path / "out"
    args = ["run", str(path), "--out", str(out), "--db", str(db), "--jobs", "1", "--json"]
    code, stdout, stderr = wwanlab(capsys, monkeypatch, *args)
    assert code == 0, stderr
    summary = json.loads(stdout)
    assert summary["runs"] == 4 and summary["rows"] == 8 and summary["table"] == "cli_draws"
    assert (out / "cli-draws.csv").read_text().count("\n") == 9
    page = (out / "cli-draws.html").read_text()
    assert "draws for the CLI test" in page and "sweep params.scale" in page
    assert "<h2>This run</h2>" in page and "<td>git commit</td>" in page
    assert '<a href="cli-draws.csv">' in page
    with ResultStore(db) as store:
        rows = store.read("cli-draws")
    assert [r["run"] for r in rows] == [0, 0, 1, 1, 2, 2, 3, 3]
    # two workers give the same table
    code, _, _ = wwanlab(capsys, monkeypatch, *args[:-3], "--jobs", "2", "--json")
    assert code == 0
    with ResultStore(db) as store:
        assert store.read("cli-draws") == rows


def test_run_malformed_scenario(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('name = "x"\nkind = "test-draws"\nrepetitions = "two"\n')
    code, stdout, stderr = wwanlab(capsys, monkeypatch, "run", str(path))
    assert code == 2 and stdout == ""
    assert stderr == f"wwanlab: error: {path}: repetitions must be an integer, got 'two'\n"


def test_run_on_a_dask_scheduler(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.toml"
    path.write_text(SCENARIO)
    common = ["run", str(path), "--out", str(tmp_path / "out"), "--json"]
    code, _, err = wwanlab(
        capsys, monkeypatch, *common, "--db", str(tmp_path / "a.db"), "--jobs", "1"
    )
    assert code == 0, err
    with LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster:
        address = cluster.scheduler_address
        code, _, err = wwanlab(
            capsys, monkeypatch, *common, "--db", str(tmp_path / "b.db"), "--scheduler", address
        )
    assert code == 0, err
    with ResultStore(tmp_path / "a.db") as a, ResultStore(tmp_path / "b.db") as b:
        assert a.read("cli-draws") == b.read("cli-draws")


def test_the_run_page_links_to_an_index_that_lists_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.toml"
    path.write_text(SCENARIO)
    out = tmp_path / "out"
    args = ["run", str(path), "--out", str(out), "--db", str(tmp_path / "w.duckdb"), "--jobs", "1"]
    code, _, err = wwanlab(capsys, monkeypatch, *args)
    assert code == 0, err
    assert '<a href="index.html">All pages</a>' in (out / "cli-draws.html").read_text()
    assert '<a href="cli-draws.html">cli-draws</a>' in (out / "index.html").read_text()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "repetitions = 1000000000\n[params]\nn = 2\n",
            "scenario 'huge' is 1,000,000,000 runs (1 sweep points x 1000000000 repetitions), "
            "over the bound of 10,000; pass --force to run it anyway",
        ),
        (
            "[params]\nn = 2\n[sweep]\n"
            + "\n".join(f'"params.k{i}" = [{", ".join(map(str, range(500)))}]' for i in range(3)),
            "scenario 'huge' is 125,000,000 runs (500 x 500 x 500 sweep points x 1 repetitions)",
        ),
        (
            '[link]\npreset = "serial-9k6"\n[workload]\ncount = 100000000000\n',
            "workload.count = 1e+11 is over its bound of 100000; pass --force to run it anyway",
        ),
    ],
    ids=["repetitions", "sweep", "workload-count"],
)
def test_work_over_the_bound_is_refused_at_once_unless_forced(
    body: str,
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kind = "probe" if "workload" in body else "test-draws"
    path = tmp_path / "s.toml"
    path.write_text(f'name = "huge"\nkind = "{kind}"\n{body}')
    args = ["run", str(path), "--out", str(tmp_path / "out"), "--db", str(tmp_path / "w.db")]
    code, out, err = wwanlab(capsys, monkeypatch, *args)
    assert (code, out) == (2, "")
    assert err.startswith(f"wwanlab: error: {message}") and err.count("\n") == 1
    assert not (tmp_path / "w.db").exists()  # refused before anything was made
    load_scenario(path).check_size(force=True)  # what --force lets through


def test_the_run_count_is_said_before_the_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.toml"
    path.write_text(SCENARIO)
    args = ["run", str(path), "--out", str(tmp_path / "o"), "--db", str(tmp_path / "w.db")]
    code, _, err = wwanlab(capsys, monkeypatch, *args, "--jobs", "1")
    assert code == 0
    assert err.startswith("wwanlab run: cli-draws: 4 runs (2 sweep points x 2 repetitions)\n")
