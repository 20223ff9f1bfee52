"""The browser model of paper 003 and one simulated page download.

``Browser`` is what Mozilla 1.4 does with a page (section 3): fetch the main document,
parse it for what it embeds (``web.pages.markup``), fetch each embedded URL once, and record
per object what happened. It decides *what* to fetch; a ``web.fetcher.Fetcher`` decides
*how* (DNS, connections, strategy). It never hangs: a page that cannot be parsed, an
object that names the page itself, a name that does not resolve or a page of 10,000
objects end with a failure recorded on each object concerned, and ``download`` stops
at a deadline, failing whatever has not arrived.

With a ``web.cache.HttpCache`` (Mozilla's, section 4.1.3's revisit baseline) the browser
asks the cache before the network: a fresh response is used with no request, a stale
one with validators is revalidated by a conditional GET (a 304 gives the stored body
back), and every 200 is offered to the cache. ``Setup.clock`` says when on the cache's
clock the download starts, so a second download can come minutes after the first.

Strategies (Table 5): ``http1.0`` up to 8 connections per server, one per object
(Mozilla 1.4's default, section 3); ``http1.1`` 2 persistent connections per server
(the default); ``opt`` HTTP/1.1 with N persistent connections (6 is the paper's best,
Figure 5 sweeps 2-20); ``pipelining`` 2 persistent connections with pipelined GETs.

``download(page, setup, seed)`` builds the testbed (``web.topology``), runs one
download and returns a ``PageDownload``: total time, bytes, the Figure 3 timeline per
connection, the DNS lookups and the latency breakdown of Figure 4 (``web.breakdown``).
"""

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from wwanlab.core.errors import UsageError
from wwanlab.core.events import Event
from wwanlab.link.presets import get_preset
from wwanlab.sim.ipv4 import PROTO_UDP
from wwanlab.tcp import TcpConfig
from wwanlab.web.breakdown import Breakdown, DownlinkRecorder, breakdown
from wwanlab.web.cache import FRESH, STALE, Headers, HttpCache
from wwanlab.web.client import Strategy
from wwanlab.web.dns import DNS_PORT, ZoneServer
from wwanlab.web.fetcher import (
    ConnectionClosed,
    ConnectionEstablished,
    ConnectionOpened,
    DirectFetcher,
    Fetcher,
    FetchFailed,
    LookupDone,
    LookupStarted,
    ObjectArrived,
    RequestSent,
)
from wwanlab.web.http1 import NOT_MODIFIED, decode_body
from wwanlab.web.page import Page
from wwanlab.web.pages.markup import references
from wwanlab.web.rewrite import RewritingProxy
from wwanlab.web.topology import (
    MOBILE_IP,
    PROXY_IP,
    FetcherDriver,
    TransparentFactory,
    WebTopology,
    build,
)

DEFAULT_LINK = "gprs-3plus1"  # paper 003 section 3: the '3+1' GPRS phone
DEADLINE = 900.0  # s of virtual time a download may take (the slowest page, cnn, ~200 s)
MAX_EMBEDDED = 20_000  # embedded references a page may make the browser fetch
IGNORED_SCHEMES = ("data", "javascript", "about", "mailto")  # nothing to fetch

# Table 5 (and section 3 for the connection counts): name -> (strategy, default N).
STRATEGIES: dict[str, tuple[str, bool, int]] = {
    "http1.0": ("HTTP/1.0", False, 8),  # Mozilla 1.4: up to 8 connections per server
    "http1.1": ("HTTP/1.1", False, 2),  # 2 persistent connections per server
    "opt": ("HTTP/1.1", False, 6),  # HTTP/1.1-Opt: 6 was best (section 4.2.1)
    "pipelining": ("HTTP/1.1", True, 2),  # 2 persistent connections, pipelined GETs
}

ExplicitFactory = Callable[[WebTopology, random.Random], Fetcher]
"""(testbed, rng) -> the client-side fetcher of an explicit proxy; the factory places
its server side on ``testbed.proxy`` (bind it with ``FetcherDriver``)."""


def strategy_for(name: str, connections: int | None = None) -> Strategy:
    """The ``Strategy`` of a Table 5 name, with ``connections`` per server if given."""
    try:
        version, pipelining, default = STRATEGIES[name]
    except KeyError:
        known = ", ".join(STRATEGIES)
        raise UsageError(f"unknown strategy {name!r} (known: {known})") from None
    return Strategy(version, default if connections is None else connections, pipelining)


