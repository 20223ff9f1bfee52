"""XML text <-> document tree, without recursion.

Parsing uses expat's event interface and an explicit stack, so nesting depth costs
memory, not Python stack. Ignorable whitespace (text nodes that are only whitespace) is
dropped by default, as WAP gateways and libwbxml's ``xml2wbxml`` do.
"""

from __future__ import annotations

import base64
import html.entities
import re
from typing import Literal
from xml.parsers import expat

from wwanlab.wap.wbxml.errors import WbxmlError
from wwanlab.wap.wbxml.tables import ALL_TABLES
from wwanlab.wap.wbxml.tree import (
    Document,
    Element,
    Entity,
    Extension,
    Opaque,
    Part,
    ProcessingInstruction,
    extension_text,
)
from wwanlab.wap.wbxml.whitespace import XML_SPACE, collapse

DEFAULT_MAX_DEPTH = 65536
"""Deepest nesting the codec accepts before raising ``WbxmlError``."""
INDENT_LIMIT = 32
"""Deepest level ``to_xml(indent=True)`` indents further: indentation growing with depth
made output quadratic (40 KB of nested tags became 800 MB of XML)."""


Whitespace = Literal["preserve", "ignorable", "trim", "collapse"]
"""What parsing keeps: all text; all but whitespace-only text nodes (the default); text
nodes stripped at both ends, which is what ``xml2wbxml`` does without ``-k``; or text
with runs of whitespace collapsed as well (``whitespace.collapse``)."""


def parse_xml(
    data: bytes, *, whitespace: Whitespace = "ignorable", max_depth: int = DEFAULT_MAX_DEPTH
) -> Document:
    """Parse well-formed XML into a ``Document`` (DOCTYPE public/system ids kept).

    Undeclared named entities (``&nbsp;`` in WML: the DTD is external and never read)
    resolve to their HTML/ISO character if they have one. Entity declarations are
    refused, whatever the expat version: internal ones are how "billion laughs"
    expansion starts, external ones would read files (as defusedxml forbids both).
    """
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.UseForeignDTD(True)  # undeclared &nbsp; is skipped, not fatal, without DOCTYPE
    builder = _TreeBuilder(whitespace, max_depth)
    parser.StartElementHandler = builder.start
    parser.EndElementHandler = builder.end
    parser.CharacterDataHandler = builder.chars
    parser.ProcessingInstructionHandler = builder.pi
    parser.SkippedEntityHandler = builder.skipped
    parser.StartDoctypeDeclHandler = builder.start_doctype
    parser.EntityDeclHandler = _refuse_entity_decl
    parser.ordered_attributes = True
    parser.buffer_text = True  # one call per run of text, not one per line or entity
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        raise WbxmlError(f"malformed XML: {exc}") from None
    if not builder.roots:
        raise WbxmlError("malformed XML: no root element")
    if whitespace == "collapse":
        collapse(builder.roots[0])
    return Document(
        root=builder.roots[0],
        public_id=builder.public_id,
        system_id=builder.system_id,
        before=builder.before,
        after=builder.after,
    )


class _TreeBuilder:
    """expat's handlers for ``parse_xml``: they build the tree on an explicit stack.

    A class rather than closures: compiled, closures share an environment that refers
    back to them, a cycle that kept every parsed tree alive until the garbage
    collector ran."""

    def __init__(self, whitespace: Whitespace, max_depth: int) -> None:
        self.whitespace = whitespace
        self.max_depth = max_depth
        self.stack: list[Element] = []
        self.roots: list[Element] = []
        self.before: list[ProcessingInstruction] = []
        self.after: list[ProcessingInstruction] = []
        self.public_id: str | None = None
        self.system_id: str | None = None
        self.text: list[str] = []

    def flush(self) -> None:
        if not self.text:
            return
        chunk = "".join(self.text)
        self.text.clear()
        if self.whitespace == "trim":
            chunk = chunk.strip(XML_SPACE)
        kept = self.whitespace in ("preserve", "collapse") or chunk.strip(XML_SPACE)
        if self.stack and chunk and kept:
            self.stack[-1].children.append(chunk)

    def start(self, name: str, attrs: list[str]) -> None:
        self.flush()
        stack = self.stack
        if self.roots and not stack:
            raise WbxmlError("more than one root element")
        if len(stack) >= self.max_depth:
            raise WbxmlError(f"XML nested deeper than {self.max_depth} elements")
        pairs: list[tuple[str, list[Part]]] = [
            (attrs[i], [attrs[i + 1]]) for i in range(0, len(attrs), 2)
        ]
        element = Element(name, pairs)
        if stack:
            stack[-1].children.append(element)
        else:
            self.roots.append(element)
        stack.append(element)

    def end(self, _name: str) -> None:
        self.flush()
        self.stack.pop()

    def chars(self, data: str) -> None:
        if self.stack:
            self.text.append(data)

    def pi(self, target: str, data: str) -> None:
        self.flush()
        node = ProcessingInstruction(target, data)
        if self.stack:
            self.stack[-1].children.append(node)
        else:
            (self.after if self.roots else self.before).append(node)

    def skipped(self, name: str, is_parameter: int) -> None:
        code = html.entities.name2codepoint.get(name)
        if is_parameter or code is None:
            raise WbxmlError(f"undefined entity &{name};")
        self.chars(chr(code))

    def start_doctype(self, _name: str, system: str | None, public: str | None, _int: int) -> None:
        self.public_id, self.system_id = public, system


