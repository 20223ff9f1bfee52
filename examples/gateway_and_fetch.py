"""Run the WAP gateway with an HTTP origin behind it and fetch through it.

Run: .venv/bin/python examples/gateway_and_fetch.py

Everything stays on the loopback interface: a small HTTP origin server, the gateway
(WSP over WTP on one UDP port, connectionless WSP on another, both picked by the OS),
and a WAP client. The client fetches a WML deck in a WSP session, which the gateway
compiles to WBXML (WMLC) on the way, and a 40,000-octet file, once in the session
(WTP segments it into packet groups) and once connectionless.

From a shell the same is `wwanlab gateway --allow-origin 127.0.0.0/8` in one terminal
and `wwanlab get http://HOST:PORT/deck.wml --gateway 127.0.0.1` in another.
"""

import asyncio

from wwanlab.aio.client import ConnectionlessClient, WapClient, WapResponse
from wwanlab.aio.gateway import Gateway, GatewayConfig
from wwanlab.peers.origin import DECK_WML, OriginServer
from wwanlab.wap.gateway.policy import OriginPolicy
from wwanlab.wap.wbxml.wmlc import compile_wml


def show(what: str, response: WapResponse) -> None:
    print(f"{what}: status {response.status}, {response.content_type}")


async def main() -> None:
    async with OriginServer() as origin:  # serves /deck.wml, /body40k and more
        # The default policy refuses private and loopback origins; this demo allows them.
        policy = OriginPolicy.from_strings(["127.0.0.0/8"])
        gateway = await Gateway.start(GatewayConfig(port_cl=0, port_co=0, policy=policy))
        try:
            print(f"origin: {origin.url('/')}")
            co, cl = gateway.address("co"), gateway.address("cl")
            print(f"gateway: WSP/WTP on {co[0]}:{co[1]}, connectionless WSP on {cl[0]}:{cl[1]}")
            async with WapClient(co) as session:
                deck = await session.get(origin.url("/deck.wml"))
                show("session, /deck.wml", deck)
                compiled = deck.body == compile_wml(DECK_WML)
                print(f"  the origin's deck compiled to WMLC: {compiled}")
                big = await session.get(origin.url("/body40k"))
                show("session, /body40k", big)
                print(f"  {len(big.body)} octets, in WTP segments")
            async with ConnectionlessClient(cl) as client:
                big = await client.get(origin.url("/body40k"))
                show("connectionless, /body40k", big)
                print(f"  {len(big.body)} octets")
        finally:
            await gateway.close()


asyncio.run(main())
