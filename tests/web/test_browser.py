"""The browser model and one simulated download: strategies, session techniques, the
latency breakdown, determinism and the bad pages that must end with failures."""

import random

import pytest

from wwanlab.core.events import Event
from wwanlab.link.presets import get_preset
from wwanlab.pep.split import SplitProxy
from wwanlab.sim.proxy import PacketProxy
from wwanlab.web.breakdown import DownlinkRecorder, breakdown, merge, minus
from wwanlab.web.browser import PageDownload, Setup, download
from wwanlab.web.client import Strategy
from wwanlab.web.content import compress_lossless
from wwanlab.web.fetcher import DirectFetcher, Fetcher, ObjectArrived
from wwanlab.web.page import Page, WebObject
from wwanlab.web.pages import generate
from wwanlab.web.rewrite import rewritten_url
from wwanlab.web.topology import (
    MOBILE_IP,
    PROXY_IP,
    FetcherDriver,
    WebTopology,
    build,
)

IMAGES = [f"http://img.example/i{i}.gif" for i in range(10)]
SCRIPT = "http://www.example/app.js"
DOCUMENT = (
    '<html><head><link rel="stylesheet" href="/site.css">'
    f'<script src="{SCRIPT}"></script></head><body>'
    + "".join(f'<img src="{url}" alt="">' for url in IMAGES)
    + '<a href="http://www.example/next.html">next</a>'
    + '<link rel="alternate" href="http://www.example/feed">'
    + "</body></html>"
).encode()


def hand_page(document: bytes = DOCUMENT, extra: tuple[WebObject, ...] = ()) -> Page:
    objects = (
        WebObject("http://www.example/site.css", "text/css", b"b{}" * 100),
        WebObject(SCRIPT, "application/javascript", b"var a;" * 200),
        *(WebObject(url, "image/gif", bytes([i]) * 1200) for i, url in enumerate(IMAGES)),
        *extra,
    )
    return Page("hand", WebObject("http://www.example/", "text/html", document), objects)


PAGE = hand_page()
EMBEDDED = 12  # site.css, app.js, 10 images; the anchor and the rel=alternate link are not


def test_a_page_arrives_whole() -> None:
    result = download(PAGE, Setup(), 1)
    assert result.complete and not result.failures
    assert len(result.objects) == 1 + EMBEDDED
    assert result.body_bytes == PAGE.total_bytes
    assert result.total_time == max(o.finished or 0.0 for o in result.objects)
    assert result.throughput_bps == pytest.approx(result.body_bytes * 8 / result.total_time)


@pytest.mark.parametrize(
    ("strategy", "connections", "opened"),
    [
        ("http1.0", None, 1 + EMBEDDED),  # one per object
        ("http1.1", None, 1 + 2 + 1),  # main: 1; img.example: 2; www.example: the main's
        ("opt", None, 1 + 6 + 1),
        ("opt", 4, 1 + 4 + 1),
        ("pipelining", None, 1 + 2 + 1),
    ],
)
def test_connection_counts_per_strategy(
    strategy: str, connections: int | None, opened: int
) -> None:
    result = download(PAGE, Setup(strategy=strategy, connections=connections), 1)
    assert result.complete
    assert len(result.connections) == opened


def test_pipelining_puts_several_gets_on_a_connection_before_any_answer() -> None:
    result = download(PAGE, Setup(strategy="pipelining"), 1)
    ahead = [
        c
        for c in result.connections
        if c.responses and sum(at < c.responses[0][0] for at, _ in c.gets) > 1
    ]
    assert ahead, "no connection had two GETs outstanding"
    plain = download(PAGE, Setup(strategy="http1.1"), 1)
    for conn in plain.connections:  # stop-and-go: each GET after the previous answer
        for (sent, _), (answered, _) in zip(conn.gets[1:], conn.responses, strict=False):
            assert sent >= answered


def test_dns_queries_with_and_without_the_session_techniques() -> None:
    plain = download(PAGE, Setup(strategy="opt"), 1)
    boosted = download(PAGE, Setup(strategy="opt", dns_boost=True), 1)
    rewritten = download(PAGE, Setup(strategy="opt", url_rewrite=True), 1)
    assert plain.dns_queries == 2  # www.example and img.example
    assert boosted.dns_queries == 2  # still asked for each name...
    assert {x.address for x in boosted.lookups} == {PROXY_IP}  # ...answered with the proxy
    assert rewritten.dns_queries == 1  # the page's own name only
    for result in (boosted, rewritten):
        assert result.complete
        assert {c.server for c in result.connections} == {PROXY_IP}
        assert len(result.connections) == 6  # one server: N connections in all
    assert len(plain.connections) == 8


def test_url_rewriting_points_every_embedded_url_at_the_proxy() -> None:
    result = download(PAGE, Setup(url_rewrite=True), 1)
    assert result.rewritten == EMBEDDED
    embedded = {o.url for o in result.objects if not o.main}
    originals = ["http://www.example/site.css", SCRIPT, *IMAGES]
    assert embedded == {rewritten_url(PROXY_IP, url) for url in originals}
    assert all(o.ok for o in result.objects)


