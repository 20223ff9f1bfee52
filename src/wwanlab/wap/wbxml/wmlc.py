"""WML -> WMLC, as a WAP gateway compiles a deck before sending it to the phone.

What the gateway does beyond plain WBXML encoding (WML 1.3, WAP-191 sections 10.3 and
14; behaviour matched to Kannel 1.4's compiler where the spec leaves room):

* whitespace: in text, runs of whitespace collapse to one space and each text node is
  stripped at both ends, except an end that touches an emphasis element (``b``, ``big``,
  ``em``, ``i``, ``small``, ``strong``, ``u``), whose neighbouring space is significant.
  Inside ``pre`` and under ``xml:space="preserve"`` text is kept as written (WML 11.8).
* variables: ``$name``, ``$(name)`` and ``$(name:conv)`` become EXT_I_0 (escape),
  EXT_I_1 (unesc) or EXT_I_2 (noesc or no conversion) with the name inline
  (WML 14.1.1); ``$$`` is a literal dollar.
* entities (``&nbsp;``, ``&#160;``) become characters; attribute values use the WML
  attribute-start and value tokens (``http://www.``, ``.com/``...).
"""

from __future__ import annotations

import re

from wwanlab.wap.wbxml.encoder import encode
from wwanlab.wap.wbxml.errors import WbxmlError
from wwanlab.wap.wbxml.tables import TokenTable, table_by_name, table_for_public_id
from wwanlab.wap.wbxml.tree import Element, Extension, Part, ProcessingInstruction
from wwanlab.wap.wbxml.whitespace import collapse
from wwanlab.wap.wbxml.xmlio import parse_xml

_VARIABLE = re.compile(
    r"\$\$|\$\((?P<paren>[A-Za-z_][A-Za-z0-9_]*)(?::(?P<conv>[A-Za-z]+))?\)"
    r"|\$(?P<bare>[A-Za-z_][A-Za-z0-9_]*)|\$"
)
_CONVERSIONS = {"escape": 0, "e": 0, "unesc": 1, "u": 1, "noesc": 2, "n": 2}
"""WML 10.3.1 conversions -> extension code (WML 14.1.1)."""


def compile_wml(xml: bytes, version: str = "1.3", *, wml_version: str | None = None) -> bytes:
    """Compile a WML deck to WMLC (``application/vnd.wap.wmlc``).

    ``version`` is the WBXML version written; the WML token table comes from the deck's
    DOCTYPE, or from ``wml_version`` ("1.1", "1.2", "1.3"; WML 1.3 if neither says).
    Raises ``WbxmlError`` for malformed XML or a bad variable reference.
    """
    doc = parse_xml(xml, whitespace="preserve")
    if doc.root.tag != "wml":
        raise WbxmlError(f"not a WML deck: root element is <{doc.root.tag}>")
    table = _wml_table(doc.public_id, wml_version)
    doc.public_id, doc.system_id = table.fpi, table.system_id
    collapse(doc.root, table)
    _prepare(doc.root)
    return encode(doc, version=version, table=table, charset=106)


def _wml_table(public_id: str | None, wml_version: str | None) -> TokenTable:
    if wml_version is not None:
        return table_by_name("wml" + wml_version.replace(".", ""))
    found = table_for_public_id(public_id) if public_id else None
    if found is not None and found.root == "wml":
        return found
    return table_by_name("wml13")


def _prepare(root: Element) -> None:
    """Variables in text and attribute values over the whole deck, without recursion."""
    stack = [root]
    while stack:
        element = stack.pop()
        element.attributes = [(name, _variables(value)) for name, value in element.attributes]
        out: list[Element | ProcessingInstruction | Part] = []
        for child in element.children:
            if isinstance(child, str):
                out.extend(_split_variables(child))
            else:
                out.append(child)
                if isinstance(child, Element):
                    stack.append(child)
        element.children = out


def _variables(value: list[Part]) -> list[Part]:
    out: list[Part] = []
    for part in value:
        out.extend(_split_variables(part) if isinstance(part, str) else [part])
    return out


def _split_variables(text: str) -> list[Part]:
    """Text -> strings and EXT_I_n extensions for each WML variable reference."""
    if "$" not in text:
        return [text] if text else []
    parts: list[Part] = []
    literal: list[str] = []
    pos = 0
    for match in _VARIABLE.finditer(text):
        literal.append(text[pos : match.start()])
        pos = match.end()
        token = match.group(0)
        if token == "$$":
            literal.append("$")
            continue
        name = match.group("paren") or match.group("bare")
        if name is None:
            raise WbxmlError(f"bad WML variable reference in {text!r}")
        conv = (match.group("conv") or "noesc").lower()
        if conv not in _CONVERSIONS:
            raise WbxmlError(f"unknown variable conversion {conv!r} in {text!r}")
        if any(literal):
            parts.append("".join(literal))
        literal = []
        parts.append(Extension(_CONVERSIONS[conv], "i", name))
    literal.append(text[pos:])
    if any(literal):
        parts.append("".join(literal))
    return parts
