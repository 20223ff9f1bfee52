"""``wwanlab tunnel keygen|server|client``: paper 003's dual proxy as a tunnel over a
slow link (docs/tunnel.md): the client's SOCKS5 and HTTP proxies on the mobile side,
the server near the Internet, one sealed UDP-GPRS channel between them (over TCP where
UDP is blocked)."""

import asyncio
import signal
import sys
from pathlib import Path
from typing import Annotated

import typer

from wwanlab.aio.tunnel import TunnelClientProxy, TunnelServerProxy
from wwanlab.cli import startup
from wwanlab.cli.gateway import parse_address
from wwanlab.core.address import Address
from wwanlab.core.errors import UsageError
from wwanlab.pep.dual.store import DEFAULT_CAPACITY
from wwanlab.transports.udp_gprs.packet import MAX_CREDIT
from wwanlab.tunnel.frames import Techniques
from wwanlab.tunnel.over_tcp import FALLBACK_AFTER
from wwanlab.tunnel.policy import parse_networks
from wwanlab.tunnel.seal import Keys, new_key_file, read_key_file
from wwanlab.tunnel.session import CHANNEL_CONFIG

MAX_CACHE_MIB = 16 * 1024  # a cache bigger than 16 GiB of memory is a typo

KeyOption = Annotated[Path, typer.Option("--key", help="Pre-shared key file (tunnel keygen).")]


