"""The tunnel's side of the dual proxy without sockets: PROXY payloads carry messages
whole and refuse a length past their end; the browser gets the origin's object, or a
304 exactly when its validator names the current one; only a plain GET goes through
the dual proxy."""

import pytest

from wwanlab.transports.channel import ChannelFailed, MessageReceived
from wwanlab.tunnel.dual import ProxyLink, browser_response, through_dual
from wwanlab.tunnel.frames import MAX_PROXY_MESSAGE
from wwanlab.web.fetcher import ObjectArrived


def test_messages_wait_for_flush_and_cross_in_one_payload() -> None:
    payloads: list[bytes] = []
    link = ProxyLink(lambda data, now: payloads.append(data))
    link.send_message(b"one", 0.0)
    link.send_message(b"", 0.0)
    link.send_message(b"three", 0.0)
    assert (payloads, link.waiting) == ([], True)
    link.flush(1.0)
    one_payload = [b"\x00\x00\x00\x03one\x00\x00\x00\x00\x00\x00\x00\x05three"]
    assert (payloads, link.waiting) == (one_payload, False)
    other = ProxyLink(lambda data, now: None)
    other.deliver(payloads[0], 2.0)
    got = [other.next_event() for _ in range(4)]
    assert got == [MessageReceived(b"one", 2.0), MessageReceived(b"", 2.0),
                   MessageReceived(b"three", 2.0), None]  # fmt: skip


def test_a_payload_never_passes_its_bound() -> None:
    payloads: list[bytes] = []
    link = ProxyLink(lambda data, now: payloads.append(data))
    big = bytes(MAX_PROXY_MESSAGE // 2 - 4)  # two fill a payload to its bound
    for _ in range(3):
        link.send_message(big, 0.0)
    link.flush(0.0)
    assert [len(p) for p in payloads] == [2 * (len(big) + 4), len(big) + 4]


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (b"\x00\x00\x00", "cut inside a length"),
        (b"\x00\x00\x00\x05four", "of 5 octets past its frame's end"),
        (b"\x00\x00\x00\x01x\xff\xff\xff\xff", "of 4294967295 octets past"),
    ],
)
def test_a_length_past_the_end_fails_the_link(payload: bytes, reason: str) -> None:
    link = ProxyLink(lambda data, now: None)
    link.deliver(payload, 3.0)
    events = []
    while (event := link.next_event()) is not None:
        events.append(event)
    assert isinstance(events[-1], ChannelFailed) and reason in events[-1].reason


HEADERS = (("ETag", '"abc"'), ("Last-Modified", "Sun, 06 Dec 2026 09:00:00 GMT"),
           ("Cache-Control", "max-age=0"), ("X-Extra", "1"))  # fmt: skip


def arrived(status: int = 200, body: bytes = b"<p>hi</p>") -> ObjectArrived:
    return ObjectArrived("http://a.example/", status, body, "text/html", "gzip", 0, 0.0, HEADERS)


def test_the_object_as_the_origin_served_it() -> None:
    assert browser_response(arrived(), {}) == (
        b'HTTP/1.1 200 OK\r\nETag: "abc"\r\nLast-Modified: Sun, 06 Dec 2026 09:00:00 GMT\r\n'
        b"Cache-Control: max-age=0\r\nX-Extra: 1\r\nContent-Type: text/html\r\n"
        b"Content-Encoding: gzip\r\nContent-Length: 9\r\nConnection: close\r\n\r\n<p>hi</p>"
    )


@pytest.mark.parametrize(
    ("fields", "not_modified"),
    [
        ({"if-none-match": '"abc"'}, True),
        ({"if-none-match": '"x", W/"abc"'}, True),
        ({"if-none-match": "*"}, True),
        ({"if-none-match": '"other"'}, False),
        # If-None-Match wins over If-Modified-Since (RFC 9110 13.2.2)
        ({"if-none-match": '"other"', "if-modified-since": HEADERS[1][1]}, False),
        ({"if-modified-since": HEADERS[1][1]}, True),
        ({"if-modified-since": "Sat, 05 Dec 2026 09:00:00 GMT"}, False),
    ],
)
def test_validators(fields: dict[str, str], not_modified: bool) -> None:
    response = browser_response(arrived(), fields)
    if not_modified:
        assert response == (
            b'HTTP/1.1 304 Not Modified\r\nETag: "abc"\r\n'
            b"Last-Modified: Sun, 06 Dec 2026 09:00:00 GMT\r\nCache-Control: max-age=0\r\n"
            b"Connection: close\r\n\r\n"
        )
    else:
        assert response.startswith(b"HTTP/1.1 200 OK\r\n") and response.endswith(b"<p>hi</p>")


def test_only_a_success_is_ever_not_modified() -> None:
    response = browser_response(arrived(404, b"gone"), {"if-none-match": "*"})
    assert response.startswith(b"HTTP/1.1 404 Not Found\r\n") and response.endswith(b"gone")


@pytest.mark.parametrize(
    ("method", "fields", "dual"),
    [
        ("GET", {"accept": "*/*", "if-none-match": '"a"'}, True),
        ("GET", {"cookie": "id=1"}, False),
        ("GET", {"authorization": "Basic eA=="}, False),
        ("GET", {"range": "bytes=0-9"}, False),
        ("POST", {}, False),
        ("HEAD", {}, False),
    ],
)
def test_what_goes_through_the_dual_proxy(method: str, fields: dict[str, str], dual: bool) -> None:
    assert through_dual(method, fields) is dual
