"""The gateway's origin client against a scripted TCP origin: the exact request bytes,
keep-alive reuse, origins that close, bodies over the bound, malformed answers, policy."""

import asyncio
import gzip
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from wwanlab.aio.origin_client import OriginClient, OriginRefused, OriginUnreachable
from wwanlab.wap.gateway.policy import OriginPolicy
from wwanlab.web.http1 import BodyTooLarge, HttpError

LOOPBACK = OriginPolicy.from_strings(["127.0.0.0/8"])
OK = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi"
CLOSE = b""  # script entry: close the connection instead of answering


class ScriptedOrigin:
    """Answers each request with the next entry of ``script``, recording what it read."""

    def __init__(self, script: list[bytes]) -> None:
        self.script = list(script)
        self.received: list[tuple[int, bytes]] = []  # (connection number, request octets)
        self.connections = 0
        self.port = 0
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> "ScriptedOrigin":
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        assert self._server is not None
        self._server.close()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        number = self.connections
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    (
                        int(line[15:])
                        for line in head.split(b"\r\n")
                        if line.startswith(b"Content-Length:")
                    ),
                    0,
                )
                self.received.append((number, head + await reader.readexactly(length)))
                answer = self.script.pop(0)
                if answer is CLOSE:
                    break
                writer.write(answer)
                await writer.drain()
                framed = b"Content-Length" in answer or b"chunked" in answer
                if not framed or b"Connection: close" in answer:
                    break  # the answer ends with the connection
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        writer.close()


def run(
    script: list[bytes], body: Callable[[ScriptedOrigin, OriginClient], Awaitable[Any]]
) -> Any:
    async def main() -> Any:
        async with ScriptedOrigin(script) as origin:
            client = OriginClient(LOOPBACK, max_body=100)
            try:
                return await asyncio.wait_for(body(origin, client), 10)
            finally:
                await client.close()

    return asyncio.run(main())


def test_request_bytes_are_exact_and_the_connection_is_kept_for_the_next_fetch():
    async def body(origin: ScriptedOrigin, client: OriginClient) -> None:
        first = await client.fetch(
            "GET", origin.url("/a?x=1#frag"), [("Accept", "*/*"), ("Host", "spoofed")]
        )
        second = await client.fetch("POST", origin.url("/b"), [("Connection", "close")], b"abc")
        assert [(r.status, r.header("content-type"), r.body) for r in (first, second)] == [
            (200, "text/plain", b"hi"),
        ] * 2
        host = f"127.0.0.1:{origin.port}".encode()
        assert origin.received == [
            (1, b"GET /a?x=1 HTTP/1.1\r\nHost: " + host + b"\r\nAccept: */*\r\n"
                b"Accept-Encoding: gzip, deflate\r\n\r\n"),
            (1, b"POST /b HTTP/1.1\r\nHost: " + host + b"\r\n"
                b"Accept-Encoding: gzip, deflate\r\nContent-Length: 3\r\n\r\nabc"),
        ]  # fmt: skip
        assert client.connections_opened == 1

    run([OK, OK], body)


def test_a_response_that_closes_is_not_reused():
    closing = b"HTTP/1.0 200 OK\r\n\r\nuntil close"
    kept_10 = b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nhi"

    async def body(origin: ScriptedOrigin, client: OriginClient) -> list[bytes]:
        bodies = [(await client.fetch("GET", origin.url(f"/{i}"), [])).body for i in range(4)]
        assert [n for n, _ in origin.received] == [1, 2, 2, 3]
        return bodies

    script = [
        closing,
        kept_10,
        b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nhi",
        OK,
    ]
    assert run(script, body) == [b"until close", b"hi", b"hi", b"hi"]


def test_an_idle_connection_the_origin_closed_is_replaced_for_a_get_and_not_for_a_post():
    async def body(origin: ScriptedOrigin, client: OriginClient) -> None:
        await client.fetch("GET", origin.url("/1"), [])
        retried = await client.fetch("GET", origin.url("/2"), [])  # answered by CLOSE first
        assert retried.body == b"hi"
        assert [n for n, _ in origin.received] == [1, 1, 2]
        with pytest.raises(ConnectionResetError, match="a POST is not sent twice"):
            await client.fetch("POST", origin.url("/3"), [], b"x")

    run([OK, CLOSE, OK, CLOSE], body)


def test_octets_after_a_response_keep_its_connection_from_being_reused():
    async def body(origin: ScriptedOrigin, client: OriginClient) -> None:
        assert (await client.fetch("GET", origin.url("/1"), [])).body == b"hi"
        assert (await client.fetch("GET", origin.url("/2"), [])).body == b"hi"
        assert [n for n, _ in origin.received] == [1, 2]

    run([OK + b"HTTP/1.1 2", OK], body)


