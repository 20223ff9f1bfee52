"""The WAP client ends every method in a reply or an explicit error, never a hang."""

import asyncio
import random
import socket
from collections.abc import Callable

import pytest

from wwanlab.aio.client import (
    CLIENT_SDU_SIZE,
    DEFAULT_HEADERS,
    METHOD_MOR,
    ConnectionlessClient,
    WapAborted,
    WapClient,
    WapError,
    WapResponse,
    WapTimeout,
    merge_headers,
)
from wwanlab.aio.udp import UdpDriver
from wwanlab.core.events import Event
from wwanlab.wap.wsp.capabilities import ClientSduSize, MethodMor
from wwanlab.wap.wsp.common import reply_fields
from wwanlab.wap.wsp.constants import AbortReason as WspReason
from wwanlab.wap.wsp.events import MethodAborted, MethodInvoke, MethodResult, SessionConnected
from wwanlab.wap.wsp.pdu import Get, Reply, decode_connectionless
from wwanlab.wap.wsp.session import ClientState, WspServer, WspServerConfig
from wwanlab.wap.wtp.constants import AbortReason, AbortType
from wwanlab.wap.wtp.timers import WtpConfig


def silent_socket() -> socket.socket:
    """A bound UDP socket that never answers (the test reads what reached it)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    return s


def address(s: socket.socket) -> tuple[str, int]:
    return ("127.0.0.1", int(s.getsockname()[1]))


def test_connect_to_a_silent_gateway_ends_in_a_noresponse_provider_abort():
    fast = WtpConfig(retry_interval=0.05, max_rcr=2)

    async def main() -> WapAborted:
        with silent_socket() as s:
            client = WapClient(address(s), wtp_config=fast)
            with pytest.raises(WapAborted) as info:
                await asyncio.wait_for(client.connect(), 5)
            client.close()
        return info.value

    abort = asyncio.run(main())
    assert (abort.abort_type, abort.reason) == (AbortType.PROVIDER, AbortReason.NORESPONSE)
    assert str(abort) == "transaction aborted: provider reason NORESPONSE"


def test_connect_timeout_abandons_the_connect():
    async def main() -> WapClient:
        with silent_socket() as s:
            client = WapClient(address(s))
            with pytest.raises(WapTimeout):
                await client.connect(timeout=0.2)
            with pytest.raises(WapError, match="connect first"):
                await client.get("http://example.org/")
            client.close()
        return client

    client = asyncio.run(main())
    assert client.session.state == ClientState.NULL
    assert client.session_id is None


def test_connectionless_request_is_sent_tries_times_then_times_out():
    async def main() -> tuple[float, list[bytes]]:
        loop = asyncio.get_running_loop()
        with silent_socket() as s:
            s.setblocking(False)
            async with ConnectionlessClient(address(s), retry_after=0.1, tries=3) as client:
                started = loop.time()
                with pytest.raises(WapTimeout, match=r"after 3 tries of 0\.1 s"):
                    await client.get("http://example.org/")
                elapsed = loop.time() - started
            sent = []
            while True:
                try:
                    sent.append(s.recv(65536))
                except BlockingIOError:
                    return elapsed, sent

    elapsed, sent = asyncio.run(main())
    assert 0.3 <= elapsed < 2.0
    assert len(sent) == 3 and len(set(sent)) == 1  # the same datagram, TID included
    _, pdu = decode_connectionless(sent[0])
    assert isinstance(pdu, Get) and pdu.uri == "http://example.org/"


class Server:
    """A sans-IO ``WspServer`` on loopback whose user answers via ``answer``."""

    def __init__(self, config: WspServerConfig) -> None:
        self.wsp = WspServer(random.Random(1), config)
        self.events: list[Event] = []
        self.outstanding = 0
        self.most_outstanding = 0
        self.answer: Callable[[MethodInvoke], object] = lambda invoke: None

    async def start(self) -> tuple[str, int]:
        self.driver = await UdpDriver.bind(self.wsp, self.on_event)
        return self.driver.local_address

    def on_event(self, event: Event) -> None:
        self.events.append(event)
        if isinstance(event, MethodInvoke):
            self.outstanding += 1
            self.most_outstanding = max(self.most_outstanding, self.outstanding)
            self.answer(event)

    def reply(self, invoke: MethodInvoke, status: int, body: bytes) -> None:
        self.outstanding -= 1
        self.wsp.reply(invoke.handle, status, (("Content-Type", "text/plain"),), body, 0.0)
        self.driver.pump()


def test_methods_run_up_to_the_negotiated_mor_and_the_rest_wait():
    server = Server(WspServerConfig(method_mor=2))

    async def main() -> tuple[WapClient, list[WapResponse]]:
        loop = asyncio.get_running_loop()
        server.answer = lambda invoke: loop.call_later(
            0.05, server.reply, invoke, 200, invoke.uri.encode()
        )
        client = WapClient(await server.start())
        await client.connect(timeout=5)
        urls = [f"http://example.org/{i}" for i in range(5)]
        responses = await asyncio.gather(*(client.get(u, timeout=5) for u in urls))
        await client.disconnect()
        server.driver.close()
        return client, list(responses)

    client, responses = asyncio.run(main())
    [connected] = [e for e in server.events if isinstance(e, SessionConnected)]
    assert connected.headers == DEFAULT_HEADERS
    assert ClientSduSize(CLIENT_SDU_SIZE) in connected.proposed
    assert MethodMor(METHOD_MOR) in connected.proposed
    assert client.capabilities.method_mor == 2
    assert server.most_outstanding == 2
    assert [r.body for r in responses] == [f"http://example.org/{i}".encode() for i in range(5)]
    assert {(r.status, r.content_type, r.headers) for r in responses} == {(200, "text/plain", ())}


def test_method_timeout_aborts_the_transaction_at_the_gateway():
    """A gateway that never answers the Get: WapTimeout, and WTP tells the gateway."""
    server = Server(WspServerConfig())

    async def main() -> None:
        client = WapClient(await server.start())
        await client.connect(timeout=5)
        with pytest.raises(WapTimeout):
            await client.get("http://example.org/", timeout=0.3)
        await asyncio.sleep(0.1)
        client.close()
        server.driver.close()

    asyncio.run(main())
    [invoke] = [e for e in server.events if isinstance(e, MethodInvoke)]
    [aborted] = [e for e in server.events if isinstance(e, MethodAborted)]
    # WSP's client method table: S-MethodAbort.req sends TR-Abort.req(PEERREQ)
    assert (aborted.request, aborted.reason) == (invoke.handle, WspReason.PEERREQ)


def test_a_reply_over_the_client_sdu_size_is_a_user_abort():
    server = Server(WspServerConfig())

    async def main() -> WapAborted:
        server.answer = lambda invoke: server.reply(invoke, 200, bytes(CLIENT_SDU_SIZE))
        async with WapClient(await server.start()) as client:
            with pytest.raises(WapAborted) as info:
                await client.get("http://example.org/big", timeout=5)
        server.driver.close()
        return info.value

    abort = asyncio.run(main())
    assert (abort.abort_type, abort.reason) == (AbortType.USER, WspReason.MRUEXCEEDED)


def test_request_headers_replace_defaults_of_the_same_name():
    defaults = [("Accept", "*/*"), ("User-Agent", "wwanlab")]
    assert merge_headers(defaults, [("accept", "text/vnd.wap.wml")]) == (
        ("User-Agent", "wwanlab"),
        ("accept", "text/vnd.wap.wml"),
    )


def test_reply_with_an_unnamed_content_type_keeps_its_body():
    reply = Reply(status=0x20, content_type=b"\xd9", headers=b"\x92\x01\x00", data=b"abc")
    response = WapResponse.from_result(MethodResult(1, *reply_fields(reply)), 0.5)
    assert (response.status, response.body, response.elapsed) == (200, b"abc", 0.5)
    assert response.content_type == "application/x-wsp-content-type; raw=d9"  # 0x59 unassigned
    assert response.headers == (("Date", "Thu, 01 Jan 1970 00:00:00 GMT"),)
