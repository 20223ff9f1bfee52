"""The server-side proxy of the dual proxy (paper 003 2.1, "Explicit Proxy Mode"): in the
operator's network, at the wired end of the proxy link.

It takes REQUESTs off a ``MessageChannel``, gets each object through an origin access
(``OriginAccess``: in the simulator the proxy host's own DNS and HTTP clients), and
answers. With the techniques of ``DualConfig``:

- CHK caching (4.1.3): after a page's main document it fetches every embedded object
  and sends the page's LIST of (URL, CHK); the client then asks only for CHKs it lacks.
- parse-and-push (4.2.3): after the main document it sends a LIST promising the
  embedded objects and PUSHes each as soon as the origin delivers it, unasked; with
  CHK caching an object the client holds (its REQUEST's have-list) or already pushed
  under another URL (an alias) goes as HAVE, without its body.
- delta encoding (4.1.3): an object whose URL the client holds in an older version
  (REQUEST base, or a have-listed CHK this proxy last served for the URL) goes as a
  bsdiff DELTA against it when the delta is smaller than the body.
- compression (4.1.1): a fixed-fidelity body the origin sent uncoded is deflated on the
  link when that makes it smaller.

    event                          action
    REQUEST(id, url, base, have)   fetch url (one origin fetch per URL at a time)
    origin delivers url            RESPONSE to each waiting id: HAVE if its CHK is the
                                   base, else DELTA or FULL; a 200 text/html answer
                                   starts its page (when push or chk is on)
    page starts                    push: LIST(pushed) at once; fetch every embedded URL
    embedded url delivered         push: PUSH it; chk only: LIST(CHKs) once all are in
    origin fails on url            RESPONSE/PUSH with status 0 and the reason as body
    malformed message              MessageRefused, nothing sent
    channel fails                  every page and fetch in progress is dropped
"""

from dataclasses import dataclass, field
from typing import Protocol
from urllib.parse import urlsplit

from wwanlab.core.contract import Endpoint
from wwanlab.core.events import Event
from wwanlab.core.layer import Layer
from wwanlab.pep.dual import messages as m
from wwanlab.pep.dual.coding import brotli_compress, chk, deflate, make_delta
from wwanlab.pep.dual.config import DualConfig
from wwanlab.pep.dual.events import MessageRefused
from wwanlab.pep.dual.store import ChkStore, Stored
from wwanlab.transports.channel import ChannelFailed, MessageChannel, MessageReceived
from wwanlab.web.fetcher import FetchFailed, ObjectArrived
from wwanlab.web.http1 import decode_body
from wwanlab.web.media_type import MediaTypeError, parse_media_type
from wwanlab.web.page import FIXED, fidelity
from wwanlab.web.pages.markup import references

FAILED = 0  # status of an object the proxy could not get: the body says why
MAX_MESSAGE = 4 * 1024 * 1024  # octets: the smaller channel's bound (UDP-GPRS's max_message)
HTML = "text/html"
OK = 200
# Fields a message carries apart (type, encoding, the body's length) or that belong to
# one connection only (RFC 9110 7.6.1), never relayed as an object's header fields.
NOT_RELAYED = frozenset(
    {
        "content-type", "content-encoding", "content-length", "connection", "keep-alive",
        "proxy-connection", "proxy-authenticate", "te", "trailer", "transfer-encoding",
        "upgrade",
    }
)  # fmt: skip


class OriginAccess(Protocol):
    """How the server side reaches origins: ``fetch`` a URL, then an ``ObjectArrived``
    or ``FetchFailed`` event for it (from ``next_event``, or handed to
    ``ServerProxy.on_origin_event`` by a driver that drains the access itself)."""

    def fetch(self, url: str, now: float) -> None: ...

    def next_event(self) -> Event | None: ...


@dataclass
class _Page:
    """A main document whose embedded objects are being fetched."""

    url: str
    embedded: list[str]
    have: frozenset[bytes]
    chks: dict[str, bytes] = field(default_factory=dict)
    pushed: set[bytes] = field(default_factory=set)


@dataclass(frozen=True, slots=True)
class _Reply:
    id: int
    base: bytes | None
    have: frozenset[bytes]


def embedded_urls(document: Stored, url: str) -> list[str]:
    """The http URLs the document embeds, as the browser finds them (``web.pages.markup``),
    without the document itself and at most ``MAX_LIST``; none if it cannot be decoded."""
    try:
        html = decode_body(document.body, document.encoding)
        found = references(html, url)
    except (ValueError, AssertionError):  # html.parser asserts on some input
        return []
    return [u for u in found if u != url and urlsplit(u).scheme == "http"][: m.MAX_LIST]


def is_html(content_type: str) -> bool:
    try:
        return parse_media_type(content_type).essence == HTML
    except MediaTypeError:
        return False