def test_an_origin_that_closes_a_new_connection_unanswered_is_an_error_not_a_retry():
    async def body(origin: ScriptedOrigin, client: OriginClient) -> None:
        with pytest.raises(ConnectionResetError):
            await client.fetch("GET", origin.url("/"), [])
        assert origin.connections == 1

    run([CLOSE], body)


@pytest.mark.parametrize(
    "answer",
    [
        b"HTTP/1.1 200 OK\r\nContent-Length: 101\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n64\r\n" + b"x" * 100 + b"\r\n1\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n"
        % len(gzip.compress(b"x" * 101))
        + gzip.compress(b"x" * 101),
    ],
)
def test_a_body_over_the_bound_is_refused(answer: bytes):
    async def body(origin: ScriptedOrigin, client: OriginClient) -> None:
        with pytest.raises(BodyTooLarge):
            await client.fetch("GET", origin.url("/"), [])

    run([answer], body)


def test_chunked_gzip_body_is_decoded_and_a_head_response_has_no_body():
    packed = gzip.compress(b"hello world")
    chunked = (
        b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n"
        + b"%x\r\n" % 5 + packed[:5] + b"\r\n"
        + b"%x\r\n" % (len(packed) - 5) + packed[5:] + b"\r\n0\r\n\r\n"
    )  # fmt: skip
    head = b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n"

    async def body(origin: ScriptedOrigin, client: OriginClient) -> list[bytes]:
        early = b"HTTP/1.1 103 Early Hints\r\nLink: </s.css>\r\n\r\n"
        got = await client.fetch("GET", origin.url("/"), [])
        headed = await client.fetch("HEAD", origin.url("/"), [])
        assert (headed.status, headed.header("content-length")) == (200, "50")
        origin.script.append(early + OK)
        after = await client.fetch("GET", origin.url("/"), [])
        assert client.connections_opened == 1
        return [got.body, headed.body, after.body]

    assert run([chunked, head], body) == [b"hello world", b"", b"hi"]


def test_a_bad_status_line_is_an_http_error_that_quotes_it():
    async def body(origin: ScriptedOrigin, client: OriginClient) -> None:
        with pytest.raises(HttpError, match="bad status line 'ICY 200 OK'"):
            await client.fetch("GET", origin.url("/"), [])

    run([b"ICY 200 OK\r\n\r\n"], body)


@pytest.mark.parametrize(
    ("url", "headers"),
    [
        ("http://127.0.0.1:1/a b", []),
        ("http://127.0.0.1:1/", [("X-A", "1\r\nX-Injected: 2")]),
        ("ftp://127.0.0.1/", []),
        ("http://127.0.0.1:99999/", []),
    ],
)
def test_what_cannot_be_sent_is_a_value_error_before_connecting(url, headers):
    async def main() -> None:
        with pytest.raises(ValueError):
            await OriginClient(LOOPBACK, 100).fetch("GET", url, headers)

    asyncio.run(main())


@pytest.mark.parametrize(
    ("url", "error", "message"),
    [
        ("http://127.0.0.1/", OriginRefused, "origin 127.0.0.1 is not allowed"),
        ("http://[::1]:80/", OriginRefused, "origin ::1 is not allowed"),
        ("http://localhost/", OriginRefused, "origin localhost resolves only to refused"),
        ("http://name.invalid/", OriginUnreachable, "cannot connect to origin"),
    ],
)
def test_the_policy_is_checked_on_literals_and_resolved_names(url, error, message):
    async def main() -> None:
        with pytest.raises(error, match=message):
            await OriginClient(OriginPolicy(), 100).fetch("GET", url, [])

    asyncio.run(main())


def test_a_closed_port_is_unreachable():
    async def main() -> None:
        with pytest.raises(OriginUnreachable, match="cannot connect to origin"):
            await OriginClient(LOOPBACK, 100).fetch("GET", "http://127.0.0.1:1/", [])

    asyncio.run(main())


def test_a_fetch_cancelled_by_its_timeout_closes_its_connection():
    async def body(origin: ScriptedOrigin, client: OriginClient) -> None:
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.2):
                await client.fetch("GET", origin.url("/slow"), [])
        got = await client.fetch("GET", origin.url("/next"), [])
        assert got.body == b"hi"
        assert [n for n, _ in origin.received] == [1, 2]

    run([b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n", OK], body)
