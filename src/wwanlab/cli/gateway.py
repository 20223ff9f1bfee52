"""``wwanlab gateway``: the WSP <-> HTTP gateway on UDP, until SIGTERM or SIGINT."""

import asyncio
import contextlib
import logging
import signal
import sys
from typing import Annotated

import typer

from wwanlab.aio.gateway import GatewayConfig, serve
from wwanlab.core.errors import UsageError
from wwanlab.wap.gateway.limits import GatewayLimits
from wwanlab.wap.gateway.policy import OriginPolicy
from wwanlab.wap.wsp.constants import CONNECTION_ORIENTED_PORT, CONNECTIONLESS_PORT
from wwanlab.wap.wtp.timers import L_R_WITH_USER_ACK, WtpConfig


def run_gateway(config: GatewayConfig, use_uvloop: bool = True) -> None:
    """Serve until a signal; bind errors become a ``UsageError``."""

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        try:
            await serve(config, stop)
        except OSError as exc:
            ports = f"{config.port_cl}/{config.port_co}"
            raise UsageError(f"cannot bind {config.host} ports {ports}: {exc.strerror}") from None

    if use_uvloop:
        with contextlib.suppress(ImportError):
            import uvloop

            uvloop.run(main())
            return
    asyncio.run(main())


def register(app: typer.Typer) -> None:
    @app.command()
    def gateway(
        host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
        port_cl: Annotated[
            int, typer.Option("--port-cl", help="Connectionless WSP port.")
        ] = CONNECTIONLESS_PORT,
        port_co: Annotated[
            int, typer.Option("--port-co", help="Connection-oriented WSP (WTP) port.")
        ] = CONNECTION_ORIENTED_PORT,
        allow_origin: Annotated[
            list[str] | None,
            typer.Option(
                "--allow-origin",
                help="Network the gateway may fetch from although not global "
                "(e.g. 127.0.0.0/8); repeatable.",
            ),
        ] = None,
        max_sessions: Annotated[int, typer.Option(help="Session table size.")] = 20_000,
        max_message: Annotated[
            int, typer.Option("--max-message", help="Largest reply in octets.")
        ] = GatewayLimits().max_message_size,
        idle_timeout: Annotated[
            float, typer.Option(help="Seconds before a quiet session is dropped.")
        ] = 300.0,
        max_fetches: Annotated[int, typer.Option(help="Origin requests at once.")] = 128,
        retry_interval: Annotated[
            float, typer.Option(help="WTP retry interval R in seconds (WTP 9.4.1).")
        ] = L_R_WITH_USER_ACK,
        fakewap_quirks: Annotated[
            bool,
            typer.Option(
                help="Read fakewap's misnumbered and plain Acks as it means them "
                "(not WTP; see docs/gateway.md)."
            ),
        ] = False,
        log_level: Annotated[str, typer.Option(help="debug, info, warning or error.")] = "info",
    ) -> None:
        """Serve WAP clients: WSP requests become HTTP/1.1 requests to origin servers."""
        level = getattr(logging, log_level.upper(), None)
        if not isinstance(level, int):
            raise UsageError(f"--log-level {log_level!r} is not debug, info, warning or error")
        for name, port in (("--port-cl", port_cl), ("--port-co", port_co)):
            if not 0 <= port <= 65535:
                raise UsageError(f"{name} {port} is not a port number")
        try:
            limits = GatewayLimits(
                max_sessions=max_sessions,
                max_message_size=max_message,
                idle_timeout=idle_timeout,
            )
            wtp = WtpConfig(retry_interval=retry_interval)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if retry_interval <= 0 or max_fetches < 1:
            raise UsageError("--retry-interval and --max-fetches must be positive")
        logging.basicConfig(
            level=level, stream=sys.stderr, format="%(asctime)s %(levelname)s %(message)s"
        )
        config = GatewayConfig(
            host=host,
            port_cl=port_cl,
            port_co=port_co,
            policy=OriginPolicy.from_strings(allow_origin or []),
            limits=limits,
            wtp=wtp,
            max_fetches=max_fetches,
            fakewap_quirks=fakewap_quirks,
        )
        run_gateway(config)
