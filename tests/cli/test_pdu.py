"""``wwanlab pdu decode``: hex and pcap input, text and --json output, exit 2 on bad input."""

import contextlib
import json
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wwanlab.cli import main
from wwanlab.cli.pdu import LINKTYPE_ETHERNET, dissect, udp_datagrams
from wwanlab.sim.ipv4 import PROTO_UDP, build_ipv4, build_udp
from wwanlab.sim.pcap import PcapError, PcapWriter
from wwanlab.sim.pcapng import read_capture
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
        (("zz",), "not hexadecimal: 'z' in 'zz'"),
        (("0a0",), "odd number of hex digits (3): '0a0' is not whole octets"),
        (("0a:0",), "odd number of hex digits (3)"),
        (("--port", "0", "00"), "--port must be a UDP port, 1 to 65535, not 0"),
        (("--port", "70000", "00"), "--port must be a UDP port, 1 to 65535, not 70000"),
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
    found = udp_datagrams(read_capture(path.read_bytes()))
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
    found = udp_datagrams(read_capture(path.read_bytes()))
    assert [d["payload"] for d in found] == [INVOKE, REPLY]


@pytest.mark.parametrize(
    ("hex_", "reason"),
    [("20800008", "NORESPONSE"), ("218000e8", "PEERREQ"), ("218000ff", "0xff")],
)
def test_abort_reasons_are_named_for_either_abort_type(hex_, reason) -> None:
    assert dissect(bytes.fromhex(hex_), 9201)["pdus"][0]["wtp"]["reason"] == reason


def test_any_port_is_dissected_as_wtp_or_as_connectionless(capsys, monkeypatch) -> None:
    code, out, err = run(capsys, monkeypatch, "pdu", "decode", "--port", "19201", INVOKE.hex())
    assert code == 0, err
    assert "WTP Invoke: tid=7" in out
    args = ("pdu", "decode", "--port", "19200", "--connectionless", REPLY.hex(), "--json")
    code, out, err = run(capsys, monkeypatch, *args)
    assert code == 0, err
    assert json.loads(out)["port"] == 19200
    assert json.loads(out)["wsp"]["http_status"] == 404


def _capture(tmp_path: Path) -> Path:
    """A pcap of a WTP Invoke to 19201, a DNS query, and a connectionless reply."""
    path = tmp_path / "gateway.pcap"
    with PcapWriter(path) as pcap:
        pcap.write(0.25, _udp_packet(INVOKE, 40000, 19201))
        pcap.write(0.5, _udp_packet(b"dns?", 40000, 53))
        pcap.write(0.75, _udp_packet(REPLY, 9200, 40001))
    return path


def test_a_capture_without_wap_datagrams_says_so(tmp_path: Path, capsys, monkeypatch) -> None:
    path = tmp_path / "dns.pcap"
    with PcapWriter(path) as pcap:
        pcap.write(0.5, _udp_packet(b"dns?", 40000, 53))
    code, out, err = run(capsys, monkeypatch, "pdu", "decode", "--pcap", str(path))
    assert (code, err) == (0, "")
    assert out == f"{path}: no WAP datagrams (UDP port 9200/9201) among 1 packets\n"


def test_port_selects_the_datagrams_of_a_capture(tmp_path: Path, capsys, monkeypatch) -> None:
    path = _capture(tmp_path)
    args = ("pdu", "decode", "--pcap", str(path), "--port", "19201", "--json")
    code, out, err = run(capsys, monkeypatch, *args)
    assert code == 0, err
    report = json.loads(out)
    assert report["packets"] == 3
    assert [(d["frame"], d["port"]) for d in report["datagrams"]] == [(1, 19201)]
    assert report["datagrams"][0]["pdus"][0]["wsp"]["uri"] == "http://x/"


