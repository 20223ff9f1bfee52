"""Our WTP and WSP codecs against traffic recorded between Kannel 1.4.5 and fakewap.

Every datagram of every fixture is decoded with our codecs; the decoded fields must be
what Wireshark's dissectors reported (the manifest), and encoding the decoded PDUs must
give back the same octets. Fixtures: scripts/record_kannel_fixtures.py.
"""

import email.utils
from datetime import UTC, datetime
from typing import Any

import pytest

from wwanlab.wap import wbxml
from wwanlab.wap.wsp import pdu as wsp
from wwanlab.wap.wsp.capabilities import ClientSduSize, ServerSduSize, encode_capabilities
from wwanlab.wap.wsp.constants import PduType as WspType
from wwanlab.wap.wsp.headers import (
    decode_content_type,
    decode_headers,
    encode_content_type,
    encode_headers,
)
from wwanlab.wap.wtp import pdu as wtp
from wwanlab.wap.wtp.constants import PduType as WtpType

WTP_TYPES: dict[type, WtpType] = {
    wtp.Invoke: WtpType.INVOKE,
    wtp.Result: WtpType.RESULT,
    wtp.Ack: WtpType.ACK,
    wtp.Abort: WtpType.ABORT,
    wtp.SegmentedInvoke: WtpType.SEGMENTED_INVOKE,
    wtp.SegmentedResult: WtpType.SEGMENTED_RESULT,
    wtp.NegativeAck: WtpType.NEGATIVE_ACK,
}

# Octets before the TPIs: octet 1 and the TID, plus octet 4 where the PDU has one.
FIXED_HEADER = {
    WtpType.INVOKE: 4,
    WtpType.RESULT: 3,
    WtpType.ACK: 3,
    WtpType.ABORT: 4,
    WtpType.SEGMENTED_INVOKE: 4,
    WtpType.SEGMENTED_RESULT: 4,
}


def _wtp_pdu(d) -> wtp.Pdu:
    pdus = wtp.decode(d.payload)
    assert len(pdus) == 1, f"frame {d.frame}: Kannel and fakewap never concatenate"
    assert wtp.encode(pdus) == d.payload, f"frame {d.frame}: re-encoding differs"
    return pdus[0]


def _check_wtp(d, pdu: wtp.Pdu) -> None:
    want: dict[str, Any] = d.expected["wtp"]
    kind = WTP_TYPES[type(pdu)]
    got: dict[str, Any] = {
        "pdu_type": kind,
        "tid": pdu.tid,
        "tid_response": pdu.tid_response,
        "con": bool(pdu.tpis),
    }
    if not isinstance(pdu, wtp.Abort):
        got["rid"] = pdu.rid
    if isinstance(pdu, wtp.Invoke | wtp.Result | wtp.SegmentedInvoke | wtp.SegmentedResult):
        got["gtr"], got["ttr"] = pdu.gtr, pdu.ttr
    if isinstance(pdu, wtp.Invoke):
        got |= {"version": 0, "tid_new": pdu.tid_new, "up_flag": pdu.up_flag, "tcl": pdu.tcl}
    if isinstance(pdu, wtp.Ack):
        got["tve_tok"] = pdu.tve_tok
    if isinstance(pdu, wtp.SegmentedInvoke | wtp.SegmentedResult):
        got["psn"] = pdu.psn
    if isinstance(pdu, wtp.NegativeAck):
        # tshark shows the count and the first missing PSN as "sequence".
        got["missing_count"] = len(pdu.missing)
        got["psn"] = pdu.missing[0]
    if isinstance(pdu, wtp.Abort):
        got["abort_type"] = pdu.abort_type
        got["abort_reason" if pdu.abort_type == 0 else "user_abort_reason"] = pdu.reason
    tpis = want.get("tpis", [])
    assert got == {k: v for k, v in want.items() if k != "tpis"}, f"frame {d.frame}"
    assert len(pdu.tpis) == len(tpis), f"frame {d.frame}"
    # A Negative Ack's fixed part ends with the count octet and one PSN per missing packet.
    start = 4 + len(pdu.missing) if isinstance(pdu, wtp.NegativeAck) else FIXED_HEADER[kind]
    assert d.payload[start:].hex().startswith("".join(t["raw"] for t in tpis))
    for tpi, expected in zip(pdu.tpis, tpis, strict=True):
        if "psn" in expected:
            assert isinstance(tpi, wtp.PsnTpi) and tpi.psn == expected["psn"]
        if "option" in expected:
            assert isinstance(tpi, wtp.OptionTpi) and tpi.option == expected["option"]


