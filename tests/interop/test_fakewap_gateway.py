"""Kannel's fakewap (a real WAP client) against our gateway, origin on loopback.

fakewap's quirks (docs/kannel.md) shape the cases: ``-c N`` threads share one TID
counter, so in connection-oriented mode they acknowledge with each other's TIDs -- the
gateway runs with ``fakewap_quirks`` (``--fakewap-quirks``) for those runs; in
connectionless mode the shared counter makes threads ignore their own replies, so eight
concurrent connectionless clients are eight fakewap processes. ``-l`` drops received
datagrams and fakewap never retransmits a Get, so loss is recovered by the gateway's WTP
timer; the gateway runs with a 2 s retry interval (fakewap gives up after 10 s).
"""

import asyncio
import contextlib
import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from wwanlab.aio.gateway import Gateway, GatewayConfig
from wwanlab.peers.kannel import (
    FakewapOptions,
    FakewapResult,
    KannelGateway,
    kannel_installed,
    run_fakewap,
    run_fakewap_processes,
)
from wwanlab.peers.origin import BODY_40K, DECK_WML, OriginServer
from wwanlab.wap.gateway.policy import OriginPolicy
from wwanlab.wap.wbxml.wmlc import compile_wml
from wwanlab.wap.wtp.timers import WtpConfig

pytestmark = [
    pytest.mark.peer,
    pytest.mark.skipif(not kannel_installed(), reason="Kannel (fakewap) is not installed"),
]

EXPECTED = {"/deck.wml": compile_wml(DECK_WML), "/body40k": BODY_40K}
RETRY = 2.0  # s, the gateway's WTP retry interval R in these runs
LOSSY_RUNS = 5  # 40 KB Gets with -l 10: Kannel recovers a lost group end after 7 s


@contextlib.contextmanager
def gateway_in_thread(config: GatewayConfig) -> Iterator[Gateway]:
    """Our gateway on a private event loop in a thread, for synchronous fakewap runs."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="gateway", daemon=True)
    thread.start()
    gateway = asyncio.run_coroutine_threadsafe(Gateway.start(config), loop).result(10)
    try:
        yield gateway
    finally:
        asyncio.run_coroutine_threadsafe(gateway.close(0.5), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


@pytest.fixture(scope="module")
def origin() -> Iterator[OriginServer]:
    with OriginServer().running_in_thread() as server:
        yield server


@pytest.fixture(scope="module")
def gateway() -> Iterator[Gateway]:
    config = GatewayConfig(
        port_cl=0,
        port_co=0,
        policy=OriginPolicy.from_strings(["127.0.0.0/8"]),
        wtp=WtpConfig(retry_interval=RETRY),
        fakewap_quirks=True,
    )
    with gateway_in_thread(config) as gw:
        yield gw


def options(
    gateway: Gateway,
    out: Path,
    *,
    connectionless: bool,
    clients: int,
    max_requests: int,
    loss_percent: int = 0,
) -> FakewapOptions:
    return FakewapOptions(
        gateway="127.0.0.1",
        port=gateway.address("cl" if connectionless else "co")[1],
        connectionless=connectionless,
        clients=clients,
        max_requests=max_requests,
        loss_percent=loss_percent,
        out_file=out,
    )


def stuck_threads(log: str) -> str:
    """The log lines of the fakewap threads that timed out (the evidence of a failure)."""
    threads = set(re.findall(r"(\[\d+\] \[\d+\]) INFO: fakewap: Timeout", log))
    lines = [line for line in log.splitlines() if any(t in line for t in threads)]
    return "\n".join(lines[-80:])


def assert_all_ok(result: FakewapResult, expected: int) -> None:
    counts = (result.transactions, result.replies_ok)
    assert counts == (expected, expected), stuck_threads(result.log) or result.log[-2000:]
    assert result.ok and result.bad_statuses == () and result.timeouts == 0


# fakewap -c 8 threads share one Ack template: now and then a thread's group Ack names
# the PSN another thread just wrote into it. The gateway's quirk mode leaves an Ack of a
# group already acknowledged to WTP (docs/gateway.md); before it did, the 40 KB body
# through -c 8 hung about 1 run in 20.
#
#
# With -l 10, fakewap Negative-Acks a hole again whenever another packet of the group
# arrives; when the gateway answered each Negative Ack, a second copy landing after the
# thread's final Ack was taken for the next ConnectReply (fakewap accepts any Result
# whatever its TID), and about 1 run in 10 failed (docs/gateway.md has the capture).
# The quirk mode now drops a Negative Ack repeating one answered moments ago.


@pytest.mark.parametrize("path", ["/deck.wml", "/body40k"])
def test_connection_oriented_eight_concurrent_clients(origin, gateway, path, tmp_path):
    out = tmp_path / "body"
    opts = options(gateway, out, connectionless=False, clients=8, max_requests=40)
    result = run_fakewap([origin.url(path)], opts, timeout=60)
    assert_all_ok(result, 40)
    assert out.read_bytes() == EXPECTED[path]


@pytest.mark.parametrize("path", ["/deck.wml", "/body40k"])
def test_connectionless_eight_concurrent_clients(origin, gateway, path, tmp_path):
    out = tmp_path / "body"
    opts = options(gateway, out, connectionless=True, clients=1, max_requests=10)
    batch = run_fakewap_processes([origin.url(path)], opts, 8, timeout=60)
    for result in batch.results:
        assert_all_ok(result, 10)
    assert batch.transactions == 80
    assert out.read_bytes() == EXPECTED[path]


@pytest.mark.parametrize("loss", [0, 10])
def test_connection_oriented_40k_eight_processes(origin, gateway, loss, tmp_path):
    out = tmp_path / "body"
    opts = options(
        gateway, out, connectionless=False, clients=1, max_requests=5, loss_percent=loss
    )
    batch = run_fakewap_processes([origin.url("/body40k")], opts, 8, timeout=120)
    for result in batch.results:
        assert_all_ok(result, 5)
    assert out.read_bytes() == BODY_40K


@pytest.mark.parametrize("path", ["/deck.wml", "/body40k"])
def test_connection_oriented_with_ten_percent_loss(origin, gateway, path, tmp_path):
    out = tmp_path / "body"
    opts = options(gateway, out, connectionless=False, clients=8, max_requests=40, loss_percent=10)
    result = run_fakewap([origin.url(path)], opts, timeout=120)
    assert_all_ok(result, 40)
    assert result.dropped > 0  # fakewap did drop replies, the gateway's timer recovered them
    assert out.read_bytes() == EXPECTED[path]


def lossy_40k(origin: OriginServer, opts: FakewapOptions, out: Path) -> tuple[FakewapResult, bool]:
    """fakewap's result and whether what it wrote (if anything) is intact."""
    result = run_fakewap([origin.url("/body40k")], opts, timeout=120)
    return result, not out.exists() or out.read_bytes() == BODY_40K


