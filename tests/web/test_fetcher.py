"""DirectFetcher on the simulated testbed: DNS once per name, connections per strategy,
the Figure 3 timeline events, failures per URL."""

from wwanlab.core.events import Event
from wwanlab.link.presets import get_preset
from wwanlab.web.client import Strategy
from wwanlab.web.fetcher import (
    ConnectionEstablished,
    ConnectionOpened,
    DirectFetcher,
    FetchFailed,
    LookupDone,
    LookupStarted,
    ObjectArrived,
    RequestSent,
)
from wwanlab.web.page import Page, WebObject
from wwanlab.web.topology import MOBILE_IP, FetcherDriver, WebTopology, build

IMAGES = tuple(
    WebObject(f"http://img.example/i{i}.gif", "image/gif", bytes([i]) * 1500) for i in range(6)
)
MAIN = WebObject("http://www.example/", "text/html", b"<html></html>")
PAGE = Page("hand", MAIN, (*IMAGES, WebObject("http://www.example/s.css", "text/css", b"b{}")))


def run(
    urls: list[str], strategy: Strategy, seed: int = 1
) -> tuple[WebTopology, DirectFetcher, list[Event]]:
    topo = build(PAGE, get_preset("gprs-3plus1"), seed)
    events: list[Event] = []
    fetcher = DirectFetcher(MOBILE_IP, topo.dns_address, topo.tcp, topo.rng("client"), strategy)
    driver = FetcherDriver(topo.mobile, fetcher, events.append)
    for url in urls:
        fetcher.fetch(url, 0.0)
    driver.flush()
    topo.net.run(until=300)
    return topo, fetcher, events


def of(events: list[Event], kind: type) -> list:  # type: ignore[type-arg]
    return [e for e in events if isinstance(e, kind)]


def test_every_object_arrives_with_its_bytes_and_type() -> None:
    urls = [MAIN.url, *(o.url for o in IMAGES)]
    topo, fetcher, events = run(urls, Strategy("HTTP/1.1", 2))
    arrived = {e.url: e for e in of(events, ObjectArrived)}
    assert sorted(arrived) == sorted(urls)
    assert all(arrived[o.url].body == o.body for o in IMAGES)
    assert arrived[MAIN.url].content_type == "text/html"
    assert {arrived[o.url].content_type for o in IMAGES} == {"image/gif"}
    # One lookup per name, however many URLs name it.
    assert [e.name for e in of(events, LookupStarted)] == ["www.example", "img.example"]
    assert fetcher.dns_queries == 2
    assert all(e.reason == "" for e in of(events, LookupDone))
    # Bound: the resolver's port at once, each connection's port as its SYN left.
    opened = of(events, ConnectionOpened)
    assert len(opened) == 3
    assert sorted(topo.mobile.bindings) == sorted(
        [(17, 32768), *((6, e.connection) for e in opened)]
    )


def test_connections_per_server_follow_the_strategy() -> None:
    urls = [o.url for o in IMAGES]
    counts = {}
    for name, strategy in {
        "http1.0-8": Strategy("HTTP/1.0", 8),
        "http1.1-2": Strategy("HTTP/1.1", 2),
        "opt-4": Strategy("HTTP/1.1", 4),
        "pipelining-2": Strategy("HTTP/1.1", 2, pipelining=True),
    }.items():
        _topo, _f, events = run(urls, strategy)
        assert len(of(events, ObjectArrived)) == 6
        counts[name] = len(of(events, ConnectionOpened))
    # HTTP/1.0: one connection per object; 1.1: at most N persistent ones.
    assert counts == {"http1.0-8": 6, "http1.1-2": 2, "opt-4": 4, "pipelining-2": 2}


def test_timeline_events_are_ordered_per_connection() -> None:
    _topo, _f, events = run([MAIN.url], Strategy("HTTP/1.1", 2))
    lookup = of(events, LookupDone)[0]
    opened = of(events, ConnectionOpened)[0]
    up = of(events, ConnectionEstablished)[0]
    sent = of(events, RequestSent)[0]
    arrived = of(events, ObjectArrived)[0]
    assert opened.at == lookup.at  # the SYN leaves as the answer arrives
    assert sent.url == MAIN.url and sent.connection == opened.connection == arrived.connection
    # gprs-3plus1: 600 ms round trip plus the wired 100 ms: handshake takes at least 0.7 s.
    assert up.at - opened.at >= 0.7
    assert arrived.at - up.at >= 0.7


def test_a_name_that_does_not_resolve_fails_each_of_its_urls() -> None:
    urls = ["http://nowhere.example/a", "http://nowhere.example/b", MAIN.url]
    _topo, fetcher, events = run(urls, Strategy("HTTP/1.1", 2))
    failed = {e.url: e.reason for e in of(events, FetchFailed)}
    assert failed == {urls[0]: "DNS: NXDOMAIN", urls[1]: "DNS: NXDOMAIN"}
    assert [e.url for e in of(events, ObjectArrived)] == [MAIN.url]
    assert fetcher.dns_queries == 2


def test_a_bad_url_fails_at_once() -> None:
    _topo, _f, events = run(["ftp://x/y", "http:///nohost"], Strategy("HTTP/1.1", 2))
    assert [(e.url, e.at) for e in of(events, FetchFailed)] == [
        ("ftp://x/y", 0.0),
        ("http:///nohost", 0.0),
    ]


def test_a_missing_object_arrives_as_404() -> None:
    _topo, _f, events = run(["http://www.example/missing"], Strategy("HTTP/1.1", 2))
    assert [(e.url, e.status) for e in of(events, ObjectArrived)] == [
        ("http://www.example/missing", 404)
    ]


def test_same_seed_same_timeline() -> None:
    urls = [MAIN.url, *(o.url for o in IMAGES)]
    first = [(type(e).__name__, getattr(e, "at", None)) for e in run(urls, Strategy())[2]]
    again = [(type(e).__name__, getattr(e, "at", None)) for e in run(urls, Strategy())[2]]
    assert first == again


def test_when_local_ports_run_out_the_rest_fail() -> None:
    topo = build(PAGE, get_preset("gprs-3plus1"), 1)
    events: list[Event] = []
    strategy = Strategy("HTTP/1.0", 8)
    fetcher = DirectFetcher(
        MOBILE_IP, topo.dns_address, topo.tcp, topo.rng("client"), strategy, ports_per_server=2
    )
    driver = FetcherDriver(topo.mobile, fetcher, events.append)
    for image in IMAGES:
        fetcher.fetch(image.url, 0.0)
    driver.flush()
    topo.net.run(until=300)
    assert len(of(events, ConnectionOpened)) == 2  # HTTP/1.0: a port per object, never reused
    assert [e.url for e in of(events, ObjectArrived)] == [IMAGES[0].url, IMAGES[1].url]
    assert {e.url: e.reason for e in of(events, FetchFailed)} == {
        image.url: "no free local port" for image in IMAGES[2:]
    }