def test_pcaps_hold_the_manifest_datagrams(kannel_fixture):
    name, datagrams = kannel_fixture
    assert datagrams, name
    for d in datagrams:
        e = d.expected
        assert (d.frame, d.src, d.dst, len(d.payload)) == (
            e["frame"],
            e["src"],
            e["dst"],
            e["length"],
        )
        assert abs((d.time - datagrams[0].time) - e["time"]) < 1e-6


def test_every_wtp_datagram_decodes_as_tshark_saw_it(kannel_fixture, kannel_manifest):
    name, datagrams = kannel_fixture
    checked = 0
    for d in datagrams:
        if d.connectionless:
            assert "wtp" not in d.expected
            continue
        _check_wtp(d, _wtp_pdu(d))
        checked += 1
    entries = kannel_manifest["fixtures"][name]["datagrams"]
    assert checked == sum(1 for e in entries if "wtp" in e)


def _wsp_octets(d, by_frame) -> bytes:
    """The WSP PDU a datagram completes: its own user data, or the reassembled message.

    fakewap's -l drops datagrams after they were captured, so a lossy recording holds
    a segment and its retransmission; both must carry the same data.
    """
    segments: dict[int, bytes] = {}
    for frame in d.expected.get("wsp_reassembled_from", [d.frame]):
        p = _wtp_pdu(by_frame[frame])
        assert isinstance(p, wtp.Invoke | wtp.Result | wtp.SegmentedInvoke | wtp.SegmentedResult)
        psn = p.psn if isinstance(p, wtp.SegmentedInvoke | wtp.SegmentedResult) else 0
        assert segments.setdefault(psn, p.user_data) == p.user_data, f"frame {frame}"
    assert sorted(segments) == list(range(len(segments))), f"frame {d.frame}: a gap"
    return b"".join(segments[psn] for psn in range(len(segments)))


def _wsp_type(pdu: wsp.Pdu) -> int:
    if isinstance(pdu, wsp.Get | wsp.Post):
        return pdu.method
    return {
        wsp.Connect: WspType.CONNECT,
        wsp.ConnectReply: WspType.CONNECT_REPLY,
        wsp.Reply: WspType.REPLY,
        wsp.Disconnect: WspType.DISCONNECT,
    }[type(pdu)]


def _check_wsp(d, pdu: wsp.Pdu, tid: int | None) -> None:
    want: dict[str, Any] = {k: v for k, v in d.expected["wsp"].items() if k != "headers"}
    got: dict[str, Any] = {"pdu_type": _wsp_type(pdu)}
    if tid is not None:
        got["tid"] = tid
    if isinstance(pdu, wsp.Connect | wsp.ConnectReply):
        got["capabilities_length"] = len(encode_capabilities(pdu.capabilities))
        got["headers_length"] = len(pdu.headers)
        for cap in pdu.capabilities:
            if isinstance(cap, ClientSduSize):
                got["client_sdu_size"] = cap.size
            if isinstance(cap, ServerSduSize):
                got["server_sdu_size"] = cap.size
    if isinstance(pdu, wsp.Connect):
        got["version_major"], got["version_minor"] = pdu.version >> 4, pdu.version & 0x0F
    if isinstance(pdu, wsp.ConnectReply | wsp.Disconnect):
        got["session_id"] = pdu.session_id
    if isinstance(pdu, wsp.Get | wsp.Post):
        got["uri"] = pdu.uri
    if isinstance(pdu, wsp.Post | wsp.Reply):
        got["headers_length"] = len(pdu.content_type) + len(pdu.headers)
    if isinstance(pdu, wsp.Reply):
        got["status"] = pdu.status
    assert got == want, f"frame {d.frame}"


