"""One WAP and one HTTP/TCP transfer on paper 000's serial testbed, packet by packet.

Times are hand-computed: the serial line carries 960 octets/s (9600 bit/s, 10 bits per
octet) and each packet pays 8 octets of PPP framing, so a packet of ``n`` IP octets
takes ``(n + 8) / 960`` s; nothing else delays a packet.
"""

import math
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from wwanlab.experiments.transfers import (
    WTP_SEGMENT_SIZE,
    Transfer,
    describe,
    http_transfer,
    wap_transfer,
)
from wwanlab.sim.pcap import read_pcap


def line(octets: int) -> float:
    """Seconds a packet of ``octets`` IP octets occupies the serial line."""
    return (octets + 8) / 960


Step = tuple[str, float, int, str, float | None]  # direction, sent, size, what, delivered


def trace(result: Transfer) -> list[Step]:
    return [(p.direction, p.sent, p.size, p.what, p.delivered) for p in result.trace]


def assert_trace(got: list[Step], want: list[Step]) -> None:
    assert [(d, s, w) for d, _, s, w, _ in got] == [(d, s, w) for d, _, s, w, _ in want]
    for (_, sent, _, what, delivered), (_, want_sent, _, _, want_delivered) in zip(
        got, want, strict=True
    ):
        assert sent == pytest.approx(want_sent, abs=1e-9), what
        if want_delivered is None:
            assert delivered is None, what
        else:
            assert delivered == pytest.approx(want_delivered, abs=1e-9), what


def test_wap_small_transfer_exact_datagrams_and_times() -> None:
    result = wap_transfer(1000, 0.0, seed=1)
    # IP sizes: 20 IP + 8 UDP + WTP header (Invoke 4, Result 3, Ack 3) + WSP PDU:
    # Connect 23 and ConnectReply 23 (version or session id, five capabilities: SDU
    # sizes, protocol options, MORs), Get 22 (the 20-octet URL), Reply 1028 (status,
    # header length, 25-octet textual content type, file), Disconnect 2.
    t1 = line(55)  # Connect invoke
    t2 = t1 + line(54)  # ConnectReply, the server answers on arrival
    t3 = t2 + line(31)  # the client's Ack ...
    t4 = t3 + line(54)  # ... and the Get, queued behind it
    t5 = t4 + line(31)  # explicit Ack of the Get invoke (explicit_ack)
    t6 = t5 + line(1059)  # the reply: one Result packet, TTR
    want: list[Step] = [
        ("up", 0.0, 55, "Invoke", t1),
        ("down", t1, 54, "Result ttr", t2),
        ("up", t2, 31, "Ack", t3),
        ("up", t2, 54, "Invoke", t4),
        ("down", t4, 31, "Ack", t5),
        ("down", t4, 1059, "Result ttr", t6),
        ("up", t6, 31, "Ack", t6 + line(31)),
        ("up", t6, 34, "Invoke", t6 + line(31) + line(34)),
    ]
    assert_trace(trace(result), want)
    assert result.complete
    assert result.duration == pytest.approx(t6 + line(31) + line(34), abs=1e-9)
    assert result.goodput_bps == pytest.approx(8000 / result.duration)
    assert (result.packets_up, result.packets_down) == (5, 3)
    assert result.wire_bytes == sum(s + 8 for _, _, s, _, _ in want)
    assert (result.retransmissions, result.timeouts, result.naks) == (0, 0, 0)


def test_wap_one_ack_per_group_and_full_packets() -> None:
    size = 20_000
    result = wap_transfer(size, 0.0, seed=3)
    segments = [p for p in result.trace if "Result" in p.what and p.direction == "down"][1:]
    # the reply (file + 29 octets of WSP) in segments of 1468, groups of 3 (Kannel)
    count = math.ceil((size + 29) / WTP_SEGMENT_SIZE)
    assert len(segments) == count
    # PSN 0 is a Result (3-octet header), the others Segmented Results (4 octets, PSN)
    assert segments[0].size == 1499
    assert all(p.size == 1500 for p in segments[1:-1])
    group_acks = [p.what for p in result.trace if p.direction == "up" and "psn" in p.what]
    want = [f"Ack psn {psn}" for psn in range(2, count - 1, 3)] + [f"Ack psn {count - 1}"]
    assert group_acks == want
    assert [p.what for p in segments if "gtr" in p.what] == [
        f"SegResult {psn} gtr" for psn in range(2, count - 1, 3)
    ]
    assert segments[-1].what == f"SegResult {count - 1} ttr"
    assert result.naks == result.retransmissions == result.timeouts == 0


