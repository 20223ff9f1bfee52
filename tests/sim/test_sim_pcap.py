"""Captures: exact file bytes, reading back, and Wireshark's verdict on them."""

import io
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from wwanlab.core.contract import Echoer, Pinger
from wwanlab.sim import Network
from wwanlab.sim.pcap import LINKTYPE_RAW, PcapError, PcapWriter, read_pcap, timestamp_us

PACKET = bytes.fromhex("4500002100014000401126c90a0000010a00000204d20007000da32668656c6c6f")


def test_file_and_record_headers_are_exact():
    out = io.BytesIO()
    with PcapWriter(out) as writer:
        writer.write(1.5, PACKET)
    data = out.getvalue()
    # pcap-savefile(5): magic, v2.4, thiszone 0, sigfigs 0, snaplen, link type 101.
    assert data[:24] == struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 101)
    assert data[24:40] == struct.pack("<IIII", 1, 500_000, 33, 33)
    assert data[40:] == PACKET
    assert read_pcap(data) == (LINKTYPE_RAW, [(1.5, PACKET)])


def test_timestamps_round_to_the_microsecond():
    assert timestamp_us(0.0) == (0, 0)
    assert timestamp_us(2.0000004) == (2, 0)
    assert timestamp_us(2.0000006) == (2, 1)
    assert timestamp_us(0.9999996) == (1, 0)
    with pytest.raises(PcapError):
        timestamp_us(-1.0)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\xd4\xc3\xb2", "shorter than its header"),
        (b"\x00" * 24, "not a microsecond pcap"),
        (struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 101) + b"\x00" * 8, "truncated"),
        (
            struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 101)
            + struct.pack("<IIII", 0, 0, 40, 40)
            + b"\x00" * 39,
            "overruns",
        ),
    ],
)
def test_malformed_files_raise_pcap_error(data, message):
    with pytest.raises(PcapError, match=message):
        read_pcap(data)


def ping_scenario(direction, tmp_path: Path) -> tuple[Network, Path]:
    net = Network(seed=5)
    client = net.add_host("client", "10.0.0.1")
    server = net.add_host("server", "10.0.1.2")
    router = net.add_router("r")
    net.connect(client, router, direction(0.125), direction(0.125))
    net.connect(router, server, direction(0.25), direction(0.25))
    path = tmp_path / "ping.pcap"
    net.capture(net.links[1], path)
    pinger = Pinger(("10.0.1.2", 7), count=4)
    binding = client.bind_udp(40000, pinger)
    server.bind_udp(7, Echoer())
    pinger.start(0.0)
    binding.flush()
    net.run()
    net.close()
    return net, path


def test_link_capture_holds_both_directions_in_time_order(direction, tmp_path):
    _, path = ping_scenario(direction, tmp_path)
    _, records = read_pcap(path.read_bytes())
    # Offered to the router-server link: ping k at 0.125 + 0.75 k, its pong 0.25 later.
    assert [t for t, _ in records] == [0.125, 0.375, 0.875, 1.125, 1.625, 1.875, 2.375, 2.625]
    assert [p[16:20].hex() for _, p in records[:2]] == ["0a000102", "0a000001"]


@pytest.mark.peer
@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed")
def test_tshark_reads_the_capture_with_good_checksums_and_no_expert_warnings(direction, tmp_path):
    _, path = ping_scenario(direction, tmp_path)
    checks = ["-o", "ip.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE"]
    wanted = ["frame.time_relative", "ip.ttl", "ip.checksum.status", "udp.checksum.status"]
    wanted.append("udp.length")
    fields = subprocess.run(
        ["tshark", "-r", str(path), *checks, "-T", "fields"]
        + [arg for field in wanted for arg in ("-e", field)],
        capture_output=True,
        text=True,
        check=True,
    )
    rows = [line.split("\t") for line in fields.stdout.splitlines()]
    assert len(rows) == 8
    # Wireshark's checksum status: 1 is "Good" (0 bad, 2 unverified).
    assert {(r[2], r[3], r[4]) for r in rows} == {("1", "1", "12")}
    assert [r[1] for r in rows] == ["63", "64"] * 4  # pings forwarded once, pongs fresh
    expert = subprocess.run(
        ["tshark", "-r", str(path), *checks, "-q", "-z", "expert,note"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "Errors" not in expert.stdout and "Warnings" not in expert.stdout
    assert "Notes" not in expert.stdout
    # tshark's only complaint may be about running as root, not about the file.
    complaints = [line for line in fields.stderr.splitlines() if "Running as user" not in line]
    assert complaints == []
