"""WSP PDU codec: exact bytes (WAP-203-WSP 8.2), capabilities, round trips, hostile input."""

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wwanlab.wap.wsp.address import Address
from wwanlab.wap.wsp.capabilities import (
    Aliases,
    Capability,
    ClientMessageSize,
    ClientSduSize,
    ExtendedMethods,
    HeaderCodePages,
    MethodMor,
    ProtocolOptions,
    PushMor,
    ServerMessageSize,
    ServerSduSize,
    UnknownCapability,
    decode_capabilities,
    encode_capabilities,
)
from wwanlab.wap.wsp.constants import OPTION_CONFIRMED_PUSH, OPTION_PUSH, PduType
from wwanlab.wap.wsp.pdu import (
    ConfirmedPush,
    Connect,
    ConnectReply,
    Disconnect,
    Get,
    Pdu,
    Post,
    Push,
    Redirect,
    Reply,
    Resume,
    Suspend,
    WspCodecError,
    decode,
    decode_connectionless,
    encode,
    encode_connectionless,
)

URI = "http://x/"
URI_HEX = URI.encode().hex()

# Hand-assembled from WSP 8.2 layouts; header blocks are opaque octets here.
VECTORS: list[tuple[str, Pdu]] = [
    # Connect v1.0, capabilities: Client-SDU-Size 3000 (uintvar 97 38), Method-MOR 1
    (
        "0110070003809738028301",
        Connect(capabilities=(ClientSduSize(3000), MethodMor(1))),
    ),
    # ConnectReply, session 0x1234 (uintvar a4 34), no capabilities, header 0x80 0x80
    ("02a43400028080", ConnectReply(session_id=0x1234, headers=b"\x80\x80")),
    # Redirect, permanent, to 127.0.0.1:9201 over bearer 0 (IPv4)
    (
        "0380c40023f17f000001",
        Redirect(permanent=True, addresses=(Address(b"\x7f\x00\x00\x01", 0, 9201),)),
    ),
    ("0501", Disconnect(session_id=1)),
    ("087f", Suspend(session_id=0x7F)),
    ("0901030283028181", Resume(session_id=1, capabilities=(MethodMor(2),), headers=b"\x81\x81")),
    # Get http://x/ with Accept: */* (0x80 0x80)
    ("4009" + URI_HEX + "8080", Get(uri=URI, headers=b"\x80\x80")),
    ("4209" + URI_HEX, Get(uri=URI, method=PduType.HEAD)),
    ("5009" + URI_HEX, Get(uri=URI, method=0x50)),
    # Post: URILen 9, HeadersLen 1, content type application/x-www-form-urlencoded (0x92)
    ("600901" + URI_HEX + "92613d31", Post(uri=URI, content_type=b"\x92", data=b"a=1")),
    (
        "610903" + URI_HEX + "92808000",
        Post(uri=URI, method=PduType.PUT, content_type=b"\x92", headers=b"\x80\x80", data=b"\x00"),
    ),
    # Reply 200 (0x20), text/vnd.wap.wml (0x88), data "hi"
    ("042001886869", Reply(status=0x20, content_type=b"\x88", data=b"hi")),
    # Reply with a general-form content type: length 3, text/html (0x82) charset(0x81)=utf-8(0xea)
    (
        "044406038281ea8080",
        Reply(status=0x44, content_type=b"\x03\x82\x81\xea", headers=b"\x80\x80"),
    ),
    # Reply with a textual content type
    (
        "04200b746578742f706c61696e006f6b",
        Reply(status=0x20, content_type=b"text/plain\x00", data=b"ok"),
    ),
    ("060188aa", Push(content_type=b"\x88", data=b"\xaa")),
    ("070188", ConfirmedPush(content_type=b"\x88")),
]


@pytest.mark.parametrize(("hex_", "pdu"), VECTORS)
def test_vectors(hex_: str, pdu: Pdu) -> None:
    data = bytes.fromhex(hex_)
    assert decode(data) == pdu
    assert encode(pdu) == data


def test_connectionless_framing_puts_the_tid_first() -> None:
    data = encode_connectionless(0x2A, Get(uri=URI))
    assert data == bytes.fromhex("2a4009" + URI_HEX)
    assert decode_connectionless(data) == (0x2A, Get(uri=URI))


