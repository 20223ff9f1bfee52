"""``wwanlab pdu decode``: dissect WTP and WSP datagrams from hex or a capture file.

Port 9201 carries WSP over WTP (connection-oriented), port 9200 connectionless WSP
(a TID octet, then the PDU); ``--port`` names another port a gateway listens on.
Captures are pcap or pcapng (tshark's default). A WTP Invoke or Result that holds a
whole message (TTR set) is dissected further as WSP, headers decoded; segments are
shown as WTP only.
"""

import contextlib
import dataclasses
import enum
import string
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from wwanlab.cli.common import print_json
from wwanlab.core.errors import UsageError
from wwanlab.sim.ipv4 import PROTO_UDP, PacketError, parse_ipv4, parse_udp
from wwanlab.sim.pcap import LINKTYPE_IPV4, LINKTYPE_RAW, PcapError
from wwanlab.sim.pcapng import CapturedPacket, read_capture
from wwanlab.wap.wsp import pdu as wsp
from wwanlab.wap.wsp.constants import (
    CONNECTION_ORIENTED_PORT,
    CONNECTIONLESS_PORT,
    PduType,
    abort_reason_name,
)
from wwanlab.wap.wsp.headers import WspCodecError, decode_content_type, decode_headers
from wwanlab.wap.wsp.status import wsp_to_http
from wwanlab.wap.wtp import pdu as wtp

LINKTYPE_NULL = 0  # tcpdump.org linktypes: BSD loopback, 4-octet family in host order
LINKTYPE_ETHERNET = 1  # tcpdump.org linktypes: IEEE 802.3 Ethernet
LINKTYPE_LOOP = 108  # tcpdump.org linktypes: OpenBSD loopback, family in network order
LINKTYPE_LINUX_SLL = 113  # tcpdump.org linktypes: Linux cooked capture v1 (tshark -i any)
LINKTYPE_LINUX_SLL2 = 276  # tcpdump.org linktypes: Linux cooked capture v2
SLL_HEADER = 16  # linktype-linux_sll: protocol type in octets 14-15
SLL2_HEADER = 20  # linktype-linux_sll2: protocol type in octets 0-1
AF_INET = 2  # the loopback headers' address family for IPv4
ETHERTYPE_IPV4 = 0x0800  # IEEE 802 numbers
ETHERTYPE_VLAN = 0x8100  # IEEE 802.1Q tag, 4 octets before the real EtherType
ETHERNET_HEADER = 14
WAP_PORTS = (CONNECTIONLESS_PORT, CONNECTION_ORIENTED_PORT)
MAX_PORT = 65535


