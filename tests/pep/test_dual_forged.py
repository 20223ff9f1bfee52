"""Each side of the dual proxy against exact, malformed and forged messages, through an
in-memory channel that records what a side sends and hands it what a test forges."""

import zlib

from hypothesis import given
from hypothesis import strategies as st

from wwanlab.core.events import Event
from wwanlab.pep.dual import messages as m
from wwanlab.pep.dual.client import ClientProxy
from wwanlab.pep.dual.coding import apply_delta, chk, make_delta
from wwanlab.pep.dual.config import DualConfig
from wwanlab.pep.dual.events import BodyRejected, MessageRefused
from wwanlab.pep.dual.origin import PageOrigin
from wwanlab.pep.dual.server import ServerProxy
from wwanlab.pep.dual.store import ChkStore, Stored
from wwanlab.transports.channel import CarriedChannel
from wwanlab.web.fetcher import FetchFailed, ObjectArrived, RequestSent
from wwanlab.web.page import Page, WebObject

MAIN = "http://www.example/"
CSS = "http://www.example/s.css"
CSS_BODY = b"body { color: red } " * 50
HTML = f'<html><link rel="stylesheet" href="{CSS}"></html>'.encode()
PLAIN = DualConfig()
CACHING = DualConfig(chk=True, delta=True)
PAGE = Page("p", WebObject(MAIN, "text/html", HTML), (WebObject(CSS, "text/css", CSS_BODY),))