def test_capability_vectors() -> None:
    caps: tuple[Capability, ...] = (
        ServerSduSize(0),
        ProtocolOptions(OPTION_PUSH | OPTION_CONFIRMED_PUSH),
        PushMor(1),
        ExtendedMethods(((0x50, "PROPFIND"),)),
        HeaderCodePages(((2, "vnd.x"),)),
        Aliases((Address(b"\x0a\x00\x00\x01"),)),
        UnknownCapability("X-Cap", b"\x01"),
        UnknownCapability(0x30, b"\x02\x03"),
    )
    data = encode_capabilities(caps)
    assert data == bytes.fromhex(
        "028100"  # Server-SDU-Size 0
        "0282c0"  # Protocol options: confirmed push | push
        "028401"  # Push-MOR 1
        "0b85"
        "50"
        "50524f5046494e4400"  # Extended methods: 0x50 PROPFIND
        "0886"
        "02"
        "766e642e7800"  # Header code pages: 2 vnd.x
        "0687"
        "04"
        "0a000001"  # Aliases: 10.0.0.1
        "07"
        "582d43617000"
        "01"  # X-Cap with one octet
        "03"
        "b0"
        "0203"  # unknown well-known id 0x30
    )
    assert decode_capabilities(data) == caps
    assert decode_capabilities(bytes.fromhex("028602")) == (HeaderCodePages(((2, None),)),)


@pytest.mark.parametrize(
    ("hex_", "fragment"),
    [
        ("", "end of data"),
        ("00", "not assigned"),
        ("4500", "not assigned"),  # unassigned Get-family type
        ("620000", "not assigned"),  # unassigned Post-family type
        # uintvar claiming 4 GB of URI (2**32 - 1)
        ("408fffffff7f", "URI of 4294967295 octets runs past the end"),
        ("409080808000", "exceeds 32 bits"),  # 2**32: one past the limit
        ("40818181818100", "longer than 5 octets"),
        ("408001", "leading zero septet"),
        ("40ff", "end of data"),  # uintvar cut short
        ("04200588", "runs past the end"),  # headers length past the end
        ("0420011f", "end of data"),  # content-type value length missing
        ("0420020588", "runs past the end"),  # value length past the block
        ("042003746578", "NUL"),  # textual content type unterminated
        ("050100", "after the Disconnect"),
        ("011002000a80", "capability of 10 octets"),  # capability length past end
        ("011002000180", "end of data"),  # Client-SDU-Size without its value
        ("0110040003838001", "stray"),  # Method-MOR with a stray octet
        ("0110010000", "end of data"),  # capability with no identifier
        ("0380c4", "end of data"),  # redirect address cut short
        ("0380047f00", "address of 4 octets"),
        ("011002000182", "without flags"),
    ],
)
def test_malformed_pdus_raise_the_codec_error(hex_: str, fragment: str) -> None:
    with pytest.raises(WspCodecError, match=fragment) as info:
        decode(bytes.fromhex(hex_))
    assert info.value.reason == 0xE0  # PROTOERR


def test_connectionless_empty_datagram() -> None:
    with pytest.raises(WspCodecError):
        decode_connectionless(b"")


@pytest.mark.parametrize(
    "pdu",
    [
        Get(uri=URI, method=0x60),
        Post(uri=URI, content_type=b"\x92", method=0x40),
        Reply(status=256, content_type=b"\x88"),
        Reply(status=0x20, content_type=b"\x88\x88"),  # two values as content type
        Reply(status=0x20, content_type=b"", headers=b"\x80\x80"),
        Disconnect(session_id=2**32),
        Redirect(addresses=(Address(bytes(64)),)),
        Redirect(addresses=(Address(b"", port=70000),)),
        Connect(capabilities=(MethodMor(256),)),
        Connect(capabilities=(ProtocolOptions(0x100),)),
        Get(uri="\ud800"),
    ],
)
def test_encoding_invalid_fields_raises(pdu: Pdu) -> None:
    with pytest.raises(WspCodecError):
        encode(pdu)


@pytest.mark.parametrize(("hex_", "pdu"), VECTORS)
def test_every_prefix_raises_only_the_codec_error(hex_: str, pdu: Pdu) -> None:
    data = bytes.fromhex(hex_)
    for end in range(len(data)):
        with contextlib.suppress(WspCodecError):
            assert encode(decode(data[:end])) == data[:end]


# --- hypothesis ----------------------------------------------------------------------------

