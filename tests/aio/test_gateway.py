"""The asyncio gateway end to end over loopback UDP, with the in-memory origin."""

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from wwanlab.aio.client import ConnectionlessClient, WapClient
from wwanlab.aio.gateway import Gateway, GatewayConfig, logfmt
from wwanlab.peers.origin import BODY_40K, DECK_WML, OriginServer, pattern_bytes
from wwanlab.wap.gateway.policy import OriginPolicy
from wwanlab.wap.wbxml.wmlc import compile_wml

LOOPBACK = OriginPolicy.from_strings(["127.0.0.0/8"])


def run(
    body: Callable[[OriginServer, Gateway], Awaitable[Any]], policy: OriginPolicy = LOOPBACK
) -> Any:
    async def main() -> Any:
        async with OriginServer() as origin:
            gateway = await Gateway.start(GatewayConfig(port_cl=0, port_co=0, policy=policy))
            try:
                return await asyncio.wait_for(body(origin, gateway), 30)
            finally:
                await gateway.close()

    return asyncio.run(main())


def test_connection_oriented_deck_large_body_and_segmented_post():
    async def body(origin: OriginServer, gateway: Gateway) -> None:
        async with WapClient(gateway.address("co")) as client:
            deck = await client.get(origin.url("/deck.wml"))
            assert (deck.status, deck.content_type) == (200, "application/vnd.wap.wmlc")
            assert deck.body == compile_wml(DECK_WML)
            big = await client.get(origin.url("/body40k"))
            assert (big.status, big.body) == (200, BODY_40K)
            posted = await client.post(origin.url("/echo"), pattern_bytes(9000))
            assert posted.body == b"received 9000 bytes\n"
            missing = await client.get(origin.url("/nothing"))
            assert missing.status == 404
        forwarded = [r for r in origin.requests if r.path == "/deck.wml"]
        accept = [v for k, v in forwarded[0].headers if k.lower() == "accept"]
        assert accept == ["*/*", "text/vnd.wap.wml"]
        assert forwarded[0].header("User-Agent") == "wwanlab"
        await asyncio.sleep(0.05)
        assert gateway.snapshot()["sessions_open"] == 0

    run(body)


def test_connectionless_deck_and_large_body():
    async def body(origin: OriginServer, gateway: Gateway) -> None:
        async with ConnectionlessClient(gateway.address("cl")) as client:
            deck, big = await asyncio.gather(
                client.get(origin.url("/deck.wml")), client.get(origin.url("/body40k"))
            )
        assert deck.body == compile_wml(DECK_WML)
        assert big.body == BODY_40K

    run(body)


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "[::1]", "127.1.2.3"])
def test_default_policy_refuses_loopback_origins_before_connecting(host):
    async def body(origin: OriginServer, gateway: Gateway) -> tuple[int, int]:
        url = f"http://{host}:{origin.port}/deck.wml"
        async with WapClient(gateway.address("co")) as client:
            status = (await client.get(url)).status
        return status, len(origin.requests)

    assert run(body, OriginPolicy()) == (403, 0)


def test_unreachable_origin_is_a_502_and_a_bad_uri_a_400():
    async def body(origin: OriginServer, gateway: Gateway) -> tuple[int, int]:
        async with WapClient(gateway.address("co")) as client:
            closed = await client.get("http://127.0.0.1:1/")
            relative = await client.get("/deck.wml")
        return closed.status, relative.status

    assert run(body) == (502, 400)


def test_close_aborts_sessions_and_releases_the_sockets():
    async def body(origin: OriginServer, gateway: Gateway) -> None:
        client = WapClient(gateway.address("co"))
        await client.connect()
        assert gateway.snapshot()["sessions_open"] == 1
        await gateway.close()
        assert gateway.snapshot()["sessions_open"] == 0
        client.close()

    run(body)


def test_logfmt_quotes_values_with_spaces():
    assert logfmt("x", a=1, b="two words", c="") == 'event=x a=1 b="two words" c=""'