@dataclass(frozen=True)
class Setup:
    """Everything about one download but the page and the seed."""

    link: str = DEFAULT_LINK
    loss: float | None = None  # overrides the preset's loss knob
    strategy: str = "http1.1"
    connections: int | None = None  # per server; None: the strategy's default
    dns_boost: bool = False  # section 4.2.2: every name resolves to the proxy
    url_rewrite: bool = False  # section 4.2.2: the proxy rewrites embedded URLs
    transparent: TransparentFactory | None = None
    explicit: ExplicitFactory | None = None
    tcp: TcpConfig | None = None  # None: Linux 2.4.20 (web.topology.linux_2_4)
    deadline: float = DEADLINE
    cache: HttpCache | None = None  # the browser's HTTP cache (kept across downloads)
    clock: float = 0.0  # s on the cache's and origins' clock at the download's start

    def __post_init__(self) -> None:
        get_preset(self.link)
        strategy_for(self.strategy, self.connections)
        if not self.deadline > 0:
            raise UsageError(f"deadline must be positive, not {self.deadline}")


# --- records --------------------------------------------------------------------------


@dataclass
class ObjectRecord:
    """What happened to one URL the page made the browser fetch."""

    url: str
    main: bool
    requested: float  # when the browser asked for it
    sent: float | None = None  # when its GET left
    finished: float | None = None
    status: int | None = None
    size: int = 0  # body octets as they arrived (encoded)
    content_type: str = ""
    connection: int | None = None
    failure: str | None = None
    cached: str = ""  # "fresh": no request; "revalidated": a 304 gave the stored body

    @property
    def ok(self) -> bool:
        return self.failure is None and self.status is not None and 200 <= self.status < 300


