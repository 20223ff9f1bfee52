"""The wave-and-wait reproduction: its links, the uploads, ratios, claims, the command."""

import dataclasses
import json
import math
import random
from pathlib import Path
from typing import Any

import duckdb
import pytest
from tests.experiments.invoke import wwanlab

from wwanlab.experiments.summary import Summary, t_quantile
from wwanlab.link.base import Drop
from wwanlab.reproductions import load, wave_and_wait
from wwanlab.reproductions.wave_and_wait import (
    PAPER_ERROR_FREE,
    PATHS,
    PROTOCOLS,
    SIZE,
    SPECS,
    TABLE1_DROPS,
    TABLE2_DROPS,
    Observed,
    Ratio,
    link_factory,
    on_paper,
    paper_observed,
    ratio,
    run_one,
    scenarios,
    upload,
)


def test_scenarios_cover_the_paper_setup_at_both_ends_of_the_band() -> None:
    t1, t2, backoff, shared = scenarios(quick=False)
    assert SIZE == 5_242_880
    assert TABLE1_DROPS == [0.0, 0.05, 0.10, 0.20, 0.33, 0.50]
    assert TABLE2_DROPS == [0.0, 0.10, 0.33, 0.50]
    assert (t1.params["link.phase"], t2.params["link.phase"]) == ("10", "4-10")
    assert [p.window for p in PATHS] == [4096, 16384]
    assert len(t1.runs()) == len(PATHS) * len(TABLE1_DROPS) * len(PROTOCOLS) * t1.repetitions
    # the ablation: WWP alone, Table 1's lossy rows, only the back-off changed
    assert backoff.params["stack.probe_backoff"] is True and "stack.probe_backoff" not in t1.params
    assert len(backoff.runs()) == len(PATHS) * 5 * t1.repetitions
    # and one phase process for both directions, Table 2's lossy rows
    assert shared.params["link.shared_phases"] is True and shared.params["link.phase"] == "4-10"
    assert len(shared.runs()) == len(PATHS) * 3 * len(PROTOCOLS) * t1.repetitions


def test_shared_phases_drop_both_directions_in_the_same_phases() -> None:
    for shared, same in ((True, True), (False, False)):
        up, down = link_factory(1.0, "4-10", PATHS[0], shared)()
        rng = random.Random(5)
        trace = [
            (
                isinstance(up.transmit(40, t / 100, rng), Drop),
                isinstance(down.transmit(40, t / 100, rng), Drop),
            )
            for t in range(6000)
        ]
        assert all(a == b for a, b in trace) is same


@pytest.mark.parametrize(("phase", "lo", "hi"), [("10", 10.0, 10.0), ("4-10", 4.0, 10.0)])
def test_vdeldrop_phases(phase: str, lo: float, hi: float) -> None:
    """With every On-phase packet dropped, the drops trace the phases exactly."""
    up, _ = link_factory(1.0, phase, PATHS[0])()
    rng = random.Random(3)
    dropped = [isinstance(up.transmit(40, i * 0.01, rng), Drop) for i in range(20_000)]
    runs, start = [], 0
    for i in range(1, len(dropped)):
        if dropped[i] != dropped[i - 1]:
            runs.append((i - start) * 0.01)
            start = i
    assert dropped[0] and len(runs) >= 15
    assert all(lo - 0.011 <= r <= hi + 0.011 for r in runs), runs
    if lo < hi:
        assert max(runs) - min(runs) > 3  # drawn anew for each phase


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.name)
def test_each_fitted_path_gives_the_error_free_row(path: wave_and_wait.PathFit) -> None:
    """The calibration: error-free WWP takes 40.5 s and TCP Reno 69 s (Table 1 rows
    1.1-1.2) within 0.5%, on every path of the band."""
    for protocol in PROTOCOLS:
        result = upload(protocol, 0.0, "10", 1, path)
        assert result.complete
        assert result.duration == pytest.approx(PAPER_ERROR_FREE[protocol], rel=0.005)
        assert SIZE < result.sender_bytes < result.transport_bytes


def test_run_one_row_has_goodput_bytes_and_energy() -> None:
    params = {
        "stack.protocol": "wwp",
        "link.overrides.loss": 0.0,
        "link.phase": "10",
        "stack.tcp_window": 4096,
    }
    (row,) = run_one(params, 5)
    assert row["complete"] is True
    assert row["goodput_Bps"] == pytest.approx(SIZE / row["duration_s"])
    assert row["j_per_mb_gprs"] > 0 and row["j_per_mb_umts"] > 0
    assert row["joules_gprs"] == pytest.approx(row["j_per_mb_gprs"] * 5)


def summary(mean: float, half: float, n: int = 20) -> Summary:
    return Summary((), n, mean, half * n**0.5 / t_quantile(n - 1))


def test_ratio_and_its_interval() -> None:
    r = ratio(summary(200.0, 2 * t_quantile(19)), summary(100.0, t_quantile(19)))
    assert r.value == pytest.approx(2.0)
    # delta method: standard errors 2 and 1, so 2 * hypot(2/200, 1/100) * t
    assert r.half_width == pytest.approx(2 * math.hypot(2 / 200, 1 / 100) * t_quantile(19))


def test_registered_for_reproduce_all() -> None:
    assert "wave-and-wait" in load()


