import pytest
from distributed import LocalCluster
from tests.experiments import kinds

from wwanlab.core.errors import UsageError
from wwanlab.experiments import runner
from wwanlab.experiments.runner import execute, run_scenario
from wwanlab.experiments.scenario import Scenario

SCENARIO = Scenario(
    "draws",
    "test-draws",
    params={"params.n": 3},
    sweep={"params.scale": [1.0, 10.0], "link.overrides.loss": [0.0, 0.1, 0.2]},
    repetitions=2,
    seed=11,
)


def test_rows_carry_run_labels_and_parameters() -> None:
    rows = run_scenario(SCENARIO, jobs=1)
    assert len(rows) == 6 * 2 * 3
    first = rows[0]
    assert list(first)[:4] == ["scenario", "run", "repetition", "seed"]
    run0 = SCENARIO.runs()[0]
    assert first["seed"] == run0.seed
    assert first["params.scale"] == 1.0
    assert first["link.overrides.loss"] == 0.0
    assert [r["i"] for r in rows[:3]] == [0, 1, 2]
    # the rows are exactly the kind's output for the run's seed
    assert [r["x"] for r in rows[:3]] == [
        r["x"] for r in kinds.draws(dict(run0.params), run0.seed)
    ]


def test_same_rows_in_process_pool_and_dask() -> None:
    in_process = run_scenario(SCENARIO, jobs=1)
    pool = run_scenario(SCENARIO, jobs=2)
    with LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster:
        dask = run_scenario(SCENARIO, scheduler=cluster.scheduler_address)
    assert pool == in_process
    assert dask == in_process


def test_bad_jobs_and_unreachable_scheduler(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "CONNECT_TIMEOUT", "0.5s")
    with pytest.raises(UsageError, match="jobs must be at least 1"):
        execute(SCENARIO.runs(), jobs=0)
    with pytest.raises(UsageError, match="cannot connect to Dask scheduler"):
        execute(SCENARIO.runs()[:1], scheduler="tcp://127.0.0.1:1")


def test_kind_returning_a_label_column_is_an_error() -> None:
    clash = Scenario("clash", "test-clash", seed=1)
    with pytest.raises(ValueError, match="returned column 'seed'"):
        run_scenario(clash, jobs=1)


@pytest.mark.slow
def test_dask_worker_processes_give_the_same_rows() -> None:
    # a kind of the package itself: worker processes import it by name
    scenario = Scenario(
        "probe-busy",
        "probe",
        params={"link.preset": "gprs-busy", "workload.count": 60},
        sweep={"link.overrides.loss": [0.0, 0.1]},
        seed=3,
    )
    in_process = run_scenario(scenario, jobs=1)
    with LocalCluster(n_workers=1, processes=True, dashboard_address=None) as cluster:
        dask = run_scenario(scenario, scheduler=cluster.scheduler_address)
    assert dask == in_process


def test_progress_bar_does_not_change_rows() -> None:
    assert run_scenario(SCENARIO, jobs=1, progress=True) == run_scenario(SCENARIO, jobs=1)
