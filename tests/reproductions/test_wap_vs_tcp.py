"""The wap-vs-tcp reproduction: statistics, claims on known curves, the command's JSON."""

import json
from pathlib import Path

import duckdb
import pytest
from tests.experiments.invoke import wwanlab

from wwanlab.experiments.summary import Summary, t_quantile
from wwanlab.report.html import verdict
from wwanlab.reproductions import load, wap_vs_tcp
from wwanlab.reproductions.wap_vs_tcp import (
    BAND,
    LOSSES,
    PROTOCOLS,
    SENDERS,
    SIZES,
    WAP_BAND,
    Curves,
    _pct,
    gains,
    group_retry,
    knee,
    knee_claim,
    label,
    on_paper,
    run_one,
    scenario,
    summarize_curves,
    transfer,
)


def point(protocol: str, loss: float, size: int, mean: float, half: float = 0.0) -> Summary:
    """A point of 20 runs whose 95% interval is ``mean`` ± ``half``."""
    return Summary((protocol, loss, size), 20, mean, half * 20**0.5 / t_quantile(19))


def test_knee_is_the_first_size_never_significantly_below_90_percent() -> None:
    means = {1000: 3000.0, 20_000: 5000.0, 35_000: 5250.0, 50_000: 5900.0, 63_500: 6100.0}
    curve = {s: point("wap", 0.1, s, m, 100.0) for s, m in means.items()}
    # plateau 6000: 5250 + 100 < 5400, so the curve is stable from 50 KB
    assert knee(curve) == 50_000
    curve[35_000] = point("wap", 0.1, 35_000, 5250.0, 200.0)  # its CI reaches 5450
    assert knee(curve) == 35_000


def test_gain_and_its_interval() -> None:
    curves: Curves = {
        ("wap", 0.1): {1000: point("wap", 0.1, 1000, 6000.0, 2 * t_quantile(19))},
        ("http-sack", 0.1): {1000: point("http-sack", 0.1, 1000, 3000.0, t_quantile(19))},
    }
    (gain,) = gains(curves, 0.1)
    assert gain.percent == pytest.approx(100.0)
    # ratio 2, relative standard errors 2/6000 and 1/3000: 2 * hypot(...) * t * 100
    assert gain.half_width == pytest.approx(200 * (2**0.5 / 3000) * t_quantile(19))


def test_curves_from_rows_count_failed_runs_and_average_counters() -> None:
    rows = [
        {
            "stack.protocol": "wap",
            "link.overrides.loss": 0.1,
            "workload.size": 1000,
            "complete": ok,
            "goodput_bps": g,
            "timeouts": t,
            "retransmissions": 0,
            "naks": 1,
        }
        for ok, g, t in [(True, 4000.0, 1), (True, 6000.0, 3), (False, 0.0, 8)]
    ]
    point = summarize_curves(rows)[("wap", 0.1)][1000]
    assert (point.n, point.failed, point.mean) == (2, 1, 5000.0)
    assert point.means == {"timeouts": 4.0, "retransmissions": 0.0, "naks": 1.0}
    assert point.half_width == pytest.approx(12.7062 * 2**0.5 * 1000 / 2**0.5, rel=1e-5)


def test_scenario_covers_the_paper_setup() -> None:
    full = scenario(quick=False)
    assert SIZES[0] == 1000 and SIZES[-1] == 63500 and SIZES[1] - SIZES[0] == 1500
    assert full.repetitions >= 20
    assert len(full.runs()) == len(SIZES) * len(LOSSES) * len(PROTOCOLS) * full.repetitions
    assert LOSSES == [0.0, 0.10]


def test_run_one_row() -> None:
    params = {"stack.protocol": "wap", "workload.size": 2500, "link.overrides.loss": 0.0}
    (row,) = run_one(params, 5)
    assert row["complete"] is True and row["goodput_bps"] > 0
    assert {"retransmissions", "timeouts", "naks", "wire_bytes"} <= row.keys()
    assert row["j_per_mb_gprs"] == row["joules_gprs"] / (2500 / (1 << 20)) > 0
    assert run_one(params, 5) == [row]


def test_registered_for_reproduce_all() -> None:
    assert "wap-vs-tcp" in load()


