"""SOAP calls end to end over loopback: the service over HTTP, and through our gateway by
connectionless and connection-oriented WSP, with and without WBXML."""

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from aiohttp import web

from wwanlab.aio.gateway import Gateway, GatewayConfig
from wwanlab.soap.client import HttpTransport, SoapClient, Transport, WspTransport
from wwanlab.soap.envelope import Call, Fault, call_envelope
from wwanlab.soap.service import BenchmarkService, application
from wwanlab.wap.gateway.policy import OriginPolicy
from wwanlab.wap.wbxml.soap import SOAP_WBXML, to_wbxml

LOOPBACK = OriginPolicy.from_strings(["127.0.0.0/8"])


@asynccontextmanager
async def service() -> AsyncIterator[tuple[str, BenchmarkService]]:
    state = BenchmarkService()
    runner = web.AppRunner(application(state), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield f"http://127.0.0.1:{port}/soap", state
    finally:
        await runner.cleanup()


def run(body: Callable[[str, Gateway, BenchmarkService], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        async with service() as (url, state):
            gateway = await Gateway.start(GatewayConfig(port_cl=0, port_co=0, policy=LOOPBACK))
            try:
                return await asyncio.wait_for(body(url, gateway, state), 30)
            finally:
                await gateway.close()

    return asyncio.run(main())


def transports(gateway: Gateway) -> dict[str, Transport]:
    return {
        "http": HttpTransport(),
        "wsp-cl": WspTransport(gateway.address("cl")),
        "wsp-co": WspTransport(gateway.address("co"), connectionless=False),
    }


@pytest.mark.parametrize("wbxml", [False, True])
@pytest.mark.parametrize("name", ["http", "wsp-cl", "wsp-co"])
def test_every_method_gives_the_same_result_on_every_transport(name: str, wbxml: bool) -> None:
    async def body(url: str, gateway: Gateway, state: BenchmarkService) -> None:
        async with SoapClient(url, transports(gateway)[name], wbxml=wbxml) as client:
            assert (await client.call("nop")).value is None
            assert (await client.call("setStringSize", 30)).value is None
            got = await client.call("getString")
            assert got.value == "abcdefghijklmnopqrstuvwxyzabcd"
            assert (await client.call("getString", 3)).value == "abc"
            await client.call("setIntArraySize", 4)
            assert (await client.call("getIntArray")).value == [0, 1, 2, 3]
            with pytest.raises(Fault) as fault:
                await client.call("noSuchMethod")
            assert fault.value.code == "SOAP-ENV:Client"
            assert "noSuchMethod" in fault.value.string
        assert state.calls == 7
        # the payload counted is the envelope as sent
        expected = call_envelope(Call("getString", ()))
        assert got.up.payload == len(to_wbxml(expected) if wbxml else expected)
        assert got.t_call > 0 and got.t_soap > 0 and got.up.headers > 0

    run(body)


def test_connectionless_call_is_one_datagram_each_way_with_28_octets_of_ip_and_udp() -> None:
    async def body(url: str, gateway: Gateway, state: BenchmarkService) -> None:
        async with SoapClient(url, WspTransport(gateway.address("cl"))) as client:
            result = await client.call("getString", 10)
        assert (result.up.packets, result.down.packets) == (1, 1)
        # the WSP Post PDU (TID, type, lengths, URI, headers) is all header but the envelope
        assert result.up.octets > result.up.payload + 28
        assert result.down.payload == result.down.octets - result.down.headers

    run(body)


def test_gateway_encodes_the_reply_only_for_a_phone_that_names_wbxml_soap() -> None:
    async def body(url: str, gateway: Gateway, state: BenchmarkService) -> tuple[str, str]:
        from wwanlab.aio.client import ConnectionlessClient

        envelope = call_envelope(Call("nop"))
        async with ConnectionlessClient(gateway.address("cl")) as phone:
            any_type = await phone.post(url, envelope, "text/xml", (("Accept", "*/*"),))
            named = await phone.post(url, envelope, "text/xml", (("Accept", SOAP_WBXML),))
        return any_type.content_type, named.content_type

    plain, binary = run(body)
    assert plain.startswith("text/xml") and binary == SOAP_WBXML


def test_undecodable_wbxml_body_is_refused_with_415_not_forwarded() -> None:
    async def body(url: str, gateway: Gateway, state: BenchmarkService) -> int:
        from wwanlab.aio.client import ConnectionlessClient

        async with ConnectionlessClient(gateway.address("cl")) as phone:
            reply = await phone.post(url, b"\x03\x01\x6a\x00\x45", SOAP_WBXML)
        assert state.calls == 0
        return reply.status

    assert run(body) == 415
