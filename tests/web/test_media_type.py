"""Media types per RFC 9110 8.3.1: any spacing, case and quoting; one canonical form."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wwanlab.web.media_type import (
    MAX_MEDIA_TYPE,
    MediaType,
    MediaTypeError,
    parse_media_ranges,
    parse_media_type,
    split_list,
)

HTML_UTF8 = MediaType("text", "html", (("charset", "utf-8"),))


@pytest.mark.parametrize(
    "text",
    [
        "text/html;charset=utf-8",
        "text/html; charset=utf-8",
        "text/html ; charset=utf-8",
        "text/html;\tcharset=utf-8 ",
        " TEXT/HTML; Charset=UTF-8",
        'text/html; charset="utf-8"',
        'text/html;charset="UTF-8"',
        "text/html;;charset=utf-8;",
        "text/html; charset = utf-8",
    ],
)
def test_spellings_of_one_type_parse_equal(text):
    media = parse_media_type(text)
    assert media == HTML_UTF8
    assert str(media) == "text/html; charset=utf-8"


def test_quoted_values_unescape_keep_case_and_requote_only_when_needed():
    media = parse_media_type(r'multipart/mixed; Boundary="a \"b\";c"; x=Token')
    assert media.params == (("boundary", 'a "b";c'), ("x", "Token"))
    assert media.param("BOUNDARY") == 'a "b";c'
    assert str(media) == r'multipart/mixed; boundary="a \"b\";c"; x=Token'
    assert parse_media_type(str(media)) == media
    assert media.without("boundary") == MediaType("multipart", "mixed", (("x", "Token"),))


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "has no type"),
        ("text", "no '/' after its type"),
        ("text/", "has no subtype"),
        ("text/html x", "unexpected 'x'"),
        ("text/html; charset", "parameter 'charset' has no value"),
        ("text/html; charset=", "no value of 'charset'"),
        ('text/html; a="open', "quoted value not closed"),
        ('text/html; a="x\ny"', "control character"),
        ("text/html; a=b c", "unexpected 'c'"),
        ("*/*", "only allowed in a media range"),
        ("text/*", "only allowed in a media range"),
        ("x" * MAX_MEDIA_TYPE + "/y", f"longer than {MAX_MEDIA_TYPE}"),
    ],
)
def test_what_is_not_a_media_type_says_why(text, reason):
    with pytest.raises(MediaTypeError, match=reason.replace("*", r"\*")):
        parse_media_type(text)


def test_media_ranges_with_weights_and_specificity():
    ranges = parse_media_ranges(
        ["text/*;q=0.5, application/vnd.wap.wmlc;Q=0, */*", 'x/y;q=2, */a, b/c;p="1,2"']
    )
    assert [(str(r), q) for r, q in ranges] == [
        ("text/*", 0.5),
        ("application/vnd.wap.wmlc", 0.0),
        ("*/*", 1.0),
        ("x/y", 0.0),  # 2 is no qvalue: read as a refusal
        ('b/c; p="1,2"', 1.0),  # "*/a" is no media range and is skipped
    ]
    html = parse_media_type("text/html")
    assert [r.matches(html) for r, _ in ranges] == [2, 0, 1, 0, 0]
    assert parse_media_type("TEXT/HTML").matches(html) == 3


def test_split_list_keeps_commas_inside_quotes_and_drops_empty_elements():
    assert split_list(' a, ,b;x="1,\\"2", c ,') == ["a", 'b;x="1,\\"2"', "c"]


TOKEN = st.text("abcXYZ019!#$%&'*+-.^_`|~", min_size=1, max_size=8)
VALUE = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=8)


@given(
    kind=TOKEN.filter(lambda t: t != "*"),
    subtype=TOKEN.filter(lambda t: t != "*"),
    params=st.lists(st.tuples(TOKEN, VALUE), max_size=3),
)
def test_canonical_form_round_trips(kind, subtype, params):
    media = MediaType(
        kind.lower(), subtype.lower(), tuple((k.lower(), v) for k, v in params if k != "charset")
    )
    assert parse_media_type(str(media)) == media


@given(st.text(max_size=60))
def test_any_text_parses_or_says_why(text):
    try:
        media = parse_media_type(text)
    except MediaTypeError:
        return
    assert parse_media_type(str(media)) == media


@given(st.text(st.sampled_from('text/html;charset="utf-8" \t,*q=0.5\\'), max_size=40))
def test_any_accept_value_gives_ranges_without_raising(text):
    for media, weight in parse_media_ranges([text]):
        assert 0.0 <= weight <= 1.0
        assert media.param("q") is None
