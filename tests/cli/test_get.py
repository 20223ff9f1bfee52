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

from wwanlab.aio.client import WapResponse
from wwanlab.cli.get import parse_gateway, reason
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


def test_refused_origin_shows_the_reason_from_the_body(tmp_path):
    cl, co = free_udp_port(), free_udp_port()
    gateway = subprocess.Popen(
        [WWANLAB, "gateway", "--port-cl", str(cl), "--port-co", str(co), "--log-level", "warning"]
    )  # the default policy: loopback origins are refused
    try:
        deadline = time.monotonic() + 20
        while not (bound(cl) and bound(co)) and time.monotonic() < deadline:
            time.sleep(0.05)
        done = get("http://127.0.0.1:1/", "-g", f"127.0.0.1:{co}")
        as_json = get("http://127.0.0.1:1/", "-g", f"127.0.0.1:{co}", "--json")
    finally:
        gateway.terminate()
        gateway.wait(20)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "status: 403"
    assert lines[-1] == "reason: origin 127.0.0.1 is not allowed (gateway origin policy)"
    assert json.loads(as_json.stdout)["reason"] == lines[-1].removeprefix("reason: ")


def test_a_good_reply_has_no_reason(setup):
    origin, _, co = setup
    done = get(origin.url("/body40k"), "-g", f"127.0.0.1:{co}", "--json")
    assert json.loads(done.stdout)["reason"] is None


@pytest.mark.parametrize("mode", [[], ["--connectionless"]])
def test_timeout_bounds_the_whole_call_against_a_dead_gateway(mode):
    port = free_udp_port()  # nothing answers there
    started = time.monotonic()
    done = get("http://example.org/", "-g", f"127.0.0.1:{port}", "--timeout", "2", *mode)
    elapsed = time.monotonic() - started
    assert done.returncode == 1
    step = "did not answer the Connect" if not mode else "no reply from gateway"
    assert step in done.stderr and "within 2 s" in done.stderr
    assert done.stderr.count("\n") == 1
    # 2 s plus the interpreter's start; without the bound it was ~65 s (WTP's NORESPONSE),
    # so a generous ceiling still tells the two apart on a loaded machine
    assert 2.0 <= elapsed < 30.0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        # names glibc refuses itself (no query leaves the machine) and one IDNA refuses
        (["-g", "no such gateway"], "cannot resolve gateway 'no such gateway': "),
        (["-g", "a..b"], "cannot resolve gateway 'a..b': not a host name"),
        (["--timeout", "0"], "--timeout 0.0 is not a positive number of seconds"),
        (["--timeout", "-1"], "--timeout -1.0 is not a positive number of seconds"),
        (["--timeout", "nan"], "--timeout nan is not a positive number of seconds"),
        (["--content-type", "text"], "--content-type: 'text' has no '/' after its type"),
        (["-g", "[::1"], "--gateway '[::1' is not HOST[:PORT]"),
        (["-g", "::1]:80"], "--gateway '::1]:80' is not HOST[:PORT] or [IPV6]:PORT"),
        # an output that cannot be written is refused before the gateway is tried
        (["-o", "/tmp"], "--output '/tmp' is a folder, not a file"),
        (["-o", "/nonexistent/d/body"], "cannot write /nonexistent/d/body: no folder"),
        (["-o", "/proc/wwanlab-body"], "--output '/proc/wwanlab-body': cannot write there"),
    ],
)
def test_bad_gateway_timeout_and_content_type(args, message):
    done = get("http://x/", *args)
    assert done.returncode == 2
    assert done.stderr.startswith(f"wwanlab: error: {message}")
    assert done.stderr.count("\n") == 1


@pytest.mark.parametrize("url", ["http:///path", "http://:80/", "http://"])
def test_url_without_a_host_is_refused(url):
    done = get(url)
    assert (done.returncode, done.stderr) == (2, f"wwanlab: error: URL {url!r} has no host\n")


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("gw", ("gw", 9201)),
        ("gw:9300", ("gw", 9300)),
        ("::1", ("::1", 9201)),
        ("[::1]:9300", ("::1", 9300)),
        ("[::1]", ("::1", 9201)),
    ],
)
def test_parse_gateway(text, address):
    assert parse_gateway(text, connectionless=False) == address


@pytest.mark.parametrize(
    ("status", "content_type", "body", "expected"),
    [
        (403, "text/plain", b"origin x is not allowed\nmore\n", "origin x is not allowed"),
        (502, "Text/Plain;charset=utf-8", b"bad \x1b[2Jgateway", "bad ?[2Jgateway"),
        (404, "text/html", b"<p>not found</p>", None),
        (200, "text/plain", b"fine", None),
        (500, "text/plain", b"x" * 2000, None),
        (500, "text/plain", b"  \n", None),
    ],
)
def test_reason_is_the_first_line_of_a_short_text_error(status, content_type, body, expected):
    response = WapResponse(status, content_type, (), body, 0.1)
    assert reason(response) == expected
