"""A SOAP client whose transport is pluggable: HTTP/1.1 over TCP, or WSP through a gateway.

Paper 001 splits the time to invoke a method, t_inv, into t_SOAP (building and parsing
the messages) and t_call (the round trip of request and response, section 4.4); a
``CallResult`` carries both, and what crossed the wire each way, split into the SOAP
payload and everything else (IP, UDP or TCP, WTP/WSP or HTTP headers, handshakes).

Transports:
- ``HttpTransport``: one TCP connection per call, as a MIDlet's HTTP connection of the
  time, closed by the service after the reply; the octets on the wire are the
  application's plus 40 octets of IP and TCP header per segment (52 with TCP
  timestamps) from the kernel's segment counts (``TCP_INFO``).
- ``WspTransport``: a WSP Post through a WAP gateway, connectionless (port 9200, one
  datagram each way, as the paper's client) or over a WSP session (port 9201); the
  octets are the datagrams' plus 28 octets of IPv4 and UDP header each.
"""

from __future__ import annotations

import asyncio
import socket
import struct
import time
from dataclasses import dataclass
from types import TracebackType
from typing import Protocol
from urllib.parse import urlsplit

from wwanlab.aio.client import ConnectionlessClient, WapClient, WapResponse
from wwanlab.aio.udp import UdpDriver
from wwanlab.core.address import Address
from wwanlab.core.errors import UsageError
from wwanlab.soap.envelope import (
    SOAP_HTTP_HEADERS,
    Call,
    Value,
    call_envelope,
    parse_response,
)
from wwanlab.wap.wbxml.soap import (
    SOAP_WBXML,
    XML_CONTENT_TYPE,
    SoapError,
    from_wbxml,
    to_wbxml,
)
from wwanlab.web.http1 import HttpError, ResponseReader, encode_request

IP_UDP_HEADERS = 20 + 8  # octets: IPv4 (RFC 791) and UDP (RFC 768) headers
IP_TCP_HEADERS = 20 + 20  # octets: IPv4 and TCP (RFC 9293) headers without options
TCP_TIMESTAMPS = 12  # octets: the timestamps option padded (RFC 7323 3)
TCPI_OPT_TIMESTAMPS = 1  # linux/tcp.h: tcpi_options bit
# linux/tcp.h struct tcp_info: tcpi_options is octet 5; tcpi_segs_out, tcpi_segs_in are
# the u32s at octets 136 and 140 (after bytes_acked and bytes_received, 120..135).
_TCP_INFO_LEN = 144
MAX_REPLY = 8 * 1024 * 1024  # octets of HTTP reply read at most


@dataclass(frozen=True)
class Wire:
    """What one direction of a call put on the wire."""

    packets: int
    octets: int  # IP datagrams, headers included
    payload: int  # of which the SOAP envelope (XML or WBXML)

    @property
    def headers(self) -> int:
        return self.octets - self.payload


@dataclass(frozen=True)
class Exchange:
    """A transport's answer: the reply and the wire counts of the exchange."""

    status: int
    content_type: str
    body: bytes
    up: Wire
    down: Wire


@dataclass(frozen=True)
class CallResult:
    value: Value
    t_call: float  # seconds: request sent to response received (paper 001 4.4)
    t_soap: float  # seconds: building the request and parsing the response
    up: Wire
    down: Wire
    status: int


class Transport(Protocol):
    name: str

    async def exchange(
        self, url: str, body: bytes, content_type: str, accept: str
    ) -> Exchange: ...

    async def close(self) -> None: ...


class HttpTransport:
    """SOAP's HTTP binding (SOAP 1.1 section 6): a POST per call on a new connection."""

    name = "http"

    async def exchange(self, url: str, body: bytes, content_type: str, accept: str) -> Exchange:
        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise UsageError(f"not an http:// URL: {url!r}")
        port = parts.port or 80
        reader, writer = await asyncio.open_connection(parts.hostname, port)
        try:
            head = (("Content-Type", content_type), ("Accept", accept), *SOAP_HTTP_HEADERS)
            target = parts.path or "/"
            request = encode_request(
                target, parts.netloc, close=True, method="POST", headers=head, body=body
            )
            writer.write(request)
            response_reader = ResponseReader()
            received = 0
            response = None
            while response is None:
                chunk = await reader.read(65536)
                if not chunk:
                    response = response_reader.eof()
                    if response is None:
                        raise SoapError("the service closed the connection without a reply")
                    break
                received += len(chunk)
                if received > MAX_REPLY:
                    raise SoapError(f"reply larger than {MAX_REPLY} octets")
                responses = response_reader.feed(chunk)
                response = responses[0] if responses else None
            sock = writer.get_extra_info("socket")
            segs_out, segs_in, per_segment = _tcp_segments(sock)
        except HttpError as exc:
            raise SoapError(f"bad HTTP reply: {exc}") from None
        finally:
            writer.close()
        up = Wire(segs_out, len(request) + segs_out * per_segment, len(body))
        down = Wire(segs_in, received + segs_in * per_segment, len(response.body))
        ctype = response.header("content-type") or ""
        return Exchange(response.status, ctype, response.body, up, down)

    async def close(self) -> None:
        return None


