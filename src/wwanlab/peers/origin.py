"""A small HTTP origin server that serves fixed resources from memory.

WAP gateways (Kannel's wapbox, ours) fetch from an HTTP origin; to measure the gateway
and not a disk or a template engine, every body here is built once and served from
memory. The server also records every request it answered, so a test can check what a
gateway forwarded (method, path, headers, body size).

Routes:
- ``GET  /deck.wml``     a two-card WML deck (``text/vnd.wap.wml``; gateways compile it)
- ``GET  /body40k``      40 960 deterministic bytes (``application/octet-stream``)
- ``GET  /bytes/{n}``    ``n`` deterministic bytes, ``0 <= n <= MAX_GENERATED``
- ``POST /echo``         ``text/plain`` "received N bytes" for a body of N bytes
- any path added with ``OriginServer(resources=...)``

Use it from asyncio (``async with OriginServer() as origin``) or from synchronous code
on a private event loop in a thread (``with OriginServer().running_in_thread() as o``).
"""

import asyncio
import contextlib
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from aiohttp import web

WML_CONTENT_TYPE = "text/vnd.wap.wml"
OCTET_STREAM = "application/octet-stream"
MAX_GENERATED = 1 << 20  # bound for /bytes/{n}: a benchmark never needs more than 1 MiB

DECK_WML = (
    b'<?xml version="1.0"?>\n'
    b'<!DOCTYPE wml PUBLIC "-//WAPFORUM//DTD WML 1.1//EN" '
    b'"http://www.wapforum.org/DTD/wml_1.1.xml">\n'
    b"<wml>\n"
    b'<card id="main" title="wwanlab">\n'
    b'<p>Hello from the wwanlab origin. <a href="#second">Next</a></p>\n'
    b"</card>\n"
    b'<card id="second" title="Second">\n'
    b"<p>A second card.</p>\n"
    b"</card>\n"
    b"</wml>\n"
)


def pattern_bytes(n: int) -> bytes:
    """``n`` bytes of a fixed, non-repeating-looking but deterministic pattern.

    Byte ``i`` is ``(i * 7 + i // 256) % 256``: every value occurs, runs are short,
    and a truncated or reordered body is detected by comparing with this function.
    """
    return bytes((i * 7 + i // 256) % 256 for i in range(n))


BODY_40K = pattern_bytes(40 * 1024)


@dataclass(frozen=True)
class Resource:
    body: bytes
    content_type: str


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: tuple[tuple[str, str], ...]
    body_length: int

    def header(self, name: str) -> str | None:
        lowered = name.lower()
        return next((v for k, v in self.headers if k.lower() == lowered), None)


DEFAULT_RESOURCES: Mapping[str, Resource] = {
    "/deck.wml": Resource(DECK_WML, WML_CONTENT_TYPE),
    "/body40k": Resource(BODY_40K, OCTET_STREAM),
}


class OriginServer:
    """An aiohttp server on a loopback address serving ``resources`` from memory."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        resources: Mapping[str, Resource] | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.resources = dict(DEFAULT_RESOURCES)
        if resources:
            self.resources.update(resources)
        self.requests: list[RecordedRequest] = []
        self._runner: web.AppRunner | None = None

    def url(self, path: str) -> str:
        """The absolute URL of ``path`` on this server (after start)."""
        return f"http://{self.host}:{self.port}{path}"

    async def start(self) -> None:
        app = web.Application(client_max_size=MAX_GENERATED)
        app.router.add_post("/echo", self._echo)
        app.router.add_get("/bytes/{n}", self._generated)
        app.router.add_route("*", "/{tail:.*}", self._static)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        self.port = int(self._runner.addresses[0][1])

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> "OriginServer":
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    @contextlib.contextmanager
    def running_in_thread(self) -> Iterator["OriginServer"]:
        """Serve from a private event loop in a daemon thread, for synchronous callers."""
        loop = asyncio.new_event_loop()
        thread = threading.Thread(target=loop.run_forever, name="origin", daemon=True)
        thread.start()
        try:
            asyncio.run_coroutine_threadsafe(self.start(), loop).result(timeout=10)
            yield self
        finally:
            asyncio.run_coroutine_threadsafe(self.close(), loop).result(timeout=10)
            loop.call_soon_threadsafe(loop.stop)
            thread.join(timeout=10)
            loop.close()

    async def _record(self, request: web.Request) -> bytes:
        body = await request.read()
        headers = tuple(request.headers.items())
        self.requests.append(RecordedRequest(request.method, request.path, headers, len(body)))
        return body

    async def _static(self, request: web.Request) -> web.Response:
        await self._record(request)
        resource = self.resources.get(request.path)
        if resource is None:
            return web.Response(status=404, text="not found\n")
        if request.method not in ("GET", "HEAD"):
            return web.Response(status=405, headers={"Allow": "GET, HEAD"})
        # the Content-Type as written: a test may give any spelling (text/html;charset=x)
        return web.Response(body=resource.body, headers={"Content-Type": resource.content_type})

    async def _generated(self, request: web.Request) -> web.Response:
        await self._record(request)
        text = request.match_info["n"]
        if not text.isdigit() or int(text) > MAX_GENERATED:
            return web.Response(status=400, text=f"size must be 0..{MAX_GENERATED}\n")
        return web.Response(body=pattern_bytes(int(text)), content_type=OCTET_STREAM)

    async def _echo(self, request: web.Request) -> web.Response:
        body = await self._record(request)
        return web.Response(text=f"received {len(body)} bytes\n", content_type="text/plain")
