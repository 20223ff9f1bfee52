"""WSP header codec: exact octets per encoding version, HTTP round trips, hostile input."""

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wwanlab.wap.wsp.assigned import (
    CONTENT_TYPE_NAMES,
    CONTENT_TYPES,
    FIELDS,
    V1_1,
    V1_2,
    V1_3,
    V1_4,
    V1_5,
    EncodingVersion,
    content_type_code,
    field_code,
)
from wwanlab.wap.wsp.encoding import WspCodecError
from wwanlab.wap.wsp.headers import (
    Header,
    decode_content_type,
    decode_headers,
    encode_content_type,
    encode_headers,
    split_http_lists,
)
from wwanlab.wap.wsp.status import http_to_wsp, wsp_to_http
from wwanlab.web.media_type import parse_media_type

VERSIONS = [V1_1, V1_2, V1_3, V1_4, V1_5]

# (header, encoding version, octets): worked out from WSP 8.4.2 and the code tables.
VECTORS: list[tuple[Header, EncodingVersion, str]] = [
    (("Accept", "text/vnd.wap.wml"), V1_2, "8088"),
    (("Accept", "*/*; q=0.5"), V1_2, "8003808033"),  # q 0.5 -> 51
    (("Accept", "application/x-foo"), V1_2, "80" + b"application/x-foo\0".hex()),
    (("Accept-Charset", "utf-8"), V1_2, "81ea"),  # MIBenum 106
    (("Accept-Charset", "utf-8"), V1_3, "bbea"),  # re-assigned code in 1.3
    (("Accept-Charset", "big5;q=0.333"), V1_2, "81050207ea8331"),  # 2026, q 433
    (("Accept-Encoding", "gzip"), V1_2, "8280"),
    (("Accept-Encoding", "deflate"), V1_3, "bc82"),
    (("Accept-Language", "en"), V1_2, "8399"),
    (("Accept-Language", "fo"), V1_2, "83020182"),  # 0x82 needs the long form
    (("Content-Length", "1234"), V1_2, "8d0204d2"),
    (("Content-Length", "5"), V1_2, "8d85"),
    (("Date", "Sun, 06 Nov 1994 08:49:37 GMT"), V1_2, "92042ebc98a1"),
    (("Cache-Control", "max-age=60"), V1_2, "880282bc"),
    (("Cache-Control", "max-age=60"), V1_3, "bd0282bc"),
    (("Cache-Control", "max-age=60"), V1_4, "c70282bc"),
    (("Cache-Control", "no-cache"), V1_1, "8880"),
    (("Cache-Control", "s-maxage=5"), V1_3, "bd028b85"),
    # s-maxage is 1.3: below it the header goes as an application header
    (("Cache-Control", "s-maxage=5"), V1_2, b"Cache-Control\0s-maxage=5\0".hex()),
    (("Cache-Control", 'no-cache="Set-Cookie"'), V1_3, "bd0280c1"),  # Set-Cookie: field 0x41
    (("Content-Type", "text/html; charset=utf-8"), V1_2, "91038281ea"),
    (("Content-Type", "application/vnd.wap.mms-message"), V1_4, "91be"),
    (
        ("Content-Type", "application/vnd.wap.mms-message"),  # a 1.4 type at 1.2: text
        V1_2,
        "91" + b"application/vnd.wap.mms-message\0".hex(),
    ),
    (("Content-Disposition", "attachment; filename=a.txt"), V1_2, "ae088186" + b"a.txt\0".hex()),
    (("Content-Disposition", "inline"), V1_4, "c50182"),
    (("Expect", "100-continue"), V1_3, "b880"),
    (("Expect", "100-continue"), V1_5, "c880"),  # Expect moved in 1.5
    (("Expect", "100-continue"), V1_2, b"Expect\x00100-continue\x00".hex()),
    (("Authorization", "Basic dXNlcjpwYXNz"), V1_2, "870b80" + b"user\0pass\0".hex()),
    (("WWW-Authenticate", 'Basic realm="WAP zone"'), V1_2, "ad0a80" + b"WAP zone\0".hex()),
    (("Allow", "GET"), V1_2, "86c0"),
    (("Range", "bytes=100-199"), V1_2, "a30480648147"),
    (("Range", "bytes=-500"), V1_2, "a303818374"),
    (("Retry-After", "120"), V1_2, "a50281f8"),
    (("Warning", "110"), V1_2, "ac8a"),
    (("X-Wap-Application-Id", "x-wap-application:wml.ua"), V1_2, "af82"),
    (("Encoding-Version", "1.3"), V1_3, "c393"),
    (("TE", "trailers"), V1_3, "b981"),
    (("TE", "gzip;q=0.5"), V1_3, "b9028433"),
    (("Vary", "User-Agent"), V1_2, "aaa9"),
    (("User-Agent", "Nokia7110/1.0"), V1_2, "a9" + b"Nokia7110/1.0\0".hex()),
    (("ETag", '"abc"'), V1_2, "9322" + b"abc\0".hex()),  # Quoted-string
    (("X-Foo", "bar"), V1_2, b"X-Foo\0bar\0".hex()),
    (("Content-MD5", "AAECAwQFBgcICQoLDA0ODw=="), V1_2, "8f10" + bytes(range(16)).hex()),
    (("Pragma", "no-cache"), V1_2, "9f80"),
]