async def _until_signalled() -> None:
    """Until SIGINT or SIGTERM, one held while wwanlab started included."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    if startup.take():
        stop.set()
    await stop.wait()


def register(app: typer.Typer) -> None:
    tunnel = typer.Typer(help="A tunnel for slow, lossy links (paper 003).", no_args_is_help=True)
    app.add_typer(tunnel, name="tunnel")

    @tunnel.command("keygen")
    def keygen(path: Annotated[Path, typer.Argument(help="Key file to create.")]) -> None:
        """Write a new random pre-shared key (mode 0600); copy it to both ends."""
        startup.release()
        try:
            new_key_file(path)
        except FileExistsError:
            raise UsageError(f"{path} exists: a key is never overwritten") from None
        except OSError as e:
            raise UsageError(f"cannot write {path}: {e.strerror}") from None
        print(f"key written to {path}", file=sys.stderr)

    @tunnel.command("server")
    def server(
        key: Annotated[
            list[Path], typer.Option("--key", help="A client's key file (repeat for more).")
        ],
        listen: Annotated[str, typer.Option(help="ADDR:PORT of the UDP socket.")] = "0.0.0.0:7447",
        tcp_listen: Annotated[
            str,
            typer.Option(
                help="ADDR:PORT of the TCP socket for clients whose UDP is blocked: "
                "'same' as --listen, or 'none'."
            ),
        ] = "same",
        allow: Annotated[
            list[str] | None,
            typer.Option(help="A network the policy lets clients reach (private ones are not)."),
        ] = None,
    ) -> None:
        """Serve tunnel clients: connect where they ask, within the destination policy."""
        local = parse_address("--listen", listen)
        tcp: Address | None = local
        if tcp_listen == "none":
            tcp = None
        elif tcp_listen != "same":
            tcp = parse_address("--tcp-listen", tcp_listen)
        keys = [Keys.from_psk(read_key_file(p)) for p in key]
        proxy = TunnelServerProxy(keys, parse_networks(allow or []))

        async def main() -> None:
            bound = await proxy.start(local, tcp)
            print(f"tunnel server on udp {bound[0]}:{bound[1]}, {len(keys)} keys", file=sys.stderr)
            if proxy.tcp_local is not None:
                at = proxy.tcp_local
                print(f"tunnel server on tcp {at[0]}:{at[1]}", file=sys.stderr)
            await _until_signalled()
            proxy.close()
            await proxy.wait_closed()
            print(f"refused datagrams: {dict(proxy.endpoint.rejected)}", file=sys.stderr)
            print(f"closed tcp connections: {dict(proxy.tcp_closed)}", file=sys.stderr)

        try:
            asyncio.run(main())
        except OSError as e:
            raise UsageError(f"cannot listen on {listen}: {e.strerror or e}") from None

    @tunnel.command("client")
    def client(
        server: Annotated[str, typer.Option(help="The tunnel server's HOST:PORT.")],
        key: KeyOption,
        transport: Annotated[
            str,
            typer.Option(
                help="'udp', 'tcp', or 'auto': UDP, then TCP if the server has not answered "
                f"in {FALLBACK_AFTER:.0f} s (three of GPRS's worst round trips)."
            ),
        ] = "auto",
        tcp_server: Annotated[
            str | None,
            typer.Option(help="The server's TCP HOST:PORT, if not that of --server."),
        ] = None,
        socks: Annotated[str, typer.Option(help="ADDR:PORT of the SOCKS5 proxy.")] = (
            "127.0.0.1:1080"
        ),
        http: Annotated[str, typer.Option(help="ADDR:PORT of the HTTP proxy.")] = (
            "127.0.0.1:8118"
        ),
        compress: Annotated[
            bool,
            typer.Option(
                help="Compress: each stream with DEFLATE (never on TLS ports), plain-HTTP "
                "bodies with deflate or brotli, whichever is smaller (paper 003 4.1.1)."
            ),
        ] = True,
        push: Annotated[
            bool,
            typer.Option(
                help="Parse-and-push (paper 003 4.2.3): the server sends a page's embedded "
                "objects right behind it, unasked."
            ),
        ] = True,
        cache: Annotated[
            bool,
            typer.Option(
                help="CHK caching with delta encoding (paper 003 4.1.3): an object whose "
                "content this client holds crosses as its hash, a changed one as a bsdiff."
            ),
        ] = True,
        cache_size: Annotated[
            int, typer.Option(help="MiB of bodies the CHK cache holds (least recent go).")
        ] = DEFAULT_CAPACITY // 2**20,
        images: Annotated[
            int,
            typer.Option(
                help="Lossy image recompression at this JPEG quality, 1-100 (paper 003 "
                "4.1.1); 0, the default, leaves images as their sites made them."
            ),
        ] = 0,
        credit: Annotated[
            int | None,
            typer.Option(
                help="Octets the server may have in flight to us (default 65535, the most; "
                "lower it to keep a slow link's buffer short).",
            ),
        ] = None,
    ) -> None:
        """Offer SOCKS5 and HTTP proxies here, carried to the server over one channel."""
        peer = parse_address("--server", server)
        if peer[1] == 0:
            raise UsageError(f"--server {server!r} needs a port")
        socks_at, http_at = parse_address("--socks", socks), parse_address("--http", http)
        if transport not in ("auto", "udp", "tcp"):
            raise UsageError(f"--transport {transport!r} is not auto, udp or tcp")
        tcp_peer = parse_address("--tcp-server", tcp_server) if tcp_server else peer
        if tcp_peer[1] == 0:
            raise UsageError(f"--tcp-server {tcp_server!r} needs a port")
        if credit is not None and not CHANNEL_CONFIG.max_datagram <= credit <= MAX_CREDIT:
            raise UsageError(
                f"--credit {credit} outside {CHANNEL_CONFIG.max_datagram}..{MAX_CREDIT} octets"
            )
        if not 0 <= images <= 100:
            raise UsageError(f"--images {images} outside 0..100 (0: off)")
        if not 0 <= cache_size <= MAX_CACHE_MIB:
            raise UsageError(f"--cache-size {cache_size} outside 0..{MAX_CACHE_MIB} MiB")
        techniques = None
        if push or cache or compress or images:
            techniques = Techniques(push=push, chk=cache, compress=compress, images=images)
        proxy = TunnelClientProxy(
            peer,
            Keys.from_psk(read_key_file(key)),
            compress=compress,
            credit=credit,
            transport=transport,
            tcp_server=tcp_peer,
            techniques=techniques,
            cache_size=cache_size * 2**20,
        )

        async def main() -> None:
            bound = await proxy.start(socks_at, http_at)
            for name, at in zip(("socks5", "http"), bound, strict=True):
                if at is not None:
                    print(f"{name} proxy on {at[0]}:{at[1]}", file=sys.stderr)
            await _until_signalled()
            await proxy.close()

        try:
            asyncio.run(main())
        except OSError as e:
            raise UsageError(f"cannot listen on {socks} / {http}: {e.strerror or e}") from None
