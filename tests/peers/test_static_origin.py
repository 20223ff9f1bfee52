import asyncio

from wwanlab.peers.origin import DECK_WML, Resource
from wwanlab.peers.static_origin import StaticOrigin

NOT_FOUND = b"HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 0\r\n\r\n"
DECK_HEAD = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/vnd.wap.wml\r\n"
    + f"Content-Length: {len(DECK_WML)}\r\n\r\n".encode()
)


async def _exchange(origin: StaticOrigin, request: bytes, expect_close: bool) -> bytes:
    reader, writer = await asyncio.open_connection(origin.host, origin.port)
    writer.write(request)
    await writer.drain()
    if expect_close:
        data = await asyncio.wait_for(reader.read(), 5)
    else:
        data = await asyncio.wait_for(reader.read(65536), 5)
    writer.close()
    return data


def test_pipelined_keep_alive_requests_get_exact_responses_in_order():
    async def main() -> bytes:
        async with StaticOrigin() as origin:
            request = b"GET /deck.wml HTTP/1.1\r\nHost: o\r\n\r\n"
            head = b"HEAD /deck.wml HTTP/1.1\r\nHost: o\r\n\r\n"
            missing = b"GET /nothing HTTP/1.1\r\nHost: o\r\n\r\n"
            reader, writer = await asyncio.open_connection(origin.host, origin.port)
            writer.write(request + head + missing)
            expected = len(DECK_HEAD) * 2 + len(DECK_WML) + len(NOT_FOUND)
            data = b""
            while len(data) < expected:
                data += await asyncio.wait_for(reader.read(65536), 5)
            writer.close()
            return data

    data = asyncio.run(main())
    assert data == DECK_HEAD + DECK_WML + DECK_HEAD + NOT_FOUND


def test_http10_and_connection_close_are_answered_then_closed():
    async def main() -> list[bytes]:
        extra = {"/t": Resource(b"hi", "text/plain")}
        async with StaticOrigin(resources=extra) as origin:
            return [
                await _exchange(origin, b"GET /t HTTP/1.0\r\n\r\n", expect_close=True),
                await _exchange(
                    origin, b"GET /t HTTP/1.1\r\nConnection: close\r\n\r\n", expect_close=True
                ),
            ]

    answer = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi"
    assert asyncio.run(main()) == [answer, answer]


def test_a_malformed_request_gets_400_and_the_connection_closes():
    async def main() -> bytes:
        async with StaticOrigin() as origin:
            return await _exchange(origin, b"NONSENSE\r\n\r\n", expect_close=True)

    assert asyncio.run(main()) == (
        b"HTTP/1.1 400 Bad Request\r\nContent-Type: application/octet-stream\r\n"
        b"Content-Length: 0\r\nConnection: close\r\n\r\n"
    )
