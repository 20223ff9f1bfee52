"""One SOAP call over a simulated link, by HTTP/TCP or by connectionless WSP, every
packet counted.

The phone and the far end are joined by one link preset (the air interface, where every
octet counts). Over HTTP the far end is the web service itself: one TCP connection per
call (handshake, POST, response, both FINs), as a MIDlet's HTTP connection of 2003.
Over WSP the far end is the WAP gateway answering with the web service behind it: the
gateway's translation (``wap.gateway.translate``: WBXML SOAP decoded for the service,
the reply encoded for a phone that asks) and the service run unchanged, and the wired
leg between them costs nothing (it is the same in both cases and off the air).
"""

from __future__ import annotations

from dataclasses import dataclass

from wwanlab.core.events import Event
from wwanlab.link.presets import get_preset
from wwanlab.sim import Network
from wwanlab.sim.host import Host
from wwanlab.sim.ipv4 import PROTO_TCP
from wwanlab.soap.envelope import (
    SOAP_HTTP_HEADERS,
    Call,
    Value,
    call_envelope,
    parse_response,
)
from wwanlab.soap.service import BenchmarkService
from wwanlab.tcp import TcpConfig
from wwanlab.wap.gateway.translate import to_http, to_reply
from wwanlab.wap.wbxml.soap import SOAP_WBXML, XML_CONTENT_TYPE, from_wbxml, to_wbxml
from wwanlab.wap.wsp.connectionless import ConnectionlessClient, ConnectionlessServer
from wwanlab.wap.wsp.constants import CONNECTIONLESS_PORT
from wwanlab.wap.wsp.events import MethodInvoke, MethodResult
from wwanlab.web.client import HttpClient, Strategy
from wwanlab.web.events import ResponseReceived
from wwanlab.web.http1 import Request
from wwanlab.web.origin import HttpOrigin

PHONE_IP = "10.0.0.1"
SERVER_IP = "10.0.0.2"
PHONE_PORT = 49152  # RFC 6335 6: the first dynamic port
HTTP_PORT = 80
PATH = "/soap"
URL = f"http://{SERVER_IP}{PATH}"
MTU = 1500  # octets: IP over GPRS (3GPP TS 23.060 limits the N-PDU to 1500)
MAX_SIM_TIME = 600.0  # s of virtual time before a call counts as failed

TRANSPORTS = ("http", "wsp", "wsp-wbxml")


@dataclass(frozen=True)
class SimCall:
    """What one call cost on the link."""

    complete: bool
    value: Value
    t_call: float  # s from the request's first packet offered to the reply's arrival
    packets_up: int
    packets_down: int
    octets_up: int  # IP octets the phone sent (handshake, request, ACKs, FIN)
    octets_down: int
    payload_up: int  # the envelope as sent
    payload_down: int


def simulate_call(transport: str, call: Call, preset: str, seed: int) -> SimCall:
    """Run one call of ``transport`` (``http``, ``wsp`` or ``wsp-wbxml``) to completion."""
    if transport not in TRANSPORTS:
        raise ValueError(f"unknown transport {transport!r} (known: {', '.join(TRANSPORTS)})")
    link_preset = get_preset(preset)
    net = Network(seed)
    phone = net.add_host("phone", PHONE_IP)
    server = net.add_host("server", SERVER_IP)
    link = net.connect(phone, server, link_preset.build("up"), link_preset.build("down"), mtu=MTU)
    service = BenchmarkService()
    envelope = call_envelope(call)
    replies: list[tuple[float, bytes]] = []
    if transport == "http":
        payload_up = len(envelope)
        _http(net, phone, server, service, envelope, replies)
    else:
        wbxml = transport == "wsp-wbxml"
        body = to_wbxml(envelope) if wbxml else envelope
        payload_up = len(body)
        _wsp(net, phone, server, service, body, wbxml, replies)
    net.run(until=MAX_SIM_TIME)
    net.close()
    up, down = link.ab.stats, link.ba.stats
    complete = len(replies) == 1
    at, reply = replies[0] if complete else (float("nan"), b"")
    value: Value = None
    if complete:
        xml = from_wbxml(reply) if transport == "wsp-wbxml" else reply
        value = parse_response(xml)
    return SimCall(
        complete,
        value,
        at,
        up.sent_packets,
        down.sent_packets,
        up.sent_bytes,
        down.sent_bytes,
        payload_up,
        len(reply),
    )


def _http(
    net: Network,
    phone: Host,
    server: Host,
    service: BenchmarkService,
    envelope: bytes,
    replies: list[tuple[float, bytes]],
) -> None:
    kernel = net.kernel
    config = TcpConfig()

    def handle(request: Request) -> tuple[int, str, bytes]:
        status, reply = service.handle(request.body)
        return status, XML_CONTENT_TYPE, reply

    origin = HttpOrigin(
        SERVER_IP, HTTP_PORT, config, kernel.stream("tcp", "server"), handler=handle
    )
    server.bind_transport(PROTO_TCP, HTTP_PORT, origin)

    def on_client(event: Event) -> None:
        if isinstance(event, ResponseReceived):
            replies.append((event.at, event.body))

    client = HttpClient(
        PHONE_IP,
        (SERVER_IP, HTTP_PORT),
        config,
        kernel.stream("tcp", "phone"),
        Strategy("HTTP/1.0"),
        first_port=PHONE_PORT,
        max_ports=1,
    )
    binding = phone.bind_transport(PROTO_TCP, PHONE_PORT, client, on_event=on_client)
    client.post(PATH, XML_CONTENT_TYPE, envelope, kernel.now, SOAP_HTTP_HEADERS)
    binding.flush()


def _wsp(
    net: Network,
    phone_host: Host,
    server: Host,
    service: BenchmarkService,
    body: bytes,
    wbxml: bool,
    replies: list[tuple[float, bytes]],
) -> None:
    kernel = net.kernel
    gateway = ConnectionlessServer()

    def on_gateway(event: Event) -> None:
        if isinstance(event, MethodInvoke):
            request = to_http(event)
            status, reply = service.handle(request.body)
            answer = to_reply(status, [("Content-Type", XML_CONTENT_TYPE)], reply, request.accept)
            gateway.respond(event.handle, answer, kernel.now)

    server.bind_udp(CONNECTIONLESS_PORT, gateway, on_event=on_gateway)
    phone = ConnectionlessClient((SERVER_IP, CONNECTIONLESS_PORT), kernel.stream("wsp", "phone"))

    def on_phone(event: Event) -> None:
        if isinstance(event, MethodResult):
            replies.append((kernel.now, event.body))

    binding = phone_host.bind_udp(PHONE_PORT, phone, on_event=on_phone)
    content_type = SOAP_WBXML if wbxml else XML_CONTENT_TYPE
    accept = SOAP_WBXML if wbxml else "text/xml"
    phone.post(URL, content_type, body, kernel.now, (("Accept", accept),))
    binding.flush()