def test_every_wsp_pdu_decodes_as_tshark_saw_it(kannel_fixture):
    name, datagrams = kannel_fixture
    by_frame = {d.frame: d for d in datagrams}
    checked = 0
    for d in datagrams:
        if "wsp" not in d.expected:
            continue
        if d.connectionless:
            tid, pdu = wsp.decode_connectionless(d.payload)
            assert wsp.encode_connectionless(tid, pdu) == d.payload
            _check_wsp(d, pdu, tid)
        else:
            octets = _wsp_octets(d, by_frame)
            pdu = wsp.decode(octets)
            assert wsp.encode(pdu) == octets, f"frame {d.frame}: re-encoding differs"
            _check_wsp(d, pdu, None)
        checked += 1
    assert checked >= 2, name  # every scenario has at least a request and a reply


def test_lossy_run_shows_kannel_resending_with_rid_and_fakewap_nacking(
    load_kannel_datagrams, kannel_manifest
):
    datagrams = load_kannel_datagrams("co_get_40k_lossy")
    pdus = [(d, _wtp_pdu(d)) for d in datagrams]
    resent = [
        d for d, p in pdus if d.expected["from_gateway"] and not isinstance(p, wtp.Abort) and p.rid
    ]
    assert resent, "the recording kept a run in which Kannel retransmitted"
    for d in resent:
        # A retransmission repeats an earlier packet octet for octet but for the RID bit.
        original = bytes([d.payload[0] & ~0x01]) + d.payload[1:]
        assert any(x.payload == original for x in datagrams if x.frame < d.frame), d.frame
    nacks = [p for _, p in pdus if isinstance(p, wtp.NegativeAck)]
    assert nacks
    assert len(nacks) == kannel_manifest["fixtures"]["co_get_40k_lossy"]["fakewap"]["nacks"]


@pytest.mark.parametrize("name", ["co_get_deck", "co_get_40k_sar", "co_post_6k_sar"])
def test_fakewap_disconnect_reuses_the_tid_of_the_get(name: str, load_kannel_datagrams):
    """A fakewap quirk the gateway must tolerate: the class 0 Disconnect Invoke carries
    the TID of the preceding Get/Post, not a new one."""
    pdus = [_wtp_pdu(d) for d in load_kannel_datagrams(name)]
    invokes = [p for p in pdus if isinstance(p, wtp.Invoke)]
    connect, method, disconnect = invokes
    assert (connect.tcl, method.tcl, disconnect.tcl) == (2, 2, 0)
    assert disconnect.tid == method.tid == connect.tid + 1


# What Kannel 1.4.5 makes of the origin's DECK_WML: the space between "origin." and
# the <a> element does not survive its WML compiler.
KANNEL_DECK = (
    b'<wml><card id="main" title="wwanlab"><p>Hello from the wwanlab origin.'
    b'<a href="#second">Next</a></p></card><card id="second" title="Second">'
    b"<p>A second card.</p></card></wml>"
)


@pytest.mark.parametrize("name", ["co_get_deck", "cl_get_deck"])
def test_kannel_compiled_deck_decodes_with_our_wbxml_codec(name: str, load_kannel_datagrams):
    reply = load_kannel_datagrams(name)[-1 if name.startswith("cl") else 4]
    assert reply.expected["from_gateway"]
    if reply.connectionless:
        _, pdu = wsp.decode_connectionless(reply.payload)
    else:
        result = _wtp_pdu(reply)
        assert isinstance(result, wtp.Result)
        pdu = wsp.decode(result.user_data)
    assert isinstance(pdu, wsp.Reply)
    doc = wbxml.decode(pdu.data)
    assert (doc.public_id, doc.charset) == ("-//WAPFORUM//DTD WML 1.1//EN", 4)
    assert KANNEL_DECK in wbxml.to_xml(doc)


def _comparable(name: str, value: str, *, from_tshark: bool) -> tuple[str, str]:
    """One rendering for both sides: tshark writes dates as "Nov 23, 2026 06:27:22 UTC"
    where HTTP writes an IMF-fixdate, and media types and charset names are
    case-insensitive (RFC 9110 8.3.1)."""
    if name == "Date" and from_tshark:
        when = datetime.strptime(value, "%b %d, %Y %H:%M:%S UTC").replace(tzinfo=UTC)
        return name, email.utils.format_datetime(when, usegmt=True)
    if name == "Content-Type":
        return name, value.lower()
    return name, value