@pytest.mark.parametrize(("header", "version", "hex_"), VECTORS)
def test_vectors(header: Header, version: EncodingVersion, hex_: str) -> None:
    data = bytes.fromhex(hex_)
    assert encode_headers([header], version) == data
    assert decode_headers(data) == [header]


def test_http_list_values_become_one_header_each() -> None:
    block = encode_headers([("Accept", "text/vnd.wap.wml, */*; q=0.5")])
    assert block == bytes.fromhex("80888003808033")
    assert decode_headers(block) == [("Accept", "text/vnd.wap.wml"), ("Accept", "*/*; q=0.5")]


def test_non_ascii_digits_are_text_not_numbers() -> None:
    # str.isdigit() is true for '²'; the encoder must not take it for a number
    for header in [("Content-Length", "²"), ("Retry-After", "³"), ("Content-Type", "a/b; x=¹")]:
        assert decode_headers(encode_headers([header])) == [header]


def test_header_names_match_case_insensitively() -> None:
    assert encode_headers([("content-length", "5")]) == bytes.fromhex("8d85")


def test_code_page_shifts() -> None:
    # 0x7f 0x02: shift to page 2; field 0x00 there is unknown to us; 0x01: back to page 1
    block = bytes.fromhex("7f0280" + b"x\0".hex() + "018d85")
    assert decode_headers(block) == [("X-Wsp-Page2-Field00", "x"), ("Content-Length", "5")]
    block = bytes.fromhex("058385")  # short-cut shift to page 5, value short-integer 5
    assert decode_headers(block) == [("X-Wsp-Page5-Field03", "5")]


def test_fields_carry_their_versions_and_fall_back() -> None:
    assert field_code("Cache-Control", V1_1) == 0x08
    assert field_code("Cache-Control", V1_3) == 0x3D
    assert field_code("Cache-Control", V1_5) == 0x47
    assert field_code("Content-Range", V1_3) == 0x3E
    assert field_code("X-Wap-Loc-Delivery", V1_4) is None
    assert field_code("X-Wap-Loc-Delivery", V1_5) == 0x4A
    codes = [code for code, _, _ in FIELDS]
    assert codes == list(range(0x4B))


def test_disputed_content_types_decode_both_spellings_to_omna() -> None:
    assert decode_content_type(b"\x8a") == "text/vnd.wap.wta-event"
    assert decode_content_type(b"\x96") == "application/vnd.wap.wta-eventc"
    for spelling in ("text/vnd.wap.wta-event", "text/vnd.wap.channel", "application/vnd.wap.catc"):
        assert encode_content_type(spelling) == b"\x8a"
    for spelling in ("application/vnd.wap.channelc", "application/vnd.wap.wsic"):
        assert encode_content_type(spelling) == b"\x96"
    codes = [code for code, _, _ in CONTENT_TYPES]
    assert codes[:0x59] == list(range(0x59))  # Table 40 and OMNA, no gaps up to 0x58
    assert codes[0x59:] == [0x5A]  # 0x59 is unassigned
    assert CONTENT_TYPE_NAMES[0x5A] == "application/octet-stream"  # as Kannel sends it


def test_registered_content_type_uses_a_long_integer() -> None:
    assert content_type_code("application/vnd.uplanet.signal", V1_2) == 0x0202
    data = encode_content_type("application/vnd.uplanet.signal")
    assert data == bytes.fromhex("03020202")
    assert decode_content_type(data) == "application/vnd.uplanet.signal"


