"""``wwanlab gateway``: bad options are one-line errors; SIGTERM/SIGINT stop it cleanly."""

import json
import signal
import socket
import subprocess
import sys
import time
import urllib.request
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
        (["--max-sessions", "0"], "--max-sessions (config key max-sessions) must be at least 1"),
        (["--max-message", "-1"], "--max-message (config key max-message) must be at least 1"),
        (["--max-fetches", "0"], "--max-fetches (config key max-fetches) must be at least 1"),
        (
            ["--idle-timeout", "nan"],
            "--idle-timeout (config key idle-timeout) must be a positive number of seconds",
        ),
        (
            ["--retry-interval", "0"],
            "--retry-interval (config key retry-interval) must be a positive number of seconds",
        ),
        (["--status", "[::1:80"], "--status '[::1:80': unbalanced [ ] around the IPv6 address"),
        (["--status", "nowhere"], "--status 'nowhere' is not HOST:PORT"),
        (["--port-cl", "9300", "--port-co", "9300"], "--port-cl and --port-co are both 9300"),
        (["--status", "127.0.0.1:70000"], "--status '127.0.0.1:70000' is not HOST:PORT"),
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


def wait_bound(*ports: int) -> None:
    deadline = time.monotonic() + 20
    while not all(bound(p) for p in ports) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert all(bound(p) for p in ports), "the gateway did not bind its ports"


def test_port_clash_is_one_line_naming_the_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as taken:
        taken.bind(("127.0.0.1", 0))
        port = taken.getsockname()[1]
        done = subprocess.run(
            [WWANLAB, "gateway", "--port-cl", str(free_udp_port()), "--port-co", str(port)],
            capture_output=True,
            text=True,
            timeout=30,
        )
    assert done.returncode == 2
    assert done.stderr == (
        f"wwanlab: error: cannot bind connection-oriented UDP port 127.0.0.1:{port}: "
        "address already in use\n"
    )


def test_config_file_sets_every_option_and_the_command_line_wins(tmp_path):
    cl, co, other = free_udp_port(), free_udp_port(), free_udp_port()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        status_port = s.getsockname()[1]
    config = tmp_path / "gateway.toml"
    config.write_text(
        f'host = "127.0.0.1"\nport-cl = {cl}\nport-co = {other}\n'
        f'status = "127.0.0.1:{status_port}"\nallow-origin = ["127.0.0.0/8"]\n'
        "max-sessions = 100\nmax-message = 65536\nidle-timeout = 30\nmax-fetches = 4\n"
        'retry-interval = 2.5\nfakewap-quirks = true\nlog-level = "warning"\n'
    )
    proc = subprocess.Popen(
        [WWANLAB, "gateway", "--config", str(config), "--port-co", str(co), "--log-level", "info"],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_bound(cl, co)
        assert not bound(other)  # --port-co on the command line won
        url = f"http://127.0.0.1:{status_port}/status"
        direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # no proxy
        with direct.open(url, timeout=10) as response:
            status = json.loads(response.read())
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert status["listening"] == {"cl": f"127.0.0.1:{cl}", "co": f"127.0.0.1:{co}"}
    assert "retargeted_acks" in status["tables"]  # fakewap-quirks = true from the file
    assert "event=listening" in err  # --log-level info on the command line won


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('port-co = "9201"\n', "port-co must be an integer, not '9201'"),
        ("port-co = 9201.0\n", "port-co must be an integer, not 9201.0"),
        ("colour = 1\n", "unknown key 'colour' (known: allow-origin, fakewap-quirks, host, "),
        ("config = 'x.toml'\n", "unknown key 'config'"),
        ("fakewap-quirks = 1\n", "fakewap-quirks must be true or false, not 1"),
        ("idle-timeout = true\n", "idle-timeout must be a number, not True"),
        ('allow-origin = "10.0.0.0/8"\n', "allow-origin must be an array of strings"),
        ("allow-origin = [1]\n", "allow-origin must be an array of strings"),
        ("port-co =\n", "is not TOML: "),
        ("status = '1.2.3'\n", "--status '1.2.3' is not HOST:PORT"),
        ("max-fetches = 0\n", "--max-fetches (config key max-fetches) must be at least 1, got 0"),
    ],
)
def test_bad_config_file_is_one_line(tmp_path, text, message):
    config = tmp_path / "gateway.toml"
    config.write_text(text)
    done = subprocess.run(
        [WWANLAB, "gateway", "--config", str(config)], capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 2
    assert message in done.stderr
    assert done.stderr.startswith("wwanlab: error: ") and done.stderr.count("\n") == 1


def test_missing_config_file_is_one_line(tmp_path):
    done = subprocess.run(
        [WWANLAB, "gateway", "--config", str(tmp_path / "none.toml")],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert (done.returncode, done.stderr.count("\n")) == (2, 1)
    assert f"cannot read {tmp_path / 'none.toml'}: No such file or directory" in done.stderr


def test_the_documented_example_config_starts_a_gateway(tmp_path):
    example = Path(__file__).parents[2] / "docs" / "gateway.toml"
    cl, co = free_udp_port(), free_udp_port()
    proc = subprocess.Popen(
        [WWANLAB, "gateway", "--config", str(example), "--port-cl", str(cl),
         "--port-co", str(co), "--status", "127.0.0.1:0", "--log-level", "warning"],
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        wait_bound(cl, co)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert (proc.returncode, err) == (0, "")
