"""Split TCP on real sockets: an explicit relay that ends each connection it accepts and
opens its own to the target, so the two halves run separate TCP loops (I-TCP, paper
002 section II) on the kernel's TCP, in front of ``wwanlab emulate`` or anywhere.

Each direction is a pump with a bounded buffer: it reads at most ``buffer`` octets,
writes them, and reads again only once the writer's queue has drained below the
buffer, so a slow side holds back the fast one instead of filling memory. A FIN is
passed on as a FIN (half-close) once the bytes before it have gone; an error on either
side closes both.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Callable
from dataclasses import dataclass

from wwanlab.core.address import Address

RELAY_BUFFER = 64 * 1024  # octets held per direction per connection


@dataclass
class RelayStats:
    connections: int = 0
    failed: int = 0  # connections to the target that could not be opened
    octets_to_target: int = 0
    octets_to_client: int = 0


async def _pump(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    buffer: int,
    moved: Callable[[int], None],
) -> None:
    """Copy until EOF, telling ``moved`` each chunk's size as it goes (so a connection
    cut short, by an error or by ``close``, still counts what it carried)."""
    while chunk := await reader.read(buffer):
        writer.write(chunk)
        await writer.drain()  # the write queue's high-water mark is ``buffer``
        moved(len(chunk))
    if writer.can_write_eof():
        writer.write_eof()


class SplitRelay:
    """Accepts on ``listen`` and relays each connection to ``target``."""

    def __init__(
        self,
        target: Address,
        *,
        buffer: int = RELAY_BUFFER,
        congestion: str | None = None,
    ) -> None:
        self.target = target
        self.buffer = buffer
        self.congestion = congestion  # TCP_CONGESTION of the target-side socket
        self.stats = RelayStats()
        self._server: asyncio.Server | None = None
        self._handlers: set[asyncio.Task[None]] = set()

    async def start(self, listen: Address) -> Address:
        """Listen on ``listen``; the address actually bound (port 0 picks one)."""
        self._server = await asyncio.start_server(self._serve, listen[0], listen[1])
        host, port = self._server.sockets[0].getsockname()[:2]
        return str(host), int(port)

    async def close(self) -> None:
        """Stop accepting and end every connection still open (both its halves)."""
        if self._server is not None:
            self._server.close()
        for task in self._handlers:
            task.cancel()
        await asyncio.gather(*self._handlers, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()

    async def _serve(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        try:
            await self._relay(client_r, client_w)
        except asyncio.CancelledError:
            # close() ended it. Returning, not re-raising: the stream server's callback
            # (Python 3.11) asks a finished handler for its exception, and a cancelled
            # one answers with a traceback on stderr.
            pass
        finally:
            self._handlers.discard(task)

    async def _relay(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        self.stats.connections += 1
        try:
            target_r, target_w = await self._connect()
        except OSError:
            self.stats.failed += 1
            client_w.close()
            return
        for writer in (client_w, target_w):
            writer.transport.set_write_buffer_limits(high=self.buffer)
        try:
            await asyncio.gather(
                _pump(client_r, target_w, self.buffer, self._to_target),
                _pump(target_r, client_w, self.buffer, self._to_client),
            )
        except (OSError, asyncio.IncompleteReadError):
            pass  # one side failed: both close below
        finally:
            for writer in (client_w, target_w):
                writer.close()
                with contextlib.suppress(OSError):
                    await writer.wait_closed()

    def _to_target(self, octets: int) -> None:
        self.stats.octets_to_target += octets

    def _to_client(self, octets: int) -> None:
        self.stats.octets_to_client += octets

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self.congestion is None:
            return await asyncio.open_connection(*self.target)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, self.congestion.encode())
            sock.setblocking(False)
            await asyncio.get_running_loop().sock_connect(sock, self.target)
        except OSError:
            sock.close()
            raise
        return await asyncio.open_connection(sock=sock)
