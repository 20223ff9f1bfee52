"""WBXML -> document tree (WAP-192-WBXML-20010725), iteratively and with bounds.

Every length read from the input is checked against what remains before use, string
table references are checked against the table, mb_u_int32 values are capped at five
octets, and nesting is tracked on an explicit stack with a depth limit. The work is
bounded too: the number of elements has a ceiling, and the characters the document
holds (names and text; one string-table entry may be referenced many times) are
bounded relative to the input and by a ceiling. So hostile input costs bounded time and
memory and always ends in ``WbxmlError``.
"""

from __future__ import annotations

from typing import TypeVar, cast

from wwanlab.wap.wbxml import tokens as T
from wwanlab.wap.wbxml.dates import unpack_date
from wwanlab.wap.wbxml.encoder import CHARSETS
from wwanlab.wap.wbxml.errors import WbxmlError
from wwanlab.wap.wbxml.tables import TokenTable, table_for_public_id
from wwanlab.wap.wbxml.tree import (
    Document,
    Element,
    Entity,
    Extension,
    Opaque,
    Part,
    ProcessingInstruction,
    parts_text,
)
from wwanlab.wap.wbxml.xmlio import DEFAULT_MAX_DEPTH

_Child = Element | ProcessingInstruction | Part
_C = TypeVar("_C", _Child, Part)

DEFAULT_MAX_ELEMENTS = 250_000
"""Most elements a document may hold: about 80 MB of tree and 2 s at the ceiling (at
least 250 KB of input, several times what a WAP or SyncML message carries)."""
DEFAULT_MAX_OUTPUT = 64 << 20
"""Most characters (names and text) a document may hold, whatever its size."""
EXPANSION = 64
"""Characters a document may hold per input octet (a one-octet tag token names a tag of
up to ~20 characters; a two-octet STR_T may repeat a long string)..."""
MIN_OUTPUT = 1 << 20
"""... but at least this many, so small documents are never refused for expanding."""

DECODE_CHARSETS = {**CHARSETS, 0: "utf-8", 5: "iso-8859-2"}
"""Charsets the decoder reads; MIBenum 0 (unknown) is read as UTF-8."""


class _Reader:
    def __init__(self, data: bytes, codec: str = "utf-8") -> None:
        self.data = data
        self.pos = 0
        self.codec = codec

    def byte(self) -> int:
        if self.pos >= len(self.data):
            raise WbxmlError(f"truncated at offset {self.pos}")
        value = self.data[self.pos]
        self.pos += 1
        return value

    def peek(self) -> int | None:
        return self.data[self.pos] if self.pos < len(self.data) else None

    def mb(self) -> int:
        value, self.pos = T.decode_mb_u_int32(self.data, self.pos)
        return value

    def take(self, length: int) -> bytes:
        if length > len(self.data) - self.pos:
            raise WbxmlError(
                f"length {length} at offset {self.pos} runs past the end "
                f"({len(self.data) - self.pos} octets left)"
            )
        chunk = self.data[self.pos : self.pos + length]
        self.pos += length
        return chunk

    def cstring(self) -> str:
        end = self.data.find(b"\x00", self.pos)
        if end < 0:
            raise WbxmlError(f"unterminated inline string at offset {self.pos}")
        raw = self.data[self.pos : end]
        self.pos = end + 1
        return _decode_text(raw, self.codec)


def _decode_text(raw: bytes, codec: str) -> str:
    try:
        return raw.decode(codec)
    except UnicodeDecodeError as exc:
        raise WbxmlError(f"string is not valid {codec}: {exc.reason}") from None


class _StringTable:
    def __init__(self, data: bytes, codec: str) -> None:
        self.data = data
        self.codec = codec
        self._cache: dict[int, str] = {}  # a reference repeated is not scanned again

    def at(self, offset: int) -> str:
        """The NUL-terminated string at a byte offset (WBXML 5.7)."""
        found = self._cache.get(offset)
        if found is None:
            found = self._cache[offset] = self._read(offset)
        return found

    def _read(self, offset: int) -> str:
        if offset >= len(self.data):
            raise WbxmlError(
                f"string table reference {offset} out of range (table has {len(self.data)})"
            )
        end = self.data.find(b"\x00", offset)
        if end < 0:
            raise WbxmlError(f"string table entry at {offset} is not terminated")
        return _decode_text(self.data[offset:end], self.codec)


