"""WSP <-> HTTP translation: headers both ways, WML compiled only when accepted."""

import pytest

from wwanlab.core.pair import CLIENT_ADDR
from wwanlab.peers.origin import DECK_WML
from wwanlab.wap.gateway.translate import (
    HttpRequest,
    TranslateError,
    accepts,
    to_http,
    to_reply,
)
from wwanlab.wap.wbxml.wmlc import compile_wml
from wwanlab.wap.wsp.common import request_fields
from wwanlab.wap.wsp.events import MethodInvoke
from wwanlab.wap.wsp.headers import decode_content_type, decode_headers, encode_headers
from wwanlab.wap.wsp.pdu import Get, Post


def invoke(pdu: Get | Post) -> MethodInvoke:
    """The method as the WSP server reports it."""
    method, headers, body = request_fields(pdu)
    return MethodInvoke(1, 1, CLIENT_ADDR, method, pdu.uri, headers, body)


def test_get_becomes_an_http_get_without_hop_by_hop_fields():
    headers = encode_headers(
        [("Accept", "application/vnd.wap.wmlc"), ("User-Agent", "phone"), ("Connection", "close")]
    )
    request = to_http(invoke(Get(uri="http://example.org/a?b=c", headers=headers)))
    assert request == HttpRequest(
        "GET",
        "http://example.org/a?b=c",
        (
            ("Accept", "application/vnd.wap.wmlc"),
            ("User-Agent", "phone"),
            ("Accept", "text/vnd.wap.wml"),  # so the origin sends what we compile
        ),
    )


def test_post_carries_its_content_type_and_body():
    post = Post(uri="http://example.org/f", content_type=b"\x92", data=b"a=1")  # form
    request = to_http(invoke(post))
    assert request.method == "POST" and request.body == b"a=1"
    assert request.headers == (("Content-Type", "application/x-www-form-urlencoded"),)


@pytest.mark.parametrize(
    ("pdu", "status"),
    [
        (Get(uri="https://example.org/"), 400),
        (Get(uri="/relative"), 400),
        (Get(uri="http://example.org/", method=0x50), 501),
        (Get(uri="http://example.org/\u00e9"), 400),
    ],
)
def test_requests_the_gateway_will_not_forward(pdu, status):
    with pytest.raises(TranslateError) as info:
        to_http(invoke(pdu))
    assert info.value.status == status


@pytest.mark.parametrize(
    ("accept", "media", "expected"),
    [
        ([], "application/vnd.wap.wmlc", True),
        (["*/*"], "application/vnd.wap.wmlc", True),
        (["application/*"], "application/vnd.wap.wmlc", True),
        (["text/vnd.wap.wml"], "application/vnd.wap.wmlc", False),
        (["*/*", "application/vnd.wap.wmlc;q=0"], "application/vnd.wap.wmlc", False),
        (["text/*, application/vnd.wap.wmlc; q=0.5"], "application/vnd.wap.wmlc", True),
    ],
)
def test_accepts(accept, media, expected):
    assert accepts(accept, media) is expected


def test_wml_is_compiled_for_a_phone_accepting_wmlc():
    headers = [("Content-Type", "text/vnd.wap.wml"), ("Content-Length", "999"), ("Server", "o")]
    reply = to_reply(200, headers, DECK_WML, ["*/*"])
    assert reply.status == 0x20
    assert decode_content_type(reply.content_type) == "application/vnd.wap.wmlc"
    assert reply.data == compile_wml(DECK_WML)
    assert decode_headers(reply.headers) == [
        ("Server", "o"),
        ("Content-Length", str(len(reply.data))),
    ]


def test_wml_passes_through_for_a_phone_that_only_takes_text():
    reply = to_reply(200, [("Content-Type", "text/vnd.wap.wml")], DECK_WML, ["text/vnd.wap.wml"])
    assert reply.data == DECK_WML
    assert decode_content_type(reply.content_type) == "text/vnd.wap.wml"


def test_broken_wml_and_other_content_pass_through_byte_for_byte():
    broken = b"<wml><card>"
    reply = to_reply(200, [("Content-Type", "text/vnd.wap.wml")], broken, ["*/*"])
    assert reply.data == broken
    blob = bytes(range(256))
    reply = to_reply(404, [("Content-Type", "image/png"), ("Content-Encoding", "gzip")], blob, [])
    assert (reply.status, reply.data) == (0x44, blob)
    assert decode_content_type(reply.content_type) == "image/png"
    assert decode_headers(reply.headers) == [("Content-Length", "256")]


def test_unencodable_response_header_is_left_out():
    reply = to_reply(200, [("Bad Name", "x"), ("X-Ok", "y")], b"", [])
    assert decode_headers(reply.headers) == [("X-Ok", "y"), ("Content-Length", "0")]


@pytest.mark.parametrize(
    "spelling",
    ["text/html;charset=utf-8", 'Text/HTML ; charset="UTF-8"', "text/html;;charset=utf-8;"],
)
def test_any_spelling_of_a_content_type_keeps_its_type_and_charset(spelling):
    reply = to_reply(200, [("Content-Type", spelling)], b"<p>x</p>", ["*/*"])
    assert reply.content_type == bytes.fromhex("038281ea")  # text/html (0x02), charset 106
    assert decode_content_type(reply.content_type) == "text/html; charset=utf-8"


def test_wml_with_parameters_and_odd_case_is_still_compiled():
    headers = [("Content-Type", "TEXT/VND.WAP.WML;charset=UTF-8")]
    reply = to_reply(200, headers, DECK_WML, ["*/*"])
    assert reply.data == compile_wml(DECK_WML)
    assert decode_content_type(reply.content_type) == "application/vnd.wap.wmlc"


def test_content_type_that_is_no_media_type_is_octets():
    reply = to_reply(200, [("Content-Type", "html")], b"x", [])
    assert decode_content_type(reply.content_type) == "application/octet-stream"
