#!/usr/bin/env python3
"""Record real WTP/WSP traffic between Kannel's fakewap and bearerbox+wapbox.

Each scenario starts a fresh Kannel 1.4.5 (so session ids and TIDs start over) on its
own loopback address and our in-memory origin, captures loopback with tshark while
fakewap runs, and keeps only that address's WDP datagrams. The capture's 14-octet
Ethernet header (Linux loopback) is cut off with editcap, so each fixture is a
classic pcap of raw IPv4 packets (LINKTYPE_RAW), like the simulator's pcaps.

manifest.json lists, per datagram, what tshark's WTP and WSP dissectors report (the
``show`` values of the PDML fields named below), normalised: integers, booleans, the
trailer flags split into GTR and TTR, WSP headers as (name, value) pairs. For a
segmented message tshark reassembles, the WSP fields sit on the frame that completes
it and ``wsp_reassembled_from`` lists the frames.

Usage (as root, Kannel and tshark installed):
    .venv/bin/python scripts/record_kannel_fixtures.py [--out DIR] [--only NAME ...]
"""

import argparse
import json
import signal
import socket
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wwanlab.peers.kannel import (
    FakewapOptions,
    FakewapResult,
    KannelGateway,
    run_fakewap,
)
from wwanlab.peers.origin import OriginServer, pattern_bytes

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "kannel"
ETHERNET_HEADER = 14  # Linux captures loopback as Ethernet with zero addresses
POST_SIZE = 6000  # 5 packets of fakewap's 1200-octet segments
POST_FILE_NAME = "post.bin"  # stands for the temporary file of pattern_bytes(POST_SIZE)


@dataclass(frozen=True)
class Scenario:
    name: str
    description: str
    path: str
    connectionless: bool = False
    post: bool = False
    loss_percent: int = 0
    runs: int = 1  # fakewap runs in one capture, all from one source port when > 1
    attempts: int = 1
    accept: Callable[[FakewapResult], bool] = lambda r: r.ok