@pytest.mark.parametrize(
    ("http", "wsp"),
    [
        (100, 0x10),
        (200, 0x20),
        (206, 0x26),
        (302, 0x32),
        (307, 0x37),
        (404, 0x44),
        (417, 0x51),
        (500, 0x60),
        (505, 0x65),
    ],
)
def test_status_mapping(http: int, wsp: int) -> None:
    assert http_to_wsp(http) == wsp
    assert wsp_to_http(wsp) == http


def test_unknown_http_status_falls_back_to_its_class() -> None:
    assert http_to_wsp(299) == 0x20
    assert http_to_wsp(306) == 0x30
    assert http_to_wsp(451) == 0x40
    with pytest.raises(WspCodecError):
        http_to_wsp(99)
    with pytest.raises(WspCodecError):
        wsp_to_http(0x36)


@pytest.mark.parametrize(
    ("hex_", "fragment"),
    [
        ("8d1fffffff", "end of data"),  # Content-Length value length uintvar cut short
        ("91058281", "runs past the end"),  # header value length past the end
        ("911f8fffffff7f82", "runs past the end"),  # value length claiming 4 GB
        ("8d", "end of data"),  # field with no value
        ("a30481050607", "stray"),  # Range suffix then two stray octets
        ("91ff", "not assigned"),  # content type 0x7f is unassigned
        ("921e" + "ff" * 30, "beyond year 9999"),  # absurd date
        ("00", "empty name"),
        ("582d466f6f", "NUL"),  # application header name unterminated
        ("582d466f6f00", "end of data"),  # application header without a value
        ("7f", "end of data"),  # shift without page
        ("80038080ff", "end of data"),  # q-value cut short
        ("a30180", "end of data"),  # Range without its first-byte-pos
        # a Quoted-string where Content-Disposition's token belongs (found by fuzzing)
        ("c50d2261205e41de2e74787400968a", "quoted string where a token"),
    ],
)
def test_malformed_blocks_raise_the_codec_error(hex_: str, fragment: str) -> None:
    with pytest.raises(WspCodecError, match=fragment):
        decode_headers(bytes.fromhex(hex_))


def test_unencodable_header_raises_the_codec_error() -> None:
    with pytest.raises(WspCodecError):
        encode_headers([("Bad Name", "x")])
    with pytest.raises(WspCodecError):
        encode_headers([("X-Foo", "\x01control")])
    with pytest.raises(WspCodecError):
        encode_content_type("not a media type")


@pytest.mark.parametrize(("header", "version", "hex_"), VECTORS)
def test_every_prefix_raises_only_the_codec_error(
    header: Header, version: EncodingVersion, hex_: str
) -> None:
    data = bytes.fromhex(hex_)
    for end in range(len(data)):
        with contextlib.suppress(WspCodecError):
            decode_headers(data[:end])


# --- round trips ---------------------------------------------------------------------------


def _after_round_trip(headers: list[Header], version: EncodingVersion) -> list[Header]:
    """Decoded values come back exactly; a value holding an HTTP list comes back as its
    elements, each in its decoded form."""
    out: list[Header] = []
    for name, value in headers:
        parts = split_http_lists([(name, value)])
        if parts == [(name, value)]:
            out.append((name.lower(), value))
        else:
            out += [(n.lower(), v) for n, v in decode_headers(encode_headers(parts, version))]
    return out


@settings(max_examples=400)
@given(st.binary(max_size=40), st.sampled_from(VERSIONS))
def test_any_decodable_block_survives_encoding(data: bytes, version: EncodingVersion) -> None:
    try:
        headers = decode_headers(data)
    except WspCodecError:
        return
    again = decode_headers(encode_headers(headers, version))
    assert [(n.lower(), v) for n, v in again] == _after_round_trip(headers, version)


