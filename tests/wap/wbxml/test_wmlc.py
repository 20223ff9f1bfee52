"""WML -> WMLC as a gateway compiles it: whitespace, variables, entities, content types."""

import pytest

from wwanlab.wap.wbxml import Element, Extension, WbxmlError, decode
from wwanlab.wap.wbxml.content_types import BINARY_TYPES, TEXT_TYPES, compile_content
from wwanlab.wap.wbxml.wmlc import compile_wml

DECK_11 = b'<!DOCTYPE wml PUBLIC "-//WAPFORUM//DTD WML 1.1//EN" "x">'


def _card(deck: bytes) -> Element:
    return decode(deck).root.elements()[0]


def test_exact_bytes_of_a_small_deck():
    deck = DECK_11 + b'<wml>\n  <card id="c">\n    <p>Hi   $(user:e)!</p>\n  </card>\n</wml>'
    # 1.3, WML 1.1 (4), UTF-8, no string table; wml card(attrs,content) id "c" END
    # p(content) "Hi " EXT_I_0 "user" "!" END END END
    assert compile_wml(deck) == bytes.fromhex(
        "03046a007fe755036300016003486920 00".replace(" ", "")
        + "4075736572 00".replace(" ", "")
        + "032100"
        + "010101"
    )


def test_whitespace_collapses_and_strips_but_keeps_space_next_to_emphasis():
    deck = b"<wml><card><p>  one \n\t two  <b> bold </b>  three  <br/>  four </p></card></wml>"
    p = _card(compile_wml(deck)).elements()[0]
    assert p.children[0] == "one two "
    assert p.children[1] == Element("b", [], ["bold"])  # no emphasis sibling inside <b>
    assert p.children[2] == " three"
    assert p.children[4] == "four"


def test_pre_and_xml_space_preserve_keep_whitespace():
    deck = b'<wml><card><pre>  a   b  </pre><p xml:space="preserve"> c   d </p></card></wml>'
    card = _card(compile_wml(deck, wml_version="1.3"))
    assert [e.children for e in card.elements()] == [["  a   b  "], [" c   d "]]


def test_variables_become_extension_tokens():
    deck = b"<wml><card><p>$a $(b) $(c:escape) $(d:u) $(e:noesc) cost $$5</p>" + (
        b'<go href="/x?q=$(q:e)"/></card></wml>'
    )
    card = _card(compile_wml(deck))
    assert card.elements()[0].children == [
        Extension(2, "i", "a"), " ", Extension(2, "i", "b"), " ", Extension(0, "i", "c"),
        " ", Extension(1, "i", "d"), " ", Extension(2, "i", "e"), " cost $5",
    ]  # fmt: skip
    assert card.elements()[1].attributes == [("href", ["/x?q=", Extension(0, "i", "q")])]


@pytest.mark.parametrize("bad", [b"$(x", b"$(x:zzz)", b"$ alone"])
def test_bad_variable_references_are_errors(bad):
    with pytest.raises(WbxmlError):
        compile_wml(b"<wml><card><p>" + bad + b"</p></card></wml>")


def test_entities_and_url_prefix_tokens():
    deck = b'<wml><card><p>a&nbsp;b&#233;</p><go href="http://www.site.org/"/></card></wml>'
    data = compile_wml(deck)
    assert "a\u00a0b\u00e9".encode() in data
    assert bytes.fromhex("4ba10373697465 00".replace(" ", "") + "88") in data


def test_version_selection_and_errors():
    assert compile_wml(DECK_11 + b"<wml/>", "1.1")[:2] == b"\x01\x04"
    assert compile_wml(b"<wml/>")[:2] == b"\x03\x0a"  # no DOCTYPE: WML 1.3
    assert compile_wml(b"<wml/>", wml_version="1.2")[:2] == b"\x03\x09"
    with pytest.raises(WbxmlError, match="not a WML deck"):
        compile_wml(b"<html/>")
    with pytest.raises(WbxmlError, match="malformed XML"):
        compile_wml(b"<wml><card></wml>")


def test_content_type_mapping():
    assert BINARY_TYPES["text/vnd.wap.wml"] == "application/vnd.wap.wmlc"
    assert TEXT_TYPES["application/vnd.wap.sic"] == "text/vnd.wap.si"
    ctype, body = compile_content("text/vnd.wap.wml; charset=utf-8", b"<wml/>")
    assert ctype == "application/vnd.wap.wmlc" and body[:2] == b"\x03\x0a"
    ctype, body = compile_content("text/vnd.wap.sl", b'<sl href="http://a/"/>')
    assert ctype == "application/vnd.wap.slc" and body[1] == 0x06
    with pytest.raises(KeyError):
        compile_content("text/html", b"<html/>")
