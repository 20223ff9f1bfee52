"""Whitespace in text where a document type does not treat it as significant.

WML 1.3 section 11.8 lets a user agent collapse runs of whitespace outside ``pre``; SI,
SL, CO and provisioning documents carry short texts and URLs whose indentation means
nothing. Kannel 1.4's compilers collapse such runs and strip each text node; libwbxml's
``xml2wbxml`` strips each text node. Sending the indentation would only cost air time.
"""

from __future__ import annotations

import re

from wwanlab.wap.wbxml.tables import TokenTable
from wwanlab.wap.wbxml.tree import Element, Part, ProcessingInstruction

XML_SPACE = " \t\r\n"
"""XML 1.0 [3] S: not U+00A0, which ``&nbsp;`` must keep (``str.strip()`` would eat it)."""
_RUNS = re.compile(f"[{XML_SPACE}]+")

_Child = Element | ProcessingInstruction | Part


def collapse(root: Element, table: TokenTable | None = None) -> None:
    """Collapse text whitespace in place, without recursion.

    In every text node runs of XML whitespace become one space, and the space at each end
    goes unless that end touches an element of ``table.space_kept_beside`` (WML's
    emphasis); a node left empty is dropped. Text inside ``table.space_kept_in`` (WML's
    ``pre``) or under ``xml:space="preserve"`` is kept as written (XML 1.0 section 2.10).
    """
    kept_in = table.space_kept_in if table is not None else frozenset()
    beside = table.space_kept_beside if table is not None else frozenset()
    stack: list[tuple[Element, bool]] = [(root, False)]
    while stack:
        element, preserve = stack.pop()
        space = element.get("xml:space")
        preserve = element.tag in kept_in or (space == "preserve" if space else preserve)
        children = element.children
        out: list[_Child] = []
        for i, child in enumerate(children):
            if isinstance(child, str) and not preserve:
                text = _RUNS.sub(" ", child)
                if not (i > 0 and _named(children[i - 1], beside)):
                    text = text.lstrip(" ")
                if not (i + 1 < len(children) and _named(children[i + 1], beside)):
                    text = text.rstrip(" ")
                if text:
                    out.append(text)
                continue
            out.append(child)
            if isinstance(child, Element):
                stack.append((child, preserve))
        element.children = out


def _named(node: _Child, names: frozenset[str]) -> bool:
    return isinstance(node, Element) and node.tag in names


def drop_blank(root: Element) -> None:
    """Drop text nodes that are only XML whitespace (``whitespace="ignorable"``)."""
    stack = [root]
    while stack:
        element = stack.pop()
        element.children = [
            c for c in element.children if not (isinstance(c, str) and not c.strip(XML_SPACE))
        ]
        stack.extend(c for c in element.children if isinstance(c, Element))
