"""KCP with kcptun (Debian's ``kcptun``): an HTTP/1.1 GET tunnelled over KCP on UDP.

``kcptun-server`` runs outside, forwarding to a ``FileServer`` on the host's loopback;
the client inside starts ``kcptun-client`` (a local TCP port), waits for its
"listening on" line and fetches through it. Both ends run ``--mode fast`` (kcptun's
profile: nodelay, 20 ms interval, fast resend after 2 duplicate ACKs, no congestion
window), without encryption or compression (the file is random, and the bench compares
transports, not ciphers), with Reed-Solomon FEC of 10 data + 3 parity shards (kcptun's
default) or without FEC (0 + 0). KCP has no handshake (a conversation starts with its
first data segment), so ``handshake_s`` is None.
"""

import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from wwanlab.bench.http import Fetched, FileServer, free_port, http_get
from wwanlab.bench.programs import running
from wwanlab.bench.registry import (
    Params,
    Serve,
    ServeContext,
    Transport,
    needs_programs,
    register,
)

FEC = {"fec": (10, 3), "nofec": (0, 0)}  # (data shards, parity shards); 10/3 is kcptun's
COMMON = ["--mode", "fast", "--crypt", "none", "--nocomp"]  # the same at both ends


def _shards(params: Params) -> list[str]:
    data, parity = params["shards"]
    return ["--datashard", str(data), "--parityshard", str(parity)]


def _serve(fec: str) -> Serve:
    @asynccontextmanager
    async def serve(ctx: ServeContext) -> AsyncIterator[Params]:
        async with FileServer("127.0.0.1", ctx.files) as origin:
            port = free_port(ctx.host, socket.SOCK_DGRAM)
            params: Params = {"host": ctx.host, "port": port, "shards": list(FEC[fec])}
            argv = [
                "kcptun-server", "--listen", f"{ctx.host}:{port}",
                "--target", f"127.0.0.1:{origin.port}", *COMMON, *_shards(params),
            ]  # fmt: skip
            async with running(argv, "listening on"):
                yield params

    return serve


async def fetch(params: Params, path: str) -> Fetched:
    local = free_port("127.0.0.1", socket.SOCK_STREAM)
    argv = [
        "kcptun-client", "--localaddr", f"127.0.0.1:{local}",
        "--remoteaddr", f"{params['host']}:{params['port']}", *COMMON, *_shards(params),
    ]  # fmt: skip
    async with running(argv, "listening on"):
        fetched = await http_get("127.0.0.1", local, path)
    return Fetched(None, fetched.complete_s, fetched.sha256, fetched.size)


register(
    *(
        Transport(
            f"kcp-{fec}",
            "KCP",
            f"kcptun, mode fast, {'FEC 10+3' if fec == 'fec' else 'no FEC'}, HTTP/1.1 GET",
            serve=_serve(fec),
            fetch=fetch,
            check=needs_programs("kcptun-client", "kcptun-server"),
        )
        for fec in FEC
    )
)
