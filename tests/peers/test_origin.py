import asyncio
import urllib.error
import urllib.request

import aiohttp
import pytest

from wwanlab.peers.origin import (
    BODY_40K,
    DECK_WML,
    MAX_GENERATED,
    OriginServer,
    Resource,
    pattern_bytes,
)


def _get(url: str, data: bytes | None = None) -> tuple[int, str, bytes]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=data), timeout=5) as r:
            return r.status, r.headers["Content-Type"], r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers["Content-Type"], e.read()


def test_pattern_is_deterministic_and_uses_every_byte_value():
    assert pattern_bytes(5) == bytes([0, 7, 14, 21, 28])
    assert pattern_bytes(300)[256:258] == bytes([(256 * 7 + 1) % 256, (257 * 7 + 1) % 256])
    assert len(BODY_40K) == 40960
    assert set(BODY_40K) == set(range(256))


def test_serves_deck_40k_generated_and_echo_from_memory_in_a_thread():
    extra = {"/hello.txt": Resource(b"hi", "text/plain")}
    with OriginServer(resources=extra).running_in_thread() as origin:
        assert origin.port > 0
        assert _get(origin.url("/deck.wml")) == (200, "text/vnd.wap.wml", DECK_WML)
        assert _get(origin.url("/body40k")) == (200, "application/octet-stream", BODY_40K)
        assert _get(origin.url("/bytes/1000"))[2] == pattern_bytes(1000)
        assert _get(origin.url("/hello.txt"))[2] == b"hi"
        assert _get(origin.url("/echo"), b"x" * 5000)[2] == b"received 5000 bytes\n"
        assert _get(origin.url("/nothing"))[0] == 404
        assert _get(origin.url(f"/bytes/{MAX_GENERATED + 1}"))[0] == 400
        assert _get(origin.url("/deck.wml"), b"body")[0] == 405
        methods = [(r.method, r.path, r.body_length) for r in origin.requests]
    assert methods == [
        ("GET", "/deck.wml", 0),
        ("GET", "/body40k", 0),
        ("GET", "/bytes/1000", 0),
        ("GET", "/hello.txt", 0),
        ("POST", "/echo", 5000),
        ("GET", "/nothing", 0),
        ("GET", f"/bytes/{MAX_GENERATED + 1}", 0),
        ("POST", "/deck.wml", 4),
    ]
    assert origin.requests[0].header("user-agent") is not None


def test_async_context_manager_serves_and_closes():
    async def main() -> tuple[int, bytes, int]:
        async with OriginServer() as origin, aiohttp.ClientSession() as session:
            async with session.get(origin.url("/deck.wml")) as reply:
                body = await reply.read()
                status = reply.status
            port = origin.port
        return status, body, port

    status, body, port = asyncio.run(main())
    assert (status, body) == (200, DECK_WML)
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/deck.wml", timeout=2)