class ServerProxy(Layer):
    """The server side; a contract endpoint wherever its channel is bound."""

    def __init__(
        self,
        channel: MessageChannel,
        origin: OriginAccess,
        config: DualConfig,
        store: ChkStore | None = None,
        max_message: int = MAX_MESSAGE,
    ) -> None:
        self.channel = channel
        self.max_message = max_message
        self.origin = origin
        self.config = config
        self.store = store if store is not None else ChkStore()
        self._waiting: dict[str, list[_Reply | _Page]] = {}
        self._events: list[Event] = []

    # --- the channel side -------------------------------------------------------------

    def _lower(self) -> Endpoint:
        return self.channel

    def _pump(self, now: float) -> None:
        while True:
            event = self.channel.next_event()
            if event is None:
                event = self.origin.next_event()
                if event is None:
                    return
                self.on_origin_event(event, now)
            elif isinstance(event, MessageReceived):
                self._on_message(event.data, now)
            elif isinstance(event, ChannelFailed):
                self._waiting.clear()
                self._events.append(event)

    def _on_message(self, data: bytes, now: float) -> None:
        try:
            message = m.decode(data)
        except m.MessageError as error:
            self._events.append(MessageRefused(str(error), now))
            return
        if not isinstance(message, m.Request):
            self._events.append(MessageRefused(f"a client sent {type(message).__name__}", now))
            return
        reply = _Reply(message.id, message.base, frozenset(message.have))
        self._fetch(message.url, reply, now)

    def _fetch(self, url: str, waiter: "_Reply | _Page", now: float) -> None:
        waiters = self._waiting.setdefault(url, [])
        waiters.append(waiter)
        if len(waiters) == 1:
            self.origin.fetch(url, now)

    def _send(self, message: m.Message, now: float) -> None:
        """Send ``message``; an object too large for the format or the channel goes as a
        failure instead, so the client learns of it rather than waiting."""
        try:
            data = m.encode(message)
            if len(data) > self.max_message:
                raise m.MessageError(f"{len(data)} octets exceed the channel's {self.max_message}")
        except m.MessageError as error:
            if not isinstance(message, m.Response | m.Push):
                raise
            obj = message.object
            failed = m.WireObject(
                obj.url, FAILED, "text/plain", "identity", obj.chk, body=str(error).encode()
            )
            data = m.encode(
                m.Response(message.id, failed)
                if isinstance(message, m.Response)
                else m.Push(failed)
            )
        self.channel.send_message(data, now)

    # --- the origin side --------------------------------------------------------------

    def on_origin_event(self, event: Event, now: float) -> None:
        """An origin fetch finished (``ObjectArrived``) or failed (``FetchFailed``); the
        origin's other events (its timeline) are not the proxy's business."""
        if isinstance(event, ObjectArrived):
            fields = ""
            if self.config.fields:
                kept = [(n, v) for n, v in event.headers if n.lower() not in NOT_RELAYED]
                fields = "".join(f"{n}: {v}\r\n" for n, v in kept)
            stored = Stored(event.content_type, event.encoding, event.body, fields)
            self._delivered(event.url, event.status, stored, now)
        elif isinstance(event, FetchFailed):
            reason = event.reason.encode("utf-8")[: m.MAX_BODY]
            self._delivered(event.url, FAILED, Stored("text/plain", "identity", reason), now)

    def _delivered(self, url: str, status: int, stored: Stored, now: float) -> None:
        key = chk(stored.body)
        previous = self.store.url_chk.get(url)
        if status == OK:
            self.store.put(key, stored, url)
        for waiter in self._waiting.pop(url, []):
            if isinstance(waiter, _Reply):
                obj = self._object(url, status, stored, key, waiter.base, frozenset())
                self._send(m.Response(waiter.id, obj), now)
                if status == OK and self.config.lists_pages and is_html(stored.content_type):
                    self._start_page(url, stored, waiter.have, now)
            else:
                self._page_object(waiter, url, status, stored, key, previous, now)

    def _start_page(self, url: str, stored: Stored, have: frozenset[bytes], now: float) -> None:
        page = _Page(url, embedded_urls(stored, url), have if self.config.chk else frozenset())
        if self.config.push:
            entries = tuple(m.ListEntry(u) for u in page.embedded)
            self._send(m.PageList(url, entries, pushed=True), now)
        if not page.embedded and not self.config.push:
            self._send(m.PageList(url, ()), now)
        for embedded in page.embedded:
            self._fetch(embedded, page, now)

    def _page_object(
        self,
        page: _Page,
        url: str,
        status: int,
        stored: Stored,
        key: bytes,
        previous: bytes | None,
        now: float,
    ) -> None:
        page.chks[url] = key
        if self.config.push:
            have = page.have | page.pushed if self.config.chk else frozenset()
            base = previous if previous in page.have else None
            self._send(m.Push(self._object(url, status, stored, key, base, have)), now)
            if status == OK:
                page.pushed.add(key)
        elif len(page.chks) == len(page.embedded):
            entries = tuple(m.ListEntry(u, page.chks[u]) for u in page.embedded)
            self._send(m.PageList(page.url, entries), now)

    def _object(
        self,
        url: str,
        status: int,
        stored: Stored,
        key: bytes,
        base: bytes | None,
        have: frozenset[bytes],
    ) -> m.WireObject:
        """The smallest form the client can use: HAVE, DELTA or FULL (deflated)."""
        head = (url, status, stored.content_type, stored.encoding, key)
        fields = stored.fields
        if status == OK and self.config.chk and (key == base or key in have):
            return m.WireObject(*head, form=m.Form.HAVE, fields=fields)
        body, coding = stored.body, m.Coding.IDENTITY
        if (
            self.config.compress
            and stored.encoding == "identity"
            and fidelity(stored.content_type) == FIXED
        ):
            packed = [(deflate(body), m.Coding.DEFLATE)]
            if self.config.brotli:
                packed.append((brotli_compress(body), m.Coding.BROTLI))
            smallest = min(packed, key=lambda p: len(p[0]))
            if len(smallest[0]) < len(body):
                body, coding = smallest
        if status == OK and self.config.delta and base is not None and base != key:
            old = self.store.get(base)
            if old is not None:
                patch = make_delta(old.body, stored.body)
                if len(patch) < len(body):
                    return m.WireObject(
                        *head, form=m.Form.DELTA, base=base, body=patch, fields=fields
                    )
        return m.WireObject(*head, coding=coding, body=body, fields=fields)
