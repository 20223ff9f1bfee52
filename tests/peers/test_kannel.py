"""Kannel 1.4.5 (bearerbox + wapbox) against fakewap and our in-memory origin."""

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from wwanlab.peers.kannel import (
    LOG_WARNING,
    WSP_CONNECTION_ORIENTED_PORT,
    FakewapOptions,
    KannelError,
    KannelGateway,
    run_fakewap,
    run_fakewap_processes,
    udp_port_in_use,
)
from wwanlab.peers.origin import BODY_40K, OriginServer

pytestmark = pytest.mark.peer

WBXML_1_1_WML_1_1 = bytes([0x01, 0x04])  # WBXML version 1.1, public id 4 = WML 1.1 (WBXML 5.5)


@pytest.fixture(scope="module")
def origin() -> Iterator[OriginServer]:
    with OriginServer().running_in_thread() as server:
        yield server


@pytest.fixture(scope="module")
def gateway() -> Iterator[KannelGateway]:
    with KannelGateway() as gw:
        yield gw


def _counters_after(gw: KannelGateway, before: tuple[int, int], rx: int) -> tuple[int, int]:
    """WDP counter deltas, once bearerbox has counted the ``rx`` datagrams fakewap sent.

    fakewap exits right after sending its last datagram (the Disconnect), which bearerbox
    may count a moment later.
    """
    deadline = time.monotonic() + 2
    while True:
        now = gw.wdp_counters()
        delta = (now[0] - before[0], now[1] - before[1])
        if delta[0] >= rx or time.monotonic() > deadline:
            return delta
        time.sleep(0.02)


def test_connection_oriented_get_of_a_deck(gateway: KannelGateway, origin: OriginServer, tmp_path):
    before = gateway.wdp_counters()
    out = tmp_path / "deck.wmlc"
    result = run_fakewap(
        [origin.url("/deck.wml")], FakewapOptions(gateway=gateway.wdp_host, out_file=out)
    )
    assert result.ok, result.log
    assert (result.transactions, result.replies_ok) == (1, 1)
    # Connect, Ack, Get, Ack, Disconnect in; ConnectReply and Reply out.
    assert _counters_after(gateway, before, rx=5) == (5, 2)
    assert out.read_bytes()[:2] == WBXML_1_1_WML_1_1  # wapbox compiled the WML
    request = origin.requests[-1]
    assert (request.method, request.path, request.header("User-Agent")) == (
        "GET",
        "/deck.wml",
        "fakewap",
    )
    assert "Kannel/1.4.5" in (request.header("Via") or "")


def test_connectionless_get_of_a_deck(gateway: KannelGateway, origin: OriginServer, tmp_path):
    before = gateway.wdp_counters()
    out = tmp_path / "deck.wmlc"
    opts = FakewapOptions(gateway=gateway.wdp_host, connectionless=True, out_file=out)
    result = run_fakewap([origin.url("/deck.wml")], opts)
    assert result.ok, result.log
    assert _counters_after(gateway, before, rx=1) == (1, 1)  # one Get, one Reply
    assert out.read_bytes()[:2] == WBXML_1_1_WML_1_1


def test_segmented_40k_result_is_whole(gateway: KannelGateway, origin: OriginServer, tmp_path):
    out = tmp_path / "body"
    opts = FakewapOptions(gateway=gateway.wdp_host, out_file=out)
    result = run_fakewap([origin.url("/body40k")], opts)
    assert result.ok, result.log
    assert out.read_bytes() == BODY_40K


def test_segmented_post_reaches_the_origin(gateway: KannelGateway, origin: OriginServer, tmp_path):
    body = tmp_path / "post.bin"
    body.write_bytes(bytes(6000))  # 5 WTP segments of at most 1200 bytes
    out = tmp_path / "reply"
    opts = FakewapOptions(gateway=gateway.wdp_host, post_file=body, out_file=out)
    result = run_fakewap([origin.url("/echo")], opts)
    assert result.ok, result.log
    assert out.read_bytes() == b"received 6000 bytes\n"
    assert (origin.requests[-1].method, origin.requests[-1].body_length) == ("POST", 6000)


def test_stop_ends_both_boxes_and_frees_the_ports(tmp_path: Path):
    gw = KannelGateway(workdir=tmp_path / "kannel", log_level=LOG_WARNING)
    with gw:
        pids = gw.pids()
        assert set(pids) == {"bearerbox", "wapbox"}
        assert udp_port_in_use(gw.wdp_host, WSP_CONNECTION_ORIENTED_PORT)
    for pid in pids.values():
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    assert not udp_port_in_use(gw.wdp_host, WSP_CONNECTION_ORIENTED_PORT)
    assert (tmp_path / "kannel" / "kannel.conf").exists()  # a given workdir is kept
    assert (tmp_path / "kannel" / "bearerbox.log").exists()


@pytest.mark.parametrize("connectionless", [False, True])
def test_concurrent_fakewap_processes_all_get_replies(
    gateway: KannelGateway, origin: OriginServer, connectionless: bool
):
    # Processes, not fakewap -c threads: the threads share an unlocked TID counter.
    opts = FakewapOptions(
        gateway=gateway.wdp_host, connectionless=connectionless, max_requests=5, debug=0
    )
    batch = run_fakewap_processes([origin.url("/deck.wml")], opts, processes=3)
    assert batch.ok, [r.log for r in batch.results if not r.ok]
    assert (len(batch.results), batch.transactions) == (3, 15)
    assert sum(r.replies_ok for r in batch.results) == 15


def test_start_moves_to_another_address_when_the_chosen_one_was_taken(monkeypatch, tmp_path):
    import socket

    from wwanlab.peers import kannel

    taken = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    taken.bind(("127.0.0.250", WSP_CONNECTION_ORIENTED_PORT))
    real = kannel.free_wdp_host
    answers = iter(["127.0.0.250"])  # as if the address had been free when probed
    monkeypatch.setattr(kannel, "free_wdp_host", lambda: next(answers, None) or real())
    try:
        with KannelGateway(log_level=LOG_WARNING) as gw:
            assert gw.wdp_host != "127.0.0.250"
            assert udp_port_in_use(gw.wdp_host, WSP_CONNECTION_ORIENTED_PORT)
        fixed = KannelGateway(wdp_host="127.0.0.250", workdir=tmp_path, log_level=LOG_WARNING)
        with pytest.raises(KannelError, match="bearerbox exited"), fixed:
            pass
    finally:
        taken.close()