def test_wap_scripted_loss_gives_one_nak_naming_the_missing_packets() -> None:
    lost = {"SegResult 3", "SegResult 4"}

    def drop(direction: str, index: int, packet: bytes) -> bool:
        # NISTNet drops the first copies of packets 3 and 4 (group 3..5) on their way down
        what = describe(packet)
        if direction == "down" and what in lost:
            lost.remove(what)
            return True
        return False

    result = wap_transfer(10_000, 0.0, seed=1, drop=drop)
    assert result.complete
    naks = [p for p in result.trace if "Nak" in p.what]
    assert [p.what for p in naks] == ["Nak [3, 4]"]
    resent = [p.what for p in result.trace if " rid" in p.what]
    assert resent == ["SegResult 3 rid", "SegResult 4 rid"]
    assert result.naks == 1 and result.retransmissions == 2 and result.timeouts == 0
    # the NAK leaves as soon as the group's last packet (5, GTR) arrives
    gtr = next(p for p in result.trace if p.what == "SegResult 5 gtr")
    assert naks[0].sent == gtr.delivered
    # dropped before the serial line, as NISTNet drops downstream: never on the line
    assert not any(p.what in ("SegResult 3", "SegResult 4") for p in result.trace)
    assert result.dropped_down == 2 and result.dropped_up == 0


def test_http_get_over_serial_matches_hand_computation() -> None:
    result = http_transfer(1000, 0.0, seed=1)
    # SYN and SYN-ACK 48 (MSS, SACK-permitted), request 78 (38 octets of HTTP/1.0 GET),
    # response 1121 (1000 + 81 of head; FIN on it: HTTP/1.0 closes), ACKs 40.
    syn, synack = line(48), line(48)
    t_req = syn + synack
    t_req_in = t_req + line(78)
    t_resp = t_req_in + line(1121)
    # RFC 6298: RTO = max(1 s, SRTT + 4 RTTVAR) after the one sample; both sides' first
    # data segments wait longer than 1 s for an ACK (the response needs 1.18 s of line),
    # so both are sent again 1 s after they left.
    rto_client = t_req + 1.0
    rto_server = t_req_in + 1.0
    t_resp2 = t_resp + line(1121)
    want: list[Step] = [
        ("up", 0.0, 48, "tcp S len 0", syn),
        ("down", syn, 48, "tcp S. len 0", t_req),
        ("up", t_req, 78, "tcp P. len 38", t_req_in),
        ("down", t_req_in, 1121, "tcp FP. len 1081", t_resp),
        ("up", rto_client, 78, "tcp P. len 38", rto_client + line(78)),
        ("down", rto_server, 1121, "tcp FP. len 1081", t_resp2),
        ("down", rto_server, 40, "tcp . len 0", t_resp2 + line(40)),  # dup of the request
        ("up", t_resp, 40, "tcp . len 0", t_resp + line(40)),
        ("up", t_resp, 40, "tcp F. len 0", t_resp + 2 * line(40)),
        ("down", t_resp + 2 * line(40), 40, "tcp . len 0", t_resp2 + 2 * line(40)),
        ("up", t_resp2, 40, "tcp . len 0", t_resp2 + line(40)),
    ]
    assert_trace(trace(result), want)
    assert result.complete
    # the client's FIN is acknowledged by the last ACK down: the end of the teardown
    assert result.duration == pytest.approx(t_resp2 + 2 * line(40), abs=1e-9)
    assert (result.retransmissions, result.timeouts) == (2, 2)


@pytest.mark.parametrize("run", [wap_transfer, http_transfer])
def test_same_seed_same_rows(run: Callable[[int, float, int], Transfer]) -> None:
    first = run(16_000, 0.10, 7)
    again = run(16_000, 0.10, 7)
    other = run(16_000, 0.10, 8)
    assert first.row() == again.row()
    assert trace(first) == trace(again)
    assert trace(first) != trace(other)


def test_pcap_holds_every_packet(tmp_path: Path) -> None:
    pcap = tmp_path / "wap.pcap"
    result = wap_transfer(7000, 0.10, 4, pcap=str(pcap))
    linktype, packets = read_pcap(pcap.read_bytes())
    assert linktype == 101 and len(packets) == result.packets_up + result.packets_down


@pytest.mark.peer
@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed")
def test_tshark_dissects_both_transfers(tmp_path: Path) -> None:
    wap, http = tmp_path / "wap.pcap", tmp_path / "http.pcap"
    wap_transfer(4000, 0.0, 2, pcap=str(wap))
    http_transfer(4000, 0.0, 2, pcap=str(http))
    fields = ["-T", "fields", "-e", "_ws.col.Protocol", "-e", "_ws.col.Info"]
    wap_lines = subprocess.run(
        ["tshark", "-r", str(wap), *fields], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert [line.split("\t")[0] for line in wap_lines] == ["WTP+WSP"] * 10
    infos = [line.split("\t")[1] for line in wap_lines]
    assert infos[0].startswith("WSP Connect") and infos[-1].startswith("WSP Disconnect")
    assert any("Reply" in info and "200 OK" in info for info in infos)
    assert not any("Malformed" in line for line in wap_lines)
    http_lines = subprocess.run(
        ["tshark", "-r", str(http), *fields], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert any(line.startswith("HTTP\t") and "GET /file HTTP/1.0" in line for line in http_lines)
    assert not any("Malformed" in line for line in http_lines)
