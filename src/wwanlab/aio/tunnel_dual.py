"""The tunnel's dual proxy on real sockets: the client's side answers a browser's plain
GETs through ``pep.dual.ClientProxy``; the server's side runs one ``pep.dual.ServerProxy``
per client, its origin access real HTTP/1.1 fetches (aiohttp) within the destination
policy. Their messages ride the tunnel's PROXY frames (``wwanlab.tunnel.dual``).

Bounds per client at the server: ``MAX_FETCHES`` origin fetches at once and
``MAX_QUEUED`` waiting (more fail at once), each body at most ``MAX_FETCH_BODY`` octets
(a larger one fails and the client fetches it as a stream), and a CHK store of
``SERVER_STORE`` octets: at most 16 x 2 + 8 = 40 MiB.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

import aiohttp

from wwanlab.core.events import Event
from wwanlab.pep.dual.client import ClientProxy
from wwanlab.pep.dual.server import ServerProxy
from wwanlab.pep.dual.store import ChkStore
from wwanlab.tunnel.dual import ProxyLink
from wwanlab.tunnel.frames import MAX_PROXY_MESSAGE, Refusal, Techniques
from wwanlab.tunnel.images import recompress
from wwanlab.web.fetcher import FetchFailed, ObjectArrived

log = logging.getLogger(__name__)

MAX_FETCHES = 16  # origin fetches at once per client (paper 003 4.2.1: 6 per server was best)
MAX_QUEUED = 512  # origin fetches waiting per client; a page embedding more is cut short
MAX_FETCH_BODY = 2 * 1024 * 1024  # octets of one body fetched for the dual proxy
SERVER_STORE = 8 * 1024 * 1024  # octets of a client's bodies the server keeps for deltas
FETCH_TIMEOUT = 60.0  # s: one origin fetch, connect to last octet
# s: how long the server holds dual-proxy messages to send them in one frame. Origins
# near the server answer a page's objects within milliseconds of each other; a GPRS
# round trip is 0.6-3 s, so the wait is nothing against what it saves.
COALESCE = 0.005
# What a browser of today sends for a page's objects; the dual proxy's fetches carry no
# request fields of the browser's (paper 003's server proxy fetched on its own).
FETCH_FIELDS = {"Accept": "*/*", "Accept-Encoding": "gzip, deflate"}

Resolver = Callable[[str, int], Awaitable[tuple[Refusal, str, str | None]]]


class OriginFetcher:
    """``pep.dual.server.OriginAccess`` over aiohttp: each URL resolved and checked by
    ``resolve`` (the server's destination policy), fetched without following redirects,
    its result handed to ``deliver``."""

    def __init__(
        self,
        session: aiohttp.ClientSession,
        resolve: Resolver,
        deliver: Callable[[Event], None],
        now: Callable[[], float],
        images: int,
    ) -> None:
        self.session = session
        self.resolve = resolve
        self.deliver = deliver
        self.now = now
        self.images = images
        self.tasks: set[asyncio.Task[None]] = set()
        self._slots = asyncio.Semaphore(MAX_FETCHES)

    def fetch(self, url: str, now: float) -> None:
        if len(self.tasks) >= MAX_QUEUED:
            self.deliver(FetchFailed(url, f"more than {MAX_QUEUED} fetches waiting", now))
            return
        task = asyncio.create_task(self._fetch(url))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def next_event(self) -> Event | None:
        return None  # results go to ``deliver`` as they come

    def close(self) -> None:
        for task in self.tasks:
            task.cancel()

    async def _fetch(self, url: str) -> None:
        async with self._slots:
            try:
                event = await asyncio.wait_for(self._get(url), FETCH_TIMEOUT)
            except TimeoutError:
                event = FetchFailed(url, f"no answer in {FETCH_TIMEOUT:.0f} s", self.now())
            except (aiohttp.ClientError, OSError, ValueError) as e:
                event = FetchFailed(url, f"{type(e).__name__}: {e}", self.now())
        self.deliver(event)

    async def _get(self, url: str) -> Event:
        parts = urlsplit(url)
        host, port = parts.hostname or "", parts.port or 80
        _, why, address = await self.resolve(host, port)
        if address is None:
            return FetchFailed(url, why, self.now())
        literal = f"[{address}]" if ":" in address else address
        target = f"http://{literal}:{port}{parts.path or '/'}"
        if parts.query:
            target += f"?{parts.query}"
        fields = {**FETCH_FIELDS, "Host": parts.netloc}
        async with self.session.get(
            target, headers=fields, allow_redirects=False, auto_decompress=False
        ) as response:
            chunks, size = [], 0
            async for chunk in response.content.iter_chunked(64 * 1024):
                size += len(chunk)
                if size > MAX_FETCH_BODY:
                    return FetchFailed(url, f"body over {MAX_FETCH_BODY} octets", self.now())
                chunks.append(chunk)
            body = b"".join(chunks)
            content_type = response.headers.get("Content-Type", "")
            encoding = response.headers.get("Content-Encoding", "identity")
            headers = tuple(
                (n.decode("latin-1"), v.decode("latin-1")) for n, v in response.raw_headers
            )
            status = response.status
        if self.images and status == 200 and encoding == "identity":
            kind = content_type.split(";")[0].strip().lower()
            smaller = await asyncio.to_thread(recompress, body, kind, self.images)  # ~0.1 s
            if smaller is not None:
                body = smaller
                headers = tuple((n, v) for n, v in headers if n.lower() != "etag")
        return ObjectArrived(url, status, body, content_type, encoding, 0, self.now(), headers)


class ServerDual:
    """One client's server side of the dual proxy."""

    def __init__(
        self,
        send: Callable[[bytes, float], None],
        techniques: Techniques,
        session: aiohttp.ClientSession,
        resolve: Resolver,
        now: Callable[[], float],
        pump: Callable[[], None],
    ) -> None:
        self.techniques = techniques
        self.now = now
        self.pump = pump
        self.link = ProxyLink(send)
        self.fetcher = OriginFetcher(session, resolve, self._origin, now, techniques.images)
        self.proxy = ServerProxy(
            self.link,
            self.fetcher,
            techniques.dual_config(),
            ChkStore(SERVER_STORE),
            max_message=MAX_PROXY_MESSAGE,
        )

        self._flush: asyncio.TimerHandle | None = None

    def on_message(self, data: bytes, now: float) -> None:
        self.link.deliver(data, now)
        self.proxy.handle_timer(now)  # the proxy reads what its link delivered
        self._drain()

    def close(self) -> None:
        self.fetcher.close()
        if self._flush is not None:
            self._flush.cancel()

    def _origin(self, event: Event) -> None:
        self.proxy.on_origin_event(event, self.now())
        self._drain()

    def _flushed(self) -> None:
        self._flush = None
        self.link.flush(self.now())
        self.pump()

    def _drain(self) -> None:
        while (event := self.proxy.next_event()) is not None:
            log.debug("dual proxy: %s", event)
        if self.link.waiting and self._flush is None:
            self._flush = asyncio.get_running_loop().call_later(COALESCE, self._flushed)


class ClientDual:
    """The client's side of the dual proxy: ``get`` a URL, as the browser asked for it."""

    def __init__(
        self,
        send: Callable[[bytes, float], None],
        techniques: Techniques,
        capacity: int,
        now: Callable[[], float],
        pump: Callable[[], None],
    ) -> None:
        self.now = now
        self.pump = pump
        self.link = ProxyLink(send)
        self.proxy = ClientProxy(self.link, techniques.dual_config(), ChkStore(capacity))
        self._waiting: dict[str, list[asyncio.Future[Event]]] = {}
        self._flush_soon = False

    async def get(self, url: str) -> Event:
        """``url``'s ``ObjectArrived``, or ``FetchFailed`` saying why not."""
        waiter: asyncio.Future[Event] = asyncio.get_running_loop().create_future()
        waiters = self._waiting.setdefault(url, [])
        waiters.append(waiter)
        if len(waiters) == 1:
            self.proxy.fetch(url, self.now())
            self._drain()
            if not self._flush_soon:  # the browser's requests of this moment go together
                self._flush_soon = True
                asyncio.get_running_loop().call_soon(self._flushed)
        return await waiter

    def _flushed(self) -> None:
        self._flush_soon = False
        self.link.flush(self.now())
        self.pump()

    def on_message(self, data: bytes, now: float) -> None:
        self.link.deliver(data, now)
        self.proxy.handle_timer(now)
        self._drain()
        self.link.flush(now)  # a retry after a rejected body; sent as the driver pumps

    def fail(self, reason: str, now: float) -> None:
        self.link.fail(reason, now)
        self.proxy.handle_timer(now)
        self._drain()

    def _drain(self) -> None:
        while (event := self.proxy.next_event()) is not None:
            if isinstance(event, ObjectArrived | FetchFailed):
                for waiter in self._waiting.pop(event.url, []):
                    if not waiter.done():
                        waiter.set_result(event)
            else:
                log.debug("dual proxy: %s", event)