SCENARIOS = (
    Scenario(
        "co_get_deck",
        "fakewap -M 1: Connect, Get of a WML deck (compiled to WBXML), Ack, Disconnect",
        "/deck.wml",
    ),
    Scenario(
        "co_get_40k_sar",
        "fakewap -M 1: Get of a 40 KB body; Kannel segments the Result (groups of 3, "
        "1400-octet packets) and fakewap acks each group with a PSN TPI",
        "/body40k",
    ),
    Scenario(
        "cl_get_deck",
        "fakewap -M 0: connectionless Get of a WML deck on port 9200 and its Reply",
        "/deck.wml",
        connectionless=True,
    ),
    Scenario(
        "co_post_6k_sar",
        "fakewap -M 1 -P: Post of 6000 octets as an Invoke with a max-group option TPI "
        "and four Segmented Invokes; the origin answers with a short text",
        "/echo",
        post=True,
    ),
    Scenario(
        "co_get_missing",
        "fakewap -M 1: Get of a missing resource; the Reply carries status 404",
        "/missing",
        accept=lambda r: r.returncode == 0 and r.bad_statuses == (404,),
    ),
    Scenario(
        "co_tid_verification",
        "two fakewap -M 1 runs from one source port: the second starts its TIDs at 1 "
        "again, so Kannel answers its Connect with an Ack asking for TID verification "
        "(Tve) and goes on after fakewap's Ack with Tok",
        "/deck.wml",
        runs=2,
    ),
    Scenario(
        "co_get_40k_lossy",
        "fakewap -M 1 -l 10: fakewap drops 10% of the datagrams it receives; Kannel "
        "resends the last packet of an unacknowledged group (RID set) when its timer "
        "fires, fakewap asks for missing segments with a Negative Ack",
        "/body40k",
        loss_percent=10,
        attempts=6,
        # A Negative Ack implies a resent segment (RID set): both are what the test reads.
        accept=lambda r: r.ok and r.nacks > 0,
    ),
)


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def capture(host: str, raw: Path) -> subprocess.Popen[bytes]:
    """Start tshark on lo for ``host``'s WDP ports; return once it is capturing."""
    proc = subprocess.Popen(
        [
            "tshark",
            "-i",
            "lo",
            "-f",
            f"udp and host {host} and (port 9200 or port 9201)",
            "-F",
            "pcap",
            "-w",
            str(raw),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    assert proc.stderr is not None
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if b"Capturing on" in line:
            return proc
        if not line and proc.poll() is not None:
            break
    proc.kill()
    raise SystemExit(f"tshark did not start capturing on lo for {host}")


def stop_capture(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def record(scenario: Scenario, out: Path, work: Path) -> dict[str, Any]:
    post_file = work / "post.bin"
    post_file.write_bytes(pattern_bytes(POST_SIZE))
    for attempt in range(1, scenario.attempts + 1):
        raw = work / f"{scenario.name}.raw.pcap"
        with OriginServer().running_in_thread() as origin, KannelGateway() as gateway:
            options = FakewapOptions(
                gateway=gateway.wdp_host,
                connectionless=scenario.connectionless,
                post_file=post_file if scenario.post else None,
                loss_percent=scenario.loss_percent,
                source=f"127.0.0.1:{free_udp_port()}" if scenario.runs > 1 else None,
            )
            url = origin.url(scenario.path)
            tshark = capture(gateway.wdp_host, raw)
            try:
                results = [run_fakewap([url], options, timeout=60) for _ in range(scenario.runs)]
                time.sleep(0.5)  # let trailing datagrams (Disconnect, resends) be captured
            finally:
                stop_capture(tshark)
        if all(scenario.accept(r) for r in results):
            break
        print(f"{scenario.name}: attempt {attempt} not kept ({results})", file=sys.stderr)
    else:
        raise SystemExit(f"{scenario.name}: no acceptable run in {scenario.attempts} attempts")
    pcap = out / f"{scenario.name}.pcap"
    subprocess.run(
        ["editcap", "-C", str(ETHERNET_HEADER), "-T", "rawip", "-F", "pcap", str(raw), str(pcap)],
        check=True,
        capture_output=True,
    )
    argv = [POST_FILE_NAME if a == str(post_file) else a for a in options.command([url])[1:]]
    return {
        "pcap": pcap.name,
        "description": scenario.description,
        "fakewap_args": argv,
        "fakewap": {  # summed over the runs
            "runs": len(results),
            "replies_ok": sum(r.replies_ok for r in results),
            "bad_statuses": [s for r in results for s in r.bad_statuses],
            "dropped": sum(r.dropped for r in results),
            "nacks": sum(r.nacks for r in results),
            "timeouts": sum(r.timeouts for r in results),
        },
        "gateway": gateway.wdp_host,
        "datagrams": dissect(pcap, gateway.wdp_host),
    }


# --- tshark PDML to manifest entries -----------------------------------------------------


def _int(show: str) -> int:
    return int(show, 0)


def _bool(show: str) -> bool:
    return show not in ("0", "False", "false")


def _first(proto: ET.Element, name: str) -> str | None:
    for f in proto.iter("field"):
        if f.get("name") == name:
            return f.get("show")
    return None


WTP_SCALARS: tuple[tuple[str, str, Callable[[str], Any]], ...] = (
    ("con", "wtp.continue_flag", _bool),
    ("pdu_type", "wtp.pdu_type", _int),
    ("rid", "wtp.RID", _bool),
    ("tid_response", "wtp.TID.response", _bool),
    ("tid", "wtp.TID", _int),
    ("version", "wtp.header.version", _int),
    ("tid_new", "wtp.header.TIDNew", _bool),
    ("up_flag", "wtp.header.UP", _bool),
    ("tcl", "wtp.inv.transaction_class", _int),
    ("tve_tok", "wtp.ack.tvetok", _bool),
    ("psn", "wtp.header.sequence", _int),
    ("abort_type", "wtp.abort.type", _int),
    ("abort_reason", "wtp.abort.reason.provider", _int),
    ("user_abort_reason", "wtp.abort.reason.user", _int),
    ("missing_count", "wtp.header.missing_packets", _int),
)

WSP_SCALARS: tuple[tuple[str, str, Callable[[str], Any]], ...] = (
    ("tid", "wsp.TID", _int),
    ("pdu_type", "wsp.pdu_type", _int),
    ("version_major", "wsp.version.major", _int),
    ("version_minor", "wsp.version.minor", _int),
    ("capabilities_length", "wsp.capabilities.length", _int),
    ("headers_length", "wsp.headers_length", _int),
    ("uri", "wsp.uri", str),
    ("status", "wsp.reply.status", _int),
    ("session_id", "wsp.server.session_id", _int),
    ("client_sdu_size", "wsp.capability.client_sdu_size", _int),
    ("server_sdu_size", "wsp.capability.server_sdu_size", _int),
)

_NOT_HEADERS = {"wsp.header.name_value", "wsp.header.name_string"}


def _wtp(proto: ET.Element) -> dict[str, Any]:
    entry: dict[str, Any] = {}
    for key, name, convert in WTP_SCALARS:
        show = _first(proto, name)
        if show is not None:
            entry[key] = convert(show)
    trailer = _first(proto, "wtp.trailer_flags")
    if trailer is not None:
        entry["gtr"] = bool(_int(trailer) & 0x02)
        entry["ttr"] = bool(_int(trailer) & 0x01)
    tpis = []
    for f in proto.iter("field"):
        if f.get("name") != "wtp.tpi":
            continue
        # ``raw`` is the whole TPI (its header octet(s) and data) in hex.
        tpi: dict[str, Any] = {"identity": _int(f.get("show", "0")), "raw": f.get("value")}
        for child in f.iter("field"):
            if child.get("name") == "wtp.tpi.psn":
                tpi["psn"] = _int(child.get("show", "0"))
            elif child.get("name") == "wtp.tpi.opt":
                tpi["option"] = _int(child.get("show", "0"))
        tpis.append(tpi)
    if tpis:
        entry["tpis"] = tpis
    return entry


def _is_header(name: str) -> bool:
    """A whole header's field (not its name octet, not a sub-field of its value)."""
    if name == "wsp.header_text_value":  # a header tshark knows only by its text name
        return True
    rest = name.removeprefix("wsp.header.")
    return rest != name and "." not in rest and name not in _NOT_HEADERS


def _wsp(proto: ET.Element) -> dict[str, Any]:
    entry: dict[str, Any] = {}
    for key, name, convert in WSP_SCALARS:
        show = _first(proto, name)
        if show is not None:
            entry[key] = convert(show)
    headers = []
    for f in proto.iter("field"):
        if _is_header(f.get("name", "")):
            label, _, value = f.get("showname", "").partition(": ")
            headers.append([label, value])
    if headers:
        entry["headers"] = headers
    return entry


def dissect(pcap: Path, gateway: str) -> list[dict[str, Any]]:
    pdml = subprocess.run(
        ["tshark", "-r", str(pcap), "-T", "pdml"],
        check=True,
        capture_output=True,
    ).stdout
    datagrams = []
    for packet in ET.fromstring(pdml).iter("packet"):
        protos = {p.get("name"): p for p in packet.iter("proto")}
        frame, ip, udp = protos["frame"], protos["ip"], protos["udp"]
        src = _first(ip, "ip.src")
        entry: dict[str, Any] = {
            "frame": _int(_first(frame, "frame.number") or "0"),
            "time": round(float(_first(frame, "frame.time_relative") or "0"), 6),
            "src": f"{src}:{_first(udp, 'udp.srcport')}",
            "dst": f"{_first(ip, 'ip.dst')}:{_first(udp, 'udp.dstport')}",
            "from_gateway": src == gateway,
            "length": _int(_first(udp, "udp.length") or "8") - 8,
        }
        if "wtp" in protos:
            entry["wtp"] = _wtp(protos["wtp"])
            frags = [
                _int(f.get("show", "0"))
                for f in protos["wtp"].iter("field")
                if f.get("name") == "wtp.fragment"
            ]
            if frags:
                entry["wsp_reassembled_from"] = frags
        if "wsp" in protos:
            entry["wsp"] = _wsp(protos["wsp"])
        datagrams.append(entry)
    return datagrams


def tshark_version() -> str:
    first = subprocess.run(["tshark", "--version"], capture_output=True, text=True).stdout
    return first.splitlines()[0] if first else "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--only", nargs="*", choices=[s.name for s in SCENARIOS])
    args = parser.parse_args(argv)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    manifest_path = out / "manifest.json"
    manifest: dict[str, Any] = (
        json.loads(manifest_path.read_text()) if manifest_path.exists() else {"fixtures": {}}
    )
    manifest["recorded_with"] = {"kannel": "1.4.5", "tshark": tshark_version()}
    with tempfile.TemporaryDirectory(prefix="kannel-fixtures-") as tmp:
        for scenario in SCENARIOS:
            if args.only and scenario.name not in args.only:
                continue
            entry = record(scenario, out, Path(tmp))
            manifest["fixtures"][scenario.name] = entry
            print(f"{scenario.name}: {len(entry['datagrams'])} datagrams -> {entry['pcap']}")
    manifest["fixtures"] = dict(sorted(manifest["fixtures"].items()))
    manifest_path.write_text(json.dumps(manifest, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
