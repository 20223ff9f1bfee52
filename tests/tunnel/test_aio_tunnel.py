"""The tunnel on real sockets, on loopback: an origin's octets arrive byte for byte
through the client's SOCKS5 and HTTP proxies, over UDP or TCP (by choice, or falling back
when UDP brings nothing back); the policy refuses loopback by default; hostile TCP
connections get not one octet and are closed."""

import asyncio
import hashlib
import random
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from wwanlab.aio.tunnel import TunnelClientProxy, TunnelServerProxy, _ProxyRequest
from wwanlab.tunnel.over_tcp import MAX_BAD, framed
from wwanlab.tunnel.policy import parse_networks
from wwanlab.tunnel.seal import Keys

KEYS = Keys.from_psk(bytes(range(32)))
BODY = random.Random(5).randbytes(300_000)


async def origin() -> tuple[asyncio.Server, int]:
    """An HTTP/1.0 origin answering every request with ``BODY``."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.0 200 OK\r\nContent-Length: %d\r\n\r\n" % len(BODY) + BODY)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


async def tunnel(allow: list[str]) -> tuple[TunnelServerProxy, TunnelClientProxy, int, int]:
    server = TunnelServerProxy([KEYS], parse_networks(allow))
    udp = await server.start(("127.0.0.1", 0))
    client = TunnelClientProxy(udp, KEYS)
    socks, http = await client.start(("127.0.0.1", 0), ("127.0.0.1", 0))
    assert socks is not None and http is not None
    return server, client, socks[1], http[1]


async def read_response(reader: asyncio.StreamReader) -> bytes:
    data = await asyncio.wait_for(reader.read(), 30)
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.0 200 OK"), head
    return body


def test_socks5_and_http_proxy_deliver_every_octet() -> None:
    async def main() -> None:
        web, port = await origin()
        server, client, socks, http = await tunnel(["127.0.0.0/8"])
        # SOCKS5 with a domain name: the client resolves nothing, the server does
        r, w = await asyncio.open_connection("127.0.0.1", socks)
        w.write(b"\x05\x01\x00")
        assert await r.readexactly(2) == b"\x05\x00"
        w.write(b"\x05\x01\x00\x03\x09localhost" + port.to_bytes(2, "big"))
        assert (await r.readexactly(10))[:2] == b"\x05\x00"
        w.write(b"GET / HTTP/1.0\r\n\r\n")
        assert hashlib.sha256(await read_response(r)).digest() == hashlib.sha256(BODY).digest()
        # the HTTP proxy, plain request in absolute form
        r, w = await asyncio.open_connection("127.0.0.1", http)
        w.write(
            b"GET http://127.0.0.1:%d/x HTTP/1.0\r\nProxy-Connection: keep-alive\r\n\r\n" % port
        )
        assert await read_response(r) == BODY
        # the HTTP proxy, CONNECT
        r, w = await asyncio.open_connection("127.0.0.1", http)
        w.write(b"CONNECT 127.0.0.1:%d HTTP/1.1\r\n\r\n" % port)
        assert await r.readuntil(b"\r\n\r\n") == b"HTTP/1.1 200 Connection Established\r\n\r\n"
        w.write(b"GET / HTTP/1.0\r\n\r\n")
        assert await read_response(r) == BODY
        assert server.endpoint.rejected == {}
        await client.close()
        server.close()
        web.close()

    asyncio.run(main())


def test_policy_refuses_loopback_unless_allowed() -> None:
    async def main() -> None:
        web, port = await origin()
        server, client, socks, http = await tunnel([])
        r, w = await asyncio.open_connection("127.0.0.1", socks)
        w.write(b"\x05\x01\x00\x05\x01\x00\x01\x7f\x00\x00\x01" + port.to_bytes(2, "big"))
        assert await asyncio.wait_for(r.readexactly(12), 10) == b"\x05\x00" + (
            b"\x05\x02\x00\x01" + bytes(6)  # 2: not allowed by ruleset
        )
        r, w = await asyncio.open_connection("127.0.0.1", http)
        w.write(b"GET http://localhost:%d/ HTTP/1.0\r\n\r\n" % port)
        reply = await asyncio.wait_for(r.read(), 10)
        assert reply.startswith(b"HTTP/1.1 502 Bad Gateway") and b"not a global address" in reply
        await client.close()
        server.close()
        web.close()

    asyncio.run(main())


@pytest.mark.parametrize(
    ("head", "parsed"),
    [
        (b"CONNECT example.org:443 HTTP/1.1\r\n\r\n", ("example.org", 443, True)),
        (b"CONNECT [2001:db8::1]:443 HTTP/1.1\r\n\r\n", ("2001:db8::1", 443, True)),
        (
            b"GET http://example.org/a?b HTTP/1.1\r\nHost: example.org\r\n\r\n",
            ("example.org", 80, False),
        ),
        (b"CONNECT example.org HTTP/1.1\r\n\r\n", None),
        (b"CONNECT example.org:0 HTTP/1.1\r\n\r\n", None),
        (b"GET /relative HTTP/1.1\r\n\r\n", None),
        (b"GET http://[::1 HTTP/1.1\r\n\r\n", None),
        (b"GET http://example.org:99999/ HTTP/1.1\r\n\r\n", None),
        (b"garbage\r\n\r\n", None),
    ],
)
def test_proxy_request_parsing(head: bytes, parsed: tuple[str, int, bool] | None) -> None:
    request = _ProxyRequest.parse(head)
    if parsed is None:
        assert request is None
        return
    assert request is not None and (request.host, request.port, request.connect) == parsed
    if not request.connect:
        assert request.forward == (
            b"GET /a?b HTTP/1.1\r\nHost: example.org\r\nConnection: close\r\n\r\n"
        )


def test_command_line_errors(tmp_path: Path) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        code = "from wwanlab.cli import main; main()"
        return subprocess.run(
            [sys.executable, "-c", code, "tunnel", *args], capture_output=True, text=True
        )

    key = tmp_path / "k"
    assert run("keygen", str(key)).returncode == 0
    again = run("keygen", str(key))
    assert (again.returncode, again.stderr) == (
        2,
        f"wwanlab: error: {key} exists: a key is never overwritten\n",
    )
    missing = run("server", "--key", str(tmp_path / "none"))
    assert missing.returncode == 2 and "cannot read the key file" in missing.stderr
    bad = run("client", "--server", "example.org", "--key", str(key))
    assert bad.returncode == 2 and "--server 'example.org' is not HOST:PORT" in bad.stderr
    allow = run("server", "--key", str(key), "--allow", "ten")
    assert allow.returncode == 2 and "--allow 'ten' is not an IP network" in allow.stderr
    credit = run("client", "--server", "127.0.0.1:9", "--key", str(key), "--credit", "100")
    assert credit.returncode == 2 and "--credit 100 outside 1431..65535 octets" in credit.stderr
    transport = run("client", "--server", "127.0.0.1:9", "--key", str(key), "--transport", "x")
    assert transport.returncode == 2 and "--transport 'x' is not auto, udp or tcp" in (
        transport.stderr
    )
    tcp = run("server", "--key", str(key), "--tcp-listen", "7447")
    assert tcp.returncode == 2 and "--tcp-listen '7447' is not HOST:PORT" in tcp.stderr


async def socks_fetch(socks: int, port: int) -> bytes:
    """``BODY`` from the origin at ``port`` through the SOCKS5 proxy at ``socks``."""
    r, w = await asyncio.open_connection("127.0.0.1", socks)
    w.write(b"\x05\x01\x00\x05\x01\x00\x03\x09localhost" + port.to_bytes(2, "big"))
    assert await asyncio.wait_for(r.readexactly(12), 30) == b"\x05\x00\x05\x00\x00\x01" + bytes(6)
    w.write(b"GET / HTTP/1.0\r\n\r\n")
    return await read_response(r)


def test_over_tcp_every_octet_arrives() -> None:
    async def main() -> None:
        web, port = await origin()
        server = TunnelServerProxy([KEYS], parse_networks(["127.0.0.0/8"]))
        udp = await server.start(("127.0.0.1", 0), ("127.0.0.1", 0))
        assert server.tcp_local is not None
        client = TunnelClientProxy(udp, KEYS, transport="tcp", tcp_server=server.tcp_local)
        socks, _ = await client.start(("127.0.0.1", 0), None)
        assert socks is not None
        assert await socks_fetch(socks[1], port) == BODY
        assert client.carried_by == "tcp" and server.endpoint.rejected == {}
        assert server._driver is not None and server._driver.received[0] == 0  # no UDP
        await client.close()
        server.close()
        web.close()

    asyncio.run(main())


def test_a_keys_newer_tcp_connection_closes_its_older_one() -> None:
    async def main() -> None:
        web, port = await origin()
        server = TunnelServerProxy([KEYS], parse_networks(["127.0.0.0/8"]))
        udp = await server.start(("127.0.0.1", 0), ("127.0.0.1", 0))
        first = TunnelClientProxy(udp, KEYS, transport="tcp", tcp_server=server.tcp_local)
        socks, _ = await first.start(("127.0.0.1", 0), None)
        assert socks is not None and await socks_fetch(socks[1], port) == BODY
        again = TunnelClientProxy(udp, KEYS, transport="tcp", tcp_server=server.tcp_local)
        socks, _ = await again.start(("127.0.0.1", 0), None)  # the same key, restarted
        assert socks is not None and await socks_fetch(socks[1], port) == BODY
        assert server.tcp_closed["a newer connection of its key"] == 1
        assert len(server._by_client) == 1
        await first.close()
        await again.close()
        server.close()
        web.close()

    asyncio.run(main())


def test_falls_back_to_tcp_when_udp_brings_nothing_back() -> None:
    async def main() -> None:
        web, port = await origin()
        server = TunnelServerProxy([KEYS], parse_networks(["127.0.0.0/8"]))
        await server.start(("127.0.0.1", 0), ("127.0.0.1", 0))
        assert server.tcp_local is not None
        # the client's UDP goes to a socket that swallows it: UDP blocked on the way
        hole = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        hole.bind(("127.0.0.1", 0))
        hole.setblocking(False)
        client = TunnelClientProxy(
            hole.getsockname(), KEYS, tcp_server=server.tcp_local, fallback_after=1.0
        )
        socks, _ = await client.start(("127.0.0.1", 0), None)
        assert socks is not None
        started = time.monotonic()
        assert await socks_fetch(socks[1], port) == BODY
        assert time.monotonic() - started >= 1.0
        assert client.carried_by == "tcp" and len(hole.recv(2048)) > 0  # UDP was tried first
        assert server.endpoint.rejected == {}
        await client.close()
        server.close()
        hole.close()
        web.close()

    asyncio.run(main())


def test_stays_on_udp_while_tcp_cannot_connect_either() -> None:
    async def main() -> None:
        hole = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        hole.bind(("127.0.0.1", 0))
        hole.setblocking(False)
        closed = socket.socket()  # a TCP port that refuses: bound, never listening
        closed.bind(("127.0.0.1", 0))
        client = TunnelClientProxy(
            hole.getsockname(), KEYS, tcp_server=closed.getsockname(), fallback_after=0.3
        )
        socks, _ = await client.start(("127.0.0.1", 0), None)
        assert socks is not None
        _, w = await asyncio.open_connection("127.0.0.1", socks[1])
        w.write(b"\x05\x01\x00\x05\x01\x00\x03\x09localhost\x00\x50")
        await asyncio.sleep(1.0)  # three fallback intervals, each trying TCP once
        assert client.carried_by == "udp" and len(hole.recv(2048)) > 0
        await client.close()
        hole.close()
        closed.close()

    asyncio.run(main())


def test_hostile_tcp_gets_nothing_and_is_closed() -> None:
    async def main() -> None:
        server = TunnelServerProxy([KEYS], first_datagram_within=0.5)
        await server.start(("127.0.0.1", 0), ("127.0.0.1", 0))
        assert server.tcp_local is not None
        host, tcp_port = server.tcp_local

        async def answer(sent: bytes) -> tuple[bytes, float]:
            """What the server wrote back before closing, and how long it held on."""
            r, w = await asyncio.open_connection(host, tcp_port)
            started = time.monotonic()
            w.write(sent)
            got = await asyncio.wait_for(r.read(), 5)
            w.close()
            return got, time.monotonic() - started

        huge, held = await answer(b"\xff\xff" + bytes(1000))
        assert huge == b"" and held < 0.4
        forged = b"".join(
            framed(b"\x01" + random.Random(i).randbytes(300)) for i in range(MAX_BAD)
        )
        garbage, held = await answer(forged)
        assert garbage == b"" and held < 0.4
        silent, held = await answer(b"")  # slowloris: connects, sends nothing
        assert silent == b"" and 0.5 <= held < 1.5
        assert server.endpoint.rejected == {"key": MAX_BAD} and server.endpoint.clients == {}
        assert server.tcp_closed == {
            "a length of 65535 octets": 1,
            f"{MAX_BAD} datagrams that did not authenticate": 1,
            "no authentic datagram in time": 1,
        }
        server.close()

    asyncio.run(main())
