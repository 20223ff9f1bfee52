"""The bench's WWP request: a REQ datagram, resent until CONN, then WWP back to the
client; in the pair harness with virtual time and loss."""

import pytest

from wwanlab.bench.transports.wwp import (
    REQ,
    FileReceiver,
    FileSender,
    baseline,
    request,
    requested,
)
from wwanlab.core.pair import CLIENT_ADDR, SERVER_ADDR, Pair
from wwanlab.link.presets import get_preset
from wwanlab.transports.wwp import DataReceived, Failed, Kind, StreamEnded, WwpConfig, decode

CONFIG = WwpConfig(baseline_bps=100_000.0)
FILE = bytes(i % 253 for i in range(30_000))


def test_a_req_is_its_type_and_the_path_and_nothing_else_reads_as_one():
    assert request("/f/4000") == bytes([0xC0]) + b"/f/4000" and REQ >> 4 == 12
    assert requested(request("/f/4000")) == "/f/4000"
    assert requested(b"\xc0") is None and requested(bytes([0xC0]) + b"x" * 256) is None
    assert requested(b"\x20" + b"/f/4000") is None  # a CONN's type
    with pytest.raises(ValueError):
        request("x" * 256)


def pair(drop=None) -> tuple[Pair, FileReceiver, FileSender]:
    client = FileReceiver(SERVER_ADDR, "/f", CONFIG)
    server = FileSender({"/f": FILE}, CONFIG)
    harness = Pair(client, server, latency=0.05, drop=drop)
    client.start(0.0)
    return harness, client, server


def body(harness: Pair) -> bytes:
    return b"".join(e.data for e in harness.client_events if isinstance(e, DataReceived))


def test_the_file_comes_back_by_wwp_after_one_req():
    harness, client, server = pair()
    harness.run(until=60.0)
    assert body(harness) == FILE
    assert any(isinstance(e, StreamEnded) for e in harness.client_events)
    assert client.requests == 1 and server.sender is not None
    assert server.sender.peer == CLIENT_ADDR
    kinds = [decode(s.data, len(s.data)).kind for s in harness.sent("server")]
    assert kinds[0] is Kind.CONN and Kind.FIN in kinds


def test_lost_reqs_are_resent_on_probe_t_and_repeats_start_no_second_sender():
    # the first two REQs are lost; the third arrives (PROBE_T 0.25 s, doubling)
    harness, client, server = pair(drop=lambda side, i, d: side == "client" and i < 2)
    harness.run(until=60.0)
    assert [s.sent_at for s in harness.sent("client")][:3] == [0.0, 0.25, 0.75]
    assert client.requests == 3 and body(harness) == FILE
    assert server.ignored == 0  # the CONN stopped the REQs: no repeat reached the server


def test_a_server_that_never_answers_is_given_up_after_the_set_up_retries():
    harness, client, server = pair(drop=lambda side, i, d: side == "client")
    harness.run(until=600.0)
    assert client.requests == 20
    failed = [e for e in harness.client_events if isinstance(e, Failed)]
    assert failed == [Failed("20 REQs unanswered", setup=True)]
    assert harness.now == pytest.approx(127.75) and server.sender is None


def test_unknown_paths_and_strangers_are_ignored():
    unknown = FileSender({"/f": FILE}, CONFIG)
    unknown.receive_datagram(request("/nope"), CLIENT_ADDR, 0.0)
    assert unknown.sender is None and unknown.ignored == 1
    server = FileSender({"/f": FILE}, CONFIG)
    server.receive_datagram(request("/f"), CLIENT_ADDR, 0.0)
    server.receive_datagram(request("/f"), ("10.9.9.9", 1), 0.0)  # busy: one client
    server.receive_datagram(request("/f"), CLIENT_ADDR, 0.0)  # a repeat
    assert server.ignored == 2 and server.sender is not None
    assert server.sender.peer == CLIENT_ADDR


def test_bt_is_the_links_back_to_back_payload_rate():
    # serial-9k6: a 1058-octet DATA packet + 8 PPP octets, 10 bits each, at 9600 bit/s
    assert baseline(get_preset("serial-9k6")) == pytest.approx(1024 / (1066 * 10 / 9600))
    assert baseline(get_preset("internet-gprs-2002")) == 125_000.0  # no line: the default
