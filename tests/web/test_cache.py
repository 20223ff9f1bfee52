"""The browser's HTTP cache (web.cache, RFC 9111) and the browser using it: exact
lifetimes and ages, the conditional GET and its 304, and what a revisit sends."""

from dataclasses import replace

import pytest

from wwanlab.web.browser import Setup, download
from wwanlab.web.cache import (
    FRESH,
    MISS,
    STALE,
    HttpCache,
    Stored,
    etag_of,
    http_date,
    not_modified,
    parse_date,
    prime,
    served_headers,
)
from wwanlab.web.http1 import ResponseReader, encode_response
from wwanlab.web.page import Page, WebObject

DAY = 86400.0


def stored(headers: tuple[tuple[str, str], ...], at: float = 0.0) -> Stored:
    return Stored("http://a.example/x", b"x", "image/gif", "identity", headers, at, at)


def test_dates_round_trip_on_the_clock() -> None:
    assert http_date(0) == "Wed, 01 Oct 2003 00:00:00 GMT"
    assert parse_date(http_date(-7 * DAY)) == -7 * DAY
    assert parse_date("not a date") is None and parse_date(None) is None


@pytest.mark.parametrize(
    ("headers", "lifetime"),
    [
        ((("Date", http_date(0)), ("Cache-Control", "max-age=60")), 60.0),
        ((("Date", http_date(0)), ("Expires", http_date(300))), 300.0),
        ((("Date", http_date(0)), ("Expires", "0")), 0.0),  # invalid: already expired
        ((("Date", http_date(0)), ("Last-Modified", http_date(-10 * DAY))), DAY),  # 10%
        ((("Date", http_date(0)), ("Cache-Control", "no-cache"), ("Expires", http_date(9))), 0),
        ((("Date", http_date(0)), ("Cache-Control", "max-age=5"), ("Expires", http_date(99))), 5),
        ((("Date", http_date(0)),), 0.0),
    ],
)
def test_freshness_lifetime(headers: tuple[tuple[str, str], ...], lifetime: float) -> None:
    assert stored(headers).lifetime == lifetime


def test_age_counts_the_apparent_age_the_delay_and_the_residence() -> None:
    s = Stored("u", b"", "", "identity", (("Date", http_date(100)), ("Age", "7")), 98.0, 103.0)
    assert s.age(103.0) == 7 + 5  # Age plus the response delay beats the apparent 3 s
    assert s.age(113.0) == 22
    late = Stored("u", b"", "", "identity", (("Date", http_date(90)),), 99.0, 100.0)
    assert late.age(100.0) == 10  # apparent age: received 10 s after its Date


def test_lookup_fresh_then_stale_then_a_miss_without_validators() -> None:
    cache = HttpCache()
    modified = (("Date", http_date(0)), ("Last-Modified", http_date(-1000)), ("ETag", '"a"'))
    assert cache.store("http://a.example/x", modified, b"x", "image/gif", "identity", 0, 0)
    assert cache.lookup("http://a.example/x", 99.9).outcome == FRESH  # lifetime 100 s
    stale = cache.lookup("http://a.example/x", 100.0)
    assert stale.outcome == STALE
    assert stale.conditions == (
        ("If-None-Match", '"a"'),
        ("If-Modified-Since", http_date(-1000)),
    )
    assert cache.lookup("http://a.example/other", 0).outcome == MISS
    dynamic = (("Date", http_date(0)),)
    assert not cache.store("http://a.example/", dynamic, b"<html>", "text/html", "identity", 0, 0)
    assert not cache.store(
        "http://a.example/x", (("Cache-Control", "no-store"),), b"", "", "", 0, 0
    )
    assert cache.lookup("http://a.example/x", 1).outcome == MISS  # no-store evicted it
    assert len(cache) == 0


def test_a_304_refreshes_the_stored_response() -> None:
    cache = HttpCache()
    headers = (("Date", http_date(0)), ("Cache-Control", "max-age=10"), ("ETag", '"v1"'))
    cache.store("u", headers, b"body", "text/css", "identity", 0, 0)
    again = cache.freshen("u", (("Date", http_date(50)), ("Cache-Control", "max-age=20")), 49, 50)
    assert again.body == b"body" and again.lifetime == 20
    # age = 1 s of response delay + the time since: fresh until 69 s
    assert cache.lookup("u", 68.9).outcome == FRESH and cache.lookup("u", 69.1).outcome == STALE
    assert ("ETag", '"v1"') in again.headers


