"""What an operator sees of the gateway: access and refusal logs, the status endpoint,
bind errors, and content types passed through in any spelling."""

import asyncio
import json
import logging
import socket
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import pytest

from wwanlab.aio.client import ConnectionlessClient, WapClient
from wwanlab.aio.gateway import BindError, Gateway, GatewayConfig
from wwanlab.peers.origin import BODY_40K, OriginServer, Resource
from wwanlab.wap.gateway.policy import OriginPolicy

LOOPBACK = OriginPolicy.from_strings(["127.0.0.0/8"])
HTML = b"<html><body>hi</body></html>"


def run(
    body: Callable[[OriginServer, Gateway], Awaitable[Any]],
    policy: OriginPolicy = LOOPBACK,
    status: bool = False,
) -> Any:
    resources = {"/page.html": Resource(HTML, "text/html;charset=UTF-8")}

    async def main() -> Any:
        async with OriginServer(resources=resources) as origin:
            config = GatewayConfig(
                port_cl=0, port_co=0, policy=policy, status=("127.0.0.1", 0) if status else None
            )
            gateway = await Gateway.start(config)
            try:
                return await asyncio.wait_for(body(origin, gateway), 30)
            finally:
                await gateway.close()

    return asyncio.run(main())


def access_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "wwanlab.gateway.access" and r.levelno == logging.INFO
    ]


def test_every_request_gets_one_access_line_at_info(caplog):
    caplog.set_level(logging.INFO, logger="wwanlab.gateway")

    async def body(origin: OriginServer, gateway: Gateway) -> tuple[int, int]:
        async with WapClient(gateway.address("co")) as client:
            await client.get(origin.url("/body40k"))
            await client.get("/relative")  # refused by the gateway itself: 400
            local = client.local_address
        async with ConnectionlessClient(gateway.address("cl")) as cl:
            await cl.get(origin.url("/nothing"))
        return local[1], gateway.stats["body_bytes"]

    co_port, body_bytes = run(body)
    lines = access_lines(caplog)
    assert len(lines) == 3
    fetched, refused, missing = lines
    prefix = f"event=access client=127.0.0.1:{co_port} method=GET"
    assert fetched.startswith(f"{prefix} url=http://127.0.0.1:")
    assert (
        "/body40k status=200 type=application/octet-stream bytes=40960 agent=wwanlab ms="
        in fetched
    )
    assert refused.startswith(f"{prefix} url=/relative status=400 type=text/plain bytes=")
    # "not found\n" from the origin; a value with a space is quoted
    assert '/nothing status=404 type="text/plain; charset=utf-8" bytes=10 agent=wwanlab' in (
        missing
    )
    assert float(fetched.rsplit("ms=", 1)[1]) > 0
    assert body_bytes == len(BODY_40K) + int(refused.split("bytes=")[1].split()[0]) + 10


def test_refused_origin_is_logged_with_its_reason_which_the_phone_reads(caplog):
    caplog.set_level(logging.INFO, logger="wwanlab.gateway")

    async def body(origin: OriginServer, gateway: Gateway) -> tuple[int, bytes]:
        async with WapClient(gateway.address("co")) as client:
            reply = await client.get(origin.url("/body40k"))
        return reply.status, reply.body

    status, text = run(body, OriginPolicy())
    assert (status, text) == (403, b"origin 127.0.0.1 is not allowed (gateway origin policy)\n")
    refusals = [r for r in caplog.records if "event=forbidden" in r.getMessage()]
    assert len(refusals) == 1 and refusals[0].levelno == logging.INFO
    assert 'reason="origin 127.0.0.1 is not allowed"' in refusals[0].getMessage()


