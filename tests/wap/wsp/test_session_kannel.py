"""Our WSP client objects against Kannel 1.4.5's real gateway over loopback UDP."""

import asyncio
import random
from collections.abc import Callable

import pytest

from wwanlab.aio.udp import UdpDriver
from wwanlab.core.events import Event
from wwanlab.peers.kannel import KannelGateway, kannel_installed
from wwanlab.peers.origin import OriginServer, pattern_bytes
from wwanlab.wap.wsp.connectionless import ConnectionlessClient
from wwanlab.wap.wsp.events import Connected, Disconnected, MethodResult
from wwanlab.wap.wsp.session import ClientSession

ACCEPT = (("Accept", "*/*"),)

pytestmark = [
    pytest.mark.peer,
    pytest.mark.skipif(not kannel_installed(), reason="Kannel is not installed"),
]


async def until(
    events: list[Event], done: Callable[[list[Event]], bool], timeout: float = 20.0
) -> None:
    async def poll() -> None:
        while not done(events):
            await asyncio.sleep(0.01)

    await asyncio.wait_for(poll(), timeout)


def test_connect_sar_get_disconnect_with_kannel():
    with OriginServer().running_in_thread() as origin, KannelGateway(log_level=2) as gw:

        async def main() -> list[Event]:
            events: list[Event] = []
            session = ClientSession(gw.wdp_address(), random.Random(1))
            driver = await UdpDriver.bind(session, events.append)
            session.connect(driver.now())
            driver.pump()
            await until(events, lambda ev: any(isinstance(e, Connected) for e in ev))
            session.get(origin.url("/body40k"), driver.now(), ACCEPT)
            driver.pump()
            await until(events, lambda ev: any(isinstance(e, MethodResult) for e in ev))
            session.disconnect(driver.now())
            driver.pump()
            await asyncio.sleep(0.2)
            driver.close()
            return events

        events = asyncio.run(main())
    connected, result, gone = events
    assert isinstance(connected, Connected) and connected.session_id >= 0
    assert isinstance(result, MethodResult) and result.status == 200
    assert result.body == pattern_bytes(40960)
    # Kannel sends content type 0x5A, which the header codec does not name yet
    assert result.headers[0] == ("Content-Type", "application/octet-stream")  # 0x5A
    assert isinstance(gone, Disconnected)


def test_segmented_post_through_kannel():
    body = pattern_bytes(10_000)  # 8 invoke packets, 3 groups
    with OriginServer().running_in_thread() as origin, KannelGateway(log_level=2) as gw:

        async def main() -> list[Event]:
            events: list[Event] = []
            session = ClientSession(gw.wdp_address(), random.Random(3))
            driver = await UdpDriver.bind(session, events.append)
            session.connect(driver.now())
            driver.pump()
            await until(events, lambda ev: any(isinstance(e, Connected) for e in ev))
            session.post(
                origin.url("/echo"), "application/octet-stream", body, driver.now(), ACCEPT
            )
            driver.pump()
            await until(events, lambda ev: any(isinstance(e, MethodResult) for e in ev))
            driver.close()
            return events

        events = asyncio.run(main())
        posted = [r for r in origin.requests if r.method == "POST"]
    result = events[-1]
    assert isinstance(result, MethodResult) and result.status == 200
    assert result.body == b"received 10000 bytes\n"
    assert [r.body_length for r in posted] == [10_000]


def test_connectionless_get_with_kannel():
    with OriginServer().running_in_thread() as origin, KannelGateway(log_level=2) as gw:

        async def main() -> list[Event]:
            events: list[Event] = []
            client = ConnectionlessClient(gw.wdp_address(connectionless=True), random.Random(2))
            driver = await UdpDriver.bind(client, events.append)
            client.get(origin.url("/deck.wml"), driver.now(), ACCEPT)
            driver.pump()
            await until(events, lambda ev: bool(ev))
            driver.close()
            return events

        [reply] = asyncio.run(main())
    assert isinstance(reply, MethodResult) and reply.status == 200
    assert reply.headers[0] == ("Content-Type", "application/vnd.wap.wmlc")
    assert reply.body[:1] in (b"\x01", b"\x02", b"\x03")  # a WBXML version octet
