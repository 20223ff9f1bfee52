"""Every server command stops cleanly on SIGINT and SIGTERM: its summary, exit code 0
(1 for a receiver whose file had not ended), and no traceback, with a client still
connected. (The gateway's own test is in test_gateway.py.) The tunnel's ends stop
cleanly on a SIGTERM that comes while wwanlab is still starting."""

import select
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from wwanlab.tunnel.seal import new_key_file

WWANLAB = str(Path(sys.executable).parent / "wwanlab")
STARTUP = 60.0  # s: a loaded machine takes several seconds to import and bind


def free_port(kind: int) -> int:
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_line(proc: subprocess.Popen[str], text: str) -> str:
    """Stderr lines until one holds ``text`` (the server says it is ready)."""
    assert proc.stderr is not None
    seen = ""
    deadline = time.monotonic() + STARTUP
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        seen += line
        if text in line or not line:
            break
    assert text in seen, seen
    return seen


def stop(proc: subprocess.Popen[str], sig: int) -> tuple[int, str]:
    proc.send_signal(sig)
    try:
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, err


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_pep_split_with_an_open_connection(sig: int) -> None:
    with socket.socket() as target:
        target.bind(("127.0.0.1", 0))
        target.listen()
        port = free_port(socket.SOCK_STREAM)
        args = ["pep", "split", "--listen", f"127.0.0.1:{port}"]
        args += ["--to", f"127.0.0.1:{target.getsockname()[1]}"]
        proc = subprocess.Popen([WWANLAB, *args], stderr=subprocess.PIPE, text=True)
        wait_for_line(proc, "split relay on")
        with socket.create_connection(("127.0.0.1", port)) as client:
            client.sendall(b"x" * 10_000)
            accepted, _ = target.accept()
            with accepted:
                got = b""
                while len(got) < 10_000:  # all of it crossed before the signal
                    got += accepted.recv(65536)
                code, err = stop(proc, sig)
    assert code == 0, err
    assert "Traceback" not in err and "Exception" not in err
    assert err.startswith("1 connections (0 failed), 10000 octets to the target, 0 back")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_soap_serve(sig: int) -> None:
    port = free_port(socket.SOCK_STREAM)
    proc = subprocess.Popen(
        [WWANLAB, "soap", "serve", "--port", str(port)], stderr=subprocess.PIPE, text=True
    )
    wait_for_line(proc, f"soap service on http://127.0.0.1:{port}/")
    code, err = stop(proc, sig)
    assert (code, err) == (0, "")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_wwp_receive_before_the_file_ends(sig: int, tmp_path: Path) -> None:
    port = free_port(socket.SOCK_DGRAM)
    args = ["wwp", "receive", "--port", str(port), "--bind", "127.0.0.1"]
    args += ["-o", str(tmp_path / "o")]
    proc = subprocess.Popen([WWANLAB, *args], stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + STARTUP
    while not _udp_bound(port) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _udp_bound(port)
    time.sleep(0.5)  # the signal handlers are installed before the bind
    code, err = stop(proc, sig)
    assert (code, err) == (
        1,
        "wwanlab wwp receive: stopped after 0 octets, before the stream ended\n",
    )


def _udp_bound(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def catches_sigterm(pid: int) -> bool:
    """Whether ``pid`` has a handler for SIGTERM (proc(5): SigCgt, a bit per signal)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) >> (signal.SIGTERM - 1) & 1)
    return False


@pytest.mark.parametrize("end", ["server", "client"])
def test_tunnel_stops_cleanly_on_sigterm_while_starting(end: str, tmp_path: Path) -> None:
    key = tmp_path / "k"
    new_key_file(key)
    udp, tcp = free_port(socket.SOCK_DGRAM), free_port(socket.SOCK_STREAM)
    if end == "server":
        args = ["--listen", f"127.0.0.1:{udp}", "--tcp-listen", "none"]
        ready = [f"tunnel server on udp 127.0.0.1:{udp}, 1 keys"]
        stops = ["refused datagrams: {}", "closed tcp connections: {}"]
    else:
        args = ["--server", f"127.0.0.1:{udp}", "--transport", "udp"]
        args += ["--socks", f"127.0.0.1:{tcp}", "--http", "127.0.0.1:0"]
        ready, stops = [f"socks5 proxy on 127.0.0.1:{tcp}"], []
    argv = [WWANLAB, "tunnel", end, "--key", str(key), *args]
    proc = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + STARTUP
        while not catches_sigterm(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.001)
        assert proc.stderr is not None
        # Start-up has not finished: the first handler comes long before the ready line.
        assert select.select([proc.stderr], [], [], 0)[0] == []
        code, err = stop(proc, signal.SIGTERM)
    finally:
        if proc.poll() is None:
            proc.kill()
    lines = err.splitlines()
    assert code == 0, err
    assert lines[: len(ready)] == ready and lines[len(lines) - len(stops) :] == stops
