"""The TCP endpoint on the simulator: IPv4 hosts over a 9.6 kbit/s lossy link (paper
000's setting), several connections on one listening port, and the resulting pcap
dissected by Wireshark with checksum validation on."""

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from wwanlab.core.events import Event
from wwanlab.link.base import Direction
from wwanlab.link.delay import ConstantDelay
from wwanlab.link.loss import BernoulliLoss
from wwanlab.link.rate import Rate
from wwanlab.sim.network import Network
from wwanlab.tcp import DataReceived, PeerClosed, TcpConfig, TcpEndpoint

PROTO_TCP = 6


def serial_line(loss: float) -> Direction:
    return Direction([Rate(9600), BernoulliLoss(loss), ConstantDelay(0.01)])


def run_transfers(
    pcap: Path | None, loss: float, clients: int, size: int = 6000
) -> tuple[list[bytes], bytes]:
    net = Network(seed=3)
    a = net.add_host("mobile", "10.0.0.1")
    b = net.add_host("server", "10.0.0.2")
    net.connect(a, b, serial_line(loss), serial_line(loss))
    if pcap is not None:
        net.capture(a, pcap)
    config = TcpConfig.for_variant("sack", time_wait=1.0)
    reply = random.Random(9).randbytes(size)
    server = TcpEndpoint("10.0.0.2", 80, config, random.Random(1))
    server.listen()

    def on_server_event(event: Event) -> None:
        if isinstance(event, DataReceived):
            server.send(event.conn_id, reply)
            server.close(event.conn_id)

    server_binding = b.bind_transport(PROTO_TCP, 80, server, on_event=on_server_event)
    assert server_binding is not None
    received: list[list[bytes]] = []
    for i in range(clients):
        endpoint = TcpEndpoint("10.0.0.1", 50000 + i, config, random.Random(10 + i))
        chunks: list[bytes] = []
        received.append(chunks)

        def on_event(event: Event, ep: TcpEndpoint = endpoint, out: list[bytes] = chunks) -> None:
            if isinstance(event, DataReceived):
                out.append(event.data)
            elif isinstance(event, PeerClosed):
                ep.close(event.conn_id)

        binding = a.bind_transport(PROTO_TCP, 50000 + i, endpoint, on_event=on_event)
        conn = endpoint.connect(("10.0.0.2", 80), net.now)
        endpoint.send(conn, b"GET /file HTTP/1.0\r\n\r\n")
        binding.flush()
    net.run(until=3600)
    net.close()
    return [b"".join(c) for c in received], reply


def test_three_connections_over_a_lossy_serial_line_deliver_every_byte() -> None:
    bodies, reply = run_transfers(None, loss=0.1, clients=3)
    assert bodies == [reply, reply, reply]


@pytest.mark.peer
@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark not installed")
def test_wireshark_dissects_our_segments_without_complaint(tmp_path: Path) -> None:
    pcap = tmp_path / "tcp.pcap"
    bodies, reply = run_transfers(pcap, loss=0.1, clients=1, size=40_000)
    assert bodies == [reply]
    fields = subprocess.run(
        [
            "tshark",
            "-r",
            str(pcap),
            "-o",
            "tcp.check_checksum:TRUE",
            "-T",
            "fields",
            "-E",
            "separator=|",
            "-e",
            "tcp.flags.str",
            "-e",
            "tcp.checksum.status",
            "-e",
            "tcp.options.sack_perm",
            "-e",
            "tcp.options.mss_val",
            "-e",
            "tcp.options.sack_le",
            "-e",
            "_ws.malformed",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    rows = [line.split("|") for line in fields]
    assert rows, "tshark saw no packets"
    assert all(row[1] == "1" for row in rows)  # PROTO_CHECKSUM_E_GOOD = 1
    assert all(row[5] == "" for row in rows)  # no malformed packets
    syn = rows[0]
    assert "S" in syn[0] and syn[3] == "1460" and syn[2] != ""
    assert any(row[4] for row in rows), "expected SACK blocks at 10% loss"