def _refuse_entity_decl(name: str, is_parameter: int, *_rest: object) -> None:
    kind = "parameter entity" if is_parameter else "entity"
    raise WbxmlError(f"{kind} declaration {name!r} refused (entity expansion is not allowed)")


NOT_XML_10 = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
"""Characters WBXML strings may carry but XML 1.0 text cannot (XML 1.0 [2])."""

_ATTR_SPACE = {"\t": "&#9;", "\n": "&#10;", "\r": "&#13;"}
"""Whitespace a parser would turn into spaces in an attribute (XML 1.0 section 3.3.3)."""
_PLAIN_TEXT = re.compile("[^&<>\r\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]*")
_PLAIN_VALUE = re.compile('[^&<>\r"\t\n\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]*')
"""Text (attribute values) that ``_escape`` would return unchanged."""

_NAME_START = (
    ":A-Z_a-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02ff\u0370-\u037d\u037f-\u1fff"
    "\u200c\u200d\u2070-\u218f\u2c00-\u2fef\u3001-\ud7ff\uf900-\ufdcf\ufdf0-\ufffd"
    "\U00010000-\U000effff"
)
_NAME = re.compile(f"[{_NAME_START}][{_NAME_START}\\-.0-9\u00b7\u0300-\u036f\u203f-\u2040]*")
"""XML 1.0 (fifth edition) [5] Name."""
_PUBID = re.compile(r"[ \r\na-zA-Z0-9\-'()+,./:=?;!*#@$_%]*")
"""XML 1.0 [13] PubidChar*."""


def _escape(text: str, quote: bool = False) -> str:
    """Escape markup so a parser reads back exactly ``text``.

    CR becomes ``&#13;`` (a parser would turn a literal CR into LF), and in attribute
    values TAB and LF too (a parser would turn them into spaces). Characters XML 1.0
    forbids become references, which only XML 1.1 parsers accept; NUL, which no XML
    can hold, raises ``WbxmlError``.
    """
    if (_PLAIN_VALUE if quote else _PLAIN_TEXT).fullmatch(text):
        return text
    if "\x00" in text:
        raise WbxmlError("NUL cannot be written in XML")
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = text.replace("\r", "&#13;")
    if quote:
        text = text.replace('"', "&quot;").replace("\t", "&#9;").replace("\n", "&#10;")
    return NOT_XML_10.sub(lambda m: f"&#{ord(m.group())};", text)


def opaque_text(data: bytes) -> str | None:
    """The text opaque data is written as, or None when it must be base64.

    Opaque data is text when it is valid UTF-8 holding no character XML 1.0 text cannot
    carry: no NUL or other C0 control but TAB, LF and CR, no U+FFFE or U+FFFF. So a vCard
    in a SyncML ``Data`` (CR LF line ends, tabs) is text; anything else is base64.
    """
    try:
        decoded = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return None if NOT_XML_10.search(decoded) else decoded


def _part_xml(part: Part, quote: bool) -> str:
    """XML spelling of one part.

    Entities become character references; extensions WML's ``$(name...)`` syntax;
    opaque data CDATA (escaped text in an attribute) when ``opaque_text`` finds it is
    text, otherwise base64 (XML cannot carry arbitrary bytes; libwbxml also writes
    base64 for opaque data). CDATA cannot hold ``]]>`` nor keep a CR, so those two
    are written outside it.
    """
    if isinstance(part, str):
        return _escape(part, quote)
    if isinstance(part, Entity):
        return _escape(part.char, quote) if part.code < 0x20 else f"&#{part.code};"
    if isinstance(part, Extension):
        return _escape(extension_text(part), quote)
    assert isinstance(part, Opaque)
    text = opaque_text(part.data)
    if text is None:
        return base64.b64encode(part.data).decode("ascii")
    if quote:
        return _escape(text, quote)
    cdata = text.replace("]]>", "]]]]><![CDATA[>").replace("\r", "]]>&#13;<![CDATA[")
    return "<![CDATA[" + cdata + "]]>"


