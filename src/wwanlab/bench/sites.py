"""A page model's origins for a real browser: one HTTP server per host name, and DNS.

Each host name of the page gets an address of its own in 198.18.0.0/15 (RFC 2544's
range for benchmarks, never routed) and an HTTP/1.1 server on port 80 there that serves
the page model's bodies with their types and encodings, its images replaced by decodable
pictures of the same format and size (``bench.images``). A DNS server answers the page's
names with those addresses, so a browser behind an emulated link resolves each one over
the link, as it would over GPRS. Every response carries an ``ETag`` (SHA-256 of the
body) and ``Cache-Control: max-age=0``: a revisit revalidates each object with a
conditional GET and gets ``304 Not Modified``, the cost a CHK cache saves (paper 003
4.1.3). All of it lives in the bench's own network namespace.
"""

from __future__ import annotations

import hashlib
import ipaddress
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

from aiohttp import web

from wwanlab.aio.udp import UdpDriver
from wwanlab.bench.images import served_object
from wwanlab.web.dns import DNS_PORT, ZoneServer
from wwanlab.web.page import Page, WebObject

BENCH_NET = ipaddress.IPv4Network("198.18.0.0/15")  # RFC 2544 26.3
DNS_ADDRESS = "198.18.0.1"
TUNNEL_ADDRESS = "198.18.0.2"
KCPTUN_ADDRESS = "198.18.0.3"
FIRST_SITE = ipaddress.IPv4Address("198.18.1.1")
HTTP_PORT = 80


def site_addresses(page: Page) -> dict[str, str]:
    """Each host name of ``page``, the main document's first, with its address."""
    return {host: str(FIRST_SITE + i) for i, host in enumerate(page.hosts())}


def etag(obj: WebObject) -> str:
    return '"' + hashlib.sha256(obj.body).hexdigest()[:32] + '"'


def served_site(page: Page) -> dict[str, WebObject]:
    """URL -> object as the origins serve it: ``page.site()`` with every image replaced
    by its decodable picture (what a body check must compare with)."""
    return {url: served_object(obj) for url, obj in page.site().items()}


def _handler(
    objects: dict[str, WebObject],
) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
    async def handle(request: web.Request) -> web.StreamResponse:
        obj = objects.get(request.path_qs)
        if obj is None:
            return web.Response(status=404, text="not in the page model\n")
        headers = {"ETag": etag(obj), "Cache-Control": "max-age=0"}
        if request.headers.get("If-None-Match") == headers["ETag"]:
            return web.Response(status=304, headers=headers)
        headers["Content-Type"] = obj.content_type
        if obj.encoding != "identity":
            headers["Content-Encoding"] = obj.encoding
        return web.Response(body=obj.body, headers=headers)

    return handle


@dataclass
class Served:
    """The running origins: the page's main URL and every body they serve by URL (the
    images as served: ``served_site``)."""

    main_url: str
    bodies: dict[str, WebObject]


@asynccontextmanager
async def serve_page(page: Page) -> AsyncIterator[Served]:
    """Run the page's origins and its DNS zone on their bench addresses (which must be
    this namespace's)."""
    addresses = site_addresses(page)
    served = served_site(page)
    by_host: dict[str, dict[str, WebObject]] = {h: {} for h in addresses}
    for obj in served.values():
        by_host[obj.host][obj.target] = obj
    runners = []
    dns = await UdpDriver.bind(
        ZoneServer({h: [a] for h, a in addresses.items()}), lambda _: None, (DNS_ADDRESS, DNS_PORT)
    )
    try:
        for host, address in addresses.items():
            app = web.Application()
            app.router.add_route("GET", "/{tail:.*}", _handler(by_host[host]))
            runner = web.AppRunner(app, access_log=None)
            await runner.setup()
            runners.append(runner)
            await web.TCPSite(runner, address, HTTP_PORT).start()
        yield Served(page.main.url, served)
    finally:
        for runner in runners:
            await runner.cleanup()
        dns.close()
        await dns.closed  # the next page binds the same address
