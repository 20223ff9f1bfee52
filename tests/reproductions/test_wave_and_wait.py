"""The wave-and-wait reproduction: its links, the uploads, ratios, claims, the command."""

import json
import math
import random
from pathlib import Path

import duckdb
import pytest
from tests.experiments.invoke import wwanlab

from wwanlab.experiments.summary import Summary, t_quantile
from wwanlab.link.base import Drop
from wwanlab.link.presets import ETHERNET_OVERHEAD, VDELDROP_BPS
from wwanlab.reproductions import load, wave_and_wait
from wwanlab.reproductions.wave_and_wait import (
    PROTOCOLS,
    SIZE,
    TABLE1_DROPS,
    TABLE2_DROPS,
    link_factory,
    ratio,
    run_one,
    scenarios,
    upload,
)


def test_scenarios_cover_the_paper_setup() -> None:
    t1, t2 = scenarios(quick=False)
    assert SIZE == 5_242_880
    assert TABLE1_DROPS == [0.0, 0.05, 0.10, 0.20, 0.33, 0.50]
    assert TABLE2_DROPS == [0.0, 0.10, 0.33, 0.50]
    assert (t1.params["link.phase"], t2.params["link.phase"]) == ("10", "4-10")
    assert t1.repetitions >= 20
    assert len(t1.runs()) == len(TABLE1_DROPS) * len(PROTOCOLS) * t1.repetitions


@pytest.mark.parametrize(("phase", "lo", "hi"), [("10", 10.0, 10.0), ("4-10", 4.0, 10.0)])
def test_vdeldrop_phases(phase: str, lo: float, hi: float) -> None:
    """With every On-phase packet dropped, the drops trace the phases exactly."""
    up, _ = link_factory(1.0, phase)()
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


def test_error_free_uploads_keep_the_line_busy() -> None:
    """At drop 0 both finish within 0.5% of the time their own packets need on the line
    (WWP idles only for each wave's N-S_ACK, TCP's window is never the limit)."""
    for protocol in PROTOCOLS:
        result = upload(protocol, 0.0, "10", 1)
        line = sum(
            (s.size + ETHERNET_OVERHEAD) * 8 / VDELDROP_BPS for s in result.radio if s.way == "tx"
        )
        assert result.complete and line <= result.duration <= 1.005 * line
        assert result.transport_bytes > SIZE


def test_run_one_row_has_goodput_bytes_and_energy() -> None:
    params = {"stack.protocol": "wwp", "link.overrides.loss": 0.0, "link.phase": "10"}
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
    assert len(entry["claims"]) == 6
    for claim in entry["claims"]:
        assert set(claim) == {"claim", "paper", "ours", "holds", "verdict", "parts"}
    page = (out / "wave-and-wait.html").read_text()
    assert "Table 1: goodput, 10 s On/Off phases" in page and "J/MB GPRS" in page
    for name in ("goodput", "byte-overhead", "energy", "time-sequence"):
        assert (out / "figures" / "wave-and-wait" / f"{name}.png").exists()
    con = duckdb.connect(str(db))
    assert con.sql("SELECT count(*) FROM wave_and_wait_table1_quick").fetchall() == [(24,)]
    assert con.sql("SELECT count(*) FROM wave_and_wait_table2_quick").fetchall() == [(16,)]


def test_same_seed_same_run() -> None:
    params = {"stack.protocol": "wwp", "link.overrides.loss": 0.33, "link.phase": "4-10"}
    (row,) = run_one(params, 11)
    assert row["complete"] and row["probe_cycles"] > 0 and row["dropped"] > 0
    assert run_one(params, 11) == [row]
    assert run_one(params, 12) != [row]