u32 = st.integers(0, 2**32 - 1)
octet = st.integers(0, 255)
text = st.text(st.characters(min_codepoint=32, max_codepoint=255), max_size=12)
addresses = st.lists(
    st.builds(
        Address,
        st.binary(max_size=8),
        st.none() | octet,
        st.none() | st.integers(0, 0xFFFF),
    ),
    max_size=3,
).map(tuple)
capability = st.one_of(
    st.builds(ClientSduSize, u32),
    st.builds(ServerSduSize, u32),
    st.builds(ClientMessageSize, u32),
    st.builds(ServerMessageSize, u32),
    st.integers(1, 3).flatmap(
        lambda w: st.builds(ProtocolOptions, st.integers(0, 2 ** (8 * w) - 1), st.just(w))
    ),
    st.builds(MethodMor, octet),
    st.builds(PushMor, octet),
    st.builds(ExtendedMethods, st.lists(st.tuples(octet, text), max_size=3).map(tuple)),
    st.builds(HeaderCodePages, st.lists(st.tuples(octet, text), max_size=3).map(tuple)),
    st.builds(
        HeaderCodePages,
        st.lists(st.tuples(st.integers(1, 255), st.none()), max_size=3).map(tuple),
    ),
    st.builds(Aliases, addresses),
    st.builds(UnknownCapability, st.integers(0x0A, 0x7F), st.binary(max_size=8)),
    st.builds(UnknownCapability, text, st.binary(max_size=8)),
)
capabilities = st.lists(capability, max_size=4).map(tuple)
content_type = st.one_of(
    st.integers(0x80, 0xFF).map(lambda b: bytes([b])),
    st.text("abcdefghijklmnop/+-.", min_size=1, max_size=20).map(lambda s: s.encode() + b"\0"),
    st.binary(min_size=1, max_size=40).map(
        lambda b: bytes([len(b)]) + b if len(b) <= 30 else b"\x1f" + bytes([len(b)]) + b
    ),
)
headers = st.binary(max_size=30)
body = st.binary(max_size=30)
uri = st.text(max_size=30).filter(lambda s: not any(0xD800 <= ord(c) <= 0xDFFF for c in s))

pdus: st.SearchStrategy[Pdu] = st.one_of(
    st.builds(Connect, version=octet, capabilities=capabilities, headers=headers),
    st.builds(ConnectReply, session_id=u32, capabilities=capabilities, headers=headers),
    st.builds(
        Redirect,
        addresses=addresses,
        permanent=st.booleans(),
        reuse_security_session=st.booleans(),
        reserved=st.integers(0, 0x3F),
    ),
    st.builds(Disconnect, session_id=u32),
    st.builds(Suspend, session_id=u32),
    st.builds(Resume, session_id=u32, capabilities=capabilities, headers=headers),
    st.builds(
        Get,
        uri=uri,
        method=st.sampled_from(sorted({*range(0x40, 0x45), *range(0x50, 0x60)})),
        headers=headers,
    ),
    st.builds(
        Post,
        uri=uri,
        method=st.sampled_from(sorted({0x60, 0x61, *range(0x70, 0x80)})),
        content_type=content_type,
        headers=headers,
        data=body,
    ),
    st.builds(Reply, status=octet, content_type=content_type, headers=headers, data=body),
    st.builds(Push, content_type=content_type, headers=headers, data=body),
    st.builds(ConfirmedPush, content_type=content_type, headers=headers, data=body),
)


@given(pdus)
def test_decode_inverts_encode(pdu: Pdu) -> None:
    assert decode(encode(pdu)) == pdu


@given(octet, pdus)
def test_connectionless_round_trip(tid: int, pdu: Pdu) -> None:
    assert decode_connectionless(encode_connectionless(tid, pdu)) == (tid, pdu)


@given(capabilities)
def test_capabilities_round_trip(caps: tuple[Capability, ...]) -> None:
    assert decode_capabilities(encode_capabilities(caps)) == caps


@given(pdus, st.data())
def test_prefixes_raise_only_the_codec_error(pdu: Pdu, data: st.DataObject) -> None:
    encoded = encode(pdu)
    end = data.draw(st.integers(0, len(encoded)))
    with contextlib.suppress(WspCodecError):
        assert encode(decode(encoded[:end])) == encoded[:end]


@settings(max_examples=300)
@given(st.binary(max_size=40))
def test_random_bytes_raise_only_the_codec_error(data: bytes) -> None:
    with contextlib.suppress(WspCodecError):
        decode(data)
