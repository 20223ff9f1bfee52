"""HTTP client strategies over the sans-IO TCP in the Pair harness.

Link: one-way latency 50 ms, no rate limit unless stated. The page is a 2000-byte main
document with four 3000-byte embedded objects, fetched with ``get_page``.
"""

import random

import pytest

from wwanlab.core.pair import CLIENT_ADDR, SERVER_ADDR, Pair
from wwanlab.tcp import TcpConfig
from wwanlab.tcp.segment import SYN, decode_segment
from wwanlab.web.client import HttpClient, Strategy
from wwanlab.web.events import PageLoaded, RequestServed, ResponseReceived
from wwanlab.web.origin import HttpOrigin

RESOURCES = {"/": b"m" * 2000, **{f"/img{i}": bytes([65 + i]) * 3000 for i in range(4)}}
EMBEDDED = [f"/img{i}" for i in range(4)]


def load(strategy: Strategy, **pair_args: object) -> tuple[Pair, HttpClient, PageLoaded]:
    config = TcpConfig(time_wait=1.0)
    client = HttpClient(CLIENT_ADDR[0], SERVER_ADDR, config, random.Random(1), strategy)
    origin = HttpOrigin(*SERVER_ADDR, config, random.Random(2), RESOURCES)
    pair = Pair(client, origin, **pair_args)  # type: ignore[arg-type]
    client.get_page("/", EMBEDDED, 0.0)
    pair.run(until=3600)
    responses = [e for e in pair.client_events if isinstance(e, ResponseReceived)]
    assert sorted(r.target for r in responses) == sorted(RESOURCES)
    assert all(r.status == 200 and r.body == RESOURCES[r.target] for r in responses)
    (page,) = [e for e in pair.client_events if isinstance(e, PageLoaded)]
    assert page.body_bytes == 14000
    return pair, client, page


def syns(pair: Pair) -> int:
    return sum(1 for s in pair.sent("client") if decode_segment(s.data).flags & SYN)


def test_http10_opens_one_connection_per_object_in_series() -> None:
    pair, client, page = load(Strategy("HTTP/1.0", connections=1), latency=0.05)
    assert client.connections_opened == 5 and syns(pair) == 5
    # Each object: handshake (1 RTT) + request/response (1 RTT), one after another.
    assert page.at == pytest.approx(5 * 0.2)
    served = [e for e in pair.server_events if isinstance(e, RequestServed)]
    assert len({e.conn_id for e in served}) == 5


def test_http10_with_four_parallel_connections() -> None:
    _pair, client, page = load(Strategy("HTTP/1.0", connections=4), latency=0.05)
    assert client.connections_opened == 5
    assert page.at == pytest.approx(0.2 + 0.2)  # main, then all four at once


def test_http11_persistent_reuses_one_connection() -> None:
    pair, client, page = load(Strategy("HTTP/1.1", connections=1), latency=0.05)
    assert client.connections_opened == 1 and syns(pair) == 1
    # Handshake + main (2 RTT), then one request per RTT.
    assert page.at == pytest.approx(0.2 + 4 * 0.1)


def test_http11_pipelining_sends_all_requests_at_once() -> None:
    pair, client, page = load(Strategy("HTTP/1.1", connections=1, pipelining=True), latency=0.05)
    assert client.connections_opened == 1
    requests = [
        (round(s.sent_at, 6), decode_segment(s.data).payload.count(b"GET "))
        for s in pair.sent("client")
        if b"GET " in decode_segment(s.data).payload
    ]
    assert requests == [(0.1, 1), (0.2, 4)]  # the four requests share one segment
    persistent = load(Strategy("HTTP/1.1", connections=1), latency=0.05)[2]
    assert page.at < persistent.at


@pytest.mark.parametrize(
    "strategy",
    [
        Strategy("HTTP/1.0", 2),
        Strategy("HTTP/1.1", 2),
        Strategy("HTTP/1.1", 1, pipelining=True),
    ],
)
def test_page_arrives_intact_over_the_paper000_line_with_loss(strategy: Strategy) -> None:
    load(strategy, latency=0.01, rate_bps=9600, loss=0.1, rng=random.Random(3))


def test_missing_object_is_404_and_http10_close_delimits() -> None:
    config = TcpConfig(time_wait=1.0)
    client = HttpClient(
        CLIENT_ADDR[0], SERVER_ADDR, config, random.Random(1), Strategy("HTTP/1.0")
    )
    origin = HttpOrigin(*SERVER_ADDR, config, random.Random(2), RESOURCES)
    pair = Pair(client, origin, latency=0.05)
    client.get("/nothing", 0.0)
    pair.run(until=60)
    (response,) = [e for e in pair.client_events if isinstance(e, ResponseReceived)]
    assert (response.target, response.status, response.body) == ("/nothing", 404, b"")
    assert pair.server_events == [RequestServed(1, "/nothing", 404, 0)]


def test_strategy_rejects_nonsense() -> None:
    from wwanlab.core.errors import UsageError

    with pytest.raises(UsageError):
        Strategy("HTTP/1.0", pipelining=True)
    with pytest.raises(UsageError):
        Strategy("HTTP/2")
    with pytest.raises(UsageError):
        Strategy(connections=0)