def test_status_endpoint_serves_counters_and_sessions_as_json():
    async def body(origin: OriginServer, gateway: Gateway) -> None:
        address = gateway.status_address
        assert address is not None
        base = f"http://{address[0]}:{address[1]}"
        async with WapClient(gateway.address("co")) as client, aiohttp.ClientSession() as http:
            await client.get(origin.url("/page.html"))
            async with http.get(f"{base}/status") as response:
                assert response.status == 200
                assert response.content_type == "application/json"
                status = json.loads(await response.text())
            async with http.get(f"{base}/admin/shutdown") as response:
                assert response.status == 404
            async with http.post(f"{base}/status") as response:
                assert response.status == 405
            local = client.local_address
            session_id = client.session_id
        assert status["status"] == "running"
        assert status["counters"]["requests"] == 1
        assert status["counters"]["status_2xx"] == 1
        assert status["counters"]["sessions"] == 1
        assert status["tables"]["sessions_open"] == 1
        assert status["listening"]["co"] == "{}:{}".format(*gateway.address("co"))
        assert status["sessions_listed"] == 1
        (session,) = status["sessions"]
        assert session["id"] == session_id
        assert session["client"] == f"127.0.0.1:{local[1]}"
        assert (session["state"], session["methods"]) == ("CONNECTED", 0)
        assert 0 <= session["idle_s"] < 5
        assert status["uptime_s"] >= 0

    run(body, status=True)


def test_status_address_is_none_without_the_option():
    async def body(origin: OriginServer, gateway: Gateway) -> None:
        assert gateway.status_address is None

    run(body)


def test_port_clash_names_the_port_and_leaves_nothing_bound_or_logged(caplog):
    caplog.set_level(logging.INFO, logger="wwanlab.gateway")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as taken:
        taken.bind(("127.0.0.1", 0))
        port = taken.getsockname()[1]

        async def main() -> None:
            await Gateway.start(GatewayConfig(port_cl=0, port_co=port))

        with pytest.raises(BindError) as info:
            asyncio.run(main())
    assert str(info.value) == (
        f"cannot bind connection-oriented UDP port 127.0.0.1:{port}: address already in use"
    )
    assert not any("event=stopped" in r.getMessage() for r in caplog.records)
    assert not any("event=listening" in r.getMessage() for r in caplog.records)


def test_status_port_clash_is_a_bind_error_too():
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]

        async def main() -> None:
            await Gateway.start(GatewayConfig(port_cl=0, port_co=0, status=("127.0.0.1", port)))

        with pytest.raises(BindError, match=f"status TCP port 127.0.0.1:{port}: address already"):
            asyncio.run(main())


def test_content_type_with_parameters_and_no_space_reaches_the_phone():
    async def body(origin: OriginServer, gateway: Gateway) -> tuple[str, bytes]:
        async with WapClient(gateway.address("co")) as client:
            reply = await client.get(origin.url("/page.html"))
        return reply.content_type, reply.body

    assert run(body) == ("text/html; charset=utf-8", HTML)


def test_a_dropped_connectionless_datagram_is_logged_with_its_octets(caplog):
    """The log line carries the datagram's head, so a peer's bad bytes are evidence
    without a capture running (the fakewap drop of docs/kannel.md)."""
    caplog.set_level(logging.INFO, logger="wwanlab.gateway")
    cut_short = b"\x07\x40\x00\x01\x99"  # TID 7, Get, its URI length says 1, nothing follows

    async def body(origin: OriginServer, gateway: Gateway) -> int:
        loop = asyncio.get_running_loop()
        transport, _ = await loop.create_datagram_endpoint(
            asyncio.DatagramProtocol, remote_addr=gateway.address("cl")
        )
        transport.sendto(cut_short)
        port = transport.get_extra_info("sockname")[1]
        for _ in range(100):
            if any("event=dropped" in r.getMessage() for r in caplog.records):
                break
            await asyncio.sleep(0.02)
        transport.close()
        return int(port)

    port = run(body)
    (line,) = [r.getMessage() for r in caplog.records if "event=dropped" in r.getMessage()]
    assert line.startswith(f"event=dropped client=127.0.0.1:{port} detail=")
    assert line.endswith(" octets=5 head=0740000199")
