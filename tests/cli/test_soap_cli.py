"""``wwanlab soap call``: JSON of a call, a fault, and bad arguments."""

import json
import socket
from collections.abc import Iterator

import pytest
from tests.experiments.invoke import wwanlab
from tests.soap.service_thread import service_in_thread


@pytest.fixture
def service_url() -> Iterator[str]:
    """The benchmark service on loopback, in a thread with its own event loop."""
    with service_in_thread() as url:
        yield url


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
        (["http://127.0.0.1:1/", "nop", "--timeout", "0"], "--timeout 0.0 is not a positive"),
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


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["http://[::1/", "nop"], "URL 'http://[::1/': Invalid IPv6 URL"),
        (["http://x/", "nop", "--timeout", "nan"], "--timeout nan is not a positive number"),
        (["http://x/", "getIntArray", "-5"], "-5 is read as an option, not as a negative number"),
    ],
)
def test_call_input_the_parser_rejects_is_one_line(
    args: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, err = wwanlab(capsys, monkeypatch, "soap", "call", *args)
    assert (code, out) == (2, "")
    assert err.startswith(f"wwanlab: error: {message}") and err.count("\n") == 1


def test_serve_on_a_port_in_use_prints_no_url(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, out, err = wwanlab(capsys, monkeypatch, "soap", "serve", "--port", str(port))
    assert (code, out) == (2, "")
    assert "soap service on" not in err
    assert err.startswith(f"wwanlab: error: cannot listen on 127.0.0.1:{port}: ")
    assert err.count("\n") == 1