def decode(
    data: bytes,
    *,
    table: TokenTable | None = None,
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_elements: int = DEFAULT_MAX_ELEMENTS,
    max_output: int = DEFAULT_MAX_OUTPUT,
) -> Document:
    """Decode a WBXML document.

    The token table is ``table`` if given, else the one the header's public id names;
    tokens a table does not define decode as ``unknown_PP_TT`` names (page, token in
    hex) rather than failing, since WBXML 5.8.1 lets a reader skip what it does not know.
    More than ``max_elements`` elements, or more characters than ``EXPANSION`` per input
    octet (at least ``MIN_OUTPUT``, at most ``max_output``), raise ``WbxmlError``.
    """
    reader = _Reader(bytes(data))
    version_byte = reader.byte()
    version = (1 + (version_byte >> 4), version_byte & 0x0F)
    if version_byte > 0x03:
        raise WbxmlError(f"unsupported WBXML version byte 0x{version_byte:02x}")
    public_number = reader.mb()
    fpi_offset = reader.mb() if public_number == 0 else None
    mib = reader.mb() if version_byte >= 0x01 else 106
    codec = DECODE_CHARSETS.get(mib)
    if codec is None:
        raise WbxmlError(f"unsupported charset MIBenum {mib}")
    reader.codec = codec
    strings = _StringTable(reader.take(reader.mb()), codec)
    fpi: str | None = None
    if fpi_offset is not None:
        fpi = strings.at(fpi_offset)
        found = table_for_public_id(fpi)
    else:
        found = table_for_public_id(public_number)
        fpi = found.fpi if found is not None else None
    table = table or found
    output = min(max_output, max(MIN_OUTPUT, EXPANSION * len(reader.data)))
    body = _Body(reader, strings, table, _Limits(max_depth, max_elements, output))
    before = body.pis()
    root = body.element()
    after = body.pis()
    if reader.pos != len(reader.data):
        raise WbxmlError(f"trailing data at offset {reader.pos}")
    return Document(
        root=root,
        public_id=fpi,
        system_id=table.system_id or None if table is not None and fpi == table.fpi else None,
        version=version,
        charset=mib,
        before=before,
        after=after,
    )


class _Limits:
    """What one document may cost: nesting, elements, characters held."""

    def __init__(self, max_depth: int, max_elements: int, max_output: int) -> None:
        self.max_depth = max_depth
        self.elements_left = max_elements
        self.max_elements = max_elements
        self.output_left = max_output
        self.max_output = max_output

    def element(self) -> None:
        self.elements_left -= 1
        if self.elements_left < 0:
            raise WbxmlError(f"more than {self.max_elements} elements")

    def text(self, text: str) -> str:
        self.output_left -= len(text)
        if self.output_left < 0:
            raise WbxmlError(
                f"document would hold more than {self.max_output} characters "
                f"(at most {EXPANSION} per input octet)"
            )
        return text