def _tcp_segments(sock: socket.socket) -> tuple[int, int, int]:
    """Segments sent and received so far, and the IP+TCP header octets of each."""
    info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _TCP_INFO_LEN)
    options = info[5]
    segs_out, segs_in = struct.unpack_from("=II", info, 136)
    per_segment = IP_TCP_HEADERS + (TCP_TIMESTAMPS if options & TCPI_OPT_TIMESTAMPS else 0)
    return segs_out, segs_in, per_segment


class WspTransport:
    """A WSP Post through a WAP gateway: connectionless, or in one WSP session."""

    def __init__(self, gateway: Address, *, connectionless: bool = True) -> None:
        self.gateway = gateway
        self.connectionless = connectionless
        self.name = "wsp-cl" if connectionless else "wsp-co"
        self._cl: ConnectionlessClient | None = None
        self._co: WapClient | None = None

    async def exchange(self, url: str, body: bytes, content_type: str, accept: str) -> Exchange:
        headers = (("Accept", accept),)
        driver: UdpDriver | None
        if self.connectionless:
            if self._cl is None:
                self._cl = ConnectionlessClient(self.gateway)
                await self._cl.open()
            driver = self._cl._driver
            before = _counts(driver)
            response: WapResponse = await self._cl.post(url, body, content_type, headers)
        else:
            if self._co is None:
                self._co = WapClient(self.gateway)
                await self._co.connect(timeout=30)
            driver = self._co._driver
            before = _counts(driver)
            response = await self._co.post(url, body, content_type, headers, timeout=60)
        after = _counts(driver)
        (sent, sent_octets), (recv, recv_octets) = (
            (a - b for a, b in zip(x, y, strict=True)) for x, y in zip(after, before, strict=True)
        )
        up = Wire(sent, sent_octets + sent * IP_UDP_HEADERS, len(body))
        down = Wire(recv, recv_octets + recv * IP_UDP_HEADERS, len(response.body))
        return Exchange(response.status, response.content_type, response.body, up, down)

    async def close(self) -> None:
        if self._cl is not None:
            self._cl.close()
        if self._co is not None:
            await self._co.disconnect()


def _counts(driver: UdpDriver | None) -> tuple[tuple[int, int], tuple[int, int]]:
    assert driver is not None
    return (driver.sent[0], driver.sent[1]), (driver.received[0], driver.received[1])


WBXML_ACCEPT = f"{SOAP_WBXML}, text/xml;q=0.5"


class SoapClient:
    """Calls methods of a SOAP service at ``url`` over ``transport``.

    With ``wbxml`` the request envelope travels as WBXML SOAP and the client asks for a
    WBXML reply (a gateway that understands the type converts both ways).
    """

    def __init__(self, url: str, transport: Transport, *, wbxml: bool = False) -> None:
        self.url = url
        self.transport = transport
        self.wbxml = wbxml

    async def __aenter__(self) -> SoapClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.transport.close()

    async def call(self, method: str, *args: Value) -> CallResult:
        """Invoke ``method``; raises ``Fault`` for a SOAP fault, ``SoapError`` otherwise."""
        started = time.perf_counter()
        params = tuple((f"arg{i}", a) for i, a in enumerate(args))
        envelope = call_envelope(Call(method, params))
        if self.wbxml:
            # XML too, at lower preference: a gateway that does not encode SOAP (Kannel)
            # answers 406 to an Accept it cannot meet (RFC 9110 15.5.7)
            body, content_type, accept = to_wbxml(envelope), SOAP_WBXML, WBXML_ACCEPT
        else:
            body, content_type, accept = envelope, XML_CONTENT_TYPE, "text/xml"
        built = time.perf_counter()
        exchange = await self.transport.exchange(self.url, body, content_type, accept)
        answered = time.perf_counter()
        reply = exchange.body
        if exchange.content_type.split(";", 1)[0].strip().lower() == SOAP_WBXML:
            reply = from_wbxml(reply)
        if exchange.status not in (200, 500):  # SOAP 1.1 6.2: a fault comes with 500
            raise SoapError(f"HTTP status {exchange.status} without a SOAP reply")
        value = parse_response(reply)
        parsed = time.perf_counter()
        return CallResult(
            value,
            answered - built,
            (built - started) + (parsed - answered),
            exchange.up,
            exchange.down,
            exchange.status,
        )