@pytest.mark.slow
def test_forty_kilobytes_with_ten_percent_loss_ours_and_kannels(origin, gateway, tmp_path):
    """Kannel in the same lossy mode, for comparison.

    When the first packet of a segmented result (PSN 0) is lost, fakewap Negative-Acks
    it and, once it arrives, acknowledges the group with a plain Ack; a responder reads
    that as the Ack of the whole message (Kannel too), and fakewap panics 10 s later
    ("Failed to receive entire message"), ending its run. Our gateway's quirk mode
    reads that Ack as the group's. Kannel also needs 7 s to resend a lost group end.
    Asserted: whatever fakewap wrote through our gateway is byte-exact. Kannel's side is
    comparison data, printed only: when fakewap gives up mid-transfer against Kannel it
    can leave a partial file (seen in one CI run: Kannel 3/5, output cut short). The
    counts are printed (ours completed 5/5 in four runs and 4/5 in one, cause not
    isolated; the strict all-complete assertion is
    ``test_connection_oriented_with_ten_percent_loss``).
    """
    ours_out, kannel_out = tmp_path / "ours", tmp_path / "kannel"
    opts = options(
        gateway,
        ours_out,
        connectionless=False,
        clients=1,
        max_requests=LOSSY_RUNS,
        loss_percent=10,
    )
    ours = lossy_40k(origin, opts, ours_out)
    with KannelGateway(log_level=2) as kannel:
        kopts = FakewapOptions(
            gateway=kannel.wdp_host, max_requests=LOSSY_RUNS, loss_percent=10, out_file=kannel_out
        )
        theirs = lossy_40k(origin, kopts, kannel_out)
    n = LOSSY_RUNS
    counts = f"ours {ours[0].replies_ok}/{n}, Kannel {theirs[0].replies_ok}/{n}"
    print(f"40 KB, fakewap -l 10 -m {n}: {counts}; Kannel's output intact: {theirs[1]}")
    assert ours[1], counts
