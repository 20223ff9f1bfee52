"""A WAP client on asyncio: WSP sessions over WTP, or connectionless WSP.

``WapClient`` (connection-oriented, port 9201) drives one ``WtpEndpoint`` through a
``UdpDriver``: Connect, then any number of Get/Post methods (each a class 2 transaction;
WTP segments large Posts and reassembles large replies), then Disconnect (class 0).
``ConnectionlessClient`` (port 9200) sends each method as one datagram with a TID octet
(WSP 8.2.1) and waits for the Reply with the same TID, sending again after
``retry_after`` seconds up to ``tries`` times.

A method ends in a ``WapResponse`` or raises: ``WapAborted`` when WTP or the gateway
aborted the transaction (with type and reason), ``WapTimeout`` when nothing came back.
A reply is never returned unless WTP reassembled it completely.

    async with WapClient(("127.0.0.1", 9201)) as client:
        response = await client.get("http://example.org/")
"""

import asyncio
import random
import time
from collections.abc import Iterable
from dataclasses import dataclass
from types import TracebackType
from typing import TypeVar

from wwanlab.core.address import Address
from wwanlab.core.errors import WwanlabError
from wwanlab.core.events import Event
from wwanlab.wap.wsp.capabilities import Capability, ClientSduSize, ServerSduSize
from wwanlab.wap.wsp.common import name_content_type
from wwanlab.wap.wsp.constants import CONNECTION_ORIENTED_PORT, CONNECTIONLESS_PORT
from wwanlab.wap.wsp.encoding import WspCodecError
from wwanlab.wap.wsp.headers import (
    Header,
    decode_headers,
    encode_content_type,
    encode_headers,
)
from wwanlab.wap.wsp.pdu import (
    Connect,
    ConnectReply,
    Disconnect,
    Get,
    Post,
    Reply,
    decode,
    decode_connectionless,
    encode,
    encode_connectionless,
)
from wwanlab.wap.wsp.status import wsp_to_http
from wwanlab.wap.wtp.constants import AbortType, TransactionClass
from wwanlab.wap.wtp.endpoint import WtpEndpoint
from wwanlab.wap.wtp.events import AbortIndication, ResultIndication
from wwanlab.wap.wtp.timers import WtpConfig

from .udp import UdpDriver

DEFAULT_HEADERS: tuple[Header, ...] = (("Accept", "*/*"), ("User-Agent", "wwanlab"))
CLIENT_SDU_SIZE = 1 << 20  # octets we accept in one reply (WSP 8.3.2.1)


class WapError(WwanlabError):
    """A WAP method that did not end in a reply."""


class WapAborted(WapError):
    """The transaction was aborted; ``abort_type`` and ``reason`` as WTP 9.3.4 gives."""

    def __init__(self, abort_type: int, reason: int, local: bool) -> None:
        who = "provider" if abort_type == AbortType.PROVIDER else "user"
        side = "locally" if local else "by the peer"
        super().__init__(f"transaction aborted {side}: {who} reason {reason:#04x}")
        self.abort_type = abort_type
        self.reason = reason
        self.local = local


class WapTimeout(WapError):
    """No reply within the time allowed."""


@dataclass(frozen=True, slots=True)
class WapResponse:
    status: int  # HTTP status code
    content_type: str
    headers: list[Header]
    body: bytes
    elapsed: float  # seconds from sending the method to the whole reply

    @classmethod
    def from_reply(cls, reply: Reply, elapsed: float) -> "WapResponse":
        """The body always; a content type or header block we cannot name stays in hex."""
        try:
            status = wsp_to_http(reply.status)
        except WspCodecError as exc:
            raise WapError(f"malformed reply: {exc}") from None
        content_type = name_content_type(reply.content_type) if reply.content_type else ""
        try:
            headers = decode_headers(reply.headers)
        except WspCodecError:
            headers = [("X-Wsp-Undecoded-Headers", reply.headers.hex())]
        return cls(status, content_type, headers, reply.data, elapsed)


_P = TypeVar("_P")


def _expect(raw: bytes, kind: type[_P], what: str, answer: str) -> _P:
    """The WSP PDU that answered ``what``, which must be a ``kind``."""
    try:
        pdu = decode(raw)
    except WspCodecError as exc:
        raise WapError(f"malformed {answer}: {exc}") from None
    if not isinstance(pdu, kind):
        raise WapError(f"{what} answered with {type(pdu).__name__}")
    return pdu


