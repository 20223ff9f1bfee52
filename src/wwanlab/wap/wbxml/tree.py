"""The document model the codec reads and writes: a small element tree.

Text is plain ``str``. WBXML can carry things XML text cannot say directly, so they have
their own node types: character entities (``ENTITY``), opaque data (``OPAQUE``) and
extension tokens (``EXT_*``, WML's variables). Attribute values are sequences of the
same parts, because WBXML 5.8.3 builds a value from strings, value tokens, entities and
extensions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

ExtForm = Literal["i", "t", "byte"]


@dataclass(frozen=True)
class Entity:
    """A character entity: ``ENTITY`` carries a UCS-4 code point (WBXML 5.8.4.3)."""

    code: int

    @property
    def char(self) -> str:
        return chr(self.code)


@dataclass(frozen=True)
class Opaque:
    """Opaque bytes (WBXML 5.8.4.6), meaning given by the document type."""

    data: bytes


@dataclass(frozen=True)
class Extension:
    """An extension token (WBXML 5.8.4.2).

    ``code`` is 0, 1 or 2; ``form`` says which family: ``"i"`` (EXT_I_n, inline string),
    ``"t"`` (EXT_T_n, string table reference, here resolved to the string) or ``"byte"``
    (EXT_n, no value).
    """

    code: int
    form: ExtForm
    value: str | None = None


Part = str | Entity | Opaque | Extension
"""One piece of text content or of an attribute value."""


@dataclass(frozen=True)
class ProcessingInstruction:
    target: str
    data: str = ""


@dataclass
class Element:
    """An element: tag name, attributes in document order, children in order."""

    tag: str
    attributes: list[tuple[str, list[Part]]] = field(default_factory=list)
    children: list[Element | ProcessingInstruction | Part] = field(default_factory=list)

    def get(self, name: str, default: str | None = None) -> str | None:
        """An attribute's value as text (entities resolved, extensions rendered)."""
        for attr, parts in self.attributes:
            if attr == name:
                return parts_text(parts)
        return default

    def set(self, name: str, value: str) -> None:
        for i, (attr, _) in enumerate(self.attributes):
            if attr == name:
                self.attributes[i] = (name, [value])
                return
        self.attributes.append((name, [value]))

    def elements(self) -> list[Element]:
        return [c for c in self.children if isinstance(c, Element)]

    def text(self) -> str:
        """The element's own text content (not its descendants')."""
        return parts_text(
            [c for c in self.children if not isinstance(c, Element | ProcessingInstruction)]
        )


@dataclass
class Document:
    """A whole document: header fields of WBXML 5.4-5.6 plus the body (5.8.1).

    ``public_id`` is the formal public identifier (``-//WAPFORUM//DTD WML 1.3//EN``) or
    ``None`` when unknown; ``charset`` is an IANA MIBenum (106 is UTF-8).
    """

    root: Element
    public_id: str | None = None
    system_id: str | None = None
    version: tuple[int, int] = (1, 3)
    charset: int = 106
    before: list[ProcessingInstruction] = field(default_factory=list)
    after: list[ProcessingInstruction] = field(default_factory=list)


def parts_text(parts: list[Part] | list[Element | ProcessingInstruction | Part]) -> str:
    """Text of a part list: entities become characters, extensions ``$(name)`` forms."""
    out: list[str] = []
    for part in parts:
        if isinstance(part, str):
            out.append(part)
        elif isinstance(part, Entity):
            out.append(part.char)
        elif isinstance(part, Extension):
            out.append(extension_text(part))
        elif isinstance(part, Opaque):
            out.append(part.data.decode("utf-8", "replace"))
    return "".join(out)


EXT_ESCAPES = {0: ":escape", 1: ":unesc", 2: ""}
"""WML 14.1.1: EXT_I_0/EXT_T_0 escaped, _1 unescaped, _2 no conversion."""


def extension_text(ext: Extension) -> str:
    """The XML spelling of an extension: WML's variable reference for the string forms."""
    if ext.form == "byte" or ext.value is None:
        return ""
    return f"$({ext.value}{EXT_ESCAPES[ext.code]})"


def canonical_events(root: Element, *, ignore_xmlns: bool = False) -> list[tuple[str, ...]]:
    """A flat, comparable form of a tree: start/text/end events, iteratively.

    Attributes are sorted; entities become their characters; text is whitespace-
    normalised (runs of whitespace become one space, ends stripped, empty text dropped),
    which is how two XML renderings of one WBXML document are compared.
    """
    events: list[tuple[str, ...]] = []
    pending: list[str] = []

    def flush() -> None:
        text = " ".join("".join(pending).split())
        pending.clear()
        if text:
            events.append(("text", text))

    stack: list[Element | ProcessingInstruction | Part | None] = [root]
    while stack:
        node = stack.pop()
        if node is None:
            flush()
            events.append(("end",))
        elif isinstance(node, Element):
            flush()
            attrs = sorted(
                (name, " ".join(parts_text(parts).split()))
                for name, parts in node.attributes
                if not (ignore_xmlns and (name == "xmlns" or name.startswith("xmlns:")))
            )
            events.append(("start", node.tag, *(f"{n}={v}" for n, v in attrs)))
            stack.append(None)
            stack.extend(reversed(node.children))
        elif isinstance(node, ProcessingInstruction):
            flush()
            events.append(("pi", node.target, node.data.strip()))
        else:
            pending.append(parts_text([node]))
    return events
