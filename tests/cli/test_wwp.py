"""``wwanlab wwp send|receive``: a real transfer between two processes on loopback, and
bad input as one line with exit code 2."""

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.experiments.invoke import wwanlab

CONSOLE_SCRIPT = Path(sys.executable).parent / "wwanlab"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_bound(port: int, timeout: float = 30.0) -> None:
    """Until a receiver holds ``port`` (a sender before it would hear port unreachable)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                return
        time.sleep(0.05)
    raise AssertionError(f"no receiver on port {port}")


def test_send_and_receive_a_file_between_processes(tmp_path: Path) -> None:
    data = bytes(range(256)) * 3000 + b"tail"  # 768004 octets: a short last segment
    source, sink = tmp_path / "in.bin", tmp_path / "out.bin"
    source.write_bytes(data)
    port = free_port()
    listen = ["--port", str(port), "--bind", "127.0.0.1", "-o", str(sink), "--json"]
    receiver = subprocess.Popen(
        [CONSOLE_SCRIPT, "wwp", "receive", *listen],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        wait_bound(port)
        sent = subprocess.run(
            [CONSOLE_SCRIPT, "wwp", "send", str(source), f"127.0.0.1:{port}", "--json"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        out, _ = receiver.communicate(timeout=60)
    finally:
        receiver.kill()
    assert sent.returncode == 0, sent.stderr
    assert json.loads(sent.stdout)["sent"] == len(data)
    assert json.loads(out)["received"] == len(data)
    assert sink.read_bytes() == data


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["send", "/nonexistent/f", "127.0.0.1:9"], "cannot read /nonexistent/f"),
        (["send", "{file}", "nohost"], "address 'nohost' is not HOST:PORT"),
        (["send", "{file}", "127.0.0.1:0"], "'0' is not a port number"),
        (["send", "{file}", "127.0.0.1:x9"], "'x9' is not a port number"),
        (["receive", "--port", "70000", "-o", "{file}"], "--port 70000 is not a port number"),
        (["receive", "--port", "9", "-o", "/nonexistent/d/o"], "cannot write /nonexistent/d/o"),
    ],
)
def test_bad_input(
    args: list[str],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    file = tmp_path / "f"
    file.write_bytes(b"x")
    code, out, err = wwanlab(capsys, monkeypatch, "wwp", *(a.format(file=file) for a in args))
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and "Traceback" not in err and message in err


def test_port_in_use(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as busy:
        busy.bind(("127.0.0.1", 0))
        port = busy.getsockname()[1]
        args = ["receive", "--port", str(port), "--bind", "127.0.0.1", "-o", str(tmp_path / "o")]
        code, out, err = wwanlab(capsys, monkeypatch, "wwp", *args)
    assert (code, out) == (2, "")
    assert err == f"wwanlab: error: cannot listen on 127.0.0.1:{port}: Address already in use\n"


def test_send_to_a_closed_port_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    file = tmp_path / "f"
    file.write_bytes(bytes(3000))
    port = free_port()  # closed again once free_port returns
    code, out, err = wwanlab(capsys, monkeypatch, "wwp", "send", str(file), f"127.0.0.1:{port}")
    assert (code, out) == (2, "")
    assert err == f"wwanlab: error: no WWP receiver at 127.0.0.1:{port}: port unreachable (ICMP)\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["send", "--bt", "0", "{file}", "127.0.0.1:9"], "--bt 0.0 must be a positive finite"),
        (["send", "--probe-t", "-1", "{file}", "127.0.0.1:9"], "--probe-t -1.0 must be a posi"),
        (["send", "--timeout", "0", "{file}", "127.0.0.1:9"], "--timeout 0.0 is not a positive"),
        (["receive", "--bt", "inf", "-p", "9", "-o", "{file}"], "--bt inf must be a positive"),
    ],
)
def test_each_option_is_named_in_its_own_message(
    args: list[str],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    file = tmp_path / "f"
    file.write_bytes(b"x")
    code, out, err = wwanlab(capsys, monkeypatch, "wwp", *(a.format(file=file) for a in args))
    assert (code, out) == (2, "")
    assert err.startswith(f"wwanlab: error: {message}") and err.count("\n") == 1


def test_send_to_a_port_that_never_answers_gives_up_at_the_timeout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    file = tmp_path / "f"
    file.write_bytes(bytes(3000))
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as silent:  # bound, never reads
        silent.bind(("127.0.0.1", 0))
        port = silent.getsockname()[1]
        start = time.monotonic()
        args = ["send", str(file), f"127.0.0.1:{port}", "--timeout", "1.5"]
        code, out, err = wwanlab(capsys, monkeypatch, "wwp", *args)
        took = time.monotonic() - start
    assert (code, out) == (1, "")
    assert err.endswith(
        "wwanlab wwp send: gave up (--timeout): 0 of 3000 octets acknowledged in 1.5 s\n"
    )
    assert 1.5 <= took < 10


def test_a_receiver_that_cannot_bind_leaves_no_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "o"
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as busy:
        busy.bind(("127.0.0.1", 0))
        port = busy.getsockname()[1]
        args = ["receive", "--port", str(port), "--bind", "127.0.0.1", "-o", str(out)]
        code, _, err = wwanlab(capsys, monkeypatch, "wwp", *args)
    assert code == 2 and "cannot listen on" in err
    assert not out.exists()
