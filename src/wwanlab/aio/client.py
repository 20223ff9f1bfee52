"""A WAP client on asyncio: the sans-IO WSP clients, each behind a ``UdpDriver``.

``WapClient`` runs one ``wsp.session.ClientSession`` (connection-oriented, port 9201):
Connect, then Get/Post methods, as many at once as the negotiated MethodMOR allows (the
session queues the rest), then Disconnect. ``ConnectionlessClient`` runs a
``wsp.connectionless.ConnectionlessClient`` (port 9200), which sends a request again
every ``retry_after`` seconds until ``tries`` sends went unanswered.

A method ends in a ``WapResponse`` or raises: ``WapAborted`` when WTP or WSP aborted it
(with type and reason), ``WapTimeout`` when nothing came back in time.

    async with WapClient(("127.0.0.1", 9201)) as client:
        response = await client.get("http://example.org/")
"""

import asyncio
import random
import time
from collections.abc import Iterable
from dataclasses import dataclass
from types import TracebackType

from wwanlab.core.address import Address
from wwanlab.core.errors import WwanlabError
from wwanlab.core.events import Event
from wwanlab.wap.wsp.common import MethodRequests, split_content_type
from wwanlab.wap.wsp.connectionless import ConnectionlessClient as UnitClient
from wwanlab.wap.wsp.constants import (
    CONNECTION_ORIENTED_PORT,
    CONNECTIONLESS_PORT,
    abort_reason_name,
)
from wwanlab.wap.wsp.encoding import WspCodecError
from wwanlab.wap.wsp.events import (
    Connected,
    Disconnected,
    Headers,
    MethodAborted,
    MethodResult,
    Negotiated,
    RequestTimedOut,
)
from wwanlab.wap.wsp.headers import Header
from wwanlab.wap.wsp.session import ClientSession, ClientState, WspClientConfig
from wwanlab.wap.wtp.constants import AbortReason as WtpReason
from wwanlab.wap.wtp.constants import AbortType
from wwanlab.wap.wtp.timers import WtpConfig

from .udp import UdpDriver

DEFAULT_HEADERS: Headers = (("Accept", "*/*"), ("User-Agent", "wwanlab"))
CLIENT_SDU_SIZE = 1 << 20  # octets we accept in one reply, and propose to send (WSP 8.3.2.1)
METHOD_MOR = 16  # methods we propose to have outstanding at once (WSP 8.3.2.4)
ANY_LOCAL: Address = ("0.0.0.0", 0)
"""The client's socket: any address, so the kernel picks the source its route to the
gateway needs (a loopback source cannot leave the host, e.g. from an emulated link)."""


class WapError(WwanlabError):
    """A WAP method that did not end in a reply."""


class WapAborted(WapError):
    """The method (or its session) was aborted; ``abort_type`` and ``reason`` per WTP 9.3.4.

    WSP passes on WTP's own aborts by their provider reason (WTP 9.3.4.1, 0x00-0x0A) and
    user aborts by WSP's reason (WSP Table 35, 0xE0 and up), so the reason gives the type;
    the message names it (``NORESPONSE``).
    """

    def __init__(self, reason: int) -> None:
        provider = reason <= max(WtpReason)
        who = "provider" if provider else "user"
        super().__init__(f"transaction aborted: {who} reason {abort_reason_name(reason)}")
        self.abort_type = AbortType.PROVIDER if provider else AbortType.USER
        self.reason = reason


class WapTimeout(WapError):
    """No reply within the time allowed."""


@dataclass(frozen=True, slots=True)
class WapResponse:
    status: int  # HTTP status code
    content_type: str
    headers: Headers  # without Content-Type
    body: bytes
    elapsed: float  # seconds from sending the method to the whole reply

    @classmethod
    def from_result(cls, result: MethodResult, elapsed: float) -> "WapResponse":
        """The reply's Content-Type header (unnamed types in hex) becomes ``content_type``."""
        content_type, headers = split_content_type(result.headers)
        return cls(result.status, content_type or "", headers, result.body, elapsed)


def merge_headers(defaults: Iterable[Header], extra: Iterable[Header]) -> Headers:
    """``defaults`` without the fields ``extra`` names, then ``extra``."""
    extra = tuple(extra)
    named = {k.lower() for k, _ in extra}
    return tuple(h for h in defaults if h[0].lower() not in named) + extra


def _invoke(
    client: MethodRequests,
    url: str,
    data: bytes | None,
    content_type: str,
    headers: Headers,
    now: float,
) -> int:
    """A Get (``data`` None) or a Post on a sans-IO client; its request number."""
    try:
        if data is None:
            return client.get(url, now, headers)
        return client.post(url, content_type, data, now, headers)
    except WspCodecError as exc:
        raise WapError(str(exc)) from None


