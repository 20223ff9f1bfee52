"""The dual proxy's messages: exact bytes, round trips, and refusal of malformed ones."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wwanlab.pep.dual import messages as m

CHK_A = bytes(range(20))
CHK_B = bytes(range(20, 40))


def test_request_bytes() -> None:
    data = m.encode(m.Request(7, "http://a/x", CHK_A, (CHK_B,)))
    assert data == (
        b"\x01\x01"  # version 1, REQUEST
        + b"\x00\x00\x00\x07"  # id
        + b"\x01"  # base present
        + b"\x00\x0ahttp://a/x"
        + CHK_A
        + b"\x00\x01"
        + CHK_B
    )
    assert m.decode(data) == m.Request(7, "http://a/x", CHK_A, (CHK_B,))


def test_request_without_base_bytes() -> None:
    assert (
        m.encode(m.Request(1, "http://a/"))
        == b"\x01\x01\x00\x00\x00\x01\x00\x00\x09http://a/\x00\x00"
    )


def test_response_delta_bytes() -> None:
    obj = m.WireObject(
        "http://a/s.css", 200, "text/css", "identity", CHK_A, m.Form.DELTA, base=CHK_B, body=b"P"
    )
    data = m.encode(m.Response(258, obj))
    assert data == (
        b"\x01\x02\x00\x00\x01\x02"  # RESPONSE, id 258
        + b"\x00\xc8\x01\x00"  # status 200, DELTA, IDENTITY
        + b"\x00\x0ehttp://a/s.css"
        + b"\x08text/css"
        + b"\x08identity"
        + CHK_A
        + CHK_B
        + b"\x00\x00\x00\x01P"
    )
    assert m.decode(data) == m.Response(258, obj)


def test_push_have_bytes() -> None:
    obj = m.WireObject("http://a/i.gif", 200, "image/gif", "identity", CHK_A, m.Form.HAVE)
    data = m.encode(m.Push(obj))
    assert data == (
        b"\x01\x03\x00\xc8\x02\x00\x00\x0ehttp://a/i.gif\x09image/gif\x08identity"
        + CHK_A
        + b"\x00\x00\x00\x00"
    )
    assert m.decode(data) == m.Push(obj)


def test_list_bytes() -> None:
    with_chks = m.PageList("http://a/", (m.ListEntry("http://a/1", CHK_A),))
    assert m.encode(with_chks) == (
        b"\x01\x04\x00\x09http://a/\x02\x00\x01\x00\x0ahttp://a/1" + CHK_A
    )
    pushed = m.PageList("http://a/", (m.ListEntry("http://a/1"),), pushed=True)
    assert m.encode(pushed) == b"\x01\x04\x00\x09http://a/\x01\x00\x01\x00\x0ahttp://a/1"
    assert m.decode(m.encode(with_chks)) == with_chks
    assert m.decode(m.encode(pushed)) == pushed


chks = st.binary(min_size=20, max_size=20)
urls = st.text(min_size=1, max_size=60)
objects = st.builds(
    lambda url, status, ctype, body, key, form, coding, base: m.WireObject(
        url,
        status,
        ctype,
        "identity",
        key,
        form,
        coding,
        base if form is m.Form.DELTA else None,
        b"" if form is m.Form.HAVE else body,
    ),
    urls,
    st.integers(0, 999),
    st.text(max_size=40),
    st.binary(max_size=200),
    chks,
    st.sampled_from(m.Form),
    st.sampled_from(m.Coding),
    chks,
)
message_strategy = st.one_of(
    st.builds(
        m.Request,
        st.integers(0, 2**32 - 1),
        urls,
        st.none() | chks,
        st.lists(chks, max_size=5).map(tuple),
    ),
    st.builds(m.Response, st.integers(0, 2**32 - 1), objects),
    st.builds(m.Push, objects),
    st.builds(
        m.PageList,
        urls,
        st.lists(urls, max_size=5).map(lambda us: tuple(m.ListEntry(u) for u in us)),
        st.booleans(),
    ),
)


@given(message_strategy)
def test_round_trip(message: m.Message) -> None:
    assert m.decode(m.encode(message)) == message


@given(message_strategy, st.data())
def test_every_truncation_is_refused(message: m.Message, data: st.DataObject) -> None:
    raw = m.encode(message)
    cut = data.draw(st.integers(0, len(raw) - 1))
    with pytest.raises(m.MessageError):
        m.decode(raw[:cut])


@given(st.binary(max_size=300))
def test_garbage_is_refused_or_decodes(raw: bytes) -> None:
    try:
        message = m.decode(raw)
    except m.MessageError:
        return
    assert m.encode(message) == raw


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"\x02\x01", "version 2"),
        (b"\x01\x09", "unknown message type 9"),
        (b"\x01\x01\x00\x00\x00\x01\x80\x00\x00\x00\x00", "unknown request flags"),
        (b"\x01\x01\x00\x00\x00\x01\x00\xff\xffhttp", "url of 65535 octets exceeds 8192"),
        # a have-count of 60,000: refused before any CHK is read
        (b"\x01\x01\x00\x00\x00\x01\x00\x00\x01a\xea\x60", "have-list of 60000 exceeds"),
        # a count of 500 CHKs with nothing after it
        (b"\x01\x01\x00\x00\x00\x01\x00\x00\x01a\x01\xf4", "500 items cannot fit in 0"),
        (
            b"\x01\x03\x00\xc8\x00\x00\x00\x01a\x00\x00" + CHK_A + b"\x7f\xff\xff\xff",
            "body of 2147483647 octets exceeds",
        ),
        (b"\x01\x03\x03\xe8\x00\x00", "status 1000"),
        (b"\x01\x03\x00\xc8\x07\x00", "unknown form 7"),
        (b"\x01\x03\x00\xc8\x00\x05", "unknown coding 5"),
        (
            b"\x01\x03\x00\xc8\x02\x00\x00\x01a\x00\x00" + CHK_A + b"\x00\x00\x00\x01X",
            "HAVE object carries no body",
        ),
        (b"\x01\x01\x00\x00\x00\x01\x00\x00\x02\xff\xfe\x00\x00", "url is not UTF-8"),
        (m.encode(m.Request(1, "http://a/")) + b"\x00", "1 octets after the end"),
    ],
)
def test_malformed_messages_name_the_problem(raw: bytes, reason: str) -> None:
    with pytest.raises(m.MessageError, match=reason):
        m.decode(raw)


def test_values_the_format_cannot_carry_are_refused() -> None:
    with pytest.raises(m.MessageError, match="chk must be 20 octets"):
        m.encode(m.Push(m.WireObject("http://a/", 200, "t", "identity", b"short")))
    with pytest.raises(m.MessageError, match="base CHK goes with a DELTA"):
        m.encode(m.Push(m.WireObject("http://a/", 200, "t", "identity", CHK_A, base=CHK_B)))
    with pytest.raises(m.MessageError, match="url of 8193 octets"):
        m.encode(m.Request(1, "u" * 8193))
