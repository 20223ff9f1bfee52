"""``wwanlab get URL --gateway HOST[:PORT]``: fetch one URL through a WAP gateway."""

import asyncio
import hashlib
import ipaddress
import math
import socket
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
    WapTimeout,
    default_port,
)
from wwanlab.cli.common import (
    RetryIntervalOption,
    RetryLinkOption,
    check_http_url,
    check_timeout,
    output_file,
    print_json,
)
from wwanlab.core.address import Address
from wwanlab.core.errors import UsageError
from wwanlab.link.presets import get_preset
from wwanlab.wap.wtp.bearer import sized_retry
from wwanlab.wap.wtp.timers import L_R_WITH_USER_ACK, WtpConfig
from wwanlab.web.media_type import MediaTypeError, parse_media_type

MAX_REASON = 1024  # octets: a longer body is a page to save, not a reason to print


def parse_gateway(text: str, connectionless: bool) -> Address:
    """``HOST``, ``HOST:PORT`` or ``[V6]:PORT``; the port defaults to 9201 (9200
    connectionless)."""
    if text.startswith("["):
        host, bracket, rest = text[1:].partition("]")
        port_text = rest.removeprefix(":") if bracket and rest.startswith(":") else ""
        if not bracket or rest not in ("", f":{port_text}"):
            raise UsageError(f"--gateway {text!r} is not HOST[:PORT]")
    elif text.count(":") > 1:  # a bare IPv6 address
        try:
            host, port_text = str(ipaddress.IPv6Address(text)), ""
        except ValueError:
            raise UsageError(f"--gateway {text!r} is not HOST[:PORT] or [IPV6]:PORT") from None
    else:
        host, _, port_text = text.partition(":")
    if not host:
        raise UsageError(f"--gateway {text!r} has no host")
    if not port_text:
        return host, default_port(connectionless)
    if not port_text.isdigit() or not 0 < int(port_text) <= 65535:
        raise UsageError(f"--gateway {text!r}: {port_text!r} is not a port number")
    return host, int(port_text)


class GatewayUnresolved(WapError):
    """The gateway's name does not resolve to an address."""


async def resolve(gateway: Address) -> Address:
    """The gateway's first address for UDP (replies come from an address, not a name)."""
    loop = asyncio.get_running_loop()
    unresolved = f"cannot resolve gateway {gateway[0]!r}"
    try:
        infos = await loop.getaddrinfo(gateway[0], gateway[1], type=socket.SOCK_DGRAM)
    except socket.gaierror as exc:
        raise GatewayUnresolved(f"{unresolved}: {exc.strerror}") from None
    except UnicodeError:  # the IDNA codec refuses an empty or over-long label
        raise GatewayUnresolved(f"{unresolved}: not a host name") from None
    host, port = infos[0][4][:2]
    return str(host), int(port)


def local_for(gateway: Address) -> Address:
    """Where to bind: loopback for a loopback gateway, else any address of its family."""
    ip = ipaddress.ip_address(gateway[0])
    if ip.is_loopback:
        return str(ip), 0
    return ("::" if ip.version == 6 else "0.0.0.0"), 0


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
    response and the seconds the session's Connect took (None connectionless).

    ``timeout`` bounds the whole call: the name lookup, the Connect, the method and the
    Disconnect (a class 0 invoke, so it costs no waiting); ``WapTimeout`` says which
    step was not answered.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    where = f"[{gateway[0]}]:{gateway[1]}" if ":" in gateway[0] else f"{gateway[0]}:{gateway[1]}"
    try:
        address = await asyncio.wait_for(resolve(gateway), timeout)
    except TimeoutError:
        raise WapTimeout(f"no address for gateway {gateway[0]!r} within {timeout:g} s") from None
    local = local_for(address)
    if connectionless:
        async with ConnectionlessClient(address, local=local) as cl:
            try:
                left = deadline - loop.time()
                request = cl.request(url, data, content_type)
                return await asyncio.wait_for(request, left), None
            except TimeoutError:
                raise WapTimeout(f"no reply from gateway {where} within {timeout:g} s") from None
    client = WapClient(address, local=local, wtp_config=wtp)
    try:
        started = time.perf_counter()
        try:
            await client.connect(timeout=deadline - loop.time())
            connected = time.perf_counter() - started
        except WapTimeout:
            raise WapTimeout(
                f"gateway {where} did not answer the Connect within {timeout:g} s"
            ) from None
        try:
            left = deadline - loop.time()
            return await client.request(url, data, content_type, timeout=left), connected
        except WapTimeout:
            raise WapTimeout(f"no reply from gateway {where} within {timeout:g} s") from None
    finally:
        await client.disconnect()


def reason(response: WapResponse) -> str | None:
    """The first line of an error reply's short text body: why the gateway or origin
    refused (the gateway's own refusals are text/plain); characters a terminal would
    act on (escape sequences) are shown as ``?``."""
    if response.status < 400 or len(response.body) > MAX_REASON:
        return None
    try:
        if parse_media_type(response.content_type).essence != "text/plain":
            return None
    except MediaTypeError:
        return None
    line = response.body.decode("utf-8", "replace").strip().split("\n", 1)[0]
    return "".join(c if c.isprintable() else "?" for c in line) or None


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
        retry_interval: RetryIntervalOption = L_R_WITH_USER_ACK,
        retry_link: RetryLinkOption = None,
        json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    ) -> None:
        """Fetch URL through a WAP gateway; print status, headers, body size and time."""
        check_http_url(url)
        check_timeout(timeout)
        if output is not None:
            output_file(output, "--output")
        try:
            parse_media_type(content_type)
        except MediaTypeError as exc:
            raise UsageError(f"--content-type: {exc}") from None
        if not retry_interval > 0 or math.isinf(retry_interval):
            raise UsageError(f"--retry-interval {retry_interval} must be positive")
        sized = (
            None
            if retry_link is None
            else sized_retry(get_preset(retry_link), "up", responder=False)
        )
        address = parse_gateway(gateway, connectionless)
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
                    wtp=WtpConfig(retry_interval=retry_interval, sized_retry=sized),
                )
            )
        except GatewayUnresolved as exc:
            raise UsageError(str(exc)) from None
        except WapError as exc:
            message = str(exc)
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
                    "reason": reason(response),
                }
            )
            return
        print(f"status: {response.status}")
        print(f"content-type: {response.content_type}")
        for name, value in response.headers:
            print(f"{name}: {value}")
        print(f"body: {len(response.body)} bytes in {response.elapsed * 1000:.1f} ms")
        if (why := reason(response)) is not None:
            print(f"reason: {why}")
