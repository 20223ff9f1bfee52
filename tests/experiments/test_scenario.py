from pathlib import Path

import pytest
from tests.experiments import kinds  # noqa: F401  (registers the test kinds)

from wwanlab.core.errors import UsageError
from wwanlab.core.rng import derive_seed
from wwanlab.experiments.scenario import Scenario, load_scenario, scenario_from_dict

TOML = """
name = "draws"
kind = "test-draws"
seed = 42
repetitions = 2

[link]
preset = "gprs"
overrides = { loss = 0.1 }

[params]
n = 3

[sweep]
"params.scale" = [1.0, 10.0, 100.0]
"link.overrides.loss" = [0.0, 0.2]
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "s.toml"
    path.write_text(text)
    return path


def test_toml_expands_sweep_cartesian_times_repetitions(tmp_path: Path) -> None:
    scenario = load_scenario(write(tmp_path, TOML))
    runs = scenario.runs()
    assert len(runs) == 3 * 2 * 2
    assert [r.index for r in runs] == list(range(12))
    first = runs[0]
    assert dict(first.params) == {
        "link.preset": "gprs",
        "link.overrides.loss": 0.0,
        "params.n": 3,
        "params.scale": 1.0,
    }
    # the sweep in file order, the last key varying fastest, repetitions innermost
    points = [
        (r.params["params.scale"], r.params["link.overrides.loss"], r.repetition) for r in runs
    ]
    assert points[:4] == [(1.0, 0.0, 0), (1.0, 0.0, 1), (1.0, 0.2, 0), (1.0, 0.2, 1)]


def test_run_seeds_derive_from_scenario_seed_and_point() -> None:
    scenario = Scenario("s", "test-draws", sweep={"params.scale": [1.0, 2.0]}, seed=5)
    runs = scenario.runs()
    assert runs[0].seed == derive_seed(5, "s", '[["params.scale",1.0]]', "0")
    assert len({r.seed for r in runs}) == len(runs)
    # adding a sweep value leaves the seeds of the existing points unchanged
    wider = Scenario("s", "test-draws", sweep={"params.scale": [1.0, 2.0, 3.0]}, seed=5)
    assert [r.seed for r in wider.runs()[:2]] == [r.seed for r in runs]
    other = Scenario("s", "test-draws", sweep={"params.scale": [1.0, 2.0]}, seed=6)
    assert {r.seed for r in other.runs()}.isdisjoint(r.seed for r in runs)


def test_python_object_equals_toml(tmp_path: Path) -> None:
    from_file = load_scenario(write(tmp_path, TOML))
    in_python = Scenario(
        name="draws",
        kind="test-draws",
        params={"link.preset": "gprs", "link.overrides.loss": 0.1, "params.n": 3},
        sweep={"params.scale": [1.0, 10.0, 100.0], "link.overrides.loss": [0.0, 0.2]},
        repetitions=2,
        seed=42,
    )
    assert in_python.runs() == from_file.runs()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('name = "x"\nkind = "test-draws"\nseed = [', "malformed scenario file"),
        ('name = "x"\nkind = "test-draws"\ncolour = 1', "unknown key 'colour'"),
        ('name = "x"\nkind = "no-such-kind"', "unknown experiment kind 'no-such-kind'"),
        ('kind = "test-draws"', "missing key 'name'"),
        ('name = "x"\nkind = "test-draws"\nrepetitions = 0', "repetitions must be at least 1"),
        ('name = "x"\nkind = "test-draws"\n[sweep]\n"params.n" = []', "has no values"),
        ('name = "x"\nkind = "test-draws"\n[sweep]\n"params.n" = 3', "must be a list"),
        ('name = "x"\nkind = "test-draws"\n[sweep]\nn = [1]', "must start with one of"),
        ('name = "x y"\nkind = "test-draws"', "scenario name 'x y'"),
        ('name = "x"\nkind = "test-draws"\nlink = 3', "'link' must be a table"),
        ('name = "x"\nkind = "test-draws"\n[params]\nn = [1, 2]', "parameter 'params.n'"),
    ],
)
def test_bad_scenarios_are_usage_errors_naming_the_problem(
    tmp_path: Path, text: str, message: str
) -> None:
    with pytest.raises(UsageError, match=message.replace("[", r"\[")):
        load_scenario(write(tmp_path, text))


def test_missing_file_is_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot read scenario file"):
        load_scenario(tmp_path / "absent.toml")


def test_from_dict_rejects_unknown_keys() -> None:
    with pytest.raises(UsageError, match="unknown key 'sweeps'"):
        scenario_from_dict({"name": "x", "kind": "test-draws", "sweeps": {}})


def test_python_names_follow_the_file_tables() -> None:
    with pytest.raises(UsageError, match=r"parameter 'n' must start with one of link\., stack\."):
        Scenario("x", "test-draws", params={"n": 1})
    with pytest.raises(UsageError, match=r"sweep key 'params\.' must start with one of"):
        Scenario("x", "test-draws", sweep={"params.": [1]})


def test_the_documented_example_loads(tmp_path: Path) -> None:
    docs = Path(__file__).resolve().parents[2] / "docs" / "experiments.md"
    text = docs.read_text()
    example = text[text.index("```toml\n") + len("```toml\n") :]
    example = example[: example.index("```")]
    scenario = load_scenario(write(tmp_path, example))
    runs = scenario.runs()
    assert scenario.kind == "probe" and len(runs) == 9
    assert dict(runs[3].params) == {
        "link.preset": "serial-9k6",
        "workload.count": 500,
        "link.overrides.loss": 0.05,
    }
