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

DEFAULT_MAX_DEPTH = 65536
"""Deepest nesting the codec accepts before raising ``WbxmlError``."""


Whitespace = Literal["preserve", "ignorable", "trim"]
"""What parsing keeps: all text; all but whitespace-only text nodes (the default); or
text nodes stripped at both ends, which is what ``xml2wbxml`` does without ``-k``."""


def parse_xml(
    data: bytes, *, whitespace: Whitespace = "ignorable", max_depth: int = DEFAULT_MAX_DEPTH
) -> Document:
    """Parse well-formed XML into a ``Document`` (DOCTYPE public/system ids kept).

    Undeclared named entities (``&nbsp;`` in WML: the DTD is external and never read)
    resolve to their HTML/ISO character if they have one.
    """
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.UseForeignDTD(True)  # undeclared &nbsp; is skipped, not fatal, without DOCTYPE
    stack: list[Element] = []
    roots: list[Element] = []
    before: list[ProcessingInstruction] = []
    after: list[ProcessingInstruction] = []
    doctype: dict[str, str | None] = {"public": None, "system": None}
    text: list[str] = []

    def flush() -> None:
        if not text:
            return
        chunk = "".join(text)
        text.clear()
        if whitespace == "trim":
            chunk = chunk.strip()
        if stack and chunk and (whitespace == "preserve" or chunk.strip()):
            stack[-1].children.append(chunk)

    def start(name: str, attrs: list[str]) -> None:
        flush()
        if roots and not stack:
            raise WbxmlError("more than one root element")
        if len(stack) >= max_depth:
            raise WbxmlError(f"XML nested deeper than {max_depth} elements")
        pairs: list[tuple[str, list[Part]]] = [
            (attrs[i], [attrs[i + 1]]) for i in range(0, len(attrs), 2)
        ]
        element = Element(name, pairs)
        if stack:
            stack[-1].children.append(element)
        else:
            roots.append(element)
        stack.append(element)

    def end(_name: str) -> None:
        flush()
        stack.pop()

    def chars(data: str) -> None:
        if stack:
            text.append(data)

    def pi(target: str, data: str) -> None:
        flush()
        node = ProcessingInstruction(target, data)
        if stack:
            stack[-1].children.append(node)
        else:
            (after if roots else before).append(node)

    def skipped(name: str, is_parameter: int) -> None:
        code = html.entities.name2codepoint.get(name)
        if is_parameter or code is None:
            raise WbxmlError(f"undefined entity &{name};")
        chars(chr(code))

    def start_doctype(_name: str, system: str | None, public: str | None, _int: int) -> None:
        doctype["public"], doctype["system"] = public, system

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = chars
    parser.ProcessingInstructionHandler = pi
    parser.SkippedEntityHandler = skipped
    parser.StartDoctypeDeclHandler = start_doctype
    parser.ordered_attributes = True
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        raise WbxmlError(f"malformed XML: {exc}") from None
    if not roots:
        raise WbxmlError("malformed XML: no root element")
    return Document(
        root=roots[0],
        public_id=doctype["public"],
        system_id=doctype["system"],
        before=before,
        after=after,
    )


_NOT_XML_10 = re.compile("[\x01-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
"""Characters WBXML strings may carry but XML 1.0 text cannot (XML 1.0 [2])."""


def _escape(text: str, quote: bool = False) -> str:
    """Escape markup; characters XML 1.0 forbids become references (XML 1.1 reads them)."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    if quote:
        text = text.replace('"', "&quot;")
    return _NOT_XML_10.sub(lambda m: f"&#{ord(m.group())};", text)


def _part_xml(part: Part, quote: bool) -> str:
    """XML spelling of one part.

    Entities become character references; extensions WML's ``$(name...)`` syntax;
    opaque data CDATA when it is UTF-8 text, otherwise base64 (XML cannot carry
    arbitrary bytes; libwbxml also writes base64 for opaque data).
    """
    if isinstance(part, str):
        return _escape(part, quote)
    if isinstance(part, Entity):
        return f"&#{part.code};"
    if isinstance(part, Extension):
        return _escape(extension_text(part), quote)
    assert isinstance(part, Opaque)
    try:
        decoded = part.data.decode("utf-8")
    except UnicodeDecodeError:
        decoded = None
    if decoded is not None and decoded.isprintable() and not quote:
        return "<![CDATA[" + decoded.replace("]]>", "]]]]><![CDATA[>") + "]]>"
    return base64.b64encode(part.data).decode("ascii")


def to_xml(doc: Document, *, indent: bool = False) -> bytes:
    """Serialize a document as UTF-8 XML with its DOCTYPE. Iterative: any depth."""
    out: list[str] = ['<?xml version="1.0" encoding="UTF-8"?>\n']
    if doc.public_id:
        # XML 1.0 [75]: PUBLIC needs a system literal, empty if none is known.
        out.append(f'<!DOCTYPE {doc.root.tag} PUBLIC "{doc.public_id}" "{doc.system_id or ""}">\n')
    for pi in doc.before:
        out.append(_pi_xml(pi) + "\n")
    # Work items: (node, depth, closing tag or None); depth -1 means "inside mixed
    # content", where indentation would change the text.
    work: list[tuple[Element | ProcessingInstruction | Part, int, str | None]] = [
        (doc.root, 0, None)
    ]
    while work:
        item, depth, closing = work.pop()
        pad = "\n" + "  " * depth if indent and depth >= 0 and not out[-1].endswith("\n") else ""
        if closing is not None:
            out.append(pad + closing)
        elif isinstance(item, Element):
            attrs = "".join(
                f' {name}="{"".join(_part_xml(p, True) for p in parts)}"'
                for name, parts in item.attributes
            )
            if not item.children:
                out.append(f"{pad}<{item.tag}{attrs}/>")
                continue
            out.append(f"{pad}<{item.tag}{attrs}>")
            mixed = depth < 0 or any(
                not isinstance(c, Element | ProcessingInstruction) for c in item.children
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


def _pi_xml(pi: ProcessingInstruction) -> str:
    return f"<?{pi.target} {pi.data}?>" if pi.data else f"<?{pi.target}?>"