def merge_headers(defaults: Iterable[Header], extra: Iterable[Header]) -> list[Header]:
    """``defaults`` without the fields ``extra`` names, then ``extra``."""
    extra = list(extra)
    named = {k.lower() for k, _ in extra}
    return [h for h in defaults if h[0].lower() not in named] + extra


def _method(
    url: str, data: bytes | None, content_type: str, headers: Iterable[Header]
) -> Get | Post:
    block = encode_headers(list(headers))
    if data is None:
        return Get(uri=url, headers=block)
    return Post(uri=url, content_type=encode_content_type(content_type), headers=block, data=data)


class WapClient:
    """A connection-oriented WSP client (one session) over WTP."""

    def __init__(
        self,
        gateway: Address,
        *,
        headers: Iterable[Header] = DEFAULT_HEADERS,
        wtp_config: WtpConfig | None = None,
        rng: random.Random | None = None,
        local: Address = ("127.0.0.1", 0),
    ) -> None:
        self.gateway = gateway
        self.headers = tuple(headers)
        self.wtp = WtpEndpoint(rng or random.Random(), wtp_config)
        self.local = local
        self.session_id: int | None = None
        self.capabilities: tuple[Capability, ...] = ()
        self._driver: UdpDriver | None = None
        self._waiting: dict[int, asyncio.Future[bytes]] = {}

    async def __aenter__(self) -> "WapClient":
        await self.connect()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.disconnect()

    async def connect(self, timeout: float | None = None) -> ConnectReply:
        """S-Connect: open the session; raises ``WapError`` when refused or unanswered."""
        if self._driver is None:
            self._driver = await UdpDriver.bind(self.wtp, self._on_event, self.local)
        caps: tuple[Capability, ...] = (
            ClientSduSize(CLIENT_SDU_SIZE),
            ServerSduSize(CLIENT_SDU_SIZE),
        )
        data = encode(Connect(capabilities=caps, headers=encode_headers(list(self.headers))))
        raw = await self._transaction(data, timeout)
        reply = _expect(raw, ConnectReply, "Connect", "Connect answer")
        self.session_id = reply.session_id
        self.capabilities = reply.capabilities
        return reply

    async def get(
        self, url: str, headers: Iterable[Header] = (), timeout: float | None = None
    ) -> WapResponse:
        return await self.request(url, headers=headers, timeout=timeout)

    async def post(
        self,
        url: str,
        data: bytes,
        content_type: str = "application/octet-stream",
        headers: Iterable[Header] = (),
        timeout: float | None = None,
    ) -> WapResponse:
        return await self.request(url, data, content_type, headers, timeout)

    async def request(
        self,
        url: str,
        data: bytes | None = None,
        content_type: str = "application/octet-stream",
        headers: Iterable[Header] = (),
        timeout: float | None = None,
    ) -> WapResponse:
        """S-MethodInvoke: a Get (``data`` None) or a Post; the whole reply."""
        if self.session_id is None:
            raise WapError("no session: connect first")
        pdu = _method(url, data, content_type, merge_headers(self.headers, headers))
        started = time.perf_counter()
        reply = _expect(await self._transaction(encode(pdu), timeout), Reply, "method", "reply")
        return WapResponse.from_reply(reply, time.perf_counter() - started)

    async def disconnect(self) -> None:
        """S-Disconnect (a class 0 invoke, nothing comes back), then close the socket."""
        driver = self._driver
        if driver is None:
            return
        if self.session_id is not None:
            data = encode(Disconnect(session_id=self.session_id))
            self.wtp.invoke(self.gateway, data, TransactionClass.CLASS_0, False, driver.now())
            driver.pump()
            self.session_id = None
        self.close()

    def close(self) -> None:
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(WapError("client closed"))
        self._waiting.clear()
        if self._driver is not None:
            self._driver.close()
            self._driver = None

    async def _transaction(self, data: bytes, timeout: float | None) -> bytes:
        driver = self._driver
        if driver is None:
            raise WapError("client is closed")
        handle = self.wtp.invoke(self.gateway, data, TransactionClass.CLASS_2, True, driver.now())
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._waiting[handle] = future
        driver.pump()
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            if self.wtp.state(handle) is not None:
                self.wtp.abort(handle, 0xEA, driver.now())  # WSP USERREQ
                driver.pump()
            raise WapTimeout(f"no reply in {timeout} s") from None
        finally:
            self._waiting.pop(handle, None)

    def _on_event(self, event: Event) -> None:
        if isinstance(event, ResultIndication):
            assert self._driver is not None
            self.wtp.result_ack(event.handle, self._driver.now())
            future = self._waiting.get(event.handle)
            if future is not None and not future.done():
                future.set_result(event.data)
        elif isinstance(event, AbortIndication):
            future = self._waiting.get(event.handle)
            if future is not None and not future.done():
                future.set_exception(WapAborted(event.abort_type, event.reason, event.local))


