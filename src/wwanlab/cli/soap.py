"""``wwanlab soap serve|call``: the paper-001 benchmark service and a SOAP client whose
transport is HTTP or WSP through a WAP gateway."""

import asyncio
import sys
from typing import Annotated, Any

import typer

from wwanlab.aio.client import WapError
from wwanlab.cli.common import check_http_url, check_timeout, print_json, serve_until_signal
from wwanlab.cli.get import parse_gateway
from wwanlab.core.errors import UsageError
from wwanlab.soap.client import CallResult, HttpTransport, SoapClient, Transport, WspTransport
from wwanlab.soap.envelope import Fault, Value
from wwanlab.soap.service import serve
from wwanlab.wap.wbxml.soap import SoapError

VIAS = ("http", "wsp", "wsp-co")


def parse_arg(text: str) -> Value:
    """An argument as typed: an integer when it reads as one, else a string."""
    try:
        return int(text)
    except ValueError:
        return text


async def call(
    url: str, method: str, args: list[Value], via: str, gateway: str, wbxml: bool
) -> CallResult:
    transport: Transport
    if via == "http":
        transport = HttpTransport()
    else:
        connectionless = via == "wsp"
        transport = WspTransport(
            parse_gateway(gateway, connectionless), connectionless=connectionless
        )
    async with SoapClient(url, transport, wbxml=wbxml) as client:
        return await client.call(method, *args)


def _wire(result: CallResult) -> dict[str, Any]:
    return {
        direction: {
            "packets": w.packets,
            "octets": w.octets,
            "headers": w.headers,
            "payload": w.payload,
        }
        for direction, w in (("up", result.up), ("down", result.down))
    }


def register(app: typer.Typer) -> None:
    soap = typer.Typer(help="SOAP over HTTP or WSP (paper 001).", no_args_is_help=True)
    app.add_typer(soap, name="soap")

    @soap.command("serve")
    def serve_command(
        port: Annotated[int, typer.Option(help="TCP port to listen on.")] = 8080,
        host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    ) -> None:
        """Serve the benchmark web service (nop, getString, getIntArray) over HTTP."""
        if not 0 <= port <= 65535:
            raise UsageError(f"--port {port} is not a port number")

        async def until(stop: asyncio.Event) -> None:
            await serve(
                host,
                port,
                stop,
                ready=lambda url: print(f"soap service on {url}", file=sys.stderr),
            )

        try:
            serve_until_signal(until)
        except OSError as exc:
            raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror}") from None

    @soap.command("call")
    def call_command(
        url: Annotated[str, typer.Argument(help="The service's http:// URL.")],
        method: Annotated[str, typer.Argument(help="Method name, e.g. getString.")],
        args: Annotated[
            list[str] | None, typer.Argument(help="Arguments: integers or strings.")
        ] = None,
        via: Annotated[
            str, typer.Option(help="Transport: http, wsp (connectionless) or wsp-co.")
        ] = "http",
        gateway: Annotated[
            str, typer.Option("--gateway", "-g", help="WAP gateway HOST[:PORT] for wsp.")
        ] = "127.0.0.1",
        wbxml: Annotated[
            bool, typer.Option("--wbxml", help="Send and ask for WBXML-encoded SOAP.")
        ] = False,
        timeout: Annotated[float, typer.Option(help="Seconds to wait in all.")] = 30.0,
        json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    ) -> None:
        """Call METHOD of the SOAP service at URL; print the result, times and octets."""
        if via not in VIAS:
            raise UsageError(f"--via {via!r} is not one of {', '.join(VIAS)}")
        check_http_url(url)
        check_timeout(timeout)
        values = [parse_arg(a) for a in args or []]
        error: str | None = None
        result: CallResult | None = None
        try:
            result = asyncio.run(
                asyncio.wait_for(call(url, method, values, via, gateway, wbxml), timeout)
            )
        except Fault as fault:
            error = str(fault)
            if json:
                print_json({"ok": False, "fault": {"code": fault.code, "string": fault.string}})
                raise typer.Exit(1) from None
        except (SoapError, WapError) as exc:
            error = str(exc)
        except TimeoutError:
            error = f"no answer in {timeout:g} s"
        except OSError as exc:
            error = f"cannot reach {url if via == 'http' else gateway}: {exc.strerror or exc}"
        if result is None:
            if json:
                print_json({"ok": False, "error": error})
            else:
                print(f"wwanlab soap call: {error}", file=sys.stderr)
            raise typer.Exit(1)
        if json:
            print_json(
                {
                    "ok": True,
                    "method": method,
                    "via": via,
                    "wbxml": wbxml,
                    "result": result.value,
                    "t_call_ms": round(result.t_call * 1000, 3),
                    "t_soap_ms": round(result.t_soap * 1000, 3),
                    "wire": _wire(result),
                }
            )
            return
        print(f"result: {result.value!r}")
        print(f"t_call: {result.t_call * 1000:.1f} ms, t_soap: {result.t_soap * 1000:.1f} ms")
        for direction, w in (("up", result.up), ("down", result.down)):
            print(
                f"{direction}: {w.packets} packets, {w.octets} octets "
                f"({w.headers} headers, {w.payload} payload)"
            )