tokens = st.text("abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=10)
q_values = st.sampled_from(["0", "0.1", "0.5", "0.25", "0.333", "0.999", "0.05"])
media = st.sampled_from(
    ["text/html", "text/vnd.wap.wml", "application/vnd.wap.wmlc", "image/png", "*/*", "x-a/b-c"]
)
http_headers: st.SearchStrategy[Header] = st.one_of(
    st.tuples(st.just("Accept"), media),
    st.tuples(st.just("Accept"), st.builds(lambda m, q: f"{m}; q={q}", media, q_values)),
    st.tuples(
        st.just("Content-Type"),
        st.builds(
            lambda m, c: f"{m}; charset={c}",
            media,
            st.sampled_from(["utf-8", "big5", "x-mibenum-9999"]),
        ),
    ),
    st.tuples(
        st.just("Accept-Charset"), st.sampled_from(["utf-8", "*", "iso-8859-1;q=0.5", "koi8-r"])
    ),
    st.tuples(
        st.just("Accept-Language"), st.sampled_from(["en", "fi;q=0.7", "*", "fo", "x-klingon"])
    ),
    st.tuples(st.just("Content-Length"), st.integers(0, 2**40).map(str)),
    st.tuples(st.just("Age"), st.integers(0, 10**6).map(str)),
    st.tuples(
        st.just("Last-Modified"),
        st.integers(0, 4 * 10**9).map(
            lambda s: __import__("email.utils").utils.formatdate(s, usegmt=True)
        ),
    ),
    st.tuples(
        st.just("Cache-Control"),
        st.sampled_from(["no-cache", "no-store", "max-age=0", "private", "must-revalidate"]),
    ),
    st.tuples(st.just("Cache-Control"), st.integers(0, 10**7).map(lambda n: f"max-stale={n}")),
    st.tuples(
        st.just("User-Agent"),
        st.text(
            st.characters(min_codepoint=32, max_codepoint=126), min_size=1, max_size=20
        ).filter(lambda s: not s.startswith('"') and "," not in s),
    ),
    st.tuples(st.builds(lambda t: "X-" + t, tokens), tokens),
    st.tuples(
        st.just("Range"),
        st.builds(lambda a, b: f"bytes={a}-{a + b}", st.integers(0, 10**6), st.integers(0, 10**6)),
    ),
    st.tuples(
        st.just("Content-Disposition"), st.builds(lambda t: f"attachment; filename={t}", tokens)
    ),
)


@given(st.lists(http_headers, max_size=6), st.sampled_from(VERSIONS))
def test_http_headers_round_trip(headers: list[Header], version: EncodingVersion) -> None:
    assert decode_headers(encode_headers(headers, version)) == headers


# Blocks fuzz/fuzz_wsp_headers.py once found: list values whose elements could not all
# travel as text on their own.
FUZZ_FINDINGS = [
    "aaa9aa582d0a8a677765616c6d3d2272222c20222c206e6f6e63652d0a8a67776e6f6e63653d61626300",
    "80a9aa582d466f6f00544700747261696c65727300544500677a69703b717d302c226574616700",
]


@pytest.mark.parametrize("hex_", FUZZ_FINDINGS)
@pytest.mark.parametrize("version", VERSIONS)
def test_fuzz_findings_round_trip(hex_: str, version: EncodingVersion) -> None:
    headers = decode_headers(bytes.fromhex(hex_))
    again = decode_headers(encode_headers(headers, version))
    assert [(n.lower(), v) for n, v in again] == _after_round_trip(headers, version)


def test_content_type_field_takes_any_spelling_and_sends_the_assigned_one():
    assert encode_content_type("TEXT/X-VCARD") == b"\x87"  # assigned as text/x-vCard
    assert encode_content_type('text/html;charset="UTF-8"') == bytes.fromhex("038281ea")
    assert encode_content_type("Application/Vnd.Wap.Catc") == b"\x8a"  # Kannel's alias
    assert encode_content_type("*/*") == b"\x80"  # WSP Table 40 assigns ranges too
    assert encode_content_type("Text/*") == b"\x81"
    with pytest.raises(WspCodecError, match="quoted value not closed"):
        encode_content_type('text/html; charset="utf-8')


@given(
    essence=st.sampled_from(
        ["text/html", "TEXT/X-VCARD", "application/vnd.wap.wmlc", "image/x-up-wpng", "a/b"]
    ),
    params=st.lists(
        st.tuples(
            st.sampled_from(["charset", "Level", "type", "name", "x-y"]),
            st.sampled_from(["utf-8", "ISO-8859-1", "1", "a b", 'q"t', "tok"]),
        ),
        max_size=3,
    ),
    spacing=st.sampled_from([";", "; ", " ;", " ; "]),
)
def test_content_type_field_keeps_every_spelling_s_meaning(essence, params, spacing):
    quoted = ('"' + v.replace('"', '\\"') + '"' for _, v in params)
    text = essence + "".join(f"{spacing}{k}={v}" for (k, _), v in zip(params, quoted, strict=True))
    decoded = decode_content_type(encode_content_type(text))
    assert parse_media_type(decoded) == parse_media_type(text)