class WapClient:
    """A connection-oriented WSP client (one session) over WTP."""

    def __init__(
        self,
        gateway: Address,
        *,
        headers: Iterable[Header] = DEFAULT_HEADERS,
        wtp_config: WtpConfig | None = None,
        rng: random.Random | None = None,
        local: Address = ANY_LOCAL,
    ) -> None:
        self.gateway = gateway
        self.headers = tuple(headers)
        self.local = local
        config = WspClientConfig(
            client_sdu_size=CLIENT_SDU_SIZE,
            server_sdu_size=CLIENT_SDU_SIZE,
            method_mor=METHOD_MOR,
            headers=self.headers,
        )
        self.session = ClientSession(gateway, rng or random.Random(), config, wtp_config)
        self._driver: UdpDriver | None = None
        self._connecting: asyncio.Future[Connected] | None = None
        self._waiting: dict[int, asyncio.Future[MethodResult]] = {}

    @property
    def session_id(self) -> int | None:
        return self.session.session_id

    @property
    def local_address(self) -> Address:
        """The address the client sends from (bound on ``connect``)."""
        if self._driver is None:
            raise WapError("no socket: connect first")
        return self._driver.local_address

    @property
    def capabilities(self) -> Negotiated:
        """What the session runs with once connected (WSP 8.3.2)."""
        return self.session.capabilities

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

    async def connect(self, timeout: float | None = None) -> Connected:
        """S-Connect: open the session; ``WapAborted`` when refused, ``WapTimeout``
        when unanswered (the Connect is then abandoned)."""
        if self._driver is None:
            self._driver = await UdpDriver.bind(self.session, self._on_event, self.local)
        driver = self._driver
        if (state := self.session.state) != ClientState.NULL:
            raise WapError(f"cannot connect: session is {state.name}")
        future = self._connecting = asyncio.get_running_loop().create_future()
        self.session.connect(driver.now())
        driver.pump()
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            raise WapTimeout(f"no answer to Connect in {timeout} s") from None
        finally:
            self._connecting = None
            if future.cancelled() and self.session.state == ClientState.CONNECTING:
                self.session.disconnect(driver.now())
                driver.pump()

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
        """S-MethodInvoke: a Get (``data`` None) or a Post; the whole reply.

        A method not answered within ``timeout`` (or cancelled) is aborted at the gateway.
        """
        driver = self._driver
        if driver is None or self.session.state != ClientState.CONNECTED:
            raise WapError("no session: connect first")
        started = time.perf_counter()
        merged = merge_headers(self.headers, headers)
        request = _invoke(self.session, url, data, content_type, merged, driver.now())
        future: asyncio.Future[MethodResult] = asyncio.get_running_loop().create_future()
        self._waiting[request] = future
        driver.pump()
        try:
            result = await asyncio.wait_for(future, timeout)
        except TimeoutError:
            raise WapTimeout(f"no reply in {timeout} s") from None
        finally:
            del self._waiting[request]
            if future.cancelled():
                self.session.abort_method(request, driver.now())
                driver.pump()
        return WapResponse.from_result(result, time.perf_counter() - started)

    async def disconnect(self) -> None:
        """S-Disconnect (a class 0 invoke, nothing comes back), then close the socket."""
        driver = self._driver
        if driver is None:
            return
        if self.session.state != ClientState.NULL:
            self.session.disconnect(driver.now())
            driver.pump()
        self.close()

    def close(self) -> None:
        """Close the socket; methods still waiting raise ``WapError``."""
        waiting = [*self._waiting.values(), self._connecting]
        for future in waiting:
            if future is not None and not future.done():
                future.set_exception(WapError("client closed"))
        if self._driver is not None:
            self._driver.close()
            self._driver = None

    def _on_event(self, event: Event) -> None:
        if isinstance(event, (MethodResult, MethodAborted)):
            future = self._waiting.get(event.request)
            if future is None or future.done():
                return  # given up on (timed out or cancelled)
            if isinstance(event, MethodResult):
                future.set_result(event)
            else:
                future.set_exception(WapAborted(event.reason))
        elif self._connecting is not None and not self._connecting.done():
            if isinstance(event, Connected):
                self._connecting.set_result(event)
            elif isinstance(event, Disconnected):
                self._connecting.set_exception(WapAborted(event.reason))


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
        local: Address = ANY_LOCAL,
    ) -> None:
        if tries < 1:
            raise ValueError("tries must be at least 1")
        self.headers = tuple(headers)
        self.retry_after = retry_after
        self.tries = tries
        self.local = local
        self.endpoint = UnitClient(
            gateway,
            rng or random.Random(),
            timeout=tries * retry_after,
            retry_after=retry_after if tries > 1 else None,
        )
        self._driver: UdpDriver | None = None
        self._waiting: dict[int, asyncio.Future[MethodResult]] = {}

    async def __aenter__(self) -> "ConnectionlessClient":
        await self.open()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self.close()

    async def open(self) -> None:
        if self._driver is None:
            self._driver = await UdpDriver.bind(self.endpoint, self._on_event, self.local)

    def close(self) -> None:
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(WapError("client closed"))
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
        """S-Unit-MethodInvoke: a Get or a Post; ``WapTimeout`` after ``tries`` sends."""
        await self.open()
        driver = self._driver
        assert driver is not None
        started = time.perf_counter()
        merged = merge_headers(self.headers, headers)
        tid = _invoke(self.endpoint, url, data, content_type, merged, driver.now())
        future: asyncio.Future[MethodResult] = asyncio.get_running_loop().create_future()
        self._waiting[tid] = future
        driver.pump()
        try:
            result = await future
        finally:
            del self._waiting[tid]
        return WapResponse.from_result(result, time.perf_counter() - started)

    def _on_event(self, event: Event) -> None:
        if isinstance(event, (MethodResult, RequestTimedOut)):
            future = self._waiting.get(event.request)
            if future is None or future.done():
                return  # cancelled by the caller
            if isinstance(event, MethodResult):
                future.set_result(event)
            else:
                tries = f"{self.tries} tries of {self.retry_after} s"
                future.set_exception(WapTimeout(f"no reply after {tries}"))


def default_port(connectionless: bool) -> int:
    return CONNECTIONLESS_PORT if connectionless else CONNECTION_ORIENTED_PORT
