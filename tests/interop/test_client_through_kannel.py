"""Our WAP client through Kannel's bearerbox + wapbox, origin on loopback.

The same two resources as fakewap fetches (a WML deck and a 40 KB body), connection-
oriented and connectionless, byte for byte; and a Post large enough that WTP sends it
as segmented invokes (Kannel acknowledges each packet group).
"""

import asyncio
from collections.abc import Iterator

import pytest

from wwanlab.aio.client import ConnectionlessClient, WapClient
from wwanlab.peers.kannel import KannelGateway, kannel_installed
from wwanlab.peers.origin import BODY_40K, DECK_WML, OriginServer, pattern_bytes
from wwanlab.wap.wbxml import decode as wbxml_decode
from wwanlab.wap.wbxml import to_xml

pytestmark = [
    pytest.mark.peer,
    pytest.mark.skipif(not kannel_installed(), reason="Kannel is not installed"),
]

WML_ONLY = (("Accept", "text/vnd.wap.wml"),)
POST_SIZE = 9000  # octets: 8 packets of WTP SAR (1400 each), three groups


@pytest.fixture(scope="module")
def peers() -> Iterator[tuple[OriginServer, KannelGateway]]:
    with OriginServer().running_in_thread() as origin, KannelGateway(log_level=2) as kannel:
        yield origin, kannel


def test_connection_oriented_deck_body_and_segmented_post(peers):
    origin, kannel = peers

    async def main() -> None:
        async with WapClient(kannel.wdp_address()) as client:
            deck = await client.get(origin.url("/deck.wml"), WML_ONLY, timeout=30)
            big = await client.get(origin.url("/body40k"), timeout=30)
            posted = await client.post(origin.url("/echo"), pattern_bytes(POST_SIZE), timeout=30)
        assert (deck.status, deck.content_type, deck.body) == (200, "text/vnd.wap.wml", DECK_WML)
        assert (big.status, big.body) == (200, BODY_40K)
        assert (posted.status, posted.body) == (200, f"received {POST_SIZE} bytes\n".encode())

    asyncio.run(main())
    echo = [r for r in origin.requests if r.path == "/echo"]
    assert echo[-1].body_length == POST_SIZE


def test_connection_oriented_deck_is_compiled_for_wmlc_clients(peers):
    origin, kannel = peers

    async def main() -> bytes:
        async with WapClient(kannel.wdp_address()) as client:  # Accept: */*
            deck = await client.get(origin.url("/deck.wml"), timeout=30)
        assert deck.content_type == "application/vnd.wap.wmlc"
        return deck.body

    xml = to_xml(wbxml_decode(asyncio.run(main())))
    assert b'<card id="second" title="Second"><p>A second card.</p></card>' in xml


def test_connectionless_deck_and_body(peers):
    origin, kannel = peers

    async def main() -> None:
        async with ConnectionlessClient(kannel.wdp_address(connectionless=True)) as client:
            deck = await client.get(origin.url("/deck.wml"), WML_ONLY)
            big = await client.get(origin.url("/body40k"))
        assert (deck.status, deck.body) == (200, DECK_WML)
        assert (big.status, big.body) == (200, BODY_40K)

    asyncio.run(main())
