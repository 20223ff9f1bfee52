"""Hostile and random input: every failure is a WbxmlError, work stays bounded."""

import contextlib
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wwanlab.wap.wbxml import (
    Document,
    Element,
    Entity,
    Extension,
    Opaque,
    WbxmlError,
    decode,
    encode,
    parse_xml,
    table_by_name,
    to_xml,
)
from wwanlab.wap.wbxml.tokens import encode_mb_u_int32
from wwanlab.wap.wbxml.tree import canonical_events, parts_text
from wwanlab.wap.wbxml.xmlio import INDENT_LIMIT

HEADER = bytes.fromhex("03016a")  # WBXML 1.3, unknown public id, UTF-8


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (HEADER + b"\x00\x45\xc3\x87\x68ab\x01", "runs past the end"),  # OPAQUE len 1000
        (HEADER + b"\x8f\xff\xff\xff\x7f", "runs past the end"),  # 4 GB string table
        (HEADER + b"\x90\x80\x80\x80\x00", "larger than 32 bits"),  # 2**32
        (HEADER + b"\x81\x80\x80\x80\x80\x00", "longer than 5"),
        (HEADER + b"\x02a\x00\x45\x83\x05\x01", "out of range"),  # STR_T past the table
        (HEADER + b"\x02a\x00\x04\x09", "out of range"),  # LITERAL past the table
        (HEADER + b"\x01a\x04\x00", "not terminated"),  # table string without NUL
        (HEADER + b"\x00\x45\x03ab", "unterminated"),  # STR_I without NUL
        (HEADER + b"\x00\x45\x02\x84\xc4\x80\x00\x01", "not a Unicode"),  # ENTITY 0x110000
        (HEADER + b"\x00\x45\x03\xff\x00\x01", "not valid utf-8"),
        (HEADER + b"\x00\x01", "cannot start an element"),
        (HEADER + b"\x00\x05\x05", "trailing data"),
        (HEADER + b"\x00\x85\x85\x01", "cannot start an attribute"),
        (b"\x04\x01\x6a\x00\x05", "version"),
        (HEADER[:2] + b"\x07\x00\x05", "charset"),
    ],
)
def test_hostile_inputs_raise_wbxml_error(data, message):
    with pytest.raises(WbxmlError, match=message):
        decode(data)


def test_hundred_thousand_nested_tags_hit_the_depth_limit_not_the_stack():
    depth = 100_000
    data = HEADER + b"\x00" + b"\x45" * depth + b"\x01" * depth
    with pytest.raises(WbxmlError, match="nested deeper than 65536"):
        decode(data)
    doc = decode(data, max_depth=depth)  # iterative all the way through
    xml = to_xml(doc)
    assert xml.count(b"<unknown_00_05") == depth
    assert len(canonical_events(doc.root)) == 2 * depth
    # Re-encoded with no table: LITERAL_C (0x44) to string-table offset 0, the innermost
    # element (empty) as LITERAL (0x04), then the ENDs.
    name = b"unknown_00_05\x00"
    assert encode(doc, public_id=1, max_depth=depth) == (
        HEADER + bytes([len(name)]) + name + b"\x44\x00" * (depth - 1) + b"\x04\x00"
        + b"\x01" * (depth - 1)
    )  # fmt: skip
    with pytest.raises(WbxmlError, match="nested deeper"):
        parse_xml(b"<a>" * depth + b"</a>" * depth)


def test_random_bytes_and_mutated_corpus_only_raise_wbxml_error():
    rng = random.Random(20261123)
    corpus = [encode(p.read_bytes()) for p in (Path(__file__).parent / "corpus").iterdir()]
    for _ in range(3000):
        if rng.random() < 0.5:
            data = bytes(rng.randrange(256) for _ in range(rng.randrange(40)))
        else:
            mutated = bytearray(rng.choice(corpus))
            for _ in range(rng.randrange(1, 6)):
                mutated[rng.randrange(len(mutated))] = rng.randrange(256)
            data = bytes(mutated)
        with contextlib.suppress(WbxmlError):
            to_xml(decode(data))


# ---------------------------------------------------------------- random round trips

_text = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x00"), min_size=1)
_part = st.one_of(
    _text,
    st.builds(Entity, st.integers(1, 0x10FFFF).filter(lambda c: not 0xD800 <= c <= 0xDFFF)),
    st.builds(Opaque, st.binary(max_size=20)),
    st.builds(Extension, st.integers(0, 2), st.sampled_from(["i", "t"]), _text),
    st.builds(Extension, st.integers(0, 2), st.just("byte")),
)
_names = st.sampled_from(["card", "p", "go", "a", "x", "soap:Body", "wml", "table", "zz-top"])
_attr_names = st.sampled_from(["id", "href", "title", "align", "type", "q", "xml:lang"])
_values = st.lists(
    st.one_of(_text, st.sampled_from(["http://www.", "center", ".com/", "accept"]), _part),
    max_size=3,
)


def _element(children: st.SearchStrategy[list[object]]) -> st.SearchStrategy[Element]:
    attrs = st.dictionaries(_attr_names, _values, max_size=3).map(lambda d: list(d.items()))
    return st.builds(Element, _names, attrs, children)


