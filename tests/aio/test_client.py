"""The WAP client ends every method in a reply or an explicit error, never a hang."""

import asyncio
import random
import socket

import pytest

from wwanlab.aio.client import (
    ConnectionlessClient,
    WapAborted,
    WapClient,
    WapResponse,
    WapTimeout,
    merge_headers,
)
from wwanlab.aio.udp import UdpDriver
from wwanlab.core.events import Event
from wwanlab.wap.gateway.server import ConnectionOrientedServer, MethodCancelled, MethodRequest
from wwanlab.wap.wsp.pdu import Reply
from wwanlab.wap.wtp.constants import AbortReason, AbortType
from wwanlab.wap.wtp.timers import WtpConfig


def silent_address() -> tuple[str, int]:
    """A UDP address on which a bound socket never answers."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    silent_address.keep = s  # type: ignore[attr-defined]
    return ("127.0.0.1", int(s.getsockname()[1]))


def test_connect_to_a_silent_gateway_ends_in_a_local_noresponse_abort():
    fast = WtpConfig(retry_interval=0.05, max_rcr=2)

    async def main() -> WapAborted:
        client = WapClient(silent_address(), wtp_config=fast)
        with pytest.raises(WapAborted) as info:
            await asyncio.wait_for(client.connect(), 5)
        client.close()
        return info.value

    abort = asyncio.run(main())
    assert (abort.abort_type, abort.reason, abort.local) == (
        AbortType.PROVIDER,
        AbortReason.NORESPONSE,
        True,
    )


def test_connectionless_request_times_out_after_its_tries():
    async def main() -> float:
        loop = asyncio.get_running_loop()
        async with ConnectionlessClient(silent_address(), retry_after=0.1, tries=3) as client:
            started = loop.time()
            with pytest.raises(WapTimeout):
                await client.get("http://example.org/")
            return loop.time() - started

    assert 0.3 <= asyncio.run(main()) < 2.0


def test_method_timeout_aborts_the_transaction_at_the_gateway():
    """A gateway that never answers the Get: WapTimeout, and WTP tells the gateway."""

    async def main() -> list[Event]:
        events: list[Event] = []
        server = ConnectionOrientedServer(random.Random(1))
        driver = await UdpDriver.bind(server, events.append)
        client = WapClient(driver.local_address)
        await client.connect(timeout=5)
        with pytest.raises(WapTimeout):
            await client.get("http://example.org/", timeout=0.3)
        await asyncio.sleep(0.1)
        client.close()
        driver.close()
        return events

    events = asyncio.run(main())
    requests = [e for e in events if isinstance(e, MethodRequest)]
    cancelled = [e for e in events if isinstance(e, MethodCancelled)]
    assert len(requests) == len(cancelled) == 1
    assert cancelled[0].request_id == requests[0].request_id
    assert "reason 0xea" in cancelled[0].reason  # USERREQ (WSP Table 35)


def test_request_headers_replace_defaults_of_the_same_name():
    defaults = [("Accept", "*/*"), ("User-Agent", "wwanlab")]
    assert merge_headers(defaults, [("accept", "text/vnd.wap.wml")]) == [
        ("User-Agent", "wwanlab"),
        ("accept", "text/vnd.wap.wml"),
    ]


def test_reply_with_an_unnamed_content_type_keeps_its_body():
    reply = Reply(status=0x20, content_type=b"\xd9", data=b"abc")  # 0x59 is unassigned
    response = WapResponse.from_reply(reply, 0.5)
    assert (response.status, response.body) == (200, b"abc")
    assert response.content_type == "application/x-wsp-content-type; raw=d9"
