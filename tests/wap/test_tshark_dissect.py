"""tshark dissects what our WTP and WSP codecs write, field for field, without complaint.

A pcap of IPv4/UDP packets (correct checksums) carries our encodings to UDP 9201 (WTP
with WSP inside) and 9200 (connectionless WSP); tshark's JSON output must show the same
PDU types, TIDs, classes, PSNs, methods, URIs, statuses and header values, and no expert
info or malformed-packet marks.
"""

import json
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from wwanlab.sim.ipv4 import PROTO_UDP, build_ipv4, build_udp
from wwanlab.sim.pcap import PcapWriter
from wwanlab.wap.wsp import pdu as wsp
from wwanlab.wap.wsp.capabilities import ClientSduSize, MethodMor
from wwanlab.wap.wsp.headers import encode_content_type, encode_headers
from wwanlab.wap.wtp import pdu as wtp
from wwanlab.wap.wtp.constants import AbortReason

pytestmark = [
    pytest.mark.peer,
    pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed"),
]

CLIENT, GATEWAY = ("10.0.0.1", 40000), ("10.0.0.2", 9201)
CL_CLIENT, CL_GATEWAY = ("10.0.0.1", 40001), ("10.0.0.2", 9200)
DATE = "Sun, 06 Nov 1994 08:49:37 GMT"
# JSON with repeated fields kept as lists; UDP checksums checked
TSHARK = ["tshark", "-T", "json", "--no-duplicate-keys", "-o", "udp.check_checksum:TRUE", "-r"]


def _tshark_date(http_date: str) -> str:
    when = datetime.strptime(http_date, "%a, %d %b %Y %H:%M:%S GMT").replace(tzinfo=UTC)
    return when.strftime("%b %e, %Y %H:%M:%S UTC")


# (payload, from, to, fields tshark must show in this order)
FRAMES: list[tuple[bytes, tuple[str, int], tuple[str, int], list[tuple[str, str]]]] = [
    (
        wtp.encode(
            wtp.Invoke(
                tid=5,
                tcl=2,
                up_flag=True,
                user_data=wsp.encode(
                    wsp.Connect(
                        capabilities=(ClientSduSize(1400), MethodMor(1)),
                        headers=encode_headers([("User-Agent", "wwanlab")]),
                    )
                ),
            )
        ),
        CLIENT,
        GATEWAY,
        [
            ("wtp.pdu_type", "0x01"),
            ("wtp.TID.response", "0"),
            ("wtp.TID", "0x0005"),
            ("wtp.header.UP", "1"),
            ("wtp.inv.transaction_class", "0x02"),
            ("wsp.pdu_type", "0x01"),
            ("wsp.version.major", "1"),
            ("wsp.capability.client_sdu_size", "1400"),
            ("wsp.capability.method_mor", "1"),
            ("wsp.header.user_agent", "wwanlab"),
        ],
    ),
    (
        wtp.encode(
            wtp.Invoke(
                tid=6,
                tcl=2,
                user_data=wsp.encode(
                    wsp.Get(
                        uri="http://example.org/a.wml",
                        headers=encode_headers(
                            [
                                ("Accept", "text/vnd.wap.wml, */*; q=0.5"),
                                ("Accept-Language", "en"),
                                ("User-Agent", "wwanlab"),
                            ]
                        ),
                    )
                ),
            )
        ),
        CLIENT,
        GATEWAY,
        [
            ("wtp.pdu_type", "0x01"),
            ("wtp.TID", "0x0006"),
            ("wsp.pdu_type", "0x40"),
            ("wsp.uri", "http://example.org/a.wml"),
            ("wsp.header.accept", "text/vnd.wap.wml"),
            ("wsp.header.accept", "*/*"),
            ("wsp.parameter.q", "0.50"),
            ("wsp.header.accept_language", "English (en)"),
            ("wsp.header.user_agent", "wwanlab"),
        ],
    ),
    (
        wtp.encode(
            wtp.Result(
                tid=6,
                tid_response=True,
                user_data=wsp.encode(
                    wsp.Reply(
                        status=0x20,
                        content_type=encode_content_type("text/vnd.wap.wml; charset=utf-8"),
                        headers=encode_headers(
                            [("Content-Length", "3"), ("Date", DATE), ("X-Foo", "bar")]
                        ),
                        data=b"<a/>",
                    )
                ),
            )
        ),
        GATEWAY,
        CLIENT,
        [
            ("wtp.pdu_type", "0x02"),
            ("wtp.TID.response", "1"),
            ("wtp.TID", "0x0006"),
            ("wsp.pdu_type", "0x04"),
            ("wsp.reply.status", "0x20"),
            ("wsp.header.content_type", "text/vnd.wap.wml"),
            ("wsp.parameter.charset", "UTF-8"),
            ("wsp.header.content_length", "3"),
            ("wsp.header.date", _tshark_date(DATE)),
            ("wsp.header_text_value", "bar"),
            ("wsp.header.name_string", "X-Foo"),
        ],
    ),
    (
        wtp.encode(wtp.Ack(tid=6, tpis=(wtp.PsnTpi(3),))),
        CLIENT,
        GATEWAY,
        [("wtp.continue_flag", "1"), ("wtp.pdu_type", "0x03"), ("wtp.tpi.psn", "3")],
    ),
    (
        wtp.encode(wtp.SegmentedResult(tid=7, tid_response=True, psn=2, gtr=True, user_data=b"x")),
        GATEWAY,
        CLIENT,
        [("wtp.pdu_type", "0x06"), ("wtp.TID", "0x0007"), ("wtp.header.sequence", "2")],
    ),
    (
        wtp.encode(wtp.NegativeAck(tid=7, missing=(1, 3))),
        CLIENT,
        GATEWAY,
        [
            ("wtp.pdu_type", "0x07"),
            ("wtp.header.missing_packets", "2"),
            ("wtp.header.sequence", "1"),
            ("wtp.header.sequence", "3"),
        ],
    ),
    (
        wtp.encode(wtp.Abort(tid=8, tid_response=True, reason=AbortReason.PROTOERR)),
        GATEWAY,
        CLIENT,
        [
            ("wtp.pdu_type", "0x04"),
            ("wtp.abort.type", "0x00"),
            ("wtp.abort.reason.provider", "0x01"),
        ],
    ),
    (
        wtp.encode([wtp.Ack(tid=9), wtp.Ack(tid=10)]),
        CLIENT,
        GATEWAY,
        [("wtp.sub_pdu_size", "3"), ("wtp.TID", "0x0009"), ("wtp.TID", "0x000a")],
    ),
    (
        wsp.encode_connectionless(
            0x21, wsp.Get(uri="http://x/", headers=encode_headers([("Accept", "*/*")]))
        ),
        CL_CLIENT,
        CL_GATEWAY,
        [("wsp.TID", "0x21"), ("wsp.pdu_type", "0x40"), ("wsp.uri", "http://x/")],
    ),
    (
        wsp.encode_connectionless(
            0x21,
            wsp.Post(
                uri="http://x/f",
                content_type=encode_content_type("application/x-www-form-urlencoded"),
                data=b"a=1",
            ),
        ),
        CL_CLIENT,
        CL_GATEWAY,
        [("wsp.pdu_type", "0x60"), ("wsp.uri", "http://x/f")],
    ),
    (
        wsp.encode_connectionless(
            0x21, wsp.Reply(status=0x44, content_type=encode_content_type("text/plain"))
        ),
        CL_GATEWAY,
        CL_CLIENT,
        [
            ("wsp.TID", "0x21"),
            ("wsp.reply.status", "0x44"),
            ("wsp.header.content_type", "text/plain"),
        ],
    ),
]