_trees = st.recursive(
    _element(st.lists(_part, max_size=3)),
    lambda inner: _element(st.lists(st.one_of(inner, _part), max_size=4)),
    max_leaves=20,
)


def _normal(element: Element) -> Element:
    """What decoding gives back: adjacent strings joined, empty strings gone."""
    from wwanlab.wap.wbxml.decoder import _merge

    attrs = [(n, _merge(list(v))) for n, v in element.attributes]
    kids = [_normal(c) if isinstance(c, Element) else c for c in element.children]
    return Element(element.tag, attrs, _merge(kids))


@settings(max_examples=150, deadline=None)
@given(
    tree=_trees,
    table=st.sampled_from([None, "wml13", "prov10"]),
    version=st.sampled_from(["1.1", "1.2", "1.3"]),
    use_table=st.booleans(),
)
def test_random_trees_round_trip(tree, table, version, use_table):
    token_table = table_by_name(table) if table else None
    data = encode(
        Document(tree), version=version, public_id=1, table=token_table, string_table=use_table
    )
    assert decode(data, table=token_table).root == _normal(tree)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=64))
def test_arbitrary_bytes_decode_or_raise_wbxml_error(data):
    with contextlib.suppress(WbxmlError):
        decode(HEADER + data)


# ---------------------------------------------------------------- bounded work


def test_ten_megabytes_of_empty_elements_are_refused_at_the_ceiling() -> None:
    """One octet per element: 10 MB once took 84 s and 4.4 GB; now the ceiling stops it."""
    data = HEADER + b"\x00\x45" + b"\x05" * 10_000_000 + b"\x01"
    with pytest.raises(WbxmlError, match="more than 1000 elements"):
        decode(data, max_elements=1000)
    with pytest.raises(WbxmlError, match="more than 250000 elements"):
        decode(data)


def test_string_table_references_cannot_amplify_without_bound() -> None:
    """A 2-octet STR_T repeating a 1,000-character entry: at most 64 characters per
    input octet (at least 1 MiB), and never more than max_output."""
    table = b"a" * 1000 + b"\x00"
    data = (
        HEADER + encode_mb_u_int32(len(table)) + table + b"\x45" + b"\x83\x00" * 50_000 + b"\x01"
    )
    assert len(data) == 101_008
    with pytest.raises(WbxmlError, match="more than 6464512 characters"):
        decode(data)  # 64 per input octet
    small = HEADER + encode_mb_u_int32(len(table)) + table + b"\x45" + b"\x83\x00" * 5 + b"\x01"
    assert len(parts_text(decode(small).root.children)) == 5000
    with pytest.raises(WbxmlError, match="more than 4000 characters"):
        decode(small, max_output=4000)


def test_text_in_a_million_pieces_is_joined_once() -> None:
    """Joining pieces one by one copied the text per piece: quadratic, about 90 GB of
    copying for these 300,000 pieces."""
    table = b"ab\x00"
    data = HEADER + bytes([len(table)]) + table + b"\x45" + b"\x83\x00" * 300_000 + b"\x01"
    assert decode(data).root.children == ["ab" * 300_000]


# ---------------------------------------------------------------- XML entities

BILLION_LAUGHS = (
    b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
    + b"".join(
        f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10 if i > 1 else "&lol;" * 10}">'.encode()
        for i in range(1, 10)
    )
    + b"]><lolz>&lol9;</lolz>"
)


@pytest.mark.parametrize(
    "xml",
    [
        BILLION_LAUGHS,
        b'<!DOCTYPE r [<!ENTITY e SYSTEM "file:///etc/passwd">]><r>&e;</r>',
        b'<!DOCTYPE r [<!ENTITY % p SYSTEM "http://example.invalid/x">]><r/>',
        b'<!DOCTYPE r [<!ENTITY e "harmless">]><r>&e;</r>',
    ],
    ids=["billion-laughs", "external", "parameter", "internal"],
)
def test_entity_declarations_are_refused(xml: bytes) -> None:
    """Refused by the codec itself, whatever the expat version (no expansion, no file
    read, nothing dropped silently)."""
    with pytest.raises(WbxmlError, match=r"declaration .* refused"):
        parse_xml(xml)
    with pytest.raises(WbxmlError, match="refused"):
        encode(xml)


def test_undeclared_entity_is_an_error_not_dropped() -> None:
    with pytest.raises(WbxmlError, match="undefined entity &nosuch;"):
        parse_xml(b'<!DOCTYPE r SYSTEM "r.dtd"><r>a&nosuch;b</r>')
    assert parse_xml(b"<r>a&nbsp;b</r>").root.children == ["a\u00a0b"]


def test_indentation_stops_growing_so_deep_documents_stay_linear() -> None:
    """40 KB of nested tags once became 800 MB of indented XML (quadratic)."""
    depth = 20_000
    data = HEADER + b"\x00" + b"\x45" * depth + b"\x01" * depth
    xml = to_xml(decode(data), indent=True)
    assert len(xml) < 200 * depth
    lines = xml.decode().splitlines()
    assert lines[3] == "    <unknown_00_05>"
    assert max(len(line) - len(line.lstrip(" ")) for line in lines) == 2 * INDENT_LIMIT
    assert canonical_events(parse_xml(xml).root) == canonical_events(decode(data).root)
