"""Interoperability with libwbxml's ``xml2wbxml`` and ``wbxml2xml`` over the corpus.

Trees are compared with ``canonical_events``: whitespace inside text is normalised
(runs become one space, ends stripped) because ``xml2wbxml`` strips every text node at
both ends unless given ``-k`` and ``wbxml2xml`` does the same when writing; ``xmlns``
declarations are ignored because SyncML's are implied by code pages and libwbxml
re-adds them by its own rule. Sizes are compared like for like: our ``whitespace="trim"``
against ``xml2wbxml`` (which trims), our ``"preserve"`` against ``xml2wbxml -k``.
"""

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from wwanlab.wap.wbxml import (
    Element,
    decode,
    encode,
    parse_xml,
    table_by_name,
    table_for_public_id,
)
from wwanlab.wap.wbxml.tree import canonical_events
from wwanlab.wap.wbxml.whitespace import collapse, drop_blank

pytestmark = [
    pytest.mark.peer,
    pytest.mark.skipif(shutil.which("xml2wbxml") is None, reason="libwbxml2-utils missing"),
]

CORPUS = Path(__file__).parent / "corpus"
# libwbxml has no SOAP table and refuses unknown XML: see test_libwbxml_refuses_soap.
KNOWN = sorted(p for p in CORPUS.iterdir() if not p.name.startswith("soap"))
VERSIONS = ["1.1", "1.2", "1.3"]
KANNEL_TEST = Path("/usr/lib/kannel/test")
# Kannel 1.4.5's own test documents (kannel-extras) that WBXML carries: two decks, SI,
# SL and two OTA settings documents (its pap/ppg files are push protocol, not WBXML).
OTA_DOCS = [p for p in (KANNEL_TEST / n for n in ("bookmark.txt", "settings4.txt")) if p.exists()]
KANNEL_DOCS = [
    p for p in (KANNEL_TEST / n for n in ("hello.wml", "testcase.wml", "si.txt", "sl.txt"))
    if p.exists()
] + OTA_DOCS  # fmt: skip


