"""``wwanlab get URL --gateway HOST[:PORT]``: fetch one URL through a WAP gateway."""

import asyncio
import hashlib
import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from wwanlab.aio.client import (
    ConnectionlessClient,
    WapClient,
    WapError,
    WapResponse,
    default_port,
)
from wwanlab.cli.common import print_json
from wwanlab.core.address import Address
from wwanlab.core.errors import UsageError
from wwanlab.wap.wtp.timers import L_R_WITH_USER_ACK, WtpConfig


def parse_gateway(text: str, connectionless: bool) -> Address:
    """``HOST`` or ``HOST:PORT``; the port defaults to 9201 (9200 connectionless)."""
    host, sep, port_text = text.rpartition(":")
    if not sep:
        host, port_text = text, ""
    if not host:
        raise UsageError(f"--gateway {text!r} has no host")
    if not port_text:
        return host, default_port(connectionless)
    if not port_text.isdigit() or not 0 < int(port_text) <= 65535:
        raise UsageError(f"--gateway {text!r}: {port_text!r} is not a port number")
    return host, int(port_text)


async def fetch(
    url: str,
    gateway: Address,
    *,
    connectionless: bool = False,
    data: bytes | None = None,
    content_type: str = "application/octet-stream",
    timeout: float = 60.0,
    wtp: WtpConfig | None = None,
) -> tuple[WapResponse, float | None]:
    """One Get (or Post when ``data``), in a session of its own or connectionless; the
    response and the seconds the session's Connect took (None connectionless)."""
    if connectionless:
        async with ConnectionlessClient(gateway) as cl:
            return await asyncio.wait_for(cl.request(url, data, content_type), timeout), None
    started = time.perf_counter()
    async with WapClient(gateway, wtp_config=wtp) as co:
        connected = time.perf_counter() - started
        return await co.request(url, data, content_type, timeout=timeout), connected


def register(app: typer.Typer) -> None:
    @app.command()
    def get(
        url: Annotated[str, typer.Argument(help="Absolute http:// URL to fetch.")],
        gateway: Annotated[
            str, typer.Option("--gateway", "-g", help="Gateway HOST[:PORT].")
        ] = "127.0.0.1",
        connectionless: Annotated[
            bool, typer.Option("--connectionless", help="Connectionless WSP (port 9200).")
        ] = False,
        output: Annotated[
            Path | None, typer.Option("-o", "--output", help="Write the body here.")
        ] = None,
        data: Annotated[
            Path | None, typer.Option("--data", help="Post this file's contents.")
        ] = None,
        content_type: Annotated[
            str, typer.Option(help="Content type of the --data body.")
        ] = "application/octet-stream",
        timeout: Annotated[float, typer.Option(help="Seconds to wait in all.")] = 60.0,
        retry_interval: Annotated[
            float, typer.Option(help="WTP retry interval R in seconds (WTP 9.4.1).")
        ] = L_R_WITH_USER_ACK,
        json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    ) -> None:
        """Fetch URL through a WAP gateway; print status, headers, body size and time."""
        if not url.lower().startswith("http://"):
            raise UsageError(f"URL {url!r} is not an absolute http:// URL")
        address = parse_gateway(gateway, connectionless)
        if retry_interval <= 0:
            raise UsageError(f"--retry-interval {retry_interval} must be positive")
        body: bytes | None = None
        if data is not None:
            try:
                body = data.read_bytes()
            except OSError as exc:
                raise UsageError(f"cannot read {data}: {exc.strerror}") from None
        try:
            response, connected = asyncio.run(
                fetch(
                    url,
                    address,
                    connectionless=connectionless,
                    data=body,
                    content_type=content_type,
                    timeout=timeout,
                    wtp=WtpConfig(retry_interval=retry_interval),
                )
            )
        except (WapError, TimeoutError) as exc:
            message = str(exc) or "timed out"
            if json:
                print_json({"url": url, "ok": False, "error": message})
            else:
                print(f"wwanlab get: {message}", file=sys.stderr)
            raise typer.Exit(1) from None
        except OSError as exc:
            raise UsageError(f"cannot reach gateway {gateway}: {exc.strerror}") from None
        if output is not None:
            try:
                output.write_bytes(response.body)
            except OSError as exc:
                raise UsageError(f"cannot write {output}: {exc.strerror}") from None
        if json:
            print_json(
                {
                    "url": url,
                    "ok": True,
                    "status": response.status,
                    "content_type": response.content_type,
                    "headers": [list(h) for h in response.headers],
                    "body_bytes": len(response.body),
                    "sha256": hashlib.sha256(response.body).hexdigest(),
                    "connect_seconds": None if connected is None else round(connected, 6),
                    "seconds": round(response.elapsed, 6),
                    "mode": "connectionless" if connectionless else "connection-oriented",
                }
            )
            return
        print(f"status: {response.status}")
        print(f"content-type: {response.content_type}")
        for name, value in response.headers:
            print(f"{name}: {value}")
        print(f"body: {len(response.body)} bytes in {response.elapsed * 1000:.1f} ms")