def _fetch_through_proxy(rewrite: bool) -> bytes:
    """The main document as the client receives it through the operator's proxy."""
    from wwanlab.web.browser import _place_proxy

    topo = build(PAGE, get_preset("gprs-3plus1"), 1)
    _place_proxy(topo, Setup(url_rewrite=rewrite, dns_boost=not rewrite))
    events: list[Event] = []
    fetcher = DirectFetcher(
        MOBILE_IP, (PROXY_IP, 53), topo.tcp, random.Random(1), Strategy("HTTP/1.1", 2)
    )
    driver = FetcherDriver(topo.mobile, fetcher, events.append)
    fetcher.fetch("http://www.example/", 0.0)
    driver.flush()
    topo.net.run(until=60)
    (main,) = [e for e in events if isinstance(e, ObjectArrived)]
    return main.body


def test_the_rewritten_document_differs_exactly_in_the_embedded_urls() -> None:
    served = _fetch_through_proxy(rewrite=True)
    expected = DOCUMENT.decode()
    for url in ["/site.css", SCRIPT, *IMAGES]:
        absolute = url if url.startswith("http") else "http://www.example" + url
        new = rewritten_url(PROXY_IP, absolute)
        assert new is not None
        expected = expected.replace(f'"{url}"', f'"{new}"', 1)
    assert served.decode() == expected
    assert b'<a href="http://www.example/next.html">' in served  # a link is not fetched
    assert _fetch_through_proxy(rewrite=False) == DOCUMENT  # DNS boosting: untouched


def test_the_breakdown_labels_every_instant_once() -> None:
    for setup in (Setup(), Setup(strategy="http1.0"), Setup(strategy="opt", url_rewrite=True)):
        result = download(PAGE, setup, 2)
        shares = result.breakdown.shares()
        assert sum(shares.values()) == pytest.approx(100.0)
        assert sum(result.breakdown.seconds().values()) == pytest.approx(result.total_time)
        assert all(v >= 0 for v in shares.values())
        # the payload share is the page's octets at the link rate, within header overhead
        ideal = result.body_bytes * 8 / 39_600
        assert ideal <= result.breakdown.payload <= ideal * 1.15


def test_breakdown_rules_on_a_hand_made_record() -> None:
    recorder = DownlinkRecorder(get_preset("gprs-3plus1"))
    # 1000 octets at 39.6 kbit/s: 0.20202 s on the line, delivered 0.3 s after
    packet = bytes([0x45, 0, 0x03, 0xE8]) + bytes(5) + bytes([6]) + bytes(22) + bytes([0x50])
    recorder.tap(2.0 + 0.3, packet + bytes(1000 - len(packet)))
    result = breakdown(recorder, dns=[(0.0, 1.0)], tcp_setup=[(0.5, 1.5)], total=3.0)
    line = 1000 * 8 / 39_600
    assert result.payload == pytest.approx(line)
    assert result.dns == pytest.approx(1.0)
    assert result.tcp == pytest.approx(0.5)  # 1.0..1.5: after the lookup ended
    assert result.under == pytest.approx(3.0 - line - 1.5)
    assert merge([(2, 3), (0, 1), (0.5, 2.5)], 0, 10) == [(0, 3)]
    assert minus([(0, 10)], [(1, 2), (5, 6)]) == [(0, 1), (2, 5), (6, 10)]


def test_same_seed_same_download() -> None:
    def fingerprint(result: PageDownload) -> object:
        return (
            result.total_time,
            [(o.url, o.finished, o.connection) for o in result.objects],
            [(c.id, c.opened, c.gets, c.responses) for c in result.connections],
            result.breakdown,
        )

    setup = Setup(strategy="opt", loss=0.02)
    assert fingerprint(download(PAGE, setup, 7)) == fingerprint(download(PAGE, setup, 7))
    assert fingerprint(download(PAGE, setup, 7)) != fingerprint(download(PAGE, setup, 8))


# --- bad pages ------------------------------------------------------------------------------


def test_a_malformed_page_still_loads_what_it_names() -> None:
    document = (
        b'<html><body><img src="http://img.example/i0.gif"<p><<<>>\x00\xff<img src=/i1><b></i'
    )
    page = hand_page(document)
    result = download(page, Setup(), 1)
    records = {o.url: o for o in result.objects}
    assert records["http://img.example/i0.gif"].ok
    assert records["http://www.example/i1"].status == 404  # named, not served: recorded
    assert not result.complete


def test_a_page_that_embeds_itself_records_it_and_finishes() -> None:
    page = hand_page(b'<html><img src="/"><img src="http://www.example/"></html>')
    result = download(page, Setup(), 1)
    failed = [(o.url, o.failure) for o in result.failures]
    assert failed == [("http://www.example/#self", "refers to the page itself")]
    assert [o.url for o in result.objects if o.ok] == ["http://www.example/"]


