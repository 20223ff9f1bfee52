"""``wwanlab soap call``: JSON of a call, a fault, and bad arguments."""

import json
import threading
from collections.abc import Iterator

import pytest
from aiohttp import web
from tests.experiments.invoke import wwanlab

from wwanlab.soap.service import application


@pytest.fixture
def service_url() -> Iterator[str]:
    import asyncio

    loop = asyncio.new_event_loop()
    runner = web.AppRunner(application(), access_log=None)
    loop.run_until_complete(runner.setup())
    loop.run_until_complete(web.TCPSite(runner, "127.0.0.1", 0).start())
    port = runner.addresses[0][1]
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}/soap"
    loop.call_soon_threadsafe(loop.stop)
    thread.join(5)
    loop.run_until_complete(runner.cleanup())
    loop.close()


def test_call_prints_result_times_and_octets_as_json(
    service_url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = wwanlab(
        capsys, monkeypatch, "soap", "call", service_url, "getIntArray", "3", "--json"
    )
    assert code == 0
    answer = json.loads(out)
    assert answer["ok"] is True and answer["result"] == [0, 1, 2]
    assert answer["t_call_ms"] > 0 and answer["t_soap_ms"] > 0
    up = answer["wire"]["up"]
    assert up["octets"] == up["headers"] + up["payload"] and up["packets"] >= 2


def test_fault_exits_1_with_code_and_string(
    service_url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = wwanlab(capsys, monkeypatch, "soap", "call", service_url, "nope", "--json")
    assert code == 1
    assert json.loads(out) == {
        "ok": False,
        "fault": {"code": "SOAP-ENV:Client", "string": "no method 'nope'"},
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["http://127.0.0.1:1/", "nop", "--via", "smoke"], "--via 'smoke' is not one of"),
        (["ftp://host/", "nop"], "is not an absolute http:// URL"),
        (["http://127.0.0.1:1/", "nop", "--timeout", "0"], "--timeout must be positive"),
        (["http://h/", "nop", "--via", "wsp", "-g", "h:99999"], "is not a port number"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(
    args: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, err = wwanlab(capsys, monkeypatch, "soap", "call", *args)
    assert (code, out) == (2, "")
    assert message in err and err.count("\n") == 1
