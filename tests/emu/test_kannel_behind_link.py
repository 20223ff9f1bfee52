"""Kannel outside, WAP clients inside an emulated link: fakewap and ``wwanlab get``
reach bearerbox/wapbox on ``WWANLAB_HOST``, as a user would set it up."""

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
from tests.emu.leftovers import can_emulate

from wwanlab.emu.link import EmulatedLink
from wwanlab.peers.kannel import FAKEWAP, KannelGateway, kannel_installed
from wwanlab.peers.origin import OriginServer

pytestmark = [
    can_emulate,
    pytest.mark.peer,
    pytest.mark.skipif(not kannel_installed(), reason="Kannel is not installed"),
]

WWANLAB = str(Path(sys.executable).parent / "wwanlab")


def test_fakewap_and_wwanlab_get_inside_reach_kannel_outside():
    async def main():
        async with EmulatedLink("gprs-one-user") as link:
            with (
                OriginServer().running_in_thread() as origin,
                KannelGateway(wdp_host=link.host_address) as gateway,
            ):
                url = origin.url("/deck.wml")
                get = await link.spawn(
                    [WWANLAB, "get", url, "--gateway", gateway.wdp_host, "--json"],
                    stdout=subprocess.PIPE,
                )
                got, _ = await get.communicate()
                fakewap = await link.spawn(
                    ["sh", "-c", f'{FAKEWAP} -g "$WWANLAB_HOST" -m 3 {url}'],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                )
                log, _ = await fakewap.communicate()
                body = origin.resources["/deck.wml"].body
            return get.returncode, json.loads(got), fakewap.returncode, log.decode(), body, link

    get_rc, got, fakewap_rc, log, body, link = asyncio.run(main())
    assert get_rc == 0
    # wapbox compiles the WML deck to WBXML on its way to the phone.
    assert (got["ok"], got["status"]) == (True, 200)
    assert got["content_type"].startswith("application/vnd.wap.wmlc")
    assert 0 < got["body_bytes"] < len(body)
    assert fakewap_rc == 0
    assert log.count("Received WSP Reply with status code 200") == 3
    counters = link.summary()["forwarder"]
    assert counters["down"]["packets"] > 0 and counters["up"]["packets"] > 0
