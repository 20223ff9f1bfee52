"""--pcap and --log: what entered and left each side of the link, with wall-clock times."""

import asyncio
import csv
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from wwanlab.core.errors import UsageError
from wwanlab.emu.capture import LOG_COLUMNS, pcap_paths, read_log
from wwanlab.emu.plot import plot_log
from wwanlab.link.base import Direction
from wwanlab.link.delay import ConstantDelay
from wwanlab.link.loss import TraceLoss
from wwanlab.sim.ipv4 import PROTO_TCP, PROTO_UDP, build_ipv4, build_udp, pseudo_header_sum
from wwanlab.sim.pcap import LINKTYPE_RAW, read_pcap
from wwanlab.tcp.segment import ACK, SYN, encode_segment
from wwanlab.wap.wsp import pdu as wsp
from wwanlab.wap.wsp.capabilities import ClientSduSize
from wwanlab.wap.wsp.headers import encode_headers
from wwanlab.wap.wtp import pdu as wtp

PHONE, SERVER = "10.0.0.2", "10.0.0.1"
DELAY = 0.030
# checksums checked; each packet's protocol stack and any malformed mark
TSHARK = ["tshark", "-o", "udp.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE", "-T"]
TSHARK += ["fields", "-E", "separator=|", "-e", "frame.protocols", "-e", "_ws.malformed", "-r"]


def _tcp_syn() -> bytes:
    mss = bytes([2, 4, 0x05, 0xB4])  # RFC 9293 3.2: MSS option, 1460
    segment = encode_segment(
        40000, 80, 1000, 0, SYN, 65535, mss, b"", pseudo_header_sum(PHONE, SERVER, PROTO_TCP, 24)
    )
    return build_ipv4(PHONE, SERVER, PROTO_TCP, segment)


def _tcp_syn_ack() -> bytes:
    segment = encode_segment(
        80,
        40000,
        5000,
        1001,
        SYN | ACK,
        65535,
        b"",
        b"",
        pseudo_header_sum(SERVER, PHONE, PROTO_TCP, 20),
    )
    return build_ipv4(SERVER, PHONE, PROTO_TCP, segment)


def _wtp_invoke() -> bytes:
    connect = wsp.Connect(
        capabilities=(ClientSduSize(1400),),
        headers=encode_headers([("User-Agent", "wwanlab")]),
    )
    payload = wtp.encode(wtp.Invoke(tid=7, tcl=2, up_flag=True, user_data=wsp.encode(connect)))
    return build_ipv4(PHONE, SERVER, PROTO_UDP, build_udp(PHONE, SERVER, 40001, 9201, payload))


def _udp_down(n: int) -> bytes:
    return build_ipv4(
        SERVER, PHONE, PROTO_UDP, build_udp(SERVER, PHONE, 40003, 40002, bytes([n]) * 30)
    )


UP = [_tcp_syn(), _wtp_invoke(), _wtp_invoke()]
DOWN = [_tcp_syn_ack(), _udp_down(1), _udp_down(2)]


def _forward(rig, tmp_path: Path):
    prefix, log = tmp_path / "run", tmp_path / "run.csv"
    # Down: the second packet is lost (a per-packet loss trace); up: 30 ms of delay.
    down = Direction([TraceLoss([0, 1, 0], loop=False)])
    up = Direction([ConstantDelay(DELAY)])

    async def main():
        async with rig(down, up, pcap_prefix=prefix, log=log) as r:
            for packet in UP:
                r.phone.send(packet)
            for packet in DOWN:
                r.server.send(packet)
            await r.receive(r.server, len(UP))
            await r.receive(r.phone, 2)
            return r.forwarder

    before = time.time()
    forwarder = asyncio.run(main())
    return prefix, log, before, time.time(), forwarder.summary()


