"""Paper 003's techniques in the tunnel, on loopback: a page through the client's HTTP
proxy arrives byte for byte with its embedded objects pushed (one REQUEST crosses for
the whole page), a revisit's validators are answered 304 without a body crossing, a
changed object crosses as a bsdiff delta, text crosses compressed, and a request with
credentials goes as a stream, untouched."""

import asyncio
import hashlib
import random
from collections.abc import Callable
from typing import ClassVar

from aiohttp import web

from wwanlab.aio.tunnel import TunnelClientProxy, TunnelServerProxy
from wwanlab.aio.tunnel_dual import ServerDual
from wwanlab.pep.dual import messages as m
from wwanlab.tunnel.frames import Techniques
from wwanlab.tunnel.policy import parse_networks
from wwanlab.tunnel.seal import Keys

KEYS = Keys.from_psk(bytes(range(32)))
WORDS = ("var", "x", "=", "function", "(", ")", "{", "}", ";", "return", "if", "1", "2")
SCRIPT = " ".join(random.Random(4).choices(WORDS, k=3000)).encode()
PICTURE = random.Random(3).randbytes(20_000)


def site(port: int) -> dict[str, tuple[str, bytes]]:
    base = f"http://127.0.0.1:{port}"
    html = (
        f'<html><script src="{base}/a.js"></script><img src="/p.gif">'
        f'<link rel=stylesheet href="s.css"></html>'
    ).encode()
    return {
        "/": ("text/html", html),
        "/a.js": ("application/javascript", SCRIPT),
        "/p.gif": ("image/gif", PICTURE),
        "/s.css": ("text/css", b"body { color: red }\n" * 50),
    }


async def origin(pages: dict[str, tuple[str, bytes]], hits: list[str]) -> web.AppRunner:
    async def handle(request: web.Request) -> web.Response:
        hits.append(request.path)
        kind, body = pages[request.path]
        etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
        if request.headers.get("If-None-Match") == etag:
            return web.Response(status=304, headers={"ETag": etag})
        return web.Response(body=body, headers={"Content-Type": kind, "ETag": etag})

    app = web.Application()
    app.router.add_get("/{tail:.*}", handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    return runner


async def get(http: int, url: str, *fields: str) -> tuple[bytes, dict[str, str], bytes]:
    reader, writer = await asyncio.open_connection("127.0.0.1", http)
    extra = "".join(f"{f}\r\n" for f in fields)
    writer.write(f"GET {url} HTTP/1.1\r\nHost: x\r\n{extra}\r\n".encode())
    data = await asyncio.wait_for(reader.read(), 30)
    writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    status, *lines = head.decode("latin-1").split("\r\n")
    named = (line.partition(":") for line in lines)
    return status.encode(), {n.lower(): v.strip() for n, _, v in named}, body


def spy(send: Callable[[bytes, float], None], seen: list[m.Message]) -> Callable[..., None]:
    def wrapped(payload: bytes, now: float) -> None:
        at = 0
        while at < len(payload):
            size = int.from_bytes(payload[at : at + 4], "big")
            seen.append(m.decode(payload[at + 4 : at + 4 + size]))
            at += 4 + size
        send(payload, now)

    return wrapped


class SpiedServer(TunnelServerProxy):
    """The server, every dual-proxy message it sends decoded into ``sent``."""

    sent: ClassVar[list[m.Message]] = []

    def _dual(self, client: bytes, techniques: Techniques) -> ServerDual:
        dual = super()._dual(client, techniques)
        if not getattr(dual.link, "spied", False):
            dual.link._send = spy(dual.link._send, self.sent)
            dual.link.spied = True  # type: ignore[attr-defined]
        return dual


def test_page_pushed_revisit_validated_change_as_delta() -> None:
    async def main() -> None:
        hits: list[str] = []
        pages: dict[str, tuple[str, bytes]] = {}
        runner = await origin(pages, hits)
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        port = runner.addresses[0][1]
        pages.update(site(port))
        server = SpiedServer([KEYS], parse_networks(["127.0.0.0/8"]))
        sent = server.sent
        udp = await server.start(("127.0.0.1", 0))
        client = TunnelClientProxy(udp, KEYS, techniques=Techniques())
        _, http_at = await client.start(None, ("127.0.0.1", 0))
        assert http_at is not None and client.dual is not None
        http, base = http_at[1], f"http://127.0.0.1:{port}"

        status, fields, body = await get(http, base + "/")
        assert status == b"HTTP/1.1 200 OK" and body == pages["/"][1]
        etags = {}
        for path in ("/a.js", "/p.gif", "/s.css"):
            status, fields, body = await get(http, base + path)
            assert status == b"HTTP/1.1 200 OK" and body == pages[path][1], path
            assert fields["content-type"] == pages[path][0]
            etags[path] = fields["etag"]
        assert client.dual.proxy.requests_sent == 1  # the page; its objects were pushed
        assert sorted(hits) == ["/", "/a.js", "/p.gif", "/s.css"]
        pushed = {x.object.url.rsplit("/", 1)[1]: x.object for x in sent if isinstance(x, m.Push)}
        assert pushed["a.js"].coding in (m.Coding.BROTLI, m.Coding.DEFLATE)
        assert len(pushed["a.js"].body) < len(SCRIPT) / 2
        assert pushed["p.gif"].coding is m.Coding.IDENTITY  # random octets: sent as they are

        # the revisit: every validator answered 304 here, no body crossed
        sent.clear()
        status, _, _ = await get(http, base + "/", f"If-None-Match: {fields['etag']}")
        for path in ("/a.js", "/p.gif", "/s.css"):
            status, _, body = await get(http, base + path, f"If-None-Match: {etags[path]}")
            assert status == b"HTTP/1.1 304 Not Modified" and body == b"", path
        objects = [x.object for x in sent if isinstance(x, m.Response | m.Push)]
        assert {o.form for o in objects} == {m.Form.HAVE}
        assert client.dual.proxy.requests_sent == 2

        # one object changed a little: it crosses as a bsdiff delta
        pages["/a.js"] = ("application/javascript", SCRIPT + b"var y = 2;\n")
        sent.clear()
        await get(http, base + "/")
        status, _, body = await get(http, base + "/a.js", f"If-None-Match: {etags['/a.js']}")
        assert status == b"HTTP/1.1 200 OK" and body == pages["/a.js"][1]
        forms = {
            x.object.url.rsplit("/", 1)[1]: x.object.form for x in sent if isinstance(x, m.Push)
        }
        assert forms == {"a.js": m.Form.DELTA, "p.gif": m.Form.HAVE, "s.css": m.Form.HAVE}

        # a request with credentials is the origin's business: a stream, untouched
        requests = client.dual.proxy.requests_sent
        status, _, body = await get(http, base + "/s.css", "Cookie: id=1")
        assert status == b"HTTP/1.1 200 OK" and body == pages["/s.css"][1]
        assert client.dual.proxy.requests_sent == requests
        await client.close()
        server.close()
        await server.wait_closed()
        await runner.cleanup()

    asyncio.run(main())
