"""``wwanlab gateway``: the WSP <-> HTTP gateway on UDP, until SIGTERM or SIGINT."""

import asyncio
import contextlib
import logging
import math
import signal
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from wwanlab.aio.gateway import BindError, GatewayConfig, serve
from wwanlab.cli.common import RetryIntervalOption, RetryLinkOption
from wwanlab.cli.config_file import apply_config_file
from wwanlab.core.address import Address
from wwanlab.core.errors import UsageError
from wwanlab.link.presets import get_preset
from wwanlab.wap.gateway.limits import GatewayLimits
from wwanlab.wap.gateway.policy import OriginPolicy
from wwanlab.wap.wsp.constants import CONNECTION_ORIENTED_PORT, CONNECTIONLESS_PORT
from wwanlab.wap.wtp.bearer import sized_retry
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
        except BindError as exc:
            raise UsageError(str(exc)) from None
        except OSError as exc:  # e.g. a --host that does not resolve
            raise UsageError(f"cannot listen on {config.host}: {exc.strerror or exc}") from None

    if use_uvloop:
        with contextlib.suppress(ImportError):
            import uvloop

            uvloop.run(main())
            return
    asyncio.run(main())


def parse_address(option: str, text: str) -> Address:
    """``HOST:PORT`` (``[V6]:PORT`` for IPv6), the port 0-65535."""
    host, sep, port = text.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if "[" in host or "]" in host:
        raise UsageError(f"{option} {text!r}: unbalanced [ ] around the IPv6 address")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise UsageError(f"{option} {text!r} is not HOST:PORT")
    return host, int(port)


def register(app: typer.Typer) -> None:
    @app.command()
    def gateway(
        ctx: typer.Context,
        config: Annotated[
            Path | None,
            typer.Option(
                "--config",
                metavar="FILE",
                help="TOML file of these options (key = option name, e.g. port-co = 9201); "
                "options given here win. See docs/gateway.md.",
            ),
        ] = None,
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
        retry_interval: RetryIntervalOption = L_R_WITH_USER_ACK,
        retry_link: RetryLinkOption = None,
        fakewap_quirks: Annotated[
            bool,
            typer.Option(
                help="Read fakewap's misnumbered and plain Acks as it means them "
                "(not WTP; see docs/gateway.md)."
            ),
        ] = False,
        status: Annotated[
            str | None,
            typer.Option(
                "--status",
                metavar="ADDR:PORT",
                help="Serve counters and sessions as JSON over HTTP at ADDR:PORT (GET /status).",
            ),
        ] = None,
        log_level: Annotated[str, typer.Option(help="debug, info, warning or error.")] = "info",
    ) -> None:
        """Serve WAP clients: WSP requests become HTTP/1.1 requests to origin servers."""
        options = dict(ctx.params)
        apply_config_file(ctx, config, gateway, options)
        run_gateway(_config(options), use_uvloop=True)


def _named(name: str) -> str:
    """An option as both places spell it: ``--max-sessions (config key max-sessions)``."""
    key = name.replace("_", "-")
    return f"--{key} (config key {key})"


def _config(o: dict[str, Any]) -> GatewayConfig:
    """The gateway's configuration from the options, each checked; ``UsageError`` else."""
    level = getattr(logging, str(o["log_level"]).upper(), None)
    if not isinstance(level, int):
        raise UsageError(f"--log-level {o['log_level']!r} is not debug, info, warning or error")
    for name in ("port_cl", "port_co"):
        if not 0 <= o[name] <= 65535:
            raise UsageError(f"--{name.replace('_', '-')} {o[name]} is not a port number")
    if o["port_cl"] == o["port_co"] != 0:
        raise UsageError(f"--port-cl and --port-co are both {o['port_co']}: each needs its own")
    for name in ("max_sessions", "max_message", "max_fetches"):
        if o[name] < 1:
            raise UsageError(f"{_named(name)} must be at least 1, got {o[name]}")
    for name in ("idle_timeout", "retry_interval"):
        if not o[name] > 0 or math.isinf(o[name]):
            raise UsageError(f"{_named(name)} must be a positive number of seconds, got {o[name]}")
    try:
        limits = GatewayLimits(
            max_sessions=o["max_sessions"],
            max_message_size=o["max_message"],
            idle_timeout=o["idle_timeout"],
        )
        link = o["retry_link"]
        sized = None if link is None else sized_retry(get_preset(link), "down", responder=True)
        wtp = WtpConfig(retry_interval=o["retry_interval"], sized_retry=sized)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    status = parse_address("--status", o["status"]) if o["status"] is not None else None
    logging.basicConfig(
        level=level, stream=sys.stderr, format="%(asctime)s %(levelname)s %(message)s"
    )
    return GatewayConfig(
        host=o["host"],
        port_cl=o["port_cl"],
        port_co=o["port_co"],
        policy=OriginPolicy.from_strings(o["allow_origin"] or []),
        limits=limits,
        wtp=wtp,
        max_fetches=o["max_fetches"],
        fakewap_quirks=o["fakewap_quirks"],
        status=status,
    )