def test_pcaps_hold_each_side_with_real_times(rig, tmp_path):
    prefix, _, before, after, _ = _forward(rig, tmp_path)
    files = pcap_paths(prefix)
    inner_type, inner = read_pcap(files["inner"].read_bytes())
    outer_type, outer = read_pcap(files["outer"].read_bytes())
    assert inner_type == outer_type == LINKTYPE_RAW
    # The phone's side: the uplink as sent, then the two downlink packets that survived.
    assert sorted(p for _, p in inner) == sorted([*UP, DOWN[0], DOWN[2]])
    # The server's side: all three downlink packets offered, the uplink as delivered.
    assert sorted(p for _, p in outer) == sorted([*DOWN, *UP])
    times = [t for t, _ in inner + outer]
    assert all(before - 1e-6 <= t <= after + 1e-6 for t in times)
    # Each side's records are in time order, and an uplink packet leaves the outer side
    # 30 ms (at least) after it entered at the inner side.
    assert [t for t, _ in inner] == sorted(t for t, _ in inner)
    entered = next(t for t, p in inner if p == UP[0])
    left = next(t for t, p in outer if p == UP[0])
    assert left - entered >= DELAY - 1e-6


@pytest.mark.peer
@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed")
def test_tshark_dissects_tcp_udp_and_wtp_in_both_pcaps(rig, tmp_path):
    prefix, *_ = _forward(rig, tmp_path)
    for side, path in pcap_paths(prefix).items():
        fields = subprocess.run(
            [*TSHARK, str(path)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.splitlines()
        rows = [line.split("|") for line in fields]
        assert all(malformed == "" for _, malformed in rows), (side, rows)
        expected = [
            "raw:ip:tcp",
            "raw:ip:tcp",
            "raw:ip:udp:data",
            "raw:ip:udp:wtp:wsp",
            "raw:ip:udp:wtp:wsp",
        ]
        if side == "outer":  # the server's side also saw the downlink packet lost after it
            expected.insert(2, "raw:ip:udp:data")
        assert sorted(protocols for protocols, _ in rows) == expected, side


def test_log_has_a_row_per_packet_with_its_fate(rig, tmp_path):
    _, log, before, after, summary = _forward(rig, tmp_path)
    with open(log, newline="") as file:
        rows = list(csv.reader(file))
    assert tuple(rows[0]) == LOG_COLUMNS
    parsed = read_log(log)
    assert len(parsed) == len(UP) + len(DOWN)
    drops = [r for r in parsed if r.drop]
    assert [(r.direction, r.size, r.drop) for r in drops] == [("down", len(DOWN[1]), "loss:trace")]
    for r in parsed:
        assert before <= r.arrival <= after
        if r.direction == "up":
            assert r.scheduled is not None and r.departure is not None
            assert r.scheduled == pytest.approx(r.arrival + DELAY, abs=2e-6)
            assert r.departure >= r.scheduled
    assert summary["down"]["dropped"] == {"loss:trace": 1}
    assert summary["up"]["delay_ms"]["p50"] >= DELAY * 1000


def test_plot_draws_a_png_from_a_log(rig, tmp_path):
    _, log, *_ = _forward(rig, tmp_path)
    out = plot_log(log, tmp_path / "figs" / "meters.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_refuses_what_is_not_a_log(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n")
    with pytest.raises(UsageError, match="not an emulator log"):
        plot_log(bad, tmp_path / "x.png")
    with pytest.raises(UsageError, match="cannot read log"):
        plot_log(tmp_path / "missing.csv", tmp_path / "x.png")
    bad.write_text(",".join(LOG_COLUMNS) + "\nup,12,notatime,,,\n")
    with pytest.raises(UsageError, match="line 2"):
        plot_log(bad, tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()


def test_an_unwritable_pcap_prefix_is_a_usage_error(rig, tmp_path):
    async def main():
        async with rig(Direction([]), Direction([]), pcap_prefix=tmp_path / "no" / "such" / "dir"):
            pass

    with pytest.raises(UsageError, match="cannot write pcap"):
        asyncio.run(main())


def test_an_unwritable_log_leaves_no_pcap_behind(rig, tmp_path):
    async def main():
        options = {"pcap_prefix": tmp_path / "run", "log": tmp_path / "no" / "log.csv"}
        async with rig(Direction([]), Direction([]), **options):
            pass

    with pytest.raises(UsageError, match="cannot write log"):
        asyncio.run(main())
    assert list(tmp_path.iterdir()) == []
