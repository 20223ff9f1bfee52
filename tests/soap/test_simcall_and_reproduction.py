"""A SOAP call on the simulator, and the wsp-webservices reproduction's pieces."""

import asyncio

import pytest

from wwanlab.reproductions import load
from wwanlab.reproductions.wsp_webservices import (
    PAPER_BABELFISH_XML,
    babelfish,
    babelfish_sizes,
    run_sim,
)
from wwanlab.soap.envelope import Call, call_envelope, response_envelope
from wwanlab.soap.simcall import simulate_call


def test_connectionless_call_is_one_datagram_each_way() -> None:
    call = Call("getString", (("n", 10),))
    result = simulate_call("wsp", call, "gprs-3plus1", seed=1)
    assert result.complete and result.value == "abcdefghij"
    assert (result.packets_up, result.packets_down) == (1, 1)
    assert result.payload_up == len(call_envelope(call))
    assert result.payload_down == len(response_envelope(call, "abcdefghij"))
    # IPv4 20 + UDP 8 + the connectionless WSP Post: TID, type, lengths, URI, headers
    assert 28 < result.octets_up - result.payload_up < 100


def test_http_call_pays_the_handshake_and_both_fins() -> None:
    result = simulate_call("http", Call("nop"), "gprs-3plus1", seed=1)
    assert result.complete and result.value is None
    # up: SYN, the request, the ACK of the reply and FIN; down: SYN-ACK, reply with FIN
    assert result.packets_up >= 4 and result.packets_down >= 2
    wsp = simulate_call("wsp", Call("nop"), "gprs-3plus1", seed=1)
    # one round trip more than connectionless WSP (gprs-3plus1 adds 300 ms each way)
    assert result.t_call - wsp.t_call > 0.6


def test_wbxml_shrinks_the_call_and_gateway_answers_in_wbxml() -> None:
    xml = simulate_call("wsp", Call("getIntArray", (("n", 50),)), "gprs-3plus1", seed=1)
    binary = simulate_call("wsp-wbxml", Call("getIntArray", (("n", 50),)), "gprs-3plus1", seed=1)
    assert binary.value == xml.value == list(range(50))
    assert binary.payload_up < xml.payload_up and binary.payload_down < xml.payload_down


def test_run_sim_rows_are_deterministic() -> None:
    params = {
        "stack.transport": "wsp",
        "workload.method": "nop",
        "workload.size": 0,
        "link.preset": "gprs-3plus1",
    }
    assert run_sim(params, 7) == run_sim(params, 7)


def test_babelfish_envelope_has_the_papers_size_and_the_band_spans_table_designs() -> None:
    assert len(babelfish(PAPER_BABELFISH_XML - len(babelfish(0)))) == PAPER_BABELFISH_XML
    sizes = babelfish_sizes()
    assert all(x == PAPER_BABELFISH_XML for x, _ in sizes.values())
    wbxml = sorted(w for _, w in sizes.values())
    # our full table compresses most; tags only least
    assert wbxml[0] == sizes["tags, attribute names and values (ours), string table"][1]
    assert wbxml[-1] == sizes["tags only, inline strings"][1]


@pytest.mark.parametrize("name", ["wsp-webservices"])
def test_registered(name: str) -> None:
    assert name in load()


def test_calls_from_behind_the_emulator_agree_with_the_simulator(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One nop() by connectionless WSP from inside wwanlab emulate's namespace over
    gprs-3plus1 (300 ms each way): one round trip plus serialization, as simulated."""
    from wwanlab.emu.netns import EmulatorUnavailable, check_can_emulate
    from wwanlab.reproductions import wsp_webservices

    try:
        check_can_emulate()
    except EmulatorUnavailable as exc:
        pytest.skip(str(exc))
    monkeypatch.setattr(wsp_webservices, "EMU_METHODS", [("nop", None)])
    (row,) = asyncio.run(wsp_webservices._emulated("wsp", 1, seed=3))
    simulated = simulate_call("wsp", Call("nop"), "gprs-3plus1", seed=3).t_call
    assert row["workload.method"] == "nop"
    assert abs(row["t_call_ms"] / 1000 - simulated) < 0.1  # s: timer and kernel slack
