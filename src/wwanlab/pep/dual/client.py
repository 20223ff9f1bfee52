"""The client-side proxy of the dual proxy (paper 003 2.1: "the software update is like
a client-side proxy"): on the mobile host, between the browser and the proxy link.

The browser calls ``fetch(url, now)`` and gets ``ObjectArrived`` or ``FetchFailed``;
what crosses the link depends on ``DualConfig`` (the server side must have the same):

- a main document's REQUEST names the CHK held for its URL (the delta base) and the CHKs
  held of the page's objects as last listed (so a push skips or deltas them);
- after a 200 text/html answer, when push or chk is on, a LIST follows: the browser's
  fetches wait for it; then an object promised for push is awaited (or delivered at
  once if it came already), one whose CHK is held is delivered from the store with
  nothing sent, one whose CHK another URL is already fetching waits for that (an alias
  crosses once), and anything else is REQUESTed with the CHK held for its URL;
- every body is decoded (inflate, bsdiff) within bounds and checked against its CHK: a
  failure is a ``BodyRejected`` event and one REQUEST without base or have-list; a
  second failure is ``FetchFailed``.

    event                           action
    fetch(url)                      deliver if pushed already; hold while a LIST is
                                    due; else resolve as above
    RESPONSE(id)                    decode, check, store, deliver to the URL and its
                                    aliases; a page's answer makes a LIST due
    PUSH                            decode, check, store; deliver if asked, else keep
    LIST                            note CHKs / promised pushes; resolve held fetches
    RESPONSE for no request, LIST   MessageRefused, nothing else changes
    for no page, malformed bytes
    channel fails                   FetchFailed for every fetch not yet delivered
"""

from dataclasses import dataclass

from wwanlab.core.contract import Endpoint
from wwanlab.core.events import Event
from wwanlab.core.layer import Layer
from wwanlab.pep.dual import messages as m
from wwanlab.pep.dual.coding import CodingError, apply_delta, chk, inflate, unbrotli
from wwanlab.pep.dual.config import DualConfig
from wwanlab.pep.dual.events import BodyRejected, MessageRefused
from wwanlab.pep.dual.server import FAILED, OK, is_html
from wwanlab.pep.dual.store import ChkStore, Stored
from wwanlab.transports.channel import ChannelFailed, MessageChannel, MessageReceived
from wwanlab.web.fetcher import FetchFailed, ObjectArrived, RequestSent


@dataclass(frozen=True, slots=True)
class _Sent:
    url: str
    chk: bytes | None  # the CHK the LIST gave, so aliases can wait on it
    retry: bool  # already a refetch after a rejected body