def test_quick_run_prints_claims_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # the --quick code path on a smaller data set, to keep the test short
    monkeypatch.setattr(wave_and_wait, "SIZE", 120 * 1024)
    monkeypatch.setattr(wave_and_wait, "QUICK_REPETITIONS", 2)
    out, db = tmp_path / "report", tmp_path / "w.duckdb"
    args = ["reproduce", "wave-and-wait", "--quick", "--out", str(out), "--db", str(db)]
    code, stdout, err = wwanlab(capsys, monkeypatch, *args, "--jobs", "1", "--json")
    assert code == 0, err
    (entry,) = json.loads(stdout)["reproductions"]
    assert (len(entry["claims"]), len(entry["extensions"])) == (4, 2)
    for claim in entry["claims"] + entry["extensions"]:
        assert set(claim) == {"claim", "paper", "ours", "holds", "verdict", "parts", "why"}
        assert len(claim["parts"]) == (4 if "overhead" in claim["claim"] else 2)
        variants = [r["variant"] for r in claim["why"]["ablation"]]
        assert {
            "4 KB window, Table 1, probe back-off off",
            "4 KB window, Table 1, probe back-off on",
            "16 KB window, Table 1, probe back-off on",
        } <= set(variants)
        shared = "16 KB window, Table 2, phases shared"
        assert (shared in variants) is ("constant" not in claim["claim"])
        assert claim["why"]["mechanism"]
    page = (out / "wave-and-wait.html").read_text()
    assert "Table 1: goodput, 10 s On/Off phases" in page and "J/MB GPRS" in page
    for name in ("goodput", "byte-overhead", "energy", "time-sequence"):
        assert (out / "figures" / "wave-and-wait" / f"{name}.png").exists()
    con = duckdb.connect(str(db))
    assert con.sql("SELECT count(*) FROM wave_and_wait_table1_quick").fetchall() == [(48,)]
    assert con.sql("SELECT count(*) FROM wave_and_wait_table2_quick").fetchall() == [(32,)]
    assert con.sql("SELECT count(*) FROM wave_and_wait_backoff_quick").fetchall() == [(20,)]
    assert con.sql("SELECT count(*) FROM wave_and_wait_shared_quick").fetchall() == [(24,)]


def test_same_seed_same_run() -> None:
    params = {
        "stack.protocol": "wwp",
        "link.overrides.loss": 0.33,
        "link.phase": "4-10",
        "stack.tcp_window": 16384,
    }
    (row,) = run_one(params, 11)
    assert row["complete"] and row["probe_cycles"] > 0 and row["dropped"] > 0
    assert run_one(params, 11) == [row]
    assert run_one(params, 12) != [row]


def test_the_claim_tests_hold_on_the_papers_tables() -> None:
    claims = on_paper()
    assert [c.holds for c in claims] == [True] * 4
    assert "3.60 ±0.60x (Table 2, 33%)" in claims[0].ours  # printed "3.0-4.2/1"


def _spec(key: str) -> wave_and_wait.Spec:
    return next(s for s in SPECS if s.key == key)


def _with(rows: list[Observed], where: set[tuple[int, float]], **change: Any) -> list[Observed]:
    return [dataclasses.replace(o, **change) if (o.table, o.drop) in where else o for o in rows]


WORST = {(t, d) for t in (1, 2) for d in (0.33, 0.50)}


@pytest.mark.parametrize(
    ("key", "where", "change"),
    [
        ("time", WORST, {"time": Ratio(2.0, 0.1)}),  # the worst rows no longer near 4/1
        ("time", {(2, 0.50)}, {"time": Ratio(5.0, 0.2)}),  # beyond "about 4/1"
        ("time", {(1, 0.05), (1, 0.10)}, {"time": Ratio(3.5, 0.0)}),  # no growth, Table 1
        ("overhead", {(1, 0.20)}, {"overhead": Ratio(1.2, 0.1)}),
        ("goodput", {(1, 0.10)}, {"goodput": Ratio(0.98, 0.05)}),  # TCP not surely below
        ("goodput", WORST, {"goodput": Ratio(0.40, 0.01)}),  # the lowest is not 23-33%
        ("constant", {(1, 0.50)}, {"wwp_goodput": 40_000.0}),
        ("constant", {(1, 0.50)}, {"tcp_goodput": 50_000.0}),  # TCP's does not fall
    ],
)
def test_each_claim_test_can_fail(
    key: str, where: set[tuple[int, float]], change: dict[str, Any]
) -> None:
    holds, _ = _spec(key).test(_with(paper_observed(), where, **change))
    assert not holds


def test_the_error_free_row_is_not_evidence() -> None:
    """The path is fitted there: no claim test changes with the ratios at drop 0."""
    rows = paper_observed()
    moved = _with(rows, {(1, 0.0), (2, 0.0)}, time=Ratio(0.5, 0), goodput=Ratio(3.0, 0))
    for spec in SPECS:
        if not spec.extension:
            assert spec.test(moved) == spec.test(rows)


@pytest.mark.slow
def test_fit_path_finds_the_band_end_again() -> None:
    """The calibration is reproducible: two coarse rounds of the bisection land within
    3% of the stored 4 KB path's line rate and round trip."""
    fit, stored = wave_and_wait.fit_path(4096, rounds=2, steps=12), PATHS[0]
    assert fit.bps == pytest.approx(stored.bps, rel=0.03)
    assert fit.rtt == pytest.approx(stored.rtt, rel=0.03)
