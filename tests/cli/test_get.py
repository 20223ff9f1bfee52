"""``wwanlab get``: one fetch through a gateway, printed or as one JSON object."""

import hashlib
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.cli.test_gateway import bound, free_udp_port

from wwanlab.peers.origin import BODY_40K, OriginServer

WWANLAB = str(Path(sys.executable).parent / "wwanlab")


def get(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([WWANLAB, "get", *args], capture_output=True, text=True, timeout=60)


@pytest.fixture(scope="module")
def setup() -> Iterator[tuple[OriginServer, int, int]]:
    cl, co = free_udp_port(), free_udp_port()
    gateway = subprocess.Popen(
        [WWANLAB, "gateway", "--port-cl", str(cl), "--port-co", str(co),
         "--allow-origin", "127.0.0.0/8", "--log-level", "warning"],
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 20
        while not (bound(cl) and bound(co)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert bound(cl) and bound(co), "the gateway did not bind its ports"
        with OriginServer().running_in_thread() as origin:
            yield origin, cl, co
    finally:
        gateway.terminate()
        gateway.wait(20)


def test_json_connection_oriented_with_output_file(setup, tmp_path):
    origin, _, co = setup
    out = tmp_path / "body"
    done = get(origin.url("/body40k"), "--gateway", f"127.0.0.1:{co}", "-o", str(out), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["ok"], report["status"], report["body_bytes"]) == (True, 200, 40960)
    assert report["mode"] == "connection-oriented"
    assert report["content_type"] == "application/octet-stream"
    assert ["Content-Length", "40960"] in report["headers"]
    assert report["seconds"] > 0
    assert 0 < report["connect_seconds"] < 5
    assert report["sha256"] == hashlib.sha256(BODY_40K).hexdigest()
    assert out.read_bytes() == BODY_40K


def test_connectionless_post_prints_status_headers_size(setup, tmp_path):
    origin, cl, _ = setup
    data = tmp_path / "data"
    data.write_bytes(b"x" * 3000)
    done = get(
        origin.url("/echo"), "-g", f"127.0.0.1:{cl}", "--connectionless", "--data", str(data)
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "status: 200"
    assert lines[1] == "content-type: text/plain; charset=utf-8"
    assert lines[-1].startswith("body: 20 bytes in ")


def test_silent_gateway_is_a_failure_not_a_hang():
    port = free_udp_port()  # nothing listens there
    done = get("http://127.0.0.1/", "-g", f"127.0.0.1:{port}", "--connectionless",
               "--timeout", "1", "--json")  # fmt: skip
    assert done.returncode == 1
    assert json.loads(done.stdout)["ok"] is False


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ftp://x/"], "URL 'ftp://x/' is not an absolute http:// URL"),
        (
            ["http://x/", "-g", "127.0.0.1:99999"],
            "--gateway '127.0.0.1:99999': '99999' is not a port",
        ),
        (["http://x/", "-g", ":9201"], "--gateway ':9201' has no host"),
        (["http://x/", "--data", "/nonexistent/f"], "cannot read /nonexistent/f"),
        (["http://x/", "--retry-interval", "0"], "--retry-interval 0.0 must be positive"),
    ],
)
def test_bad_input(args, message):
    done = get(*args)
    assert done.returncode == 2
    assert done.stderr.startswith(f"wwanlab: error: {message}")
    assert done.stderr.count("\n") == 1