_TABLE_NAMES = frozenset(
    name
    for table in ALL_TABLES
    for name in (*table.tags.values(), *(n for n, _ in table.attr_starts.values()))
    if _NAME.fullmatch(name)
)
"""The token tables' element and attribute names that are XML names, checked once."""


def _name(name: str, what: str) -> str:
    if name not in _TABLE_NAMES and _NAME.fullmatch(name) is None:
        raise WbxmlError(f"{what} {name!r} is not an XML name: cannot be written as XML")
    return name


def to_xml(doc: Document, *, indent: bool = False) -> bytes:
    """Serialize a document as UTF-8 XML with its DOCTYPE. Iterative: any depth.

    What XML cannot say raises ``WbxmlError`` instead of producing malformed output: a
    name that is not an XML name (WBXML ``LITERAL`` names are any string), an attribute
    given twice, ``?>`` inside a processing instruction, a public id with characters
    XML forbids there.
    """
    out: list[str] = ['<?xml version="1.0" encoding="UTF-8"?>\n']
    if doc.public_id:
        out.append(_doctype(doc))
    for pi in doc.before:
        out.append(_pi_xml(pi) + "\n")
    # Work items: (node, depth, closing tag or None); depth -1 means "inside mixed
    # content", where indentation would change the text.
    work: list[tuple[Element | ProcessingInstruction | Part, int, str | None]] = [
        (doc.root, 0, None)
    ]
    names: set[str] = set()  # element and attribute names already checked
    while work:
        item, depth, closing = work.pop()
        pad = (
            "\n" + "  " * min(depth, INDENT_LIMIT)
            if indent and depth >= 0 and not out[-1].endswith("\n")
            else ""
        )
        if closing is not None:
            out.append(pad + closing)
        elif isinstance(item, Element):
            if item.tag not in names:
                names.add(_name(item.tag, "element"))
            attrs = _attributes_xml(item, names)
            if not item.children:
                out.append(f"{pad}<{item.tag}{attrs}/>")
                continue
            out.append(f"{pad}<{item.tag}{attrs}>")
            # A tuple, not Element | ProcessingInstruction: that builds a union per call.
            mixed = depth < 0 or any(
                not isinstance(c, (Element, ProcessingInstruction)) for c in item.children
            )
            work.append((item, -1 if mixed else depth, f"</{item.tag}>"))
            for child in reversed(item.children):
                work.append((child, -1 if mixed else depth + 1, None))
        elif isinstance(item, ProcessingInstruction):
            out.append(pad + _pi_xml(item))
        else:
            out.append(_part_xml(item, False))
    out.append("\n")
    for pi in doc.after:
        out.append(_pi_xml(pi) + "\n")
    return "".join(out).encode("utf-8")


def _doctype(doc: Document) -> str:
    public, system = doc.public_id or "", doc.system_id or ""
    if _PUBID.fullmatch(public) is None:
        raise WbxmlError(f"public id {public!r} has characters XML forbids in one")
    if '"' in system:
        raise WbxmlError(f"system id {system!r} holds a quote")
    # XML 1.0 [75]: PUBLIC needs a system literal, empty if none is known.
    return f'<!DOCTYPE {_name(doc.root.tag, "element")} PUBLIC "{public}" "{system}">\n'


def _attributes_xml(element: Element, names: set[str]) -> str:
    """The attributes as XML; ``names`` holds the names known to be XML names."""
    seen: set[str] = set()
    out = []
    for name, parts in element.attributes:
        if name in seen:
            raise WbxmlError(f"attribute {name!r} given twice on <{element.tag}>")
        seen.add(name)
        value = "".join(_part_xml(p, True) for p in parts)
        if name not in names:
            names.add(_name(name, "attribute"))
        out.append(f' {name}="{value}"')
    return "".join(out)


def _pi_xml(pi: ProcessingInstruction) -> str:
    target = _name(pi.target, "processing instruction target")
    if target.lower() == "xml" or "?>" in pi.data:
        raise WbxmlError(f"processing instruction <?{target} {pi.data[:40]}?> is not XML")
    return f"<?{target} {_escape_pi(pi.data)}?>" if pi.data else f"<?{target}?>"


def _escape_pi(data: str) -> str:
    """PI data has no escapes: characters XML 1.0 forbids cannot be written."""
    if NOT_XML_10.search(data):
        raise WbxmlError("processing instruction data holds a character XML forbids")
    return data