def _plain(value: Any) -> Any:
    """JSON-ready form of a decoded PDU: dataclasses as dicts with their type, octets as
    hex, enums by name."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"type": type(value).__name__, **fields}
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def _wsp(pdu: wsp.Pdu) -> dict[str, Any]:
    """The PDU's fields, its method name, and its content type and headers decoded
    (``headers`` stays hex, with ``header_error``, when they are malformed)."""
    out: dict[str, Any] = _plain(pdu)
    if isinstance(pdu, wsp.Get | wsp.Post):
        out["method"] = _method_name(pdu.method)
    if isinstance(pdu, wsp.Reply):
        with contextlib.suppress(WspCodecError):
            out["http_status"] = wsp_to_http(pdu.status)
    try:
        if isinstance(pdu, wsp.Post | wsp.Reply | wsp.Push | wsp.ConfirmedPush):
            out["content_type"] = decode_content_type(pdu.content_type) if pdu.content_type else ""
        if not isinstance(pdu, wsp.Redirect | wsp.Disconnect | wsp.Suspend):
            out["headers"] = [list(h) for h in decode_headers(pdu.headers)]
    except WspCodecError as exc:
        out["header_error"] = str(exc)
    return out


def _method_name(code: int) -> str:
    try:
        return PduType(code).name
    except ValueError:
        return f"EXTENDED_{code:#04x}"


def dissect(payload: bytes, port: int, *, connectionless: bool | None = None) -> dict[str, Any]:
    """One UDP payload sent to or from ``port``: connectionless WSP on 9200 (or when
    ``connectionless``), WSP over WTP on any other port; raises the codec errors."""
    if connectionless if connectionless is not None else port == CONNECTIONLESS_PORT:
        tid, pdu = wsp.decode_connectionless(payload)
        return {"port": port, "tid": tid, "wsp": _wsp(pdu)}
    pdus = wtp.decode(payload)
    out: list[dict[str, Any]] = []
    for item in pdus:
        entry: dict[str, Any] = {"wtp": _plain(item)}
        if isinstance(item, wtp.Abort):  # a user abort carries WSP's reason (Table 35)
            entry["wtp"]["reason"] = abort_reason_name(item.reason, item.abort_type)
        if isinstance(item, wtp.Invoke | wtp.Result) and item.ttr and item.user_data:
            try:
                entry["wsp"] = _wsp(wsp.decode(item.user_data))
            except WspCodecError as exc:
                entry["wsp_error"] = str(exc)
        out.append(entry)
    return {"port": port, "pdus": out}


def udp_datagrams(
    packets: Sequence[CapturedPacket], ports: Collection[int] = WAP_PORTS
) -> list[dict[str, Any]]:
    """The UDP datagrams to or from ``ports`` among captured IPv4 packets (raw, Ethernet,
    Linux cooked or BSD loopback frames); other packets and link types are skipped."""
    found = []
    for number, captured in enumerate(packets, start=1):
        packet = _ip_packet(captured.linktype, captured.data)
        if packet is None:
            continue
        try:
            ip, segment = parse_ipv4(packet, verify=False)  # loopback captures skip checksums
            if ip.protocol != PROTO_UDP:
                continue
            udp, payload = parse_udp(ip.src, ip.dst, segment, verify=False)
        except PacketError:
            continue
        port = next((p for p in (udp.dst_port, udp.src_port) if p in ports), None)
        if port is not None:
            found.append(
                {
                    "frame": number,
                    "time": captured.time,
                    "src": f"{ip.src}:{udp.src_port}",
                    "dst": f"{ip.dst}:{udp.dst_port}",
                    "port": port,
                    "payload": payload,
                }
            )
    return found


def _ip_packet(linktype: int, frame: bytes) -> bytes | None:
    """The IPv4 packet inside a frame of ``linktype``, or None for anything else."""
    if linktype in (LINKTYPE_RAW, LINKTYPE_IPV4):
        return frame
    if linktype == LINKTYPE_ETHERNET:
        offset = ETHERNET_HEADER - 2
        while offset + 2 <= len(frame):
            ethertype = int.from_bytes(frame[offset : offset + 2], "big")
            if ethertype != ETHERTYPE_VLAN:
                return frame[offset + 2 :] if ethertype == ETHERTYPE_IPV4 else None
            offset += 4
        return None
    if linktype == LINKTYPE_LINUX_SLL:
        return frame[SLL_HEADER:] if frame[14:16] == ETHERTYPE_IPV4.to_bytes(2, "big") else None
    if linktype == LINKTYPE_LINUX_SLL2:
        return frame[SLL2_HEADER:] if frame[0:2] == ETHERTYPE_IPV4.to_bytes(2, "big") else None
    if linktype in (LINKTYPE_NULL, LINKTYPE_LOOP):
        family = frame[:4]  # NULL: the capturing host's byte order; LOOP: network order
        inet = AF_INET.to_bytes(4, "big")
        return frame[4:] if family in (inet, inet[::-1]) else None
    return None


def _print_pdu(prefix: str, pdu: dict[str, Any]) -> None:
    kind = pdu["type"]
    fields = ", ".join(
        f"{k}={v}"
        for k, v in pdu.items()
        if k not in ("type", "tpis", "capabilities") and not isinstance(v, list)
    )
    print(f"{prefix}{kind}: {fields}")
    indent = " " * len(prefix)
    for tpi in pdu.get("tpis", []):
        print(f"{indent}  TPI {tpi}")
    for capability in pdu.get("capabilities", []):
        print(f"{indent}  capability {capability}")
    headers = pdu.get("headers", [])
    for name, value in headers if isinstance(headers, list) else []:
        print(f"{indent}  {name}: {value}")


def _print(dissected: dict[str, Any]) -> None:
    if "wsp" in dissected and "pdus" not in dissected:
        print(f"  connectionless WSP, TID {dissected['tid']}")
        _print_pdu("    WSP ", dissected["wsp"])
        return
    for entry in dissected["pdus"]:
        _print_pdu("  WTP ", entry["wtp"])
        if "wsp" in entry:
            _print_pdu("    WSP ", entry["wsp"])
        if "wsp_error" in entry:
            print(f"    WSP malformed: {entry['wsp_error']}")


def parse_hex(text: str) -> bytes:
    """Octets from hex, allowing ``:`` and spaces between them; odd length is named."""
    digits = "".join(text.replace(":", " ").split())
    bad = next((c for c in digits if c not in string.hexdigits), None)
    if bad is not None:
        raise UsageError(f"not hexadecimal: {bad!r} in {text!r}")
    if len(digits) % 2:
        raise UsageError(f"odd number of hex digits ({len(digits)}): {text!r} is not whole octets")
    return bytes.fromhex(digits)


def register(app: typer.Typer) -> None:
    pdu_app = typer.Typer(help="Dissect WTP and WSP protocol data units.")
    app.add_typer(pdu_app, name="pdu")

    @pdu_app.command("decode")
    def decode_command(
        hex_: Annotated[
            str | None, typer.Argument(metavar="HEX", help="One UDP payload in hex.")
        ] = None,
        port: Annotated[
            int | None,
            typer.Option(
                help="The WAP port: 9200 is connectionless WSP, any other WSP over WTP "
                "(default 9201; with --pcap, 9200 and 9201)."
            ),
        ] = None,
        connectionless: Annotated[
            bool, typer.Option("--connectionless", help="Connectionless WSP on --port.")
        ] = False,
        pcap: Annotated[
            Path | None,
            typer.Option("--pcap", help="Dissect the WAP datagrams of a pcap or pcapng file."),
        ] = None,
        json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    ) -> None:
        """Decode WTP/WSP from HEX or from every WAP datagram of a pcap or pcapng file."""
        if (hex_ is None) == (pcap is None):
            raise UsageError("give either HEX or --pcap FILE")
        if port is not None and not 0 < port <= MAX_PORT:
            raise UsageError(f"--port must be a UDP port, 1 to {MAX_PORT}, not {port}")
        if connectionless and port is None:
            port = CONNECTIONLESS_PORT
        if hex_ is not None:
            payload = parse_hex(hex_)
            try:
                result = dissect(
                    payload,
                    port or CONNECTION_ORIENTED_PORT,
                    connectionless=connectionless or None,
                )
            except (wtp.WtpCodecError, WspCodecError) as exc:
                raise UsageError(f"malformed PDU: {exc}") from None
            if json:
                print_json(result)
            else:
                _print(result)
            return
        assert pcap is not None
        try:
            packets = read_capture(pcap.read_bytes())
        except OSError as exc:
            raise UsageError(f"cannot read {pcap}: {exc.strerror}") from None
        except PcapError as exc:
            raise UsageError(f"cannot read capture {str(pcap)!r}: {exc}") from None
        ports = WAP_PORTS if port is None else (port,)
        datagrams = udp_datagrams(packets, ports)
        for d in datagrams:
            try:
                d.update(dissect(d["payload"], d["port"], connectionless=connectionless or None))
            except (wtp.WtpCodecError, WspCodecError) as exc:
                d["error"] = str(exc)
            d["payload"] = d["payload"].hex()
        if json:
            print_json({"file": str(pcap), "packets": len(packets), "datagrams": datagrams})
            return
        if not datagrams:
            where = "/".join(map(str, ports))
            print(f"{pcap}: no WAP datagrams (UDP port {where}) among {len(packets)} packets")
        for d in datagrams:
            print(f"frame {d['frame']} {d['time']:.6f} {d['src']} -> {d['dst']}")
            if "error" in d:
                print(f"  malformed: {d['error']}")
            else:
                _print(d)
