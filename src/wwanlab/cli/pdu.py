"""``wwanlab pdu decode``: dissect WTP and WSP datagrams from hex or a pcap file.

Port 9201 carries WSP over WTP (connection-oriented), port 9200 connectionless WSP
(a TID octet, then the PDU). A WTP Invoke or Result that holds a whole message (TTR set)
is dissected further as WSP, headers decoded; segments are shown as WTP only.
"""

import contextlib
import dataclasses
import enum
from pathlib import Path
from typing import Annotated, Any

import typer

from wwanlab.cli.common import print_json
from wwanlab.core.errors import UsageError
from wwanlab.sim.ipv4 import PROTO_UDP, PacketError, parse_ipv4, parse_udp
from wwanlab.sim.pcap import LINKTYPE_IPV4, LINKTYPE_RAW, PcapError, read_pcap
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

LINKTYPE_ETHERNET = 1  # tcpdump.org linktypes: IEEE 802.3 Ethernet
ETHERTYPE_IPV4 = 0x0800  # IEEE 802 numbers
ETHERTYPE_VLAN = 0x8100  # IEEE 802.1Q tag, 4 octets before the real EtherType
ETHERNET_HEADER = 14
WAP_PORTS = (CONNECTIONLESS_PORT, CONNECTION_ORIENTED_PORT)


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


def dissect(payload: bytes, port: int) -> dict[str, Any]:
    """One UDP payload sent to or from ``port``; raises the codec errors."""
    if port == CONNECTIONLESS_PORT:
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


def udp_datagrams(data: bytes) -> list[dict[str, Any]]:
    """The UDP datagrams to or from a WAP port in a pcap of raw IPv4 or Ethernet frames."""
    try:
        linktype, records = read_pcap(data)
    except PcapError as exc:
        raise UsageError(f"cannot read pcap: {exc}") from None
    if linktype not in (LINKTYPE_RAW, LINKTYPE_IPV4, LINKTYPE_ETHERNET):
        raise UsageError(f"pcap link type {linktype} is neither raw IP nor Ethernet")
    found = []
    for number, (time, frame) in enumerate(records, start=1):
        packet = _ip_packet(frame) if linktype == LINKTYPE_ETHERNET else frame
        if packet is None:
            continue
        try:
            ip, segment = parse_ipv4(packet, verify=False)  # loopback captures skip checksums
            if ip.protocol != PROTO_UDP:
                continue
            udp, payload = parse_udp(ip.src, ip.dst, segment, verify=False)
        except PacketError:
            continue
        port = next((p for p in (udp.dst_port, udp.src_port) if p in WAP_PORTS), None)
        if port is not None:
            found.append(
                {
                    "frame": number,
                    "time": time,
                    "src": f"{ip.src}:{udp.src_port}",
                    "dst": f"{ip.dst}:{udp.dst_port}",
                    "port": port,
                    "payload": payload,
                }
            )
    return found


def _ip_packet(frame: bytes) -> bytes | None:
    offset = ETHERNET_HEADER - 2
    while offset + 2 <= len(frame):
        ethertype = int.from_bytes(frame[offset : offset + 2], "big")
        if ethertype != ETHERTYPE_VLAN:
            return frame[offset + 2 :] if ethertype == ETHERTYPE_IPV4 else None
        offset += 4
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


def register(app: typer.Typer) -> None:
    pdu_app = typer.Typer(help="Dissect WTP and WSP protocol data units.")
    app.add_typer(pdu_app, name="pdu")

    @pdu_app.command("decode")
    def decode_command(
        hex_: Annotated[
            str | None, typer.Argument(metavar="HEX", help="One UDP payload in hex.")
        ] = None,
        port: Annotated[
            int, typer.Option(help="9201: WSP over WTP; 9200: connectionless WSP.")
        ] = CONNECTION_ORIENTED_PORT,
        connectionless: Annotated[
            bool, typer.Option("--connectionless", help="Same as --port 9200.")
        ] = False,
        pcap: Annotated[
            Path | None, typer.Option("--pcap", help="Dissect UDP 9200/9201 in a pcap file.")
        ] = None,
        json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    ) -> None:
        """Decode WTP/WSP from HEX or from every WAP datagram of a pcap file."""
        if (hex_ is None) == (pcap is None):
            raise UsageError("give either HEX or --pcap FILE")
        if connectionless:
            port = CONNECTIONLESS_PORT
        if port not in WAP_PORTS:
            raise UsageError(f"--port must be 9200 or 9201, not {port}")
        if hex_ is not None:
            try:
                payload = bytes.fromhex(hex_.replace(":", "").replace(" ", ""))
            except ValueError:
                raise UsageError(f"not hexadecimal: {hex_!r}") from None
            try:
                result = dissect(payload, port)
            except (wtp.WtpCodecError, WspCodecError) as exc:
                raise UsageError(f"malformed PDU: {exc}") from None
            if json:
                print_json(result)
            else:
                _print(result)
            return
        assert pcap is not None
        try:
            data = pcap.read_bytes()
        except OSError as exc:
            raise UsageError(f"cannot read {pcap}: {exc.strerror}") from None
        datagrams = udp_datagrams(data)
        for d in datagrams:
            try:
                d.update(dissect(d["payload"], d["port"]))
            except (wtp.WtpCodecError, WspCodecError) as exc:
                d["error"] = str(exc)
            d["payload"] = d["payload"].hex()
        if json:
            print_json({"file": str(pcap), "datagrams": datagrams})
            return
        for d in datagrams:
            print(f"frame {d['frame']} {d['time']:.6f} {d['src']} -> {d['dst']}")
            if "error" in d:
                print(f"  malformed: {d['error']}")
            else:
                _print(d)
