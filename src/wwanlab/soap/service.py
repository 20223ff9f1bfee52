"""The benchmark web service of paper 001 (section 4): three methods to time, two to set up.

"It offers three methods for benchmarking, plus two methods which are used prior to the
actual benchmarking to set up size and contents of the payload" (paper 001 4): ``nop()``
does nothing; ``getString()`` returns a string of the size set by ``setStringSize(n)``;
``getIntArray()`` returns as many integers as ``setIntArraySize(n)`` set. The get methods
also take the size as an argument (``getString(n)``), so one call can stand alone.

``BenchmarkService.handle`` is pure (an envelope in, a status and an envelope out), so
the same service answers over aiohttp here and inside the simulator.
"""

from __future__ import annotations

import asyncio
import string
from collections.abc import Callable
from dataclasses import dataclass, field

from aiohttp import web

from wwanlab.soap.envelope import (
    Call,
    Fault,
    Value,
    fault_envelope,
    parse_call,
    response_envelope,
)
from wwanlab.wap.wbxml.soap import SOAP_WBXML, XML_CONTENT_TYPE, SoapError, from_wbxml

MAX_PAYLOAD = 1_000_000  # characters or integers one call may ask for
CLIENT_FAULT = "SOAP-ENV:Client"  # SOAP 1.1 4.4.1: the message was wrong
SERVER_FAULT = "SOAP-ENV:Server"
FAULT_STATUS = 500  # SOAP 1.1 6.2: a fault travels in a 500 response

# The payload's contents (assumption: the paper does not give them): letters cycling
# through the alphabet, and the integers 0..n-1.
ALPHABET = string.ascii_lowercase


def text_of(n: int) -> str:
    return (ALPHABET * (n // len(ALPHABET) + 1))[:n]


def _size(call: Call, default: int) -> int:
    if not call.params:
        return default
    n = call.params[0][1]
    if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= MAX_PAYLOAD:
        raise Fault(CLIENT_FAULT, f"{call.method}: size must be an int in 0..{MAX_PAYLOAD}")
    return n


@dataclass
class BenchmarkService:
    """The service's state: the payload sizes the set-up methods chose."""

    string_size: int = 0
    array_size: int = 0
    calls: int = 0
    methods: dict[str, Callable[[Call], Value]] = field(init=False)

    def __post_init__(self) -> None:
        self.methods = {
            "nop": lambda call: None,
            "getString": lambda call: text_of(_size(call, self.string_size)),
            "getIntArray": lambda call: list(range(_size(call, self.array_size))),
            "setStringSize": self._set_string_size,
            "setIntArraySize": self._set_array_size,
        }

    def _set_string_size(self, call: Call) -> Value:
        self.string_size = _size(call, 0)
        return None

    def _set_array_size(self, call: Call) -> Value:
        self.array_size = _size(call, 0)
        return None

    def handle(self, envelope: bytes) -> tuple[int, bytes]:
        """The HTTP status and the response envelope (or fault) for a request envelope."""
        self.calls += 1
        try:
            call = parse_call(envelope)
        except SoapError as exc:
            return FAULT_STATUS, fault_envelope(Fault(CLIENT_FAULT, str(exc)))
        method = self.methods.get(call.method)
        if method is None:
            return FAULT_STATUS, fault_envelope(Fault(CLIENT_FAULT, f"no method {call.method!r}"))
        try:
            return 200, response_envelope(call, method(call))
        except Fault as fault:
            return FAULT_STATUS, fault_envelope(fault)


def application(service: BenchmarkService | None = None) -> web.Application:
    """The aiohttp application: a POST of an envelope to any path calls the service.

    A body in WBXML SOAP is decoded first, so a client may skip the gateway's decoding.
    """
    service = service or BenchmarkService()

    async def post(request: web.Request) -> web.Response:
        body = await request.read()
        if request.content_type == SOAP_WBXML:
            try:
                body = from_wbxml(body)
            except SoapError as exc:
                body = fault_envelope(Fault(CLIENT_FAULT, str(exc)))
                return web.Response(status=FAULT_STATUS, body=body, content_type="text/xml")
        status, reply = service.handle(body)
        return web.Response(status=status, body=reply, headers={"Content-Type": XML_CONTENT_TYPE})

    app = web.Application(client_max_size=MAX_PAYLOAD * 8)
    app.router.add_post("/{tail:.*}", post)
    return app


async def serve(
    host: str,
    port: int,
    stop: asyncio.Event,
    ready: Callable[[str], object] | None = None,
) -> None:
    """Serve the benchmark service on ``host:port`` until ``stop`` is set; ``ready``
    hears the service's URL once it is bound (not before: a bind can fail)."""
    runner = web.AppRunner(application(), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    try:
        await site.start()
    except BaseException:
        await runner.cleanup()
        raise
    if ready is not None:
        bound_host, bound_port = runner.addresses[0][:2]
        shown = f"[{bound_host}]" if ":" in bound_host else bound_host
        ready(f"http://{shown}:{bound_port}/")
    try:
        await stop.wait()
    finally:
        await runner.cleanup()