def test_pcapng_written_by_wiresharks_editcap(tmp_path: Path, capsys, monkeypatch) -> None:
    """pcapng is what tshark and dumpcap write unless told otherwise; editcap converts
    our pcap with Wireshark's own writer."""
    classic = _capture(tmp_path)
    converted = tmp_path / "gateway.pcapng"
    subprocess.run(
        ["editcap", "-F", "pcapng", str(classic), str(converted)], check=True, timeout=60
    )
    assert converted.read_bytes()[:4] == bytes.fromhex("0a0d0d0a")
    packets = read_capture(converted.read_bytes())
    assert packets == read_capture(classic.read_bytes())
    assert [p.time for p in packets] == [0.25, 0.5, 0.75]
    code, out, err = run(capsys, monkeypatch, "pdu", "decode", "--pcap", str(converted))
    assert code == 0, err
    assert out.startswith("frame 3 0.750000 10.0.0.1:9200 -> 10.0.0.2:40001\n")
    assert "WSP Reply: status=68" in out


def _block(order: str, kind: int, body: bytes) -> bytes:
    length = 12 + len(body)
    return struct.pack(order + "II", kind, length) + body + struct.pack(order + "I", length)


def test_big_endian_pcapng_with_nanosecond_stamps_and_cooked_frames() -> None:
    """Built from the pcapng draft by hand: a big-endian section, an interface of Linux
    cooked frames (tshark -i any) with if_tsresol 9, and an Enhanced Packet Block."""
    order = ">"
    shb = _block(order, 0x0A0D0D0A, struct.pack(">IHHq", 0x1A2B3C4D, 1, 0, -1))
    tsresol = struct.pack(">HHB3x", 9, 1, 9) + struct.pack(">HH", 0, 0)
    idb = _block(order, 1, struct.pack(">HHI", 113, 0, 0) + tsresol)
    frame = bytes(14) + struct.pack(">H", 0x0800) + _udp_packet(INVOKE, 40000, 9201)
    stamp = 1_500_000_123  # nanoseconds
    padded = frame + bytes(-len(frame) % 4)
    epb_body = struct.pack(">IIIII", 0, stamp >> 32, stamp & 0xFFFFFFFF, len(frame), len(frame))
    epb = _block(order, 6, epb_body + padded)
    packets = read_capture(shb + idb + epb)
    assert [(p.linktype, p.time, p.data) for p in packets] == [(113, 1.500000123, frame)]
    found = udp_datagrams(packets)
    assert [(d["port"], d["payload"]) for d in found] == [(9201, INVOKE)]


BLOCKS = st.tuples(
    st.sampled_from([1, 2, 3, 6, 0x0A0D0D0A, 0xDEAD]),  # IDB, PB, SPB, EPB, SHB, unknown
    st.integers(0, 2**32 - 1) | st.integers(0, 64),  # the declared total length
    st.binary(max_size=48),  # the body
)


@settings(max_examples=300, deadline=None)
@given(st.lists(BLOCKS, max_size=5), st.booleans())
def test_any_blocks_read_or_fail_cleanly(blocks: list[tuple[int, int, bytes]], fix: bool) -> None:
    """Every length in a pcapng file is bounded: blocks whose lengths, options or
    interface numbers are wrong give a PcapError, never another exception."""
    data = _block("<", 0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    for kind, declared, body in blocks:
        length = 12 + len(body) if fix else declared
        data += struct.pack("<II", kind, length) + body + struct.pack("<I", length)
    with contextlib.suppress(PcapError):
        for packet in read_capture(data):
            assert len(packet.data) <= len(data)


def test_a_truncated_capture_is_one_line(tmp_path: Path, capsys, monkeypatch) -> None:
    path = tmp_path / "cut.pcapng"
    path.write_bytes(bytes.fromhex("0a0d0d0a") + bytes(6))
    code, _, err = run(capsys, monkeypatch, "pdu", "decode", "--pcap", str(path))
    assert code == 2
    assert (
        err
        == f"wwanlab: error: cannot read capture '{path}': truncated block header at offset 0\n"
    )
