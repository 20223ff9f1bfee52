"""An HTTP/1.1 origin that costs its host as little as Python can: fixed bodies from
memory, keep-alive, no framework.

A gateway benchmark on a two-core machine shares the CPU between the gateway under test,
the load generator and the origin; every millisecond the origin spends is taken from the
gateway's share, whichever gateway it is. ``OriginServer`` (aiohttp) records requests and
serves generated and posted bodies for the tests; this one serves ``GET``/``HEAD`` of
its resources and nothing else, with each response's bytes built once. Requests are
parsed by ``web.http1.RequestReader`` (every length bounded); a malformed one gets its
status and the connection is closed; so is every HTTP/1.0 one after its response.
"""

import asyncio
from collections.abc import Mapping
from typing import cast

from wwanlab.peers.origin import DEFAULT_RESOURCES, Resource
from wwanlab.web.http1 import HttpError, RequestReader, encode_response

NOT_FOUND = encode_response(404, b"", content_type="text/plain")


def _responses(resources: Mapping[str, Resource]) -> dict[tuple[str, str], bytes]:
    """(method, path) -> the whole response, for GET and for HEAD (RFC 9110 9.3.2: the
    head a GET would get, without the body)."""
    out: dict[tuple[str, str], bytes] = {}
    for path, resource in resources.items():
        whole = encode_response(200, resource.body, content_type=resource.content_type)
        out["GET", path] = whole
        out["HEAD", path] = whole[: len(whole) - len(resource.body)]
    return out


class _Connection(asyncio.Protocol):
    def __init__(self, responses: dict[tuple[str, str], bytes]) -> None:
        self._responses = responses
        self._reader = RequestReader()
        self._transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # A stream transport (uvloop's is not a subclass of asyncio.Transport).
        self._transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        transport = self._transport
        assert transport is not None
        try:
            requests = self._reader.feed(data)
        except HttpError as exc:
            transport.write(encode_response(exc.status, b"", close=True))
            transport.close()
            return
        for request in requests:
            transport.write(self._responses.get((request.method, request.target), NOT_FOUND))
            if request.version != "HTTP/1.1" or not request.keep_alive:
                transport.close()  # a 1.0 client's keep-alive would need its header back
                return


class StaticOrigin:
    """Serves ``resources`` (default: the deck and the 40 KiB body) on ``host``."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        resources: Mapping[str, Resource] | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self._responses = _responses(resources or DEFAULT_RESOURCES)
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        responses = self._responses
        self._server = await loop.create_server(
            lambda: _Connection(responses), self.host, self.port
        )
        self.port = int(self._server.sockets[0].getsockname()[1])

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    async def __aenter__(self) -> "StaticOrigin":
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()
