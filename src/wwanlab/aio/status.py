"""A read-only HTTP status endpoint: one JSON document, as Kannel's admin ``/status``.

``StatusServer`` answers ``GET /status`` (and ``/``, ``/status.json``) with whatever
its ``report`` callable returns, encoded as JSON; every other path is a 404 and every
other method a 405. It changes nothing, so it has no password (Kannel's ``status-password``
guards commands such as shutdown, which this endpoint does not have); bind it where only
operators reach it.
"""

import json
import socket
from collections.abc import Callable
from typing import Any

from aiohttp import web

from wwanlab.core.address import Address

STATUS_PATHS = ("/", "/status", "/status.json")


class StatusServer:
    """``await StatusServer.start(report, address)``, then ``await close()``."""

    def __init__(self, report: Callable[[], dict[str, Any]], sock: socket.socket) -> None:
        self.report = report
        self._sock = sock
        app = web.Application()
        for path in STATUS_PATHS:
            app.router.add_get(path, self._status)
        self._runner = web.AppRunner(app, access_log=None)

    @classmethod
    async def start(cls, report: Callable[[], dict[str, Any]], address: Address) -> "StatusServer":
        """Serve on ``address``; an ``OSError`` from binding propagates, nothing left open."""
        family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        sock = socket.create_server(address, family=family)
        server = cls(report, sock)
        try:
            await server._runner.setup()
            await web.SockSite(server._runner, sock).start()
        except BaseException:
            await server.close()
            raise
        return server

    @property
    def address(self) -> Address:
        """The bound address (the port chosen when 0 was asked for)."""
        host, port = self._sock.getsockname()[:2]
        return (host, port)

    async def close(self) -> None:
        await self._runner.cleanup()
        self._sock.close()

    async def _status(self, request: web.Request) -> web.Response:
        body = json.dumps(self.report(), indent=2, sort_keys=True) + "\n"
        return web.Response(text=body, content_type="application/json")
