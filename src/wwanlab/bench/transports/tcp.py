"""The kernel's TCP: HTTP/1.1 GET, the server outside pinning its congestion control.

Linux tcp(7) ``TCP_CONGESTION`` is set on the listening socket, which the accepted
connections inherit; the server sends the file, so its algorithm is the one measured.
Each row names the algorithm read back from the accepted connection's socket.
The kernel's loss recovery (SACK, RACK-TLP, F-RTO) is whatever this kernel runs.
"""

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from wwanlab.bench.http import Fetched, FileServer, http_get
from wwanlab.bench.registry import Params, Serve, ServeContext, Transport, register

AVAILABLE = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")
KERNEL_CCS = ("reno", "cubic", "bbr")


def _serve(cc: str) -> Serve:
    @asynccontextmanager
    async def serve(ctx: ServeContext) -> AsyncIterator[Params]:
        async with FileServer(ctx.host, ctx.files, congestion_control=cc) as server:
            yield {"host": ctx.host, "port": server.port}
        ctx.observed["congestion_control"] = ",".join(sorted(set(server.congestion_controls)))

    return serve


async def fetch(params: Params, path: str) -> Fetched:
    return await http_get(params["host"], int(params["port"]), path)


def _offered(cc: str) -> Callable[[], str | None]:
    """A check that this kernel offers ``cc`` (tcp_bbr is a module that may be absent)."""

    def check() -> str | None:
        try:
            offered = AVAILABLE.read_text().split()
        except OSError:
            return f"cannot read {AVAILABLE}"
        return None if cc in offered else f"the kernel does not offer {cc}"

    return check


register(
    *(
        Transport(
            f"tcp-{cc}",
            "kernel TCP",
            f"Linux TCP {cc}, HTTP/1.1 GET",
            serve=_serve(cc),
            fetch=fetch,
            check=_offered(cc),
        )
        for cc in KERNEL_CCS
    )
)