class _Body:
    def __init__(
        self, reader: _Reader, strings: _StringTable, table: TokenTable | None, limits: _Limits
    ) -> None:
        self.r = reader
        self.strings = strings
        self.table = table
        self.tags, self.attr_starts, self.attr_values = table.by_code if table else ({}, {}, {})
        self.date_attrs = table.date_attrs if table else frozenset()
        self.page_namespaces = table.page_namespaces if table and table.namespaces else None
        self.limits = limits
        self.max_depth = limits.max_depth
        self.tag_page = 0
        self.attr_page = 0

    def pis(self) -> list[ProcessingInstruction]:
        out = []
        while self.r.peek() == T.PI:
            self.r.byte()
            out.append(self._pi())
        return out

    def _pi(self) -> ProcessingInstruction:
        name, value, ended = self._attribute(self._attr_token())
        if not ended:
            raise WbxmlError(f"processing instruction not ended at offset {self.r.pos}")
        return ProcessingInstruction(name, parts_text(value))

    def element(self) -> Element:
        """The body's element (WBXML 5.8.1 ``element``), read without recursion."""
        stack: list[tuple[Element, str | None]] = []  # open elements, their namespace
        while True:
            token = self.r.byte()
            if stack:
                parent = stack[-1][0]
                if token == T.END:
                    if len(parent.children) > 1:
                        parent.children[:] = _merge(parent.children)
                    stack.pop()
                    if not stack:
                        return parent
                    continue
                if token == T.PI:
                    parent.children.append(self._pi())
                    continue
                content = self._content(token)
                if content is not None:
                    parent.children.append(content)
                    continue
            if token == T.SWITCH_PAGE:
                self.tag_page = self.r.byte()
                continue
            node, has_content = self._start_tag(token)
            namespace = self._restore_namespace(node, stack[-1][1] if stack else None)
            if stack:
                stack[-1][0].children.append(node)
            if not has_content:
                if not stack:
                    return node
                continue
            if len(stack) >= self.max_depth:
                raise WbxmlError(f"nested deeper than {self.max_depth} elements")
            stack.append((node, namespace))

    def _start_tag(self, token: int) -> tuple[Element, bool]:
        identity = token & T.TAG_ID_MASK
        if identity == T.LITERAL:
            name = self.strings.at(self.r.mb())
        elif identity < T.FIRST_APP_TOKEN:
            raise WbxmlError(
                f"token 0x{token:02x} cannot start an element at offset {self.r.pos - 1}"
            )
        else:
            found = self.tags.get(self.tag_page << 8 | identity)
            name = found or _unknown(self.tag_page, identity)
        self.limits.element()
        node = Element(self.limits.text(name))
        if token & T.TAG_ATTRIBUTES:
            ended = False
            while not ended:
                first = self._attr_token()
                if first == T.END:
                    break
                attr, value, ended = self._attribute(first)
                if attr in self.date_attrs and len(value) == 1:
                    only = value[0]
                    if isinstance(only, Opaque):
                        value = [unpack_date(only.data)]
                node.attributes.append((attr, value))
        return node, bool(token & T.TAG_CONTENT)

    def _restore_namespace(self, node: Element, parent_ns: str | None) -> str | None:
        """SyncML's code pages stand for XML namespaces: restore the implied ``xmlns``."""
        if self.page_namespaces is None:
            return None
        namespace = self.page_namespaces.get(self.tag_page)
        if namespace is not None and namespace != parent_ns:
            node.attributes.insert(0, ("xmlns", [namespace]))
        return namespace

    def _attr_token(self) -> int:
        token = self.r.byte()
        while token == T.SWITCH_PAGE:
            self.attr_page = self.r.byte()
            token = self.r.byte()
        return token

    def _attribute(self, token: int) -> tuple[str, list[Part], bool]:
        """One attribute from its start token: (name, value, whether END closed the list)."""
        if token == T.LITERAL:
            name, prefix = self.strings.at(self.r.mb()), ""
        elif token >= T.ATTR_VALUE_MIN or token in T.GLOBAL_TOKENS:
            raise WbxmlError(
                f"token 0x{token:02x} cannot start an attribute at offset {self.r.pos - 1}"
            )
        else:
            start = self.attr_starts.get(self.attr_page << 8 | token)
            name, prefix = start or (_unknown(self.attr_page, token), "")
        self.limits.text(name)
        value: list[Part] = [self.limits.text(prefix)] if prefix else []
        while True:
            token = self.r.byte()
            if token == T.SWITCH_PAGE:
                self.attr_page = self.r.byte()
                continue
            if token == T.END:
                return name, _merge(value), True
            if token == T.LITERAL or (token < T.ATTR_VALUE_MIN and token not in T.GLOBAL_TOKENS):
                self.r.pos -= 1  # the next attribute's start token
                return name, _merge(value), False
            if token >= T.ATTR_VALUE_MIN and token not in T.GLOBAL_TOKENS:
                text = self.attr_values.get(self.attr_page << 8 | token)
                text = text if text is not None else _unknown(self.attr_page, token)
                value.append(self.limits.text(text))
                continue
            part = self._content(token)
            if part is None:
                raise WbxmlError(
                    f"token 0x{token:02x} not allowed in an attribute value "
                    f"at offset {self.r.pos - 1}"
                )
            value.append(part)

    def _content(self, token: int) -> Part | None:
        """A content token other than a tag (WBXML 5.8.1 ``content``), or None."""
        if token == T.STR_I:
            return self.limits.text(self.r.cstring())
        if token == T.STR_T:
            return self.limits.text(self.strings.at(self.r.mb()))
        if token == T.ENTITY:
            code = self.r.mb()
            if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
                raise WbxmlError(f"entity {code} is not a Unicode character")
            return Entity(code)
        if token == T.OPAQUE:
            return Opaque(self.r.take(self.r.mb()))
        if token in (T.EXT_I_0, T.EXT_I_1, T.EXT_I_2):
            return Extension(token - T.EXT_I_0, "i", self.limits.text(self.r.cstring()))
        if token in (T.EXT_T_0, T.EXT_T_1, T.EXT_T_2):
            value = self.limits.text(self.strings.at(self.r.mb()))
            return Extension(token - T.EXT_T_0, "t", value)
        if token in (T.EXT_0, T.EXT_1, T.EXT_2):
            return Extension(token - T.EXT_0, "byte")
        return None


def _unknown(page: int, token: int) -> str:
    return f"unknown_{page:02x}_{token:02x}"


def _merge(parts: list[_C]) -> list[_C]:
    """Join adjacent strings: text split over STR_I/STR_T/value tokens is one text.

    Runs are joined once each (adding piece by piece would copy the text per piece)."""
    out: list[_C] = []
    run: list[str] = []
    for part in parts:
        if isinstance(part, str):
            run.append(part)
            continue
        if run:
            out.append(cast(_C, "".join(run)))
            run = []
        out.append(part)
    if run:
        out.append(cast(_C, "".join(run)))
    return [part for part in out if not isinstance(part, str) or part]