# Kannel 1.4.5 sends application/octet-stream as 0x5A, a code assigned after encoding
# version 1.6, inside sessions that announce 1.2; our encoder honours the announced
# version and would spell it as text. So Content-Type is re-encoded at the newest
# version, the rest of the header block at the announced one (docs/kannel.md).
NEWEST = (1, 6)


def test_every_wsp_header_decodes_as_tshark_saw_it(kannel_fixture):
    """Header blocks decode to what tshark shows, and re-encode octet for octet with
    the encoding version Kannel announced (Encoding-Version: 1.2 in a ConnectReply,
    1.3 in a connectionless Reply)."""
    name, datagrams = kannel_fixture
    by_frame = {d.frame: d for d in datagrams}
    blocks: list[tuple[wsp.Pdu, list[tuple[str, str]], bool]] = []
    for d in datagrams:
        if "wsp" not in d.expected:
            continue
        if d.connectionless:
            _, pdu = wsp.decode_connectionless(d.payload)
        else:
            pdu = wsp.decode(_wsp_octets(d, by_frame))
        ours: list[tuple[str, str]] = []
        if isinstance(pdu, wsp.Post | wsp.Reply):
            ours.append(("Content-Type", decode_content_type(pdu.content_type)))
        if isinstance(pdu, wsp.Connect | wsp.ConnectReply | wsp.Get | wsp.Post | wsp.Reply):
            ours += decode_headers(pdu.headers)
        theirs = d.expected["wsp"].get("headers", [])
        want = [_comparable(n, v, from_tshark=True) for n, v in theirs]
        got = [_comparable(n, v, from_tshark=False) for n, v in ours]
        assert got == want, f"{name} frame {d.frame}"
        blocks.append((pdu, ours, d.expected["from_gateway"]))
    announced = [v for _, hs, gw in blocks if gw for n, v in hs if n == "Encoding-Version"]
    assert len(set(announced)) == 1, announced
    major, minor = (int(x) for x in announced[0].split("."))
    for pdu, headers, from_gateway in blocks:
        if isinstance(pdu, wsp.Connect | wsp.ConnectReply | wsp.Get | wsp.Post | wsp.Reply):
            # For a Post or Reply the first entry is the Content-Type field.
            block = headers[1:] if isinstance(pdu, wsp.Post | wsp.Reply) else headers
            assert encode_headers(block, (major, minor)) == pdu.headers
        if isinstance(pdu, wsp.Reply) and from_gateway:
            version = (major, minor)
            if pdu.content_type == b"\xda":  # 0x5A with the short-integer bit
                version = NEWEST
            assert encode_content_type(headers[0][1], version) == pdu.content_type


def test_kannel_verifies_a_tid_that_went_back_to_one(load_kannel_datagrams):
    """TID verification (Ack with Tve/Tok, WTP 9.3.3): a second session from the same
    address and port starts again at TID 1, older than the last TID Kannel saw there;
    Kannel holds the Invoke and asks (Ack with Tve), fakewap confirms (Ack with Tok),
    the Result follows."""
    pdus = [
        (d.expected["from_gateway"], _wtp_pdu(d))
        for d in load_kannel_datagrams("co_tid_verification")
    ]
    connects = [i for i, (gw, p) in enumerate(pdus) if isinstance(p, wtp.Invoke) and p.tid == 1]
    assert len(connects) == 2
    first, second = connects
    assert not isinstance(pdus[first + 1][1], wtp.Ack)  # a fresh address: no question
    gateway_ack, client_ack, (gw, reply) = pdus[second + 1 : second + 4]
    assert gateway_ack == (True, wtp.Ack(tid=1, tid_response=True, tve_tok=True))
    assert client_ack == (False, wtp.Ack(tid=1, tve_tok=True))
    assert gw and isinstance(reply, wtp.Result) and reply.tid == 1