def test_quick_run_prints_claims_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # the --quick code path on fewer points, to keep the test short
    monkeypatch.setattr(wap_vs_tcp, "QUICK_SIZES", [1000, 13000, 52000, 63500])
    monkeypatch.setattr(wap_vs_tcp, "QUICK_REPETITIONS", 3)
    out = tmp_path / "report"
    db = tmp_path / "w.duckdb"
    args = ["reproduce", "wap-vs-tcp", "--quick", "--out", str(out), "--db", str(db)]
    code, stdout, err = wwanlab(capsys, monkeypatch, *args, "--jobs", "1", "--json")
    assert code == 0, err
    (entry,) = json.loads(stdout)["reproductions"]
    assert len(entry["claims"]) == 5
    for claim in entry["claims"]:
        assert set(claim) == {"claim", "paper", "ours", "holds", "verdict", "parts", "why"}
        assert isinstance(claim["holds"], bool)
    # the claims about WAP and HTTP/TCP are judged per pair of WTP group size and TCP
    # sender, the knee per curve
    lossless, gain, stable = entry["claims"][2:]
    senders = [s.label for s in SENDERS.values()]
    pairs = [f"groups of {g} against {t}" for g in (3, 8, 16) for t in senders]
    assert [p["what"] for p in lossless["parts"]] == pairs
    assert [p["what"] for p in gain["parts"]] == pairs
    assert [p["what"] for p in stable["parts"]] == [
        "WTP knee (groups of 3)",
        "WTP knee (groups of 8)",
        "WTP knee (groups of 16)",
        *(f"TCP knee ({t})" for t in senders),
    ]
    for claim in (lossless, gain, stable):
        assert claim["holds"] == all(p["holds"] for p in claim["parts"])
    page = (out / "wap-vs-tcp.html").read_text()
    at = [page.index(f"<h2>{h}</h2>") for h in ("Claims", "This run", "Figure 7: goodput")]
    assert at == sorted(at) and at[-1] < page.index("<h2>Raw tables</h2>")
    assert '<a href="wap_vs_tcp_quick.csv">' in page and "did not survive" in page
    index = (out / "index.html").read_text()
    assert "5 papers" in index and "reproduced today" in index
    assert "<h2>Why it misses</h2>" in page and "Nothing was calibrated." in page
    assert (out / "wap-vs-tcp.html").exists() and (out / "wap_vs_tcp_quick.csv").exists()
    assert (out / "figures" / "wap-vs-tcp" / "goodput.png").exists()
    rows = duckdb.connect(str(db)).sql("SELECT count(*) FROM wap_vs_tcp_quick").fetchall()
    assert rows == [(4 * len(LOSSES) * len(PROTOCOLS) * 3,)]
    # joules per MB beside goodput: in the rows, the JSON and the page
    ((energy,),) = (
        duckdb.connect(str(db))
        .sql(
            "SELECT avg(j_per_mb_gprs) FROM wap_vs_tcp_quick WHERE complete "
            'AND "workload.size" = 63500 AND "stack.protocol" = \'wap\' '
            'AND "link.overrides.loss" = 0'
        )
        .fetchall()
    )
    wap = next(
        n for n in entry["numbers"]["j_per_mb_gprs"] if (n["protocol"], n["drop"]) == ("wap", 0)
    )
    assert wap["mean"] == pytest.approx(energy) and wap["size"] == 63500
    assert len(entry["numbers"]["j_per_mb_gprs"]) == len(LOSSES) * len(PROTOCOLS)
    assert "j_per_mb_gprs" in page and "Radio energy at the client (ours, GPRS/GSM model)" in page


def test_senders_of_the_band() -> None:
    assert BAND == [
        "http-sack",
        "http-sack/2003-rto1",
        "http-sack/2003-rto3",
        "http-sack/win2000",
        "http-sack/win2000-rto0.3",
    ]
    assert [*WAP_BAND, *BAND] == PROTOCOLS
    assert label("http-sack/2003-rto3") == "HTTP/TCP SACK (2003, min RTO 3 s)"
    assert label("http-sack/win2000") == "HTTP/TCP SACK (Windows 2000, min RTO 1 s)"
    assert label("http-newreno") == "HTTP/TCP NewReno" and label("wap") == "WSP/WTP"
    assert SENDERS["2003-rto1"].overrides == {"rto_initial": 3.0, "byte_counting": False}
    # 13000 octets without loss: RFC 6298's 1 s RTO fires 4 times (the 1.57 s packets
    # queue behind each other), RFC 2988's 3 s initial RTO changes nothing once the
    # handshake's sample is taken, an RTO of at least 3 s never fires; Windows 2000's
    # initial RTO of 3 s likewise, and its 0.3 s floor fires twice more
    runs = {p: transfer(p, 13000, 0.0, 5) for p in BAND}
    assert [runs[p].timeouts for p in BAND] == [4, 4, 0, 4, 6]
    assert runs["http-sack/2003-rto3"].retransmissions == 0
    assert runs["http-sack/2003-rto3"].duration < runs["http-sack"].duration
    with pytest.raises(ValueError, match="unknown protocol"):
        transfer("http-sack/1999", 1000, 0.0, 1)
    transfer("http-newreno", 1000, 0.0, 1)  # a reference the kind still runs