def xml2wbxml(source: Path, version: str, tmp: Path, keep: bool = False) -> bytes:
    out = tmp / "lib.wbxml"
    args = ["xml2wbxml", "-v", version, *(["-k"] if keep else []), "-o", str(out), str(source)]
    done = subprocess.run(args, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stdout + done.stderr
    return out.read_bytes()


def wbxml2xml(data: bytes, tmp: Path) -> bytes:
    src, out = tmp / "ours.wbxml", tmp / "lib.xml"
    src.write_bytes(data)
    done = subprocess.run(
        ["wbxml2xml", "-m", "0", "-o", str(out), str(src)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return out.read_bytes()


def canon(xml: bytes) -> list[tuple[str, ...]]:
    return canonical_events(parse_xml(xml).root, ignore_xmlns=True)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("path", KNOWN, ids=lambda p: p.name)
def test_wbxml2xml_reads_our_encoding(path: Path, version: str, tmp_path: Path) -> None:
    ours = encode(path.read_bytes(), version=version)
    assert canon(wbxml2xml(ours, tmp_path)) == canon(path.read_bytes())


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("path", KNOWN, ids=lambda p: p.name)
def test_we_read_xml2wbxml_encoding(path: Path, version: str, tmp_path: Path) -> None:
    for keep in (False, True):
        theirs = decode(xml2wbxml(path, version, tmp_path, keep))
        assert canonical_events(theirs.root, ignore_xmlns=True) == canon(path.read_bytes())


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("path", KNOWN, ids=lambda p: p.name)
def test_never_larger_than_xml2wbxml(path: Path, version: str, tmp_path: Path) -> None:
    xml = path.read_bytes()
    assert len(encode(xml, version=version, whitespace="trim")) <= len(
        xml2wbxml(path, version, tmp_path)
    )
    assert len(encode(xml, version=version, whitespace="preserve")) <= len(
        xml2wbxml(path, version, tmp_path, keep=True)
    )


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("path", KANNEL_DOCS + KNOWN, ids=lambda p: p.name)
def test_default_encoding_never_larger_than_xml2wbxml(
    path: Path, version: str, tmp_path: Path
) -> None:
    """The default whitespace rule (by document type) against libwbxml's default, and
    decoding ours gives exactly the source with that rule applied.

    libwbxml strips text inside WML ``pre`` too, where whitespace is significant (WML
    1.3 section 11.8), so a deck with ``pre`` is compared with ``xml2wbxml -k``, which
    keeps it as we do.
    """
    xml = path.read_bytes()
    ours = encode(xml, version=version)
    theirs = xml2wbxml(path, version, tmp_path, keep=b"<pre" in xml)
    assert len(ours) <= len(theirs)
    back = decode(ours)
    table = table_for_public_id(back.public_id) if back.public_id else None
    if ours[1] == 0x01:  # public id "unknown": OTA settings, told out of band
        table = table_by_name("ota7")
        back = decode(ours, table=table)
    expected = parse_xml(xml, whitespace="preserve").root
    if table is not None and table.collapse_space:
        collapse(expected, table)
    else:
        drop_blank(expected)
    assert back.root == expected


@pytest.mark.parametrize("path", OTA_DOCS, ids=lambda p: p.name)
def test_ota_settings_same_bytes_as_xml2wbxml(path: Path, tmp_path: Path) -> None:
    """Nokia/Ericsson OTA settings: byte for byte libwbxml's encoding, and its decoder
    (told the type, as the format has no public id) reads ours."""
    ours = encode(path.read_bytes())
    assert ours == xml2wbxml(path, "1.3", tmp_path)
    src, out = tmp_path / "ota.wbxml", tmp_path / "ota.xml"
    src.write_bytes(ours)
    done = subprocess.run(
        ["wbxml2xml", "-l", "OTA", "-m", "0", "-o", str(out), str(src)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert canon(out.read_bytes()) == canon(path.read_bytes())


def _data_texts(root: Element) -> list[str]:
    """The text of every ``Data`` element, in document order."""
    out, stack = [], [root]
    while stack:
        element = stack.pop()
        if element.tag == "Data":
            out.append("".join(str(c) for c in element.children))
        stack.extend(reversed(element.elements()))
    return out


def test_syncml_data_split_nowhere_so_wbxml2xml_writes_well_formed_xml(tmp_path: Path) -> None:
    """Two vCards sharing lines: the string table would pay for splitting each Data over
    several STR_T; libwbxml 0.11.8 then wrote nested CDATA sections (malformed XML)."""
    card = "BEGIN:VCARD\nVERSION:2.1\nN:Doe;{}\nTEL;CELL:+4917012345{}\nEND:VCARD"
    items = "".join(
        f"<Item><Source><LocURI>{n}</LocURI></Source><Data>{card.format(name, n)}</Data></Item>"
        for n, name in ((42, "Jane"), (43, "John"))
    )
    xml = (
        '<?xml version="1.0"?><SyncML xmlns="SYNCML:SYNCML1.2"><SyncHdr><VerDTD>1.2</VerDTD>'
        "<SessionID>7</SessionID><MsgID>2</MsgID></SyncHdr><SyncBody><Sync><CmdID>2</CmdID>"
        f"<Add><CmdID>3</CmdID>{items}</Add></Sync><Final/></SyncBody></SyncML>"
    ).encode()
    for version in VERSIONS:
        written = wbxml2xml(encode(xml, version=version), tmp_path)
        back = parse_xml(written, whitespace="preserve").root  # malformed XML raises here
        assert canon(written) == canon(xml)
        assert _data_texts(back) == [card.format("Jane", 42), card.format("John", 43)]


def test_literal_tags_and_attributes_inside_wml(tmp_path: Path) -> None:
    """Elements and attributes WML has no token for travel as LITERAL via the table."""
    xml = (
        b'<!DOCTYPE wml PUBLIC "-//WAPFORUM//DTD WML 1.3//EN" "x">'
        b'<wml><card id="c"><ext kind="x" id="e">text</ext><p class="k">p</p></card></wml>'
    )
    ours = encode(xml)
    assert b"ext\x00" in ours and b"kind\x00" in ours
    assert canon(wbxml2xml(ours, tmp_path)) == canon(xml)


def test_libwbxml_refuses_soap(tmp_path: Path) -> None:
    """Quirk: libwbxml knows no SOAP table and refuses XML of unknown language."""
    done = subprocess.run(
        ["xml2wbxml", "-o", str(tmp_path / "x"), str(CORPUS / "soap_babelfish.xml")],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode != 0 and "unknown" in (done.stdout + done.stderr).lower()


_TAGS = ["card", "p", "b", "a", "go", "do", "select", "option", "table", "tr", "td", "br", "x"]
_ATTRS = ["id", "title", "href", "align", "type", "value", "name", "class", "zz"]
_WORDS = ["Hello", "World", "http://www.example.com/", "x", "abc", "center", "accept",
          "news", "Weather", "$(v)", " ", "foo bar", "\u00fc"]  # fmt: skip


def _random_wml(rng: random.Random) -> str:
    """A random WML-ish deck: table tags and attributes, literals, repeated words."""

    def text() -> str:
        return " ".join(rng.choice(_WORDS) for _ in range(rng.randrange(1, 5)))

    def element(depth: int) -> str:
        tag = rng.choice(_TAGS)
        attrs = "".join(f' {n}="{text()}"' for n in rng.sample(_ATTRS, rng.randrange(3)))
        kids = "".join(
            element(depth + 1) if depth < 4 and rng.random() < 0.5 else text()
            for _ in range(rng.randrange(4))
        )
        return f"<{tag}{attrs}>{kids}</{tag}>"

    wml = rng.choice(["1.1", "1.2", "1.3"])
    return (
        f'<?xml version="1.0"?><!DOCTYPE wml PUBLIC "-//WAPFORUM//DTD WML {wml}//EN" "x">'
        f"<wml>{element(0)}{element(0)}</wml>"
    )


def test_never_larger_than_xml2wbxml_on_random_decks(tmp_path: Path) -> None:
    rng = random.Random(20261123)
    source = tmp_path / "deck.xml"
    for _ in range(40):
        xml = _random_wml(rng)
        source.write_text(xml)
        version = rng.choice(VERSIONS)
        ours = encode(xml.encode(), version=version, whitespace="trim")
        assert len(ours) <= len(xml2wbxml(source, version, tmp_path)), xml
