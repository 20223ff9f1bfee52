"""The wsp-webservices claim tests as functions of data: on the paper's numbers, on known
numbers, and the GPRS t_call claim counted as this project's extension; the one-host
t_call miss explained by its ablation, and every miss of a quick run explained."""

from pathlib import Path

import pytest

from wwanlab.emu.netns import EmulatorUnavailable
from wwanlab.experiments.reproduction import Context
from wwanlab.reproductions import load
from wwanlab.reproductions import wsp_webservices as W
from wwanlab.reproductions.wsp_webservices import (
    METHODS,
    PAPER_T_CALL_CUT,
    WHY_T_CALL,
    WHY_T_CALL_GPRS,
    babelfish_claim,
    claims,
    gprs_ablation,
    on_paper,
    t_call_ablation,
    t_call_part,
    wbxml_claim,
)


def test_the_papers_numbers_pass_and_near_misses_fail() -> None:
    assert round(PAPER_T_CALL_CUT, 6) == 36.0  # 250 -> 160 ms
    assert [c.holds for c in on_paper()] == [True] * 4
    assert babelfish_claim({"t": (508, 326)}).holds  # -35.8%
    assert not babelfish_claim({"t": (508, 200)}).holds  # -60.6%, not "about 35%"
    assert not wbxml_claim([50.0, 70.0]).holds  # nowhere near 35% +- 10
    assert t_call_part("x", [30.0, 40.0]).holds
    assert not t_call_part("x", [-9.0, 40.0]).holds


KEYS = [(m, s or 0) for m, s in METHODS]


def _volumes() -> dict[tuple[str, str, int], dict[str, float]]:
    def volume(total: float, payload: float, t_call: float) -> dict[str, float]:
        return {
            "total": total,
            "payload": payload,
            "overhead": total - payload,
            "t_call_s": t_call,
        }

    vol = {}
    for m, s in KEYS:
        vol[("http", m, s)] = volume(1400, 400, 1.8)
        vol[("wsp", m, s)] = volume(600, 400, 1.1)  # overhead 200 against 1000: -80%
        vol[("wsp-wbxml", m, s)] = volume(390, 190, 1.0)  # -35% of WSP's volume
    return vol


def _timings(**median_ms: float) -> W.Timings:
    return {(t, m, s): (ms, 0.1, ms, ms) for t, ms in median_ms.items() for m, s in KEYS}


def test_gprs_t_call_is_an_extension_apart_from_the_papers_claim() -> None:
    loop = _timings(http=2.0, wsp=3.0)  # WSP slower on one host
    found = claims(_volumes(), loop, {"ours": (508, 330)})
    assert [c.extension for c in found] == [False, False, False, False, True, False]
    one_host, gprs = found[3], found[4]
    assert [p.what for p in one_host.parts] == ["one host"] and not one_host.holds
    assert [p.what for p in gprs.parts] == ["simulated GPRS"] and gprs.holds  # -39%
    assert [c.holds for c in found] == [True, True, True, False, True, True]


def test_registered_with_on_paper_and_the_extension_named() -> None:
    reproduction = load()["wsp-webservices"]
    assert reproduction.on_paper is on_paper
    assert reproduction.extensions == ("t_call over GPRS (simulated, and behind the emulator)",)


def test_the_one_host_miss_is_explained_by_the_gateways_hop() -> None:
    loop = _timings(http=2.0, wsp=2.1)
    ablation = _timings(**{"wsp-nohop": 1.28, "http-keepalive": 0.8})  # -36%, -60%
    runs = t_call_ablation(loop, ablation)
    assert [(r.holds, r.ours) for r in runs] == [
        (False, "+5% to +5% against direct HTTP (2.10 ms)"),
        (True, "-36% to -36% against direct HTTP (1.28 ms)"),
        (None, "-60% to -60% against direct HTTP (0.80 ms)"),  # for scale, not tested
    ]
    assert "this run" in runs[0].variant and "no HTTP hop" in runs[1].variant
    one_host = claims(_volumes(), loop, {"ours": (508, 330)}, ablation=ablation)[3]
    assert not one_host.holds and one_host.why is not None
    assert one_host.why.mechanism == WHY_T_CALL and one_host.why.ablation == tuple(runs)
    assert claims(_volumes(), loop, {"ours": (508, 330)})[3].why is None  # nothing run


def test_the_gprs_miss_is_explained_by_the_random_radio_delays() -> None:
    vol = _volumes()  # every call -39%
    vol[("http", "nop", 0)] = {**vol[("http", "nop", 0)], "t_call_s": 6.0}  # an outage: -82%
    calm = {"both off": _volumes()}
    runs = gprs_ablation(vol, calm)
    assert [(r.variant, r.holds) for r in runs] == [
        ("this run's preset (all on)", False),
        ("both off", True),
    ]
    assert runs[0].ours == "WSP -82% to -39% per call"
    gprs = claims(vol, _timings(http=2.0, wsp=1.3), {"ours": (508, 330)}, ablated=calm)[4]
    assert gprs.extension and not gprs.holds
    assert gprs.why is not None and gprs.why.mechanism == WHY_T_CALL_GPRS


@pytest.mark.slow
def test_every_miss_of_a_quick_run_carries_a_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def cannot() -> None:
        raise EmulatorUnavailable("not in this test")  # seconds per call: too slow here

    monkeypatch.setattr(W, "check_can_emulate", cannot)
    reproduction = load()["wsp-webservices"]
    ctx = Context(reproduction, quick=True, out=tmp_path, jobs=1, db=tmp_path / "r.duckdb")
    result = reproduction.body(ctx)
    assert len(result.claims) == 6
    assert {"wsp_webservices_ablation_quick", "wsp_webservices_gprs_ablation_quick"} <= {
        t.split(".")[-1] for t in ctx.tables
    }
    missed = [c.claim for c in result.claims if not c.holds and c.why is None]
    assert missed == []
    one_host = next(c for c in result.claims if c.claim == W.CLAIM_T_CALL)
    assert one_host.why is not None and len(one_host.why.ablation) == 3
    gprs = next(c for c in result.claims if c.claim == W.CLAIM_T_CALL_GPRS)
    assert gprs.why is not None and len(gprs.why.ablation) == 1 + len(W.GPRS_ABLATION)