class ClientProxy(Layer):
    """The client side; a contract endpoint wherever its channel is bound."""

    def __init__(
        self, channel: MessageChannel, config: DualConfig, store: ChkStore | None = None
    ) -> None:
        self.channel = channel
        self.config = config
        self.store = store if store is not None else ChkStore()
        self.requests_sent = 0
        self.connection = 0  # what ``ObjectArrived.connection`` names: the channel's port
        self._next_id = 1
        self._sent: dict[int, _Sent] = {}
        self._asked: dict[str, None] = {}  # fetched by the browser, not yet delivered
        self._ready: dict[str, tuple[int, Stored]] = {}  # pushed, not yet asked for
        self._held: list[str] = []  # asked while a LIST is due
        self._list_due: str | None = None
        self._listed: dict[str, bytes] = {}  # url -> CHK from the last LIST
        self._promised: set[str] = set()
        self._by_chk: dict[bytes, list[str]] = {}  # CHK in flight -> URLs waiting for it
        self._events: list[Event] = []

    # --- the browser's side -----------------------------------------------------------

    def defer(self, event: Event) -> None:
        """Queue an event of the driver's (the timeline's connection) among the proxy's."""
        self._events.append(event)

    def fetch(self, url: str, now: float) -> None:
        """The browser wants ``url``; an ``ObjectArrived`` or ``FetchFailed`` follows."""
        ready = self._ready.pop(url, None)
        if ready is not None:
            self._deliver(url, *ready, now)
        elif self._list_due is not None:
            self._held.append(url)
        else:
            self._resolve(url, now)

    def _resolve(self, url: str, now: float) -> None:
        self._asked[url] = None
        if url in self._promised:
            return
        key = self._listed.get(url)
        if key is not None and self.config.chk:
            stored = self.store.get(key)
            if stored is not None:
                self._deliver(url, OK, stored, now)
                return
            if key in self._by_chk:
                self._by_chk[key].append(url)
                return
            self._by_chk[key] = [url]
        self._request(url, key, now)

    def _request(self, url: str, key: bytes | None, now: float, retry: bool = False) -> None:
        base: bytes | None = None
        have: tuple[bytes, ...] = ()
        if self.config.chk and not retry:
            base = self.store.base_for(url)
            listed = self.store.pages.get(url, ())
            have = tuple(
                dict.fromkeys(
                    c for u in listed if (c := self.store.url_chk.get(u)) and c in self.store
                )
            )[: m.MAX_HAVE]
        ident = self._next_id
        self._next_id += 1
        self._sent[ident] = _Sent(url, key, retry)
        self.requests_sent += 1
        self._events.append(RequestSent(url, self.connection, now))
        self.channel.send_message(m.encode(m.Request(ident, url, base, have)), now)

    def _deliver(self, url: str, status: int, stored: Stored, now: float) -> None:
        self._asked.pop(url, None)
        if status == FAILED:
            reason = stored.body.decode("utf-8", errors="replace")
            self._events.append(FetchFailed(url, reason, now))
            return
        self._events.append(
            ObjectArrived(
                url,
                status,
                stored.body,
                stored.content_type,
                stored.encoding,
                self.connection,
                now,
                _header_fields(stored.fields),
            )
        )

    # --- the channel's side -----------------------------------------------------------

    def _lower(self) -> Endpoint:
        return self.channel

    def _pump(self, now: float) -> None:
        while (event := self.channel.next_event()) is not None:
            if isinstance(event, MessageReceived):
                self._on_message(event.data, now)
            elif isinstance(event, ChannelFailed):
                self._fail_all(f"proxy channel failed: {event.reason}", now)

    def _on_message(self, data: bytes, now: float) -> None:
        try:
            message = m.decode(data)
        except m.MessageError as error:
            self._events.append(MessageRefused(str(error), now))
            return
        if isinstance(message, m.Response):
            sent = self._sent.pop(message.id, None)
            if sent is None or sent.url != message.object.url:
                self._events.append(MessageRefused(f"response {message.id} to no request", now))
                if sent is not None:
                    self._sent[message.id] = sent
                return
            self._on_object(message.object, sent, now)
        elif isinstance(message, m.Push):
            url = message.object.url
            if url not in self._promised:
                self._events.append(MessageRefused(f"push of {url}, which was not promised", now))
                return
            self._promised.discard(url)
            self._on_object(message.object, _Sent(url, None, False), now)
        elif isinstance(message, m.PageList):
            self._on_list(message, now)
        else:
            self._events.append(MessageRefused("a server sent a REQUEST", now))

    def _on_object(self, obj: m.WireObject, sent: _Sent, now: float) -> None:
        try:
            stored = self._decode(obj)
        except CodingError as error:
            self._events.append(BodyRejected(obj.url, str(error), now))
            if sent.retry:
                self._fail(obj.url, sent.chk, f"body rejected twice: {error}", now)
            else:
                self._request(obj.url, sent.chk, now, retry=True)
            return
        if obj.status == OK and self.config.chk:
            self.store.put(obj.chk, stored, obj.url)
        listed = obj.status == OK and self.config.lists_pages and is_html(obj.content_type)
        if listed and obj.url in self._asked:
            self._list_due = obj.url
        aliases = [u for u in self._by_chk.pop(sent.chk, []) if u != obj.url] if sent.chk else []
        if obj.url in self._asked:
            self._deliver(obj.url, obj.status, stored, now)
        else:
            self._ready[obj.url] = (obj.status, stored)
        for url in aliases:
            if sent.chk == obj.chk:
                self._deliver(url, obj.status, stored, now)
            else:  # the object changed since the LIST: the alias may have too
                self._request(url, None, now)

    def _decode(self, obj: m.WireObject) -> Stored:
        """The object's body as the origin served it, checked against its CHK."""
        body = obj.body
        if obj.coding is m.Coding.DEFLATE:
            body = inflate(body)
        elif obj.coding is m.Coding.BROTLI:
            body = unbrotli(body)
        if obj.form is not m.Form.FULL:
            wanted = obj.chk if obj.base is None else obj.base
            held = self.store.get(wanted)
            if held is None:
                raise CodingError(f"{obj.form.name} names a CHK this client does not hold")
            body = held.body if obj.base is None else apply_delta(held.body, body)
        if obj.status != FAILED and chk(body) != obj.chk:
            raise CodingError("body does not match its CHK")
        return Stored(obj.content_type, obj.encoding, body, obj.fields)

    def _on_list(self, message: m.PageList, now: float) -> None:
        if message.page != self._list_due:
            self._events.append(MessageRefused(f"LIST for {message.page}, not a page", now))
            return
        self._list_due = None
        urls = tuple(entry.url for entry in message.entries)
        if self.config.chk:
            self.store.pages[message.page] = urls
        if message.pushed:
            self._promised = set(urls)
        self._listed = {e.url: e.chk for e in message.entries if e.chk is not None}
        held, self._held = self._held, []
        for url in held:
            self.fetch(url, now)

    def _fail(self, url: str, key: bytes | None, reason: str, now: float) -> None:
        for alias in self._by_chk.pop(key, [url]) if key else [url]:
            self._asked.pop(alias, None)
            self._events.append(FetchFailed(alias, reason, now))

    def _fail_all(self, reason: str, now: float) -> None:
        for url in [*self._asked, *self._held]:
            self._events.append(FetchFailed(url, reason, now))
        self._asked.clear()
        self._held.clear()
        self._sent.clear()
        self._by_chk.clear()
        self._promised.clear()
        self._list_due = None


def _header_fields(fields: str) -> tuple[tuple[str, str], ...]:
    """``WireObject.fields`` as (name, value) pairs."""
    pairs = (line.partition(":") for line in fields.split("\r\n") if line)
    return tuple((name.strip(), value.strip()) for name, _, value in pairs)