class MemoryChannel(CarriedChannel):
    """A message channel whose other end is the test."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[bytes] = []

    def send_message(self, data: bytes, now: float) -> None:
        self.sent.append(data)

    def inject(self, data: bytes, now: float = 1.0) -> None:
        self.deliver(data, now)

    def fail(self, reason: str, now: float = 1.0) -> None:
        super().fail(reason, now)


def drain(side: ClientProxy | ServerProxy, now: float = 1.0) -> list[Event]:
    side.datagrams_to_send(now)
    events = []
    while (event := side.next_event()) is not None:
        events.append(event)
    return events


def full(url: str, body: bytes, content_type: str = "text/css") -> m.WireObject:
    return m.WireObject(url, 200, content_type, "identity", chk(body), body=body)


# --- the server side --------------------------------------------------------------------


def server(
    config: DualConfig = PLAIN, store: ChkStore | None = None
) -> tuple[ServerProxy, MemoryChannel]:
    channel = MemoryChannel()
    return ServerProxy(channel, PageOrigin(PAGE), config, store), channel


def test_server_answers_a_request_with_the_whole_object() -> None:
    proxy, channel = server()
    channel.inject(m.encode(m.Request(5, CSS)))
    assert drain(proxy) == []
    assert channel.sent == [m.encode(m.Response(5, full(CSS, CSS_BODY)))]


def test_server_answers_have_when_the_client_holds_the_current_version() -> None:
    proxy, channel = server(DualConfig(chk=True))
    channel.inject(m.encode(m.Request(5, CSS, base=chk(CSS_BODY))))
    drain(proxy)
    have = m.WireObject(CSS, 200, "text/css", "identity", chk(CSS_BODY), m.Form.HAVE)
    assert channel.sent == [m.encode(m.Response(5, have))]


def test_server_sends_a_delta_against_the_version_the_client_names() -> None:
    old = CSS_BODY.replace(b"red", b"blue")
    store = ChkStore()
    store.put(chk(old), Stored("text/css", "identity", old), CSS)
    proxy, channel = server(DualConfig(chk=True, delta=True), store)
    channel.inject(m.encode(m.Request(5, CSS, base=chk(old))))
    drain(proxy)
    answer = m.decode(channel.sent[0])
    assert isinstance(answer, m.Response)
    assert answer.object.form is m.Form.DELTA and answer.object.base == chk(old)
    assert len(answer.object.body) < len(CSS_BODY)
    assert apply_delta(old, answer.object.body) == CSS_BODY
    assert store.url_chk[CSS] == chk(CSS_BODY)


def test_server_with_push_lists_then_pushes_after_the_main_document() -> None:
    proxy, channel = server(DualConfig(push=True))
    channel.inject(m.encode(m.Request(1, MAIN)))
    drain(proxy)
    assert channel.sent == [
        m.encode(m.Response(1, full(MAIN, HTML, "text/html"))),
        m.encode(m.PageList(MAIN, (m.ListEntry(CSS),), pushed=True)),
        m.encode(m.Push(full(CSS, CSS_BODY))),
    ]


def test_server_with_chk_lists_every_objects_chk() -> None:
    proxy, channel = server(DualConfig(chk=True))
    channel.inject(m.encode(m.Request(1, MAIN)))
    drain(proxy)
    assert channel.sent[1:] == [m.encode(m.PageList(MAIN, (m.ListEntry(CSS, chk(CSS_BODY)),)))]


def test_server_refuses_malformed_and_misdirected_messages() -> None:
    proxy, channel = server()
    channel.inject(b"\x01\x01\x00")
    channel.inject(m.encode(m.Push(full(CSS, CSS_BODY))))
    events = drain(proxy)
    assert [type(e) for e in events] == [MessageRefused, MessageRefused]
    assert isinstance(events[0], MessageRefused) and "truncated id" in events[0].reason
    assert isinstance(events[1], MessageRefused) and events[1].reason == "a client sent Push"
    assert channel.sent == []


def test_server_reports_an_unreachable_origin_as_a_failed_object() -> None:
    channel = MemoryChannel()
    proxy = ServerProxy(channel, PageOrigin(PAGE, fail=frozenset({CSS})), DualConfig())
    channel.inject(m.encode(m.Request(3, CSS)))
    drain(proxy)
    failed = m.WireObject(
        CSS, 0, "text/plain", "identity", chk(b"origin unreachable"), body=b"origin unreachable"
    )
    assert channel.sent == [m.encode(m.Response(3, failed))]


def test_server_sends_an_object_too_large_for_the_channel_as_a_failure() -> None:
    channel = MemoryChannel()
    proxy = ServerProxy(channel, PageOrigin(PAGE), DualConfig(), max_message=500)
    channel.inject(m.encode(m.Request(3, CSS)))
    drain(proxy)
    answer = m.decode(channel.sent[0])
    assert isinstance(answer, m.Response) and answer.object.status == 0
    assert b"exceed the channel's 500" in answer.object.body


# --- the client side ----------------------------------------------------------------------


def client(
    config: DualConfig = CACHING, store: ChkStore | None = None
) -> tuple[ClientProxy, MemoryChannel]:
    channel = MemoryChannel()
    return ClientProxy(channel, config, store), channel


def test_client_request_carries_base_and_have_list() -> None:
    store = ChkStore()
    store.put(chk(HTML), Stored("text/html", "identity", HTML), MAIN)
    store.put(chk(CSS_BODY), Stored("text/css", "identity", CSS_BODY), CSS)
    store.pages[MAIN] = (CSS,)
    proxy, channel = client(store=store)
    proxy.fetch(MAIN, 0.0)
    assert channel.sent == [m.encode(m.Request(1, MAIN, chk(HTML), (chk(CSS_BODY),)))]
    assert drain(proxy) == [RequestSent(MAIN, 0, 0.0)]


def test_client_refuses_forged_messages_and_stays_usable() -> None:
    proxy, channel = client()
    proxy.fetch(CSS, 0.0)
    channel.inject(m.encode(m.Response(99, full(CSS, CSS_BODY))))  # no request 99
    channel.inject(m.encode(m.Response(1, full(MAIN, HTML))))  # request 1 was for CSS
    channel.inject(m.encode(m.Push(full(CSS, CSS_BODY))))  # nothing was promised
    channel.inject(m.encode(m.PageList(MAIN, ())))  # no page is loading
    channel.inject(m.encode(m.Request(1, CSS)))  # a server never asks
    channel.inject(b"\x07")
    events = drain(proxy)
    refused = [e for e in events if isinstance(e, MessageRefused)]
    assert [e.reason for e in refused] == [
        "response 99 to no request",
        "response 1 to no request",
        f"push of {CSS}, which was not promised",
        f"LIST for {MAIN}, not a page",
        "a server sent a REQUEST",
        "truncated header: 2 octets wanted, 1 left",
    ]
    channel.inject(m.encode(m.Response(1, full(CSS, CSS_BODY))))
    arrived = [e for e in drain(proxy) if isinstance(e, ObjectArrived)]
    assert [(e.url, e.body) for e in arrived] == [(CSS, CSS_BODY)]


def test_client_refetches_after_a_bad_delta_and_fails_after_two() -> None:
    old = CSS_BODY.replace(b"red", b"blue")
    store = ChkStore()
    store.put(chk(old), Stored("text/css", "identity", old), CSS)
    proxy, channel = client(store=store)
    proxy.fetch(CSS, 0.0)
    patch = bytearray(make_delta(old, CSS_BODY))
    patch[40] ^= 0xFF  # corrupt a compressed block
    forged = m.WireObject(
        CSS,
        200,
        "text/css",
        "identity",
        chk(CSS_BODY),
        m.Form.DELTA,
        base=chk(old),
        body=bytes(patch),
    )
    channel.inject(m.encode(m.Response(1, forged)))
    events = drain(proxy)
    assert [type(e) for e in events] == [RequestSent, BodyRejected, RequestSent]
    # the refetch names no base and no have-list, so the answer must be whole
    assert channel.sent[-1] == m.encode(m.Request(2, CSS))
    wrong = m.WireObject(CSS, 200, "text/css", "identity", chk(CSS_BODY), body=b"not it")
    channel.inject(m.encode(m.Response(2, wrong)))
    events = drain(proxy)
    assert [type(e) for e in events] == [BodyRejected, FetchFailed]
    assert isinstance(events[1], FetchFailed) and "rejected twice" in events[1].reason
    assert store.url_chk[CSS] == chk(old)  # nothing unchecked was stored


def test_client_refuses_a_deflate_bomb_within_bounds() -> None:
    proxy, channel = client()
    proxy.fetch(CSS, 0.0)
    bomb = zlib.compress(bytes(m.MAX_BODY + 1), 9)
    forged = m.WireObject(
        CSS, 200, "text/css", "identity", chk(b""), coding=m.Coding.DEFLATE, body=bomb
    )
    channel.inject(m.encode(m.Response(1, forged)))
    rejected = [e for e in drain(proxy) if isinstance(e, BodyRejected)]
    assert [e.reason for e in rejected] == [f"deflated body inflates past {m.MAX_BODY} octets"]


def test_client_refetches_a_have_for_a_chk_it_does_not_hold() -> None:
    proxy, channel = client()
    proxy.fetch(CSS, 0.0)
    have = m.WireObject(CSS, 200, "text/css", "identity", chk(CSS_BODY), m.Form.HAVE)
    channel.inject(m.encode(m.Response(1, have)))
    events = drain(proxy)
    assert isinstance(events[1], BodyRejected)
    assert events[1].reason == "HAVE names a CHK this client does not hold"
    assert channel.sent[-1] == m.encode(m.Request(2, CSS))


def test_client_fails_every_pending_fetch_when_the_channel_fails() -> None:
    proxy, channel = client()
    proxy.fetch(CSS, 0.0)
    proxy.fetch(MAIN, 0.0)
    channel.fail("link dead")
    failed = [e for e in drain(proxy) if isinstance(e, FetchFailed)]
    assert [(e.url, e.reason) for e in failed] == [
        (CSS, "proxy channel failed: link dead"),
        (MAIN, "proxy channel failed: link dead"),
    ]


@given(st.lists(st.binary(max_size=120), max_size=8))
def test_no_byte_string_crashes_either_side(forged: list[bytes]) -> None:
    for side, channel in (client(), server()):
        side_fetch = getattr(side, "fetch", None)
        if side_fetch is not None:
            side_fetch(CSS, 0.0)
        for data in forged:
            channel.inject(data)
        drain(side)


@given(st.data())
def test_a_corrupted_octet_never_reaches_the_browser(data: st.DataObject) -> None:
    """The server's real messages for a page, one octet flipped in one of them: whatever
    the client delivers is the origin's body, byte for byte (no silent corruption)."""
    config = DualConfig(push=True, chk=True, delta=True, compress=True)
    proxy, to_server = server(config)
    side, to_client = client(config)
    side.fetch(MAIN, 0.0)
    to_server.inject(to_client.sent[0])
    drain(proxy)
    messages = list(to_server.sent)
    which = data.draw(st.integers(0, len(messages) - 1))
    at = data.draw(st.integers(0, len(messages[which]) - 1))
    flip = data.draw(st.integers(1, 255))
    corrupted = bytearray(messages[which])
    corrupted[at] ^= flip
    messages[which] = bytes(corrupted)
    for message in messages:
        to_client.inject(message)
    side.fetch(CSS, 1.0)
    truth = PAGE.site()
    for event in drain(side):
        if isinstance(event, ObjectArrived):
            assert event.body == truth[event.url].body