@dataclass
class ConnectionRecord:
    """One TCP connection of the Figure 3 timeline."""

    id: int  # the client's local port
    server: str
    opened: float
    established: float | None = None
    closed: float | None = None
    gets: list[tuple[float, str]] = field(default_factory=list)
    responses: list[tuple[float, str]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Lookup:
    name: str
    started: float
    finished: float | None
    address: str  # "" when it failed
    reason: str


# --- the browser ------------------------------------------------------------------------


class Browser:
    """Fetches a page's main URL, then each URL it embeds, once; through ``cache`` when
    given (its clock reads ``clock`` at time 0). ``conditional``: the fetcher can send
    a conditional GET (else a stale entry is fetched anew)."""

    def __init__(
        self,
        main_url: str,
        now: float = 0.0,
        cache: HttpCache | None = None,
        clock: float = 0.0,
        conditional: bool = True,
    ) -> None:
        self.main_url = main_url
        self.objects: dict[str, ObjectRecord] = {main_url: ObjectRecord(main_url, True, now)}
        self._open = 1
        self._cache = cache
        self._clock = clock
        self._conditional = conditional
        self._conditions: dict[str, Headers] = {}  # URL -> the validators its GET carries

    @property
    def done(self) -> bool:
        return self._open == 0

    def start(self) -> list[str]:
        return self._through_cache(self.main_url, self.objects[self.main_url].requested)

    def conditions(self, url: str) -> Headers:
        """The header fields of ``url``'s GET: the validators of a stale cache entry."""
        return self._conditions.get(url, ())

    def _through_cache(self, url: str, now: float) -> list[str]:
        """The URLs to fetch for ``url``: none on a fresh hit (it arrives at once)."""
        cache = self._cache
        if cache is None:
            return [url]
        found = cache.lookup(url, self._clock + now)
        if found.outcome == FRESH and found.stored is not None:
            stored = found.stored
            hit = ObjectArrived(
                url, 200, stored.body, stored.content_type, stored.encoding, -1, now
            )
            wanted = self.on_event(hit, now)
            self.objects[url].cached = "fresh"
            return wanted
        if found.outcome == STALE and self._conditional:
            self._conditions[url] = found.conditions
        return [url]

    def _from_cache(self, event: ObjectArrived, record: ObjectRecord) -> ObjectArrived:
        """A 304 to a conditional GET: the stored response, refreshed (RFC 9111 4.3.4);
        a 200: offered to the cache."""
        cache = self._cache
        if cache is None:
            return event
        asked = self._clock + (record.sent if record.sent is not None else record.requested)
        if event.status == NOT_MODIFIED and self._conditions.pop(event.url, None) is not None:
            stored = cache.freshen(event.url, event.headers, asked, self._clock + event.at)
            record.cached = "revalidated"
            return ObjectArrived(
                event.url,
                200,
                stored.body,
                stored.content_type,
                stored.encoding,
                event.connection,
                event.at,
                stored.headers,
            )
        if event.status == 200:
            cache.store(
                event.url,
                event.headers,
                event.body,
                event.content_type,
                event.encoding,
                asked,
                self._clock + event.at,
            )
        return event

    def on_event(self, event: Event, now: float) -> list[str]:
        """Record ``event``; answer the URLs to fetch now."""
        if isinstance(event, ObjectArrived):
            record = self.objects.get(event.url)
            if record is None or record.finished is not None:
                return []
            crossed = len(event.body)
            if event.connection >= 0:  # from the network, not a fresh hit
                event = self._from_cache(event, record)
            record.finished = event.at
            record.status = event.status
            record.size = crossed if event.connection >= 0 else 0
            record.content_type = event.content_type
            record.connection = event.connection
            self._open -= 1
            if record.main:
                return self._parse(event, now)
        elif isinstance(event, FetchFailed):
            record = self.objects.get(event.url)
            if record is not None and record.finished is None:
                self._fail(record, event.reason, event.at)
        elif isinstance(event, RequestSent):
            record = self.objects.get(event.url)
            if record is not None and record.sent is None:
                record.sent = event.at
                record.connection = event.connection
        return []

    def expire(self, now: float, reason: str = "deadline") -> None:
        """Fail every object still outstanding."""
        for record in self.objects.values():
            if record.finished is None:
                self._fail(record, reason, now)

    def _fail(self, record: ObjectRecord, reason: str, at: float) -> None:
        record.failure = reason
        record.finished = at
        self._open -= 1

    def _parse(self, event: ObjectArrived, now: float) -> list[str]:
        main = self.objects[self.main_url]
        if not 200 <= event.status < 300:
            main.failure = f"HTTP {event.status}"
            return []
        if "html" not in event.content_type.lower():
            return []  # nothing embedded in an image or a script
        try:
            embedded = references(decode_body(event.body, event.encoding), self.main_url)
        except (ValueError, AssertionError) as error:  # html.parser asserts on some input
            main.failure = f"unparsable document: {error}"
            return []
        wanted: list[str] = []
        for url in embedded:
            wanted.extend(self._embed(url, now))
        return wanted

    def _embed(self, url: str, now: float) -> list[str]:
        try:
            scheme = urlsplit(url).scheme.lower()
        except ValueError:
            self._record_failure(url, "bad URL", now)
            return []
        if scheme in IGNORED_SCHEMES:
            return []
        if url == self.main_url:
            self._record_failure(f"{url}#self", "refers to the page itself", now)
            return []
        if url in self.objects:
            return []
        if len(self.objects) > MAX_EMBEDDED:
            self._record_failure(url, f"over the browser's {MAX_EMBEDDED}-object limit", now)
            return []
        if scheme != "http":
            self._record_failure(url, f"unsupported scheme {scheme!r}", now)
            return []
        self.objects[url] = ObjectRecord(url, False, now)
        self._open += 1
        return self._through_cache(url, now)

    def _record_failure(self, url: str, reason: str, now: float) -> None:
        if url not in self.objects:
            self.objects[url] = ObjectRecord(url, False, now, finished=now, failure=reason)


# --- one download --------------------------------------------------------------------------


@dataclass(frozen=True)
class PageDownload:
    """One simulated download of ``page`` under ``setup``."""

    page: str
    setup: Setup
    seed: int
    total_time: float  # from the start (the first lookup) to the last object's end or deadline
    complete: bool  # every object arrived with a 2xx status
    body_bytes: int  # response bodies as they crossed the link (encoded)
    downlink_bytes: int  # IP octets the access link delivered to the mobile
    dns_queries: int  # DNS query datagrams the mobile sent
    objects: tuple[ObjectRecord, ...]
    connections: tuple[ConnectionRecord, ...]
    lookups: tuple[Lookup, ...]
    breakdown: Breakdown
    rewritten: int = 0  # embedded URLs the URL-rewriting proxy rewrote

    @property
    def throughput_bps(self) -> float:
        return self.body_bytes * 8 / self.total_time if self.total_time > 0 else 0.0

    @property
    def failures(self) -> list[ObjectRecord]:
        return [o for o in self.objects if not o.ok]


class _Timeline:
    """Collects the fetcher's timeline events."""

    def __init__(self) -> None:
        self.connections: dict[int, ConnectionRecord] = {}
        self.lookups: dict[str, Lookup] = {}

    def add(self, event: Event) -> None:
        if isinstance(event, ConnectionOpened):
            self.connections[event.connection] = ConnectionRecord(
                event.connection, event.server, event.at
            )
            return
        if isinstance(event, LookupStarted):
            self.lookups[event.name] = Lookup(event.name, event.at, None, "", "")
            return
        if isinstance(event, LookupDone):
            started = self.lookups.get(event.name)
            self.lookups[event.name] = Lookup(
                event.name,
                event.at if started is None else started.started,
                event.at,
                event.address,
                event.reason,
            )
            return
        conn = self.connections.get(getattr(event, "connection", -1))
        if conn is None:
            return
        if isinstance(event, ConnectionEstablished):
            conn.established = event.at
        elif isinstance(event, ConnectionClosed):
            conn.closed = event.at
        elif isinstance(event, RequestSent):
            conn.gets.append((event.at, event.url))
        elif isinstance(event, ObjectArrived):
            conn.responses.append((event.at, event.url))


def _setup_end(conn: ConnectionRecord, total: float) -> float:
    """A connection is in its handshake and slow start until its first response."""
    if conn.responses:
        return conn.responses[0][0]
    return min(t for t in (conn.closed, total) if t is not None)


def _place_proxy(topo: WebTopology, setup: Setup) -> RewritingProxy | None:
    """URL rewriting / DNS boosting: the operator's DNS answers every name with the
    proxy, and the proxy serves HTTP on the client's behalf."""
    if not (setup.dns_boost or setup.url_rewrite):
        return None
    topo.proxy.bind_udp(DNS_PORT, ZoneServer({}, default=[PROXY_IP]))
    proxy = RewritingProxy(
        PROXY_IP, topo.dns_address, topo.tcp, topo.rng("proxy", "web"), rewrite=setup.url_rewrite
    )
    FetcherDriver(topo.proxy, proxy, lambda event: None)
    return proxy


def download(
    page: Page, setup: Setup, seed: int, *, progress: Callable[[], None] | None = None
) -> PageDownload:
    """Download ``page`` once in the simulator; deterministic for ``seed``.
    ``progress`` is called as each object arrives or fails."""
    preset = get_preset(setup.link)
    topo = build(
        page,
        preset,
        seed,
        loss=setup.loss,
        tcp=setup.tcp,
        transparent=setup.transparent,
        clock=setup.clock,
    )
    kernel = topo.net.kernel
    proxy = _place_proxy(topo, setup)
    dns = (PROXY_IP, DNS_PORT) if proxy is not None else topo.dns_address
    rng = topo.rng("client", "fetcher")
    fetcher: Fetcher
    direct: DirectFetcher | None = None  # the fetcher that can send conditional GETs
    if setup.explicit is not None:
        fetcher = setup.explicit(topo, rng)
    else:
        strategy = strategy_for(setup.strategy, setup.connections)
        fetcher = direct = DirectFetcher(MOBILE_IP, dns, topo.tcp, rng, strategy)
    recorder = DownlinkRecorder(preset)
    topo.access.ba.rx_taps.append(recorder.tap)
    dns_queries = [0]

    def count_query(now: float, packet: bytes) -> None:
        ihl = (packet[0] & 0x0F) * 4  # the UDP destination port follows the IP header
        if packet[9] == PROTO_UDP and packet[ihl + 2 : ihl + 4] == DNS_PORT.to_bytes(2, "big"):
            dns_queries[0] += 1

    topo.access.ab.tx_taps.append(count_query)
    browser = Browser(page.main.url, 0.0, setup.cache, setup.clock, direct is not None)

    def get(url: str, now: float) -> None:
        if direct is not None:
            direct.fetch(url, now, browser.conditions(url))
        else:
            fetcher.fetch(url, now)

    timeline = _Timeline()
    last = [0.0]

    def on_event(event: Event) -> None:
        timeline.add(event)
        now = kernel.now
        for url in browser.on_event(event, now):
            get(url, now)
        if isinstance(event, ObjectArrived | FetchFailed):
            last[0] = max(last[0], now)
            if progress is not None:
                progress()
        if browser.done:
            kernel.stop()

    driver = FetcherDriver(topo.mobile, fetcher, on_event)
    for url in browser.start():
        get(url, 0.0)
    driver.flush()
    if not browser.done:
        topo.net.run(until=setup.deadline)
    if not browser.done:
        browser.expire(kernel.now)
        last[0] = kernel.now
    topo.net.close()
    total = last[0]
    objects = tuple(browser.objects.values())
    connections = tuple(timeline.connections.values())
    lookups = tuple(timeline.lookups.values())
    return PageDownload(
        page=page.name,
        setup=setup,
        seed=seed,
        total_time=total,
        complete=all(o.ok for o in objects),
        body_bytes=sum(o.size for o in objects),
        downlink_bytes=recorder.delivered_bytes,
        dns_queries=dns_queries[0],
        objects=objects,
        connections=connections,
        lookups=lookups,
        breakdown=breakdown(
            recorder,
            dns=[(lookup.started, lookup.finished or total) for lookup in lookups],
            tcp_setup=[(c.opened, _setup_end(c, total)) for c in connections],
            total=total,
        ),
        rewritten=0 if proxy is None else proxy.rewritten,
    )
