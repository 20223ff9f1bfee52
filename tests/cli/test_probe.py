import json
from pathlib import Path

import pytest
from tests.experiments.invoke import wwanlab

from wwanlab.link.presets import PRESETS
from wwanlab.sim.pcap import read_pcap


def test_json_has_the_documented_key_paths(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pcap = tmp_path / "p.pcap"
    # gprs-3plus1 without TBF set-up and outages: a constant 300 ms each way
    link = "gprs-3plus1[access=False,reselection=False,stalls=False,tbf=False]"
    args = ["probe", "--link", link, "--count", "60", "--seed", "5", "--json"]
    code, out, err = wwanlab(capsys, monkeypatch, *args, "--pcap", str(pcap))
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert doc["link"] == link and doc["seed"] == 5 and doc["count"] == 60
    measured = doc["measured"]
    assert measured["rate_bps"] == pytest.approx(39_600, rel=0.01)
    assert measured["loss"] == 0.0
    assert measured["delay_ms"]["p50"] == pytest.approx(300.0, abs=0.01)
    assert measured["delay_ms"]["p95"] == pytest.approx(300.0, abs=0.01)
    assert doc["configured"]["rate_bps"] == 39_600
    assert doc["directions"]["down"]["measured"] == measured
    assert doc["directions"]["up"]["configured"]["rate_bps"] == pytest.approx(13_200)
    first = pcap.read_bytes()
    _, records = read_pcap(first)
    delivered = sum(
        d["measured"]["received"] + d["measured"]["rate_received"]
        for d in doc["directions"].values()
    )
    assert len(records) == delivered
    # the same seed again: the same JSON and the same capture bytes
    code, again, _ = wwanlab(capsys, monkeypatch, *args, "--pcap", str(pcap))
    assert again == out and pcap.read_bytes() == first


def test_json_separates_the_first_packet_after_idle_from_the_steady_round_trip(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["probe", "--link", "gprs-one-user", "--count", "30", "--seed", "2", "--json"]
    code, out, err = wwanlab(capsys, monkeypatch, *args)
    assert (code, err) == (0, "")
    doc = json.loads(out)
    rtt = doc["round_trip"]
    assert rtt["size"] == 64 and rtt["steady_interval_s"] == 0.25
    # Uplink access (up to 0.4 s) each time, and after idle the downlink TBF's set-up
    # (up to 0.471 s, mean 0.235 s): the first packet's round trip is the longer.
    configured = doc["directions"]["down"]["configured"]
    assert configured["setup_ms"]["mean"] == pytest.approx(235.385, abs=0.01)
    assert configured["release_s"] == 0.5
    assert rtt["first_packet_ms"]["p50"] > rtt["steady_ms"]["p50"] + 100
    # Both above two Internet crossings and below every wait at its maximum (Internet
    # N(100, 20) ms each way, at most 2 x 160 ms; access 0.4 s; set-up 0.471 s; radio
    # 2 x 40 ms; frames and core lines 41 ms).
    assert 80 < rtt["steady_ms"]["p50"] < rtt["first_packet_ms"]["p95"] < 1312
    assert rtt["received"] >= rtt["sent"] - 4  # PER 0.5% and Internet 1%, each way


def test_text_output(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, _ = wwanlab(capsys, monkeypatch, "probe", "--link", "serial-9k6", "--count", "9")
    assert code == 0
    assert "serial-9k6" in out and "one-way delay p95 (ms)" in out and "IP rate" in out


def test_all_writes_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out_dir = tmp_path / "report"
    args = ["probe", "--all", "--out", str(out_dir), "--count", "30", "--json"]
    # Writing the report imports the reproductions, one of which registers presets of
    # its own: --all probes those the run started with.
    names = sorted(PRESETS)
    code, out, err = wwanlab(capsys, monkeypatch, *args)
    assert code == 0, err
    doc = json.loads(out)
    assert sorted(doc["presets"]) == names
    assert doc["index"] == str(out_dir / "index.html")
    index = (out_dir / "index.html").read_text()
    assert '<a href="probe.html">' in index
    page = (out_dir / "probe.html").read_text()
    assert "<h2>This run</h2>" in page and "all presets, 30 probes" in page
    assert "5 papers" in index and "reproduced today" in index  # the papers' status
    for name in names:
        assert (out_dir / "figures" / f"probe-{name}.png").exists()
        assert f'src="figures/probe-{name}.png"' in page
    # No rate above the line's: only what the line carried is counted. A line of fixed
    # rate has no standard error and the bound is exact; a radio whose service time
    # varies gives a train a sample of it, bounded by three standard errors.
    for name, result in doc["presets"].items():
        for direction, d in result["directions"].items():
            rate, expected = d["measured"]["rate_bps"], d["expected"]["rate_bps"]
            if expected is None:  # unlimited
                continue
            se = d["measured"]["rate_standard_error_bps"]
            assert rate <= expected * (1 + 1e-12) + 3 * se, (name, direction, rate, se)


def test_all_refuses_a_link(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _, err = wwanlab(capsys, monkeypatch, "probe", "--all", "--link", "serial-9k6")
    assert code == 2 and "--all probes every preset" in err


def test_a_count_over_the_bound_needs_force(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["probe", "--link", "serial-9k6", "--count", str(10**11)]
    code, out, err = wwanlab(capsys, monkeypatch, *args)
    assert (code, out) == (2, "")
    assert err == (
        "wwanlab: error: --count 100,000,000,000 is over 100,000 probes per direction: "
        "pass --force to run it\n"
    )