def test_a_name_that_does_not_resolve_fails_its_objects() -> None:
    page = hand_page(b'<html><img src="http://nowhere.example/a.gif"><img src="/s.css"></html>')
    result = download(page, Setup(), 1)
    failures = {o.url: o.failure for o in result.failures}
    assert failures == {
        "http://nowhere.example/a.gif": "DNS: NXDOMAIN",
        "http://www.example/s.css": None,  # a 404: named by the page, served by no one
    }
    assert result.dns_queries == 2


def test_ten_thousand_objects_end_at_the_deadline_with_failures() -> None:
    urls = [f"http://img.example/{i}.gif" for i in range(10_000)]
    document = "".join(f'<img src="{url}">' for url in urls).encode()
    page = Page(
        "huge",
        WebObject("http://www.example/", "text/html", document),
        tuple(WebObject(url, "image/gif", b"GIF89a") for url in urls),
    )
    result = download(page, Setup(link="ref-10m-50ms", deadline=5.0), 1)
    assert len(result.objects) == 10_001
    arrived = [o for o in result.objects if o.ok]
    late = [o for o in result.objects if o.failure == "deadline"]
    assert len(arrived) + len(late) == 10_001 and 0 < len(arrived) < 10_001
    assert result.total_time == pytest.approx(5.0)


def test_a_main_document_that_is_not_html_embeds_nothing() -> None:
    main = WebObject("http://www.example/", "image/gif", b'<img src="/a.gif">')
    page = Page("image", main, (WebObject("http://www.example/a.gif", "image/gif", b"x"),))
    result = download(page, Setup(), 1)
    assert [o.url for o in result.objects] == ["http://www.example/"] and result.complete


# --- the proxy hooks ----------------------------------------------------------------------------


class _Counting:
    """A transparent proxy that counts what crosses the GGSN and lets split TCP act."""

    def __init__(self, inner: PacketProxy) -> None:
        self.inner = inner
        self.seen = 0

    def receive_packet(self, packet: bytes, now: float) -> bool:
        self.seen += 1
        return self.inner.receive_packet(packet, now)

    def packets_to_send(self, now: float) -> list[bytes]:
        return self.inner.packets_to_send(now)

    def get_timer(self) -> float | None:
        return self.inner.get_timer()

    def handle_timer(self, now: float) -> None:
        self.inner.handle_timer(now)


def test_a_transparent_proxy_on_the_ggsn_sees_every_packet() -> None:
    made: list[_Counting] = []

    def split(topo: WebTopology, rng: random.Random) -> PacketProxy:
        proxy = _Counting(SplitProxy({MOBILE_IP}, topo.tcp, topo.tcp, rng))
        made.append(proxy)
        return proxy

    with_proxy = download(PAGE, Setup(transparent=split), 1)
    without = download(PAGE, Setup(), 1)
    assert with_proxy.complete and len(made) == 1
    # every packet between the mobile and the rest crosses the GGSN once
    assert made[0].seen > 2 * len(PAGE.objects)
    # the mobile opens the connections, which split TCP passes on untouched
    assert with_proxy.total_time == without.total_time


def test_an_explicit_fetcher_replaces_the_browsers_own() -> None:
    def one_connection(topo: WebTopology, rng: random.Random) -> Fetcher:
        return DirectFetcher(MOBILE_IP, topo.dns_address, topo.tcp, rng, Strategy("HTTP/1.1", 1))

    result = download(PAGE, Setup(explicit=one_connection, strategy="opt"), 1)
    assert result.complete and len(result.connections) == 2  # one per server


def test_a_generated_cnn_page_downloads() -> None:
    page = generate("cnn", 1)
    result = download(page, Setup(), 1)
    assert result.complete
    assert len(result.objects) == len(page.objects) + 1
    assert result.body_bytes == page.total_bytes
    assert len(result.lookups) == len(page.hosts())


def test_a_gzipped_document_is_parsed_and_rewritten() -> None:
    page = compress_lossless(PAGE)
    assert page.main.encoding == "gzip"
    plain = download(page, Setup(), 1)
    assert plain.complete and len(plain.objects) == 1 + EMBEDDED
    assert plain.body_bytes == page.total_bytes < PAGE.total_bytes
    rewritten = download(page, Setup(url_rewrite=True), 1)
    assert rewritten.complete and rewritten.rewritten == EMBEDDED
    assert rewritten.dns_queries == 1


def test_behind_the_proxy_a_name_that_does_not_resolve_is_a_502() -> None:
    page = hand_page(b'<html><img src="http://nowhere.example/a.gif"></html>')
    result = download(page, Setup(dns_boost=True), 1)
    (failed,) = result.failures
    assert (failed.url, failed.status, failed.failure) == (
        "http://nowhere.example/a.gif",
        502,  # the operator's DNS answered; the proxy's own lookup failed
        None,
    )
