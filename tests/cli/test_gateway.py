"""``wwanlab gateway``: bad options are one-line errors; SIGTERM/SIGINT stop it cleanly."""

import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

WWANLAB = str(Path(sys.executable).parent / "wwanlab")


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def bound(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--allow-origin", "10.0.0.0/33"], "--allow-origin '10.0.0.0/33' is not an IP network"),
        (["--port-co", "70000"], "--port-co 70000 is not a port number"),
        (["--log-level", "chatty"], "--log-level 'chatty' is not debug, info, warning or error"),
        (["--max-sessions", "0"], "gateway limits must be at least 1"),
    ],
)
def test_bad_options(args, message):
    done = subprocess.run([WWANLAB, "gateway", *args], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert done.stderr.startswith(f"wwanlab: error: {message}")
    assert done.stderr.count("\n") == 1


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_stops_the_gateway_gracefully(sig):
    cl, co = free_udp_port(), free_udp_port()
    proc = subprocess.Popen(
        [WWANLAB, "gateway", "--port-cl", str(cl), "--port-co", str(co)],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 20
        while not (bound(cl) and bound(co)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert bound(cl) and bound(co)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0
    assert (
        f"event=listening connectionless=127.0.0.1:{cl} connection_oriented=127.0.0.1:{co}" in err
    )
    assert "event=stopped" in err
    assert not bound(cl) and not bound(co)