def _pairs(node: Any, out: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Every (field, value) of tshark's JSON tree, depth first, in packet order."""
    if isinstance(node, dict):
        for key, value in node.items():
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, str):
                    out.append((key, item))
                else:
                    _pairs(item, out)
    return out


@pytest.fixture(scope="module")
def dissected(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    path: Path = tmp_path_factory.mktemp("tshark") / "wap.pcap"
    with PcapWriter(path) as pcap:
        for index, (payload, (src, sport), (dst, dport), _) in enumerate(FRAMES):
            segment = build_udp(src, dst, sport, dport, payload)
            pcap.write(index * 0.1, build_ipv4(src, dst, PROTO_UDP, segment))
    done = subprocess.run(
        [*TSHARK, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    packets: list[dict[str, Any]] = json.loads(done.stdout)
    return [p["_source"]["layers"] for p in packets]


def test_every_frame_is_dissected(dissected: list[dict[str, Any]]) -> None:
    assert len(dissected) == len(FRAMES)


@pytest.mark.parametrize("index", range(len(FRAMES)))
def test_tshark_shows_our_fields(dissected: list[dict[str, Any]], index: int) -> None:
    layers = dissected[index]
    seen = _pairs({k: v for k, v in layers.items() if k in ("wtp", "wsp")}, [])
    expected = FRAMES[index][3]
    position = 0
    for field in expected:  # each expected field, in order, somewhere after the last
        assert field in seen[position:], f"{field} missing from {seen}"
        position = seen.index(field, position) + 1


@pytest.mark.parametrize("index", range(len(FRAMES)))
def test_no_expert_info_or_malformed_mark(dissected: list[dict[str, Any]], index: int) -> None:
    text = json.dumps(dissected[index])
    assert "_ws.expert" not in text
    assert "_ws.malformed" not in text
    assert '"udp.checksum.status": "1"' in text  # tshark verified our UDP checksum
