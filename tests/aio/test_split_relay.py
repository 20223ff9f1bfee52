"""The Split-TCP relay on real sockets: bytes both ways exactly, half-close passed on,
the target's absence counted, and the command's bad input refused."""

import asyncio
import os

import pytest
from tests.experiments.invoke import wwanlab

from wwanlab.aio.split_relay import SplitRelay


async def _echo_after_eof(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Read to the client's FIN, then send everything back reversed and close."""
    data = await reader.read()
    writer.write(data[::-1])
    await writer.drain()
    writer.close()


def test_bytes_cross_both_ways_and_a_fin_is_passed_on() -> None:
    payload = os.urandom(3 * 1024 * 1024)

    async def main() -> tuple[bytes, SplitRelay]:
        target = await asyncio.start_server(_echo_after_eof, "127.0.0.1", 0)
        port = target.sockets[0].getsockname()[1]
        relay = SplitRelay(("127.0.0.1", port), buffer=16 * 1024, congestion="reno")
        host, relay_port = await relay.start(("127.0.0.1", 0))
        reader, writer = await asyncio.open_connection(host, relay_port)
        writer.write(payload)
        await writer.drain()
        writer.write_eof()  # the target answers only after the FIN reached it
        back = await asyncio.wait_for(reader.read(), 30)
        writer.close()
        await relay.close()
        target.close()
        return back, relay

    back, relay = asyncio.run(main())
    assert back == payload[::-1]
    stats = relay.stats
    assert (stats.connections, stats.failed) == (1, 0)
    assert stats.octets_to_target == stats.octets_to_client == len(payload)


def test_an_unreachable_target_closes_the_client_and_is_counted() -> None:
    async def main() -> tuple[bytes, int]:
        relay = SplitRelay(("127.0.0.1", 1))
        host, port = await relay.start(("127.0.0.1", 0))
        reader, writer = await asyncio.open_connection(host, port)
        got = await asyncio.wait_for(reader.read(), 10)
        writer.close()
        await relay.close()
        return got, relay.stats.failed

    assert asyncio.run(main()) == (b"", 1)


def test_close_ends_open_connections_without_an_error_logged() -> None:
    async def main() -> tuple[bytes, list[dict[str, object]]]:
        errors: list[dict[str, object]] = []
        asyncio.get_running_loop().set_exception_handler(lambda _, context: errors.append(context))
        target = await asyncio.start_server(_echo_after_eof, "127.0.0.1", 0)
        relay = SplitRelay(("127.0.0.1", target.sockets[0].getsockname()[1]))
        host, port = await relay.start(("127.0.0.1", 0))
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(b"x" * 1000)  # no FIN: the target waits, the connection stays open
        await writer.drain()
        await asyncio.sleep(0.2)
        await asyncio.wait_for(relay.close(), 10)
        got = await asyncio.wait_for(reader.read(), 10)  # the relay closed its half
        writer.close()
        target.close()
        await asyncio.sleep(0.1)  # the server's done-callbacks run
        return got, errors

    got, errors = asyncio.run(main())
    assert got == b""
    assert errors == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--listen", "nowhere", "--to", "127.0.0.1:80"], "--listen 'nowhere' is not HOST:PORT"),
        (["--listen", "127.0.0.1:0", "--to", "127.0.0.1:0"], "--to '127.0.0.1:0' needs a port"),
        (
            ["--listen", "127.0.0.1:0", "--to", "127.0.0.1:80", "--congestion", "nope"],
            "--congestion 'nope' is not available",
        ),
        (
            ["--listen", "127.0.0.1:0", "--to", "no-such-host.invalid:80"],
            "--to 'no-such-host.invalid:80': cannot resolve 'no-such-host.invalid'",
        ),
        (
            ["--listen", "[::1:80", "--to", "127.0.0.1:80"],
            "--listen '[::1:80': unbalanced [ ] around the IPv6 address",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, message, capsys, monkeypatch) -> None:
    code, out, err = wwanlab(capsys, monkeypatch, "pep", "split", *args)
    assert (code, out) == (2, "") and message in err and err.count("\n") == 1


def test_a_busy_port_is_one_line_and_exit_2(capsys, monkeypatch) -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        args = ["--listen", f"127.0.0.1:{port}", "--to", "127.0.0.1:80"]
        code, out, err = wwanlab(capsys, monkeypatch, "pep", "split", *args)
    assert (code, out) == (2, "")
    assert f"cannot listen on 127.0.0.1:{port}" in err and err.count("\n") == 1
