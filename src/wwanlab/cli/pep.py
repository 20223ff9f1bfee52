"""``wwanlab pep split --listen ADDR:PORT --to HOST:PORT``: a Split-TCP relay on real
sockets (paper 002), e.g. in front of ``wwanlab emulate``."""

import asyncio
import socket
import sys
from typing import Annotated

import typer

from wwanlab.aio.split_relay import RELAY_BUFFER, SplitRelay
from wwanlab.cli.common import serve_until_signal
from wwanlab.cli.gateway import parse_address
from wwanlab.core.address import Address
from wwanlab.core.errors import UsageError


def check_congestion(name: str) -> None:
    """Refuse a congestion control this kernel does not offer, before any connection."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, name.encode())
        except OSError:
            raise UsageError(f"--congestion {name!r} is not available in this kernel") from None


def check_resolves(option: str, text: str, address: Address) -> None:
    """Refuse a host name that does not resolve now, before serving anyone."""
    try:
        socket.getaddrinfo(address[0], address[1], type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise UsageError(
            f"{option} {text!r}: cannot resolve {address[0]!r}: {exc.strerror}"
        ) from None


def register(app: typer.Typer) -> None:
    pep = typer.Typer(help="Performance-enhancing proxies on real traffic.", no_args_is_help=True)
    app.add_typer(pep, name="pep")

    @pep.command("split")
    def split(
        listen: Annotated[str, typer.Option("--listen", help="ADDR:PORT to accept on.")],
        to: Annotated[str, typer.Option("--to", help="HOST:PORT each connection goes to.")],
        buffer: Annotated[
            int, typer.Option(help="Octets held per direction per connection.")
        ] = RELAY_BUFFER,
        congestion: Annotated[
            str | None,
            typer.Option(help="TCP congestion control toward the target (reno, cubic, bbr)."),
        ] = None,
    ) -> None:
        """Relay TCP connections, ending each and opening a new one (Split TCP)."""
        local = parse_address("--listen", listen)
        target = parse_address("--to", to)
        if target[1] == 0:
            raise UsageError(f"--to {to!r} needs a port")
        if buffer < 1:
            raise UsageError("--buffer must be at least 1 octet")
        if congestion is not None:
            check_congestion(congestion)
        check_resolves("--to", to, target)
        relay = SplitRelay(target, buffer=buffer, congestion=congestion)

        async def main(stop: asyncio.Event) -> None:
            bound = await relay.start(local)
            print(
                f"split relay on {bound[0]}:{bound[1]} to {target[0]}:{target[1]}", file=sys.stderr
            )
            await stop.wait()
            await relay.close()
            s = relay.stats
            print(
                f"{s.connections} connections ({s.failed} failed), "
                f"{s.octets_to_target} octets to the target, {s.octets_to_client} back",
                file=sys.stderr,
            )

        try:
            serve_until_signal(main)
        except OSError as exc:
            raise UsageError(f"cannot listen on {listen}: {exc.strerror or exc}") from None
