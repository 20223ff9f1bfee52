"""``wwanlab pdu decode``: hex and pcap input, text and --json output, exit 2 on bad input."""

import json
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from wwanlab.cli import main
from wwanlab.cli.pdu import LINKTYPE_ETHERNET, dissect, udp_datagrams
from wwanlab.sim.ipv4 import PROTO_UDP, build_ipv4, build_udp
from wwanlab.sim.pcap import PcapWriter
from wwanlab.wap.wsp import pdu as wsp
from wwanlab.wap.wsp.headers import encode_content_type, encode_headers
from wwanlab.wap.wtp import pdu as wtp

GET = wsp.encode(
    wsp.Get(uri="http://x/", headers=encode_headers([("Accept", "text/vnd.wap.wml")]))
)
INVOKE = wtp.encode(wtp.Invoke(tid=7, tcl=2, up_flag=True, user_data=GET))
REPLY = wsp.encode_connectionless(
    3,
    wsp.Reply(
        status=0x44,
        content_type=encode_content_type("text/plain"),
        headers=encode_headers([("Content-Length", "2")]),
        data=b"no",
    ),
)


def wwanlab(*args: str) -> subprocess.CompletedProcess[str]:
    """The installed command line, so exit codes and stderr are the real ones."""
    code = "from wwanlab.cli import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=60
    )


def run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str
) -> tuple[int, str, str]:
    """``wwanlab ARGS`` in this process (the same ``main``), for speed."""
    monkeypatch.setattr(sys, "argv", ["wwanlab", *args])
    with pytest.raises(SystemExit) as done:
        main()
    out = capsys.readouterr()
    return int(done.value.code or 0), out.out, out.err


def test_hex_over_wtp_prints_wtp_and_wsp(capsys, monkeypatch) -> None:
    code, out, err = run(capsys, monkeypatch, "pdu", "decode", INVOKE.hex())
    assert code == 0, err
    assert "WTP Invoke: tid=7, tcl=CLASS_2" in out
    assert "WSP Get: uri=http://x/, method=GET" in out
    assert "Accept: text/vnd.wap.wml" in out


def test_connectionless_json_is_one_object(capsys, monkeypatch) -> None:
    code, out, err = run(
        capsys, monkeypatch, "pdu", "decode", "--connectionless", REPLY.hex(), "--json"
    )
    assert code == 0, err
    report = json.loads(out)
    assert report["tid"] == 3
    assert report["wsp"]["type"] == "Reply"
    assert report["wsp"]["http_status"] == 404
    assert report["wsp"]["content_type"] == "text/plain"
    assert report["wsp"]["headers"] == [["Content-Length", "2"]]
    assert report["wsp"]["data"] == b"no".hex()


def test_malformed_pdu_from_the_real_command_is_one_line_and_exit_2() -> None:
    done = wwanlab("pdu", "decode", "0a00")
    assert done.returncode == 2
    assert (
        done.stderr
        == "wwanlab: error: malformed PDU: PDU of 2 octets is shorter than its fixed header\n"
    )


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("zz",), "not hexadecimal"),
        (("--port", "9300", "00"), "--port must be 9200 or 9201"),
        (("--pcap", "/nonexistent/missing.pcap"), "cannot read"),
        ((), "give either HEX or --pcap FILE"),
        (("--connectionless", "01"), "malformed PDU: unexpected end of data"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, monkeypatch, args, fragment) -> None:
    code, _, err = run(capsys, monkeypatch, "pdu", "decode", *args)
    assert code == 2
    assert err.count("\n") == 1 and fragment in err, err


def test_dissect_splits_a_concatenation_and_decodes_each_whole_message() -> None:
    ack = wtp.Ack(tid=6)
    out = dissect(wtp.encode([ack, wtp.decode(INVOKE)[0]]), 9201)
    assert [e["wtp"]["type"] for e in out["pdus"]] == ["Ack", "Invoke"]
    assert "wsp" not in out["pdus"][0]
    assert out["pdus"][1]["wsp"]["uri"] == "http://x/"
    segment = wtp.encode(wtp.SegmentedResult(tid=6, psn=1, user_data=b"\x04"))
    assert "wsp" not in dissect(segment, 9201)["pdus"][0]  # a segment is not a message


def _udp_packet(payload: bytes, src_port: int, dst_port: int) -> bytes:
    segment = build_udp("10.0.0.1", "10.0.0.2", src_port, dst_port, payload)
    return build_ipv4("10.0.0.1", "10.0.0.2", PROTO_UDP, segment)


def test_pcap_of_raw_ip_picks_the_wap_ports(tmp_path: Path, capsys, monkeypatch) -> None:
    path = tmp_path / "raw.pcap"
    with PcapWriter(path) as pcap:
        pcap.write(0.5, _udp_packet(INVOKE, 40000, 9201))
        pcap.write(0.6, _udp_packet(b"dns?", 40000, 53))
        pcap.write(0.7, _udp_packet(REPLY, 9200, 40001))
    found = udp_datagrams(path.read_bytes())
    assert [(d["frame"], d["port"], d["payload"]) for d in found] == [
        (1, 9201, INVOKE),
        (3, 9200, REPLY),
    ]
    code, out, err = run(capsys, monkeypatch, "pdu", "decode", "--pcap", str(path), "--json")
    assert code == 0, err
    datagrams = json.loads(out)["datagrams"]
    assert datagrams[0]["pdus"][0]["wsp"]["type"] == "Get"
    assert datagrams[1]["wsp"]["http_status"] == 404


def test_pcap_of_ethernet_frames_with_a_vlan_tag(tmp_path: Path) -> None:
    path = tmp_path / "eth.pcap"
    macs = bytes(12)
    with PcapWriter(path, linktype=LINKTYPE_ETHERNET) as pcap:
        pcap.write(0.0, macs + struct.pack("!H", 0x0800) + _udp_packet(INVOKE, 1, 9201))
        tagged = macs + struct.pack("!HHH", 0x8100, 5, 0x0800) + _udp_packet(REPLY, 9200, 2)
        pcap.write(0.1, tagged)
        pcap.write(0.2, macs + struct.pack("!H", 0x86DD) + bytes(40))  # IPv6: skipped
    found = udp_datagrams(path.read_bytes())
    assert [d["payload"] for d in found] == [INVOKE, REPLY]


@pytest.mark.parametrize(
    ("hex_", "reason"),
    [("20800008", "NORESPONSE"), ("218000e8", "PEERREQ"), ("218000ff", "0xff")],
)
def test_abort_reasons_are_named_for_either_abort_type(hex_, reason) -> None:
    assert dissect(bytes.fromhex(hex_), 9201)["pdus"][0]["wtp"]["reason"] == reason
