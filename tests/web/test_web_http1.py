"""HTTP/1.x message codec: exact bytes, byte-at-a-time parsing, framing, bad input."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wwanlab.web.http1 import (
    MAX_CHUNK_LINE,
    MAX_HEAD,
    BodyTooLarge,
    HttpError,
    RequestReader,
    ResponseReader,
    encode_request,
    encode_response,
)


def test_request_bytes_are_exact() -> None:
    assert encode_request("/a", "10.0.0.2") == b"GET /a HTTP/1.1\r\nHost: 10.0.0.2\r\n\r\n"
    assert encode_request("/", "h", "HTTP/1.0", close=True) == (
        b"GET / HTTP/1.0\r\nHost: h\r\nConnection: close\r\n\r\n"
    )


def test_response_bytes_are_exact() -> None:
    assert encode_response(200, b"hi", close=True) == (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
        b"Content-Length: 2\r\nConnection: close\r\n\r\nhi"
    )


def test_pipelined_requests_parse_in_order_even_one_byte_at_a_time() -> None:
    wire = encode_request("/1", "h") + encode_request("/2", "h", "HTTP/1.0")
    reader = RequestReader()
    requests = [r for i in range(len(wire)) for r in reader.feed(wire[i : i + 1])]
    assert [(r.target, r.version, r.keep_alive) for r in requests] == [
        ("/1", "HTTP/1.1", True),
        ("/2", "HTTP/1.0", False),
    ]
    assert requests[0].header("HOST") == "h"


@given(st.lists(st.binary(max_size=3000), min_size=1, max_size=4), st.integers(1, 700))
def test_responses_round_trip_in_any_chunking(bodies: list[bytes], step: int) -> None:
    wire = b"".join(encode_response(200, body) for body in bodies)
    reader = ResponseReader()
    got = [r for i in range(0, len(wire), step) for r in reader.feed(wire[i : i + step])]
    assert [r.body for r in got] == bodies
    assert reader.eof() is None


def test_chunked_and_close_delimited_bodies() -> None:
    reader = ResponseReader()
    chunked = (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\n"
    )
    assert [r.body for r in reader.feed(chunked)] == [b"hello world"]
    assert reader.feed(b"HTTP/1.0 200 OK\r\n\r\nuntil the end") == []
    final = reader.eof()
    assert final is not None and (final.status, final.body) == (200, b"until the end")


@pytest.mark.parametrize(
    "wire",
    [
        b"HTTP/1.1 2000 OK\r\n\r\n",
        b"SPDY/3 200 OK\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabXY",
        b"HTTP/1.1 200 OK\r\n" + b"X: " + b"a" * MAX_HEAD,
    ],
)
def test_malformed_responses_raise_http_error(wire: bytes) -> None:
    with pytest.raises(HttpError):
        ResponseReader().feed(wire)


def test_truncated_body_at_eof_is_an_error() -> None:
    reader = ResponseReader()
    reader.feed(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
    with pytest.raises(HttpError):
        reader.eof()


@pytest.mark.parametrize(
    "wire",
    [
        b"HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nhello \r\n5\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffff\r\n",
        b"HTTP/1.0 200 OK\r\n\r\n" + b"x" * (10 + MAX_CHUNK_LINE + 1),
    ],
)
def test_a_body_over_max_body_raises_as_soon_as_it_is_known(wire: bytes) -> None:
    reader = ResponseReader(max_body=10)
    with pytest.raises(BodyTooLarge):
        for i in range(len(wire)):
            reader.feed(wire[i : i + 1])


def test_max_body_admits_its_limit_and_bounds_a_close_delimited_body_at_eof() -> None:
    reader = ResponseReader(max_body=5)
    wire = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
    assert [r.body for r in reader.feed(wire)] == [b"hello"]
    reader.feed(b"HTTP/1.0 200 OK\r\n\r\nhello!")
    with pytest.raises(BodyTooLarge):
        reader.eof()


def test_a_head_response_has_no_body_and_the_next_one_has() -> None:
    reader = ResponseReader()
    reader.expect_head_response()
    wire = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"
    assert [r.body for r in reader.feed(wire + wire + b"hello")] == [b"", b"hello"]


@pytest.mark.parametrize(
    ("head", "keep_alive"),
    [
        (b"HTTP/1.1 200 OK\r\n", True),
        (b"HTTP/1.1 200 OK\r\nConnection: Close\r\n", False),
        (b"HTTP/1.0 200 OK\r\n", False),
        (b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n", True),
    ],
)
def test_response_keep_alive_follows_version_and_connection(head: bytes, keep_alive: bool) -> None:
    (response,) = ResponseReader().feed(head + b"Content-Length: 0\r\n\r\n")
    assert response.keep_alive is keep_alive


@pytest.mark.parametrize(
    ("wire", "status"),
    [
        (b"GET /\r\n\r\n", 400),
        (b"GET / HTTP/2.0\r\n\r\n", 505),
        (b"POST / HTTP/1.1\r\nContent-Length: 99999999\r\n\r\nabc", 413),
        (b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 411),
        (b"POST / HTTP/1.1\r\nContent-Length: -3\r\n\r\n", 400),
    ],
)
def test_malformed_requests_carry_the_status_to_answer(wire: bytes, status: int) -> None:
    with pytest.raises(HttpError) as info:
        RequestReader().feed(wire)
    assert info.value.status == status


def test_request_bodies_by_content_length_fed_one_byte_at_a_time() -> None:
    wire = (
        b"POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello"
        b"GET /b HTTP/1.1\r\nHost: h\r\n\r\n"
    )
    reader = RequestReader()
    got = [r for i in range(len(wire)) for r in reader.feed(wire[i : i + 1])]
    assert [(r.method, r.target, r.body) for r in got] == [
        ("POST", "/a", b"hello"),
        ("GET", "/b", b""),
    ]
