"""The bench's HTTP file server and client: exact bodies, bounds, congestion control."""

import asyncio
import hashlib
import socket

import pytest

from wwanlab.bench.http import (
    MAX_HEAD,
    BenchProtocolError,
    Fetched,
    FileServer,
    file_path,
    http_get,
    read_response,
    set_congestion_control,
)
from wwanlab.bench.transports.tcp import AVAILABLE

FILES = {file_path(5000): bytes(range(256)) * 19 + b"x" * 136}


def test_get_returns_exact_body_digest_and_times():
    async def main() -> Fetched:
        async with FileServer("127.0.0.1", FILES) as server:
            fetched = await http_get("127.0.0.1", server.port, "/f/5000")
            assert server.served == 1
            return fetched

    fetched = asyncio.run(main())
    assert fetched.size == 5000
    assert fetched.sha256 == hashlib.sha256(FILES["/f/5000"]).hexdigest()
    assert fetched.handshake_s is not None
    assert 0 < fetched.handshake_s <= fetched.complete_s
    assert Fetched.from_json(fetched.to_json()) == fetched


def test_unknown_path_is_a_protocol_error():
    async def main() -> None:
        async with FileServer("127.0.0.1", FILES) as server:
            await http_get("127.0.0.1", server.port, "/f/4")

    with pytest.raises(BenchProtocolError, match="404"):
        asyncio.run(main())


@pytest.mark.parametrize(
    ("response", "message"),
    [
        (b"HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n", "Content-Length"),
        (b"HTTP/1.1 200 OK\r\n\r\n", "Content-Length"),
        (b"HTTP/1.1 200 OK\r\nX: " + b"y" * MAX_HEAD + b"\r\n\r\n", "head longer"),
    ],
)
def test_response_lengths_are_bounded_before_use(response, message):
    async def main() -> None:
        reader = asyncio.StreamReader(limit=MAX_HEAD)
        reader.feed_data(response)
        reader.feed_eof()
        await read_response(reader)

    with pytest.raises(BenchProtocolError, match=message):
        asyncio.run(main())


def test_accepted_connections_inherit_the_listeners_congestion_control():
    with socket.socket() as listener, socket.socket() as client:
        set_congestion_control(listener, "reno")
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        client.connect(listener.getsockname())
        accepted, _ = listener.accept()
        with accepted:
            name = accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16)
        assert name.rstrip(b"\0") == b"reno"


@pytest.mark.parametrize("cc", ["reno", "cubic", "bbr"])
def test_the_server_reads_back_what_each_connection_ran(cc):
    if cc not in AVAILABLE.read_text().split():
        pytest.skip(f"the kernel does not offer {cc}")

    async def main() -> list[str]:
        async with FileServer("127.0.0.1", {"/f/10": b"x" * 10}, congestion_control=cc) as s:
            await http_get("127.0.0.1", s.port, "/f/10")
            await http_get("127.0.0.1", s.port, "/f/10")
            return s.congestion_controls

    assert asyncio.run(main()) == [cc, cc]
