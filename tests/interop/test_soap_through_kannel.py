"""SOAP through Kannel's bearerbox + wapbox: the same results as over HTTP and through our
gateway, connectionless and in a session (paper 001's transport, with a real gateway)."""

import asyncio
import threading
from collections.abc import Iterator

import pytest
from aiohttp import web

from wwanlab.peers.kannel import KannelGateway, kannel_installed
from wwanlab.soap.client import HttpTransport, SoapClient, Transport, WspTransport
from wwanlab.soap.envelope import Fault
from wwanlab.soap.service import application

pytestmark = [
    pytest.mark.peer,
    pytest.mark.skipif(not kannel_installed(), reason="Kannel is not installed"),
]


@pytest.fixture(scope="module")
def service_url() -> Iterator[str]:
    """The benchmark service on loopback, in a thread with its own event loop."""
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(application(), access_log=None)
    loop.run_until_complete(runner.setup())
    site = web.TCPSite(runner, "127.0.0.1", 0)
    loop.run_until_complete(site.start())
    port = runner.addresses[0][1]
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}/soap"
    loop.call_soon_threadsafe(loop.stop)
    thread.join(5)
    loop.run_until_complete(runner.cleanup())
    loop.close()


@pytest.fixture(scope="module")
def kannel() -> Iterator[KannelGateway]:
    with KannelGateway(log_level=2) as gateway:
        yield gateway


async def results(url: str, transport: Transport, wbxml: bool = False) -> list[object]:
    out: list[object] = []
    async with SoapClient(url, transport, wbxml=wbxml) as client:
        for method, args in [("nop", ()), ("getString", (40,)), ("getIntArray", (12,))]:
            out.append((await client.call(method, *args)).value)
        with pytest.raises(Fault) as fault:
            await client.call("noSuchMethod")
        out.append(fault.value.code)
    return out


@pytest.mark.parametrize("wbxml", [False, True])
def test_same_results_over_http_and_through_kannel_both_ways(
    service_url: str, kannel: KannelGateway, wbxml: bool
) -> None:
    """Kannel does not know WBXML SOAP: it forwards the body with its type, the service
    decodes it, and the XML reply comes back as it left."""

    async def main() -> list[list[object]]:
        cl = WspTransport(kannel.wdp_address(connectionless=True))
        co = WspTransport(kannel.wdp_address(), connectionless=False)
        return [
            await results(service_url, HttpTransport()),
            await results(service_url, cl, wbxml),
            await results(service_url, co, wbxml),
        ]

    http, cl, co = asyncio.run(main())
    expected_text = ("abcdefghijklmnopqrstuvwxyz" * 2)[:40]
    assert http == [None, expected_text, list(range(12)), "SOAP-ENV:Client"]
    assert cl == http and co == http