def test_origin_answers_304_only_when_the_validators_match() -> None:
    tag = etag_of(b"abc")
    assert tag == etag_of(b"abc") != etag_of(b"abd")
    assert not_modified((("If-None-Match", tag),), tag, 0.0)
    assert not not_modified((("If-None-Match", '"other"'),), tag, 0.0)
    assert not_modified((("If-None-Match", "*"),), tag, 0.0)
    # If-None-Match wins over If-Modified-Since (RFC 9110 13.2.2)
    assert not not_modified(
        (("If-None-Match", '"x"'), ("If-Modified-Since", http_date(9))), tag, 0
    )
    assert not_modified((("If-Modified-Since", http_date(0)),), None, 0.0)
    assert not not_modified((("If-Modified-Since", http_date(0)),), None, 1.0)
    assert not not_modified((), tag, 0.0)


def test_a_304_has_no_content_whatever_its_fields() -> None:
    wire = encode_response(304, b"", headers=(("ETag", '"a"'),))
    assert b"Content-Length" not in wire
    reader = ResponseReader()
    wire_with_length = b'HTTP/1.1 304 Not Modified\r\nContent-Length: 500\r\nETag: "a"\r\n\r\n'
    [response] = reader.feed(wire_with_length + b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")[
        :1
    ]
    assert response.status == 304 and response.body == b""


# --- the browser with its cache, in the simulator ---------------------------------------

IMG = "http://img.example/logo.gif"
CSS = "http://www.example/site.css"
HTML = (
    f'<html><head><link rel="stylesheet" href="{CSS}"></head><body><img src="{IMG}"></body></html>'
)
PAGE = Page(
    "cached",
    WebObject("http://www.example/", "text/html", HTML.encode()),  # dynamic: no validator
    (
        WebObject(IMG, "image/gif", b"G" * 3000, modified=-10 * DAY),  # heuristic: 1 day
        WebObject(CSS, "text/css", b"b{}" * 300, modified=-10 * DAY, max_age=60),
    ),
)


def test_revisit_fresh_hit_sends_nothing_and_stale_gets_a_304() -> None:
    cache = HttpCache()
    first = download(PAGE, Setup(cache=cache), 1)
    assert first.complete and len(cache) == 2  # the two static objects, not the HTML
    second = download(PAGE, Setup(cache=cache, clock=600.0), 2)  # ten minutes later
    assert second.complete
    by_url = {o.url: o for o in second.objects}
    assert by_url[IMG].cached == "fresh" and by_url[IMG].sent is None  # no request at all
    assert by_url[IMG].size == 0 and by_url[IMG].status == 200
    assert by_url[CSS].cached == "revalidated"  # max-age 60 s: stale, conditional GET
    assert by_url[CSS].sent is not None and by_url[CSS].size == 0 and by_url[CSS].ok
    assert by_url["http://www.example/"].cached == ""  # the HTML crosses whole
    assert second.body_bytes == len(PAGE.main.body)
    gets = [url for c in second.connections for _, url in c.gets]
    assert sorted(gets) == sorted(["http://www.example/", CSS])
    assert cache.lookup(CSS, 600.0 + second.total_time).outcome == FRESH  # 304 refreshed it


def test_a_changed_object_is_fetched_again_with_200() -> None:
    cache = HttpCache()
    download(PAGE, Setup(cache=cache), 1)
    changed = replace(PAGE.objects[1], body=b"i{}" * 300, modified=300.0)
    later = replace(PAGE, objects=(PAGE.objects[0], changed))
    second = download(later, Setup(cache=cache, clock=600.0), 2)
    css = next(o for o in second.objects if o.url == CSS)
    assert css.cached == "" and css.size == len(changed.body)  # the ETag no longer matched


def test_without_a_cache_every_object_crosses() -> None:
    second = download(PAGE, Setup(clock=600.0), 2)
    assert second.body_bytes == PAGE.total_bytes
    assert all(o.cached == "" for o in second.objects)


def test_prime_stores_what_a_visit_through_a_header_less_proxy_would() -> None:
    cache = HttpCache()
    prime(cache, [PAGE.main, *PAGE.objects], 0.0)
    assert len(cache) == 2
    assert cache.lookup(IMG, 600).outcome == FRESH and cache.lookup(CSS, 600).outcome == STALE
    assert served_headers(PAGE.main, 5.0) == (("Date", http_date(5.0)),)