class ConnectionlessEndpoint:
    """Sans-IO connectionless WSP (WSP 8.2.1) for a client: TIDs out, replies by TID in."""

    def __init__(self, gateway: Address, rng: random.Random) -> None:
        self.gateway = gateway
        self._next_tid = rng.randrange(256)
        self._out: list[tuple[bytes, Address]] = []
        self._events: list[Event] = []

    def send(self, pdu: Get | Post) -> tuple[int, bytes]:
        """Queue ``pdu`` with the next TID; returns (TID, the datagram for resends)."""
        tid = self._next_tid
        self._next_tid = (tid + 1) % 256
        data = encode_connectionless(tid, pdu)
        self._out.append((data, self.gateway))
        return tid, data

    def resend(self, data: bytes) -> None:
        self._out.append((data, self.gateway))

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        if addr != self.gateway:
            return
        try:
            tid, pdu = decode_connectionless(data)
        except WspCodecError:
            return
        if isinstance(pdu, Reply):
            self._events.append(ConnectionlessReply(tid, pdu))

    def handle_timer(self, now: float) -> None:
        pass

    def get_timer(self) -> float | None:
        return None

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        out, self._out = self._out, []
        return out

    def next_event(self) -> Event | None:
        return self._events.pop(0) if self._events else None


@dataclass(frozen=True, slots=True)
class ConnectionlessReply(Event):
    tid: int
    reply: Reply


class ConnectionlessClient:
    """Connectionless WSP methods, one datagram each way, resent until answered."""

    def __init__(
        self,
        gateway: Address,
        *,
        headers: Iterable[Header] = DEFAULT_HEADERS,
        retry_after: float = 2.0,
        tries: int = 3,
        rng: random.Random | None = None,
        local: Address = ("127.0.0.1", 0),
    ) -> None:
        self.headers = tuple(headers)
        self.retry_after = retry_after
        self.tries = tries
        self.local = local
        self.endpoint = ConnectionlessEndpoint(gateway, rng or random.Random())
        self._driver: UdpDriver | None = None
        self._waiting: dict[int, asyncio.Future[Reply]] = {}

    async def __aenter__(self) -> "ConnectionlessClient":
        await self.open()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self.close()

    async def open(self) -> None:
        if self._driver is None:
            self._driver = await UdpDriver.bind(self.endpoint, self._on_event, self.local)

    def close(self) -> None:
        if self._driver is not None:
            self._driver.close()
            self._driver = None

    async def get(self, url: str, headers: Iterable[Header] = ()) -> WapResponse:
        return await self.request(url, headers=headers)

    async def post(
        self,
        url: str,
        data: bytes,
        content_type: str = "application/octet-stream",
        headers: Iterable[Header] = (),
    ) -> WapResponse:
        return await self.request(url, data, content_type, headers)

    async def request(
        self,
        url: str,
        data: bytes | None = None,
        content_type: str = "application/octet-stream",
        headers: Iterable[Header] = (),
    ) -> WapResponse:
        await self.open()
        driver = self._driver
        assert driver is not None
        pdu = _method(url, data, content_type, merge_headers(self.headers, headers))
        started = time.perf_counter()
        tid, datagram = self.endpoint.send(pdu)
        if tid in self._waiting:
            raise WapError("256 connectionless requests already outstanding")
        future: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        self._waiting[tid] = future
        driver.pump()
        try:
            for attempt in range(self.tries):
                if attempt:
                    self.endpoint.resend(datagram)
                    driver.pump()
                try:
                    reply = await asyncio.wait_for(asyncio.shield(future), self.retry_after)
                except TimeoutError:
                    continue
                return WapResponse.from_reply(reply, time.perf_counter() - started)
            raise WapTimeout(f"no reply after {self.tries} tries of {self.retry_after} s")
        finally:
            self._waiting.pop(tid, None)
            if not future.done():
                future.cancel()

    def _on_event(self, event: Event) -> None:
        if isinstance(event, ConnectionlessReply):
            future = self._waiting.get(event.tid)
            if future is not None and not future.done():
                future.set_result(event.reply)


def default_port(connectionless: bool) -> int:
    return CONNECTIONLESS_PORT if connectionless else CONNECTION_ORIENTED_PORT