def test_group_band_one_ack_per_group_and_r_scaled() -> None:
    assert WAP_BAND == ["wap", "wap/g8", "wap/g16"]
    assert label("wap/g8") == "WSP/WTP (groups of 8)"
    assert [round(group_retry(g), 3) for g in (3, 8, 16)] == [7.0, 18.667, 37.333]
    # 20000 octets are 14 segments (PSN 0-13): one Ack per group of the Result, after
    # the Connect's and the Get's explicit Ack
    acks = {
        p: [x.what for x in transfer(p, 20000, 0.0, 5).trace if "Ack" in x.what] for p in WAP_BAND
    }
    assert acks["wap"][2:] == [f"Ack psn {n}" for n in (2, 5, 8, 11, 13)]
    assert acks["wap/g8"][2:] == ["Ack psn 7", "Ack psn 13"]
    assert acks["wap/g16"][2:] == ["Ack psn 13"]
    # a scaled R never fires without loss, though a group of 16 is 25 s on the line
    assert transfer("wap/g16", 63500, 0.0, 5).timeouts == 0


def test_knee_claim_is_judged_per_curve_and_both_ways() -> None:
    sizes = [1000, 13000, 35000, 50000, 63500]
    flat = {s: point("x", 0.1, s, 6000.0, 50.0) for s in sizes}
    at_12 = {**flat, 1000: point("x", 0.1, 1000, 3000.0, 50.0)}  # stable from 13 KB
    late = {**at_12, 13000: point("x", 0.1, 13000, 3000.0, 50.0)}  # stable from 35 KB
    rising = {**late, 35000: point("x", 0.1, 35000, 3000.0, 50.0)}  # no knee before 50 KB
    curves: Curves = {
        ("wap", 0.1): at_12,
        ("wap/g8", 0.1): flat,
        ("http-sack", 0.1): late,
        ("http-sack/2003-rto3", 0.1): flat,
        ("http-sack/win2000", 0.1): rising,
    }
    claim = knee_claim(
        curves, ["wap", "wap/g8"], ["http-sack", "http-sack/2003-rto3", "http-sack/win2000"]
    )
    assert [(p.what, p.holds, p.ours) for p in claim.parts] == [
        ("WTP knee (groups of 3)", True, "13 KB in 9 KB..15 KB"),
        ("WTP knee (groups of 8)", False, "1 KB outside 9 KB..15 KB"),  # no knee at all
        ("TCP knee (RFC 6298)", True, "35 KB in 33.5 KB..<50 KB"),
        ("TCP knee (2003, min RTO 3 s)", False, "1 KB outside 33.5 KB..<50 KB"),
        ("TCP knee (Windows 2000, min RTO 1 s)", False, "50 KB outside 33.5 KB..<50 KB"),
    ]
    assert claim.holds is False and verdict(claim) == "partly holds"
    assert claim.why is not None and len(claim.why.ablation) == 5


def test_claim_tests_on_the_papers_numbers() -> None:
    found = on_paper()
    assert len(found) == 4 and all(c.holds for c in found)
    knee_parts = [(p.what, p.ours) for p in found[-1].parts]
    assert knee_parts == [
        ("WTP knee (paper)", "12 KB in 9 KB..15 KB"),
        ("TCP knee (paper)", "35 KB in 33.5 KB..<50 KB"),
    ]


def test_percentages_never_read_minus_zero() -> None:
    assert [_pct(x) for x in (-0.3, 0.0, 15.6, -11.5, 107.0)] == [
        "+0%",
        "+0%",
        "+16%",
        "-12%",
        "+107%",
    ]
