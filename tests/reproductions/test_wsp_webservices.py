"""The wsp-webservices claim tests as functions of data: on the paper's numbers, on known
numbers, and the GPRS t_call claim counted as this project's extension."""

from wwanlab.reproductions import load
from wwanlab.reproductions.wsp_webservices import (
    METHODS,
    PAPER_T_CALL_CUT,
    babelfish_claim,
    claims,
    on_paper,
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


def test_gprs_t_call_is_an_extension_apart_from_the_papers_claim() -> None:
    keys = [(m, s or 0) for m, s in METHODS]

    def volume(total: float, payload: float, t_call: float) -> dict[str, float]:
        return {
            "total": total,
            "payload": payload,
            "overhead": total - payload,
            "t_call_s": t_call,
        }

    vol = {}
    for m, s in keys:
        vol[("http", m, s)] = volume(1400, 400, 1.8)
        vol[("wsp", m, s)] = volume(600, 400, 1.1)  # overhead 200 against 1000: -80%
        vol[("wsp-wbxml", m, s)] = volume(390, 190, 1.0)  # -35% of WSP's volume
    loop = {}
    for m, s in keys:
        loop[("http", m, s)] = (2.0, 1.0, 1.5, 2.5)
        loop[("wsp", m, s)] = (3.0, 1.0, 2.5, 3.5)  # slower on one host
    found = claims(vol, loop, {"ours": (508, 330)})
    assert [c.extension for c in found] == [False, False, False, False, True, False]
    one_host, gprs = found[3], found[4]
    assert [p.what for p in one_host.parts] == ["one host"] and not one_host.holds
    assert [p.what for p in gprs.parts] == ["simulated GPRS"] and gprs.holds  # -39%
    assert [c.holds for c in found] == [True, True, True, False, True, True]


def test_registered_with_on_paper_and_the_extension_named() -> None:
    reproduction = load()["wsp-webservices"]
    assert reproduction.on_paper is on_paper
    assert reproduction.extensions == ("t_call over GPRS (simulated, and behind the emulator)",)
