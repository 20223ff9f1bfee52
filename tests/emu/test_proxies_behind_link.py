"""Paper 002's proxies on real traffic: the Snoop agent and the Split proxy at the wired
end of an emulated GPRS link, the kernel's TCP at both ends, files byte-exact."""

import asyncio
import hashlib
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from wwanlab.emu.link import EmulatedLink
from wwanlab.emu.netns import EmulatorUnavailable, check_can_emulate

SIZE = 30_000  # octets: about 7 s over gprs-one-user's 37.6 kbit/s


@pytest.fixture(autouse=True)
def can_emulate() -> None:
    try:
        check_can_emulate()
    except EmulatorUnavailable as exc:
        pytest.skip(str(exc))


async def _http_server(directory: Path, host: str, port: int):
    argv = [sys.executable, "-m", "http.server", str(port), "--bind", host, "-d", str(directory)]
    return await asyncio.create_subprocess_exec(
        *argv, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL
    )


async def _curl(url: str, out: Path, spawn=None) -> int:
    argv = ["curl", "-s", "-m", "60", "--retry", "3", "--retry-connrefused", "-o", str(out), url]
    proc = await (spawn(argv) if spawn else asyncio.create_subprocess_exec(*argv))
    return await proc.wait()


def test_snoop_at_the_wired_end_for_a_download_by_the_program_inside(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(os.urandom(SIZE))

    async def main() -> dict[str, Any]:
        async with EmulatedLink("gprs-one-user", proxy="snoop", seed=4) as link:
            server = await _http_server(tmp_path, link.host_address, 18091)
            try:
                code = await link.guard(
                    _curl(f"http://{link.host_address}:18091/f", tmp_path / "got", link.spawn)
                )
            finally:
                server.terminate()
                await server.wait()
            assert code == 0
        return link.summary()

    summary = asyncio.run(main())
    got = hashlib.sha256((tmp_path / "got").read_bytes()).digest()
    assert got == hashlib.sha256((tmp_path / "f").read_bytes()).digest()
    proxy = summary["proxy"]
    assert proxy["kind"] == "snoop" and proxy["data_segments"] >= SIZE // 1448


RECEIVER = """
import socket, sys
server = socket.create_server(("0.0.0.0", int(sys.argv[1])))
conn, _ = server.accept()
with open(sys.argv[2], "wb") as out:
    while chunk := conn.recv(65536):
        out.write(chunk)
"""


def test_split_ends_the_hosts_connection_and_opens_its_own_to_the_inside(
    tmp_path: Path,
) -> None:
    """The host opens the connection and sends a file to a program inside (FTP's active
    mode, as paper 002's download): the host's TCP talks to the proxy, the proxy's own
    TCP carries the bytes across the link."""
    data = os.urandom(SIZE)
    got = tmp_path / "got"

    async def main() -> dict[str, Any]:
        async with EmulatedLink("gprs-one-user", proxy="split", seed=4) as link:
            receiver = await link.spawn([sys.executable, "-c", RECEIVER, "18092", str(got)])
            for _ in range(50):  # until the receiver listens (its SYN-ACK is the proxy's)
                await asyncio.sleep(0.2)
                if receiver.returncode is not None:
                    break
                if await _listening(link, 18092):
                    break
            _reader, writer = await asyncio.open_connection(link.inner_address, 18092)
            writer.write(data)
            await writer.drain()
            writer.close()
            await writer.wait_closed()
            assert await link.guard(asyncio.wait_for(receiver.wait(), 60)) == 0
        return link.summary()

    summary = asyncio.run(main())
    assert got.read_bytes() == data
    proxy = summary["proxy"]
    assert proxy["kind"] == "split" and proxy["connections"] == 1
    assert proxy["segments_sent"] >= SIZE // 1460  # the proxy's own TCP sent the file


FETCHER = """
import socket, sys
conn = socket.create_connection((sys.argv[1], int(sys.argv[2])))
with open(sys.argv[3], "wb") as out:
    while chunk := conn.recv(65536):
        out.write(chunk)
"""


def test_split_also_ends_the_connections_the_inside_opens(tmp_path: Path) -> None:
    """A program inside connects out (a browser's direction, paper 003): the proxy
    answers its SYN, opens its own connection to the host and relays the download."""
    data = os.urandom(SIZE)
    got = tmp_path / "got"

    async def main() -> dict[str, Any]:
        async with EmulatedLink("gprs-one-user", proxy="split", seed=5) as link:

            async def send(_r: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
                writer.write(data)
                await writer.drain()
                writer.close()

            server = await asyncio.start_server(send, link.host_address, 0)
            port = server.sockets[0].getsockname()[1]
            fetcher = await link.spawn(
                [sys.executable, "-c", FETCHER, link.host_address, str(port), str(got)]
            )
            assert await link.guard(asyncio.wait_for(fetcher.wait(), 60)) == 0
            server.close()
        return link.summary()

    summary = asyncio.run(main())
    assert got.read_bytes() == data
    proxy = summary["proxy"]
    assert proxy["kind"] == "split" and proxy["connections"] == 1
    assert proxy["segments_sent"] >= SIZE // 1460


async def _listening(link: EmulatedLink, port: int) -> bool:
    probe = await link.spawn(
        ["sh", "-c", f"ss -Hltn sport = :{port} | grep -q LISTEN"],
    )
    return await probe.wait() == 0
