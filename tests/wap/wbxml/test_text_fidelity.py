"""Text reaches XML and back unchanged, and whitespace follows the document type."""

import pytest

from wwanlab.wap.wbxml import (
    Document,
    Element,
    Opaque,
    ProcessingInstruction,
    WbxmlError,
    decode,
    encode,
    parse_xml,
    table_by_name,
    to_xml,
)
from wwanlab.wap.wbxml.content_types import compile_content
from wwanlab.wap.wbxml.tree import Part
from wwanlab.wap.wbxml.whitespace import collapse
from wwanlab.wap.wbxml.xmlio import opaque_text


def xml_text(data: bytes) -> list[Element | ProcessingInstruction | Part]:
    """The root's children after WBXML -> XML -> tree, keeping every character."""
    return parse_xml(to_xml(decode(data)), whitespace="preserve").root.children


def test_opaque_with_a_newline_decodes_to_text() -> None:
    """The issue's case: OPAQUE "a\\nb" is text in XML, not base64 ``YQpi``."""
    data = bytes.fromhex("03016a0045c303610a6201")
    assert b"<![CDATA[a\nb]]>" in to_xml(decode(data))
    assert xml_text(data) == ["a\nb"]


@pytest.mark.parametrize(
    "text",
    [
        "BEGIN:VCARD\r\nN:Doe;Jane\r\nEND:VCARD\r\n",  # a vCard's CR LF line ends
        "tab\there",
        "cdata ]]> end\r",
        "\u00a0no-break\u00a0",  # isprintable() said no to U+00A0
    ],
)
def test_opaque_text_comes_back_exactly(text: str) -> None:
    data = encode(Document(Element("r", [], [Opaque(text.encode())])), public_id=1)
    assert xml_text(data) == [text]


@pytest.mark.parametrize(
    "data",
    [b"\x00", b"a\x01b", b"\x1f", b"\xff\xfe", b"\xc3", "\ufffe".encode(), "\uffff".encode()],
)
def test_bytes_xml_cannot_carry_force_base64(data: bytes) -> None:
    assert opaque_text(data) is None
    doc = decode(encode(Document(Element("r", [], [Opaque(data)])), public_id=1))
    assert b"CDATA" not in to_xml(doc)


def test_inline_text_and_attributes_keep_cr_tab_and_newline() -> None:
    value = "a\tb\nc\r\nd"
    root = Element("r", [("v", [value])], [value])
    xml = to_xml(decode(encode(Document(root), public_id=1)))
    back = parse_xml(xml, whitespace="preserve").root
    assert back.children == [value]
    assert back.get("v") == value


def test_processing_instruction_keeps_entities() -> None:
    """WBXML builds PI data like an attribute value; an ENTITY in it was dropped."""
    # Table "app"; PI LITERAL(0) ENTITY(0x41) STR_I "b" END; then the root element.
    data = bytes.fromhex("03016a04") + b"app\x00" + bytes.fromhex("4304000241036200") + b"\x01\x05"
    assert decode(data).before == [ProcessingInstruction("app", "Ab")]


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        (Document(Element("a b")), "not an XML name"),
        (Document(Element("r", [("x", ["1"]), ("x", ["2"])])), "given twice"),
        (Document(Element("r", [], [ProcessingInstruction("p", "x ?> y")])), "is not XML"),
        (Document(Element("r"), public_id='-//"//EN'), "forbids"),
    ],
)
def test_what_xml_cannot_say_is_refused_not_written_malformed(doc: Document, message: str) -> None:
    with pytest.raises(WbxmlError, match=message):
        to_xml(doc)


def test_nbsp_only_text_is_not_whitespace() -> None:
    """&nbsp; is U+00A0, not XML whitespace: no mode drops it."""
    xml = b"<p><b>x</b>&#160;<i>y</i> <i>z</i></p>"
    for mode in ("ignorable", "trim", "collapse"):
        assert "\u00a0" in parse_xml(xml, whitespace=mode).root.children


WML = (
    b'<!DOCTYPE wml PUBLIC "-//WAPFORUM//DTD WML 1.3//EN" "x"><wml><card><p>\n'
    b"  Hello,\n   <b>big</b>   world\n  <br/>  next  </p><pre>  a   b  </pre>"
    b'<p xml:space="preserve">  kept  </p></card></wml>'
)


def test_wml_collapses_outside_pre_and_keeps_space_beside_emphasis() -> None:
    card = decode(encode(WML)).root.elements()[0]
    p, pre, kept = card.elements()
    assert p.children[0] == "Hello, "
    assert p.children[2] == " world"
    assert p.children[4] == "next"
    assert pre.children == ["  a   b  "]
    assert kept.children == ["  kept  "]


def test_whitespace_default_follows_the_document_type() -> None:
    si = b"<si><indication href='http://a.b/'>\n    You have\n\t4 mails\n  </indication></si>"
    indication = decode(encode(si)).root.elements()[0]
    assert indication.children == ["You have 4 mails"]
    syncml = (
        b'<SyncML xmlns="SYNCML:SYNCML1.2"><SyncBody><Data>\n  line 1\n  line 2\n</Data>'
        b"</SyncBody></SyncML>"
    )
    data = decode(encode(syncml)).root.elements()[0].elements()[0]
    assert data.children == ["\n  line 1\n  line 2\n"]
    assert len(encode(WML, whitespace="preserve")) > len(encode(WML))


def test_collapse_without_table_honours_xml_space_only() -> None:
    root = parse_xml(
        b"<r> a  b <pre>  c  </pre><q xml:space='preserve'> d </q></r>", whitespace="preserve"
    ).root
    collapse(root)
    assert root.children[0] == "a b"
    assert root.elements()[0].children == ["c"]
    assert root.elements()[1].children == [" d "]
    collapse(root, table_by_name("wml13"))  # idempotent
    assert root.children[0] == "a b"


def test_gateway_compiles_push_and_syncml_with_the_default_rule() -> None:
    si = b"<si><indication href='http://a.b/'>\n   You have\n   mail\n</indication></si>"
    kind, body = compile_content("text/vnd.wap.si; charset=utf-8", si)
    assert kind == "application/vnd.wap.sic"
    assert body == encode(si)
    assert decode(body).root.elements()[0].children == ["You have mail"]
    syncml = b'<SyncML xmlns="SYNCML:SYNCML1.2"><SyncBody><Data> a\n b </Data></SyncBody></SyncML>'
    _, body = compile_content("application/vnd.syncml+xml", syncml)
    assert decode(body).root.elements()[0].elements()[0].children == [" a\n b "]


def test_entities_of_control_characters_come_back_or_are_refused() -> None:
    """ENTITY 13 is a CR a parser must read back; ENTITY 0 is a NUL no XML can hold."""
    cr = bytes.fromhex("03016a0045020d01")
    assert xml_text(cr) == ["\r"]
    with pytest.raises(WbxmlError, match="NUL"):
        to_xml(decode(bytes.fromhex("03016a0045020001")))
