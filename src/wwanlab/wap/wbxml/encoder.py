"""Document tree -> WBXML (WAP-192-WBXML-20010725).

The encoder works in two passes. The first walks the tree (iteratively) and turns it
into a plan: fixed token bytes, strings still to place, and references that need a
string table offset. The second chooses the string table: it prices several candidate
tables exactly (header, table, every string as STR_I/STR_T pieces chosen by dynamic
programming) and keeps the smallest, so adding the table never makes a document bigger.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass
from itertools import accumulate

from wwanlab.wap.wbxml import tokens as T
from wwanlab.wap.wbxml.dates import pack_date
from wwanlab.wap.wbxml.errors import WbxmlError
from wwanlab.wap.wbxml.tables import TokenTable, table_for_public_id, table_for_root
from wwanlab.wap.wbxml.tree import (
    Document,
    Element,
    Entity,
    Extension,
    Opaque,
    Part,
    ProcessingInstruction,
)
from wwanlab.wap.wbxml.whitespace import collapse, drop_blank
from wwanlab.wap.wbxml.xmlio import DEFAULT_MAX_DEPTH, Whitespace, parse_xml

UNKNOWN_PUBLIC_ID = 0x01  # WBXML 7.2.1: "Unknown or missing public identifier"
STRING_TABLE_PUBLIC_ID = 0x00  # WBXML 5.5: public id is a string table index

CHARSETS = {106: "utf-8", 4: "iso-8859-1", 3: "ascii"}
"""IANA MIBenums the encoder writes (WBXML 5.6): UTF-8, ISO-8859-1, US-ASCII."""

VERSIONS = {(1, 0): 0x00, (1, 1): 0x01, (1, 2): 0x02, (1, 3): 0x03}
"""WBXML 5.4: major version minus one in the high nibble, minor in the low."""

_SUBSTRING_SEARCH_LIMIT = 2000  # distinct strings above which substring candidates are skipped
_PRUNE_WORK_LIMIT = 200_000  # characters re-split per pruning round, at most
_LARGE_TEXT = 256 * 1024  # distinct text above which only two string tables are priced


class _Slot:
    """A string to place: inline (STR_I) or by reference (STR_T), piecewise unless
    ``whole`` (the table's ``whole_text_in``): then one STR_I or one STR_T. The planner
    makes one per distinct (text, whole), so a slot hashes by identity."""

    def __init__(self, text: str, whole: bool) -> None:
        self.text = text
        self.whole = whole


class _Ref:
    """A token followed by the string table offset of ``text`` (LITERAL*, EXT_T_n)."""

    def __init__(self, token: int, text: str) -> None:
        self.token = token
        self.text = text


_Item = bytes | _Slot | _Ref


def parse_version(version: str | tuple[int, int]) -> tuple[int, int]:
    """``"1.3"`` or ``(1, 3)`` -> (1, 3); WBXML 1.0 to 1.3."""
    if isinstance(version, str):
        major, _, minor = version.partition(".")
        if not (major.isdigit() and minor.isdigit()):
            raise WbxmlError(f"bad WBXML version {version!r}")
        version = (int(major), int(minor))
    if version not in VERSIONS:
        raise WbxmlError(f"unsupported WBXML version {version[0]}.{version[1]}")
    return version


def encode(
    document: Document | bytes,
    *,
    version: str | tuple[int, int] | None = None,
    public_id: int | str | None = None,
    table: TokenTable | None = None,
    charset: int | None = None,
    string_table: bool = True,
    whitespace: Whitespace | None = None,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> bytes:
    """Encode a document (or XML bytes) as WBXML.

    The token table comes from ``table``, else from ``public_id`` (a well-known number
    or an FPI), else from the document's DOCTYPE, else from its root element; with none
    found every tag and attribute is written literally (generic mode), so no
    well-formed document is refused. ``string_table=False`` writes every string inline.

    ``whitespace`` applies to XML bytes (a ``Document`` is encoded as given); by
    default it follows the document type: ``"collapse"`` where the table says text
    whitespace is not significant (WML outside ``pre``, SI, SL, CO, provisioning),
    ``"ignorable"`` elsewhere (SyncML data, SOAP, generic documents).
    """
    kept: Document | None = None  # the document with its blank text, when that was dropped
    if isinstance(document, bytes | bytearray):
        if whitespace in ("ignorable", "trim") and string_table:
            kept = parse_xml(bytes(document), whitespace="preserve", max_depth=max_depth)
        parse_as: Whitespace = "preserve" if whitespace in (None, "collapse") else whitespace
        document = parse_xml(bytes(document), whitespace=parse_as, max_depth=max_depth)
        number, fpi, table = _resolve_public_id(document, public_id, table)
        if whitespace is None:
            whitespace = "collapse" if table is not None and table.collapse_space else "ignorable"
        if whitespace == "collapse":
            collapse(document.root, table)
        elif whitespace == "ignorable":
            drop_blank(document.root)
    else:
        number, fpi, table = _resolve_public_id(document, public_id, table)
    ver = parse_version(version if version is not None else document.version)
    mib = charset if charset is not None else document.charset
    if mib not in CHARSETS:
        raise WbxmlError(f"unsupported charset MIBenum {mib} (use 106, 4 or 3)")
    header = (fpi, number, ver, mib, CHARSETS[mib])
    also: list[str] = []
    if kept is not None:
        # Dropping blank text keeps a subset of the strings, so the table chosen for the
        # document with them prices this one no higher: trying it too means "ignorable"
        # never encodes larger than "preserve" (the table's candidates come from the
        # strings there are, and the blank ones brought the indentation's). Trimmed
        # text keeps parts of the strings; the same table is tried for it.
        _, also = _encode_plan(_Planner(table, CHARSETS[mib], max_depth).plan(kept), header)
    data, _ = _encode_plan(
        _Planner(table, CHARSETS[mib], max_depth).plan(document), header, string_table, also
    )
    return data


_Header = tuple[str | None, int | None, tuple[int, int], int, str]
"""(FPI, public id number, version, charset MIBenum, codec) of a document."""


def _encode_plan(
    plan: list[_Item], header: _Header, string_table: bool = True, also: list[str] | None = None
) -> tuple[bytes, list[str]]:
    """The WBXML of ``plan`` and its string table's entries."""
    fpi, number, ver, mib, codec = header
    required: list[str] = [fpi] if fpi is not None else []
    required += [item.text for item in plan if isinstance(item, _Ref)]
    return _assemble(
        plan, required, fpi, number, ver, mib, codec, use_table=string_table, also=also or []
    )


def _resolve_public_id(
    doc: Document, public_id: int | str | None, table: TokenTable | None
) -> tuple[int | None, str | None, TokenTable | None]:
    """(well-known number or None, FPI to carry in the string table or None, table)."""
    if public_id is None:
        public_id = doc.public_id
    if table is None and public_id is not None:
        table = table_for_public_id(public_id)
    if table is None and public_id is None:
        declared = [_parts_str(v) for n, v in doc.root.attributes if n.startswith("xmlns")]
        table = table_for_root(doc.root.tag, declared)
    if isinstance(public_id, int):
        return public_id, None, table
    if table is not None and table.public_id is not None:
        return table.public_id, None, table
    fpi = public_id if public_id is not None else (table.fpi if table is not None else None)
    if fpi is None:
        return UNKNOWN_PUBLIC_ID, None, None
    return None, fpi, table


def _parts_str(parts: list[Part]) -> str:
    return "".join(p for p in parts if isinstance(p, str))


class _Planner:
    """Pass one: the tree as token bytes, string slots and string references."""

    def __init__(self, table: TokenTable | None, codec: str, max_depth: int) -> None:
        self.table = table
        # The table's indexes, read once (a TokenTable is a plain Python object).
        self.tag_tokens = table.tag_tokens if table else {}
        self.attr_prefixes = table.attr_prefixes if table else {}
        self.namespaces = table.namespaces if table else {}
        self.date_attrs = table.date_attrs if table else frozenset()
        self.codec = codec
        self.max_depth = max_depth
        self.items: list[_Item] = []
        self.octets = bytearray()  # token octets not yet in ``items``
        self._slots: dict[tuple[str, bool], _Slot] = {}
        self.tag_page = 0
        self.attr_page = 0
        self._value_cache: dict[int, dict[str, _Splits]] = {}  # by page
        self._plain: set[str] = set()  # texts that hold no attribute-value string
        self._estimated: set[str] = set()  # value texts whose sizes _size_prefix estimates
        self._value_index = table.value_tokens if table else {}
        self._value_pattern = table.value_pattern if table else None

    def plan(self, doc: Document) -> list[_Item]:
        for pi in doc.before:
            self._pi(pi)
        self._element_tree(doc.root)
        for pi in doc.after:
            self._pi(pi)
        self._flush()
        return self.items

    def _flush(self) -> None:
        if self.octets:
            self.items.append(bytes(self.octets))
            self.octets.clear()

    def _item(self, item: _Slot | _Ref) -> None:
        self._flush()
        self.items.append(item)

    def _slot(self, text: str, whole: bool) -> None:
        slot = self._slots.get((text, whole))
        if slot is None:
            slot = self._slots[(text, whole)] = _Slot(text, whole)
        self._item(slot)

    def _element_tree(self, root: Element) -> None:
        # Stack entries: (node, preferred page from xmlns, text kept whole) or None
        # meaning "emit END".
        whole_in = self.table.whole_text_in if self.table else frozenset()
        stack: list[tuple[Element | ProcessingInstruction | Part, int | None, bool] | None] = [
            (root, None, False)
        ]
        depth = 0
        while stack:
            entry = stack.pop()
            if entry is None:
                self.octets.append(T.END)
                depth -= 1
                continue
            node, ns_page, whole = entry
            if isinstance(node, Element):
                ns_page = self._namespace_page(node, ns_page)
                has_content = self._start_tag(node, ns_page)
                if has_content:
                    depth += 1
                    if depth > self.max_depth:
                        raise WbxmlError(f"nested deeper than {self.max_depth} elements")
                    stack.append(None)
                    whole = node.tag in whole_in
                    stack.extend((child, ns_page, whole) for child in reversed(node.children))
            elif isinstance(node, ProcessingInstruction):
                self._pi(node)
            else:
                self._content(node, whole)

    def _namespace_page(self, node: Element, inherited: int | None) -> int | None:
        if not self.namespaces:
            return inherited
        for name, parts in node.attributes:
            if name == "xmlns":
                return self.namespaces.get(_parts_str(parts), inherited)
        return inherited

    def _attributes(self, node: Element) -> list[tuple[str, list[Part]]]:
        """Attributes to send: ``xmlns`` that only selects a code page is implied."""
        if not self.namespaces:
            return node.attributes
        return [
            (n, v)
            for n, v in node.attributes
            if not (n == "xmlns" and _parts_str(v) in self.namespaces)
        ]

    def _start_tag(self, node: Element, ns_page: int | None) -> bool:
        attributes = self._attributes(node)
        flags = (T.TAG_ATTRIBUTES if attributes else 0) | (T.TAG_CONTENT if node.children else 0)
        choices = self.tag_tokens.get(node.tag, [])
        if choices:
            page, token = _pick_page(choices, ns_page, self.tag_page)
            if page != self.tag_page:
                self.octets += bytes((T.SWITCH_PAGE, page))
                self.tag_page = page
            self.octets.append(token | flags)
        else:
            self._item(_Ref(T.LITERAL | flags, node.tag))
        if attributes:
            for name, value in attributes:
                self._attribute(name, value)
            self.octets.append(T.END)
        return bool(node.children)

    def _attribute(self, name: str, value: list[Part]) -> None:
        if name in self.date_attrs and len(value) == 1:
            packed = pack_date(value[0]) if isinstance(value[0], str) else None
            if packed is not None:
                value = [Opaque(packed)]
        prefixes = self.attr_prefixes.get(name)
        first = value[0] if value and isinstance(value[0], str) else ""
        best: tuple[int, int, int, int] | None = None  # (cost, page, token, prefix length)
        lengths, by_prefix = prefixes if prefixes is not None else ([], {})
        for length in lengths:
            if length > len(first):
                continue
            for _, page, token in by_prefix.get(first[:length], ()):
                rest_cost = self._value_cost(first, length, page)
                cost = (2 if page != self.attr_page else 0) + 1 + rest_cost
                if best is None or cost < best[0]:
                    best = (cost, page, token, length)
            if best is not None and best[0] == 1:
                break  # one token takes the whole value: no choice costs less
        if best is None:
            self._item(_Ref(T.LITERAL, name))
            self._value(value)
            return
        _, page, token, length = best
        if page != self.attr_page:
            self.octets += bytes((T.SWITCH_PAGE, page))
            self.attr_page = page
        self.octets.append(token)
        if value and isinstance(value[0], str):
            self._value_string(first, length)
            value = value[1:]
        self._value(value)

    def _value(self, parts: list[Part]) -> None:
        for part in parts:
            if isinstance(part, str):
                self._value_string(part, 0)
            else:
                self._content(part)

    def _value_string(self, text: str, start: int) -> None:
        """``text[start:]`` as strings and value tokens (WBXML 5.8.3)."""
        if start == len(text):
            return
        splits = self._value_splits(text, self.attr_page)
        if splits is None:
            self._text(text[start:])
            return
        for piece in splits.pieces(start):
            if isinstance(piece, int):
                self.octets.append(piece)
            else:
                self._text(piece)

    def _value_cost(self, text: str, start: int, attr_page: int) -> int:
        """Bytes of ``text[start:]`` at its cheapest, as :meth:`_value_string` writes it.

        A remainder that holds no value string is priced at its encoded size; the
        dynamic programme counts a character the charset lacks as one byte, so it gives
        the same answer only where the text's sizes are exact (``_estimated``)."""
        if start == len(text):
            return 0
        splits = self._value_splits(text, attr_page)
        if splits is not None and (
            text not in self._estimated or self._holds_value_string(text[start:])
        ):
            return splits.cost(start)
        if text.isascii():  # one byte a character in every charset written
            return len(text) - start + 2
        return len(text[start:].encode(self.codec, "xmlcharrefreplace")) + 2

    def _holds_value_string(self, text: str) -> bool:
        """Whether some code page's attribute-value string occurs in ``text``."""
        return self._value_pattern is not None and self._value_pattern.search(text) is not None

    def _value_splits(self, text: str, attr_page: int) -> _Splits | None:
        """The value tokens' splits of ``text`` and of each of its suffixes, so every
        attribute start that could take a prefix of it is priced by one dynamic programme;
        None when ``text`` holds no value string (it is one inline string)."""
        if text in self._plain:
            return None
        on_page = self._value_cache.get(attr_page)
        if on_page is None:
            on_page = self._value_cache[attr_page] = {}
        splits = on_page.get(text)
        if splits is None:
            if not self._holds_value_string(text):
                self._plain.add(text)
                return None
            options = [
                (value, 1, token)
                for first, choices in self._value_index.items()
                if first in text
                for value, page, token in choices
                if page == attr_page and value in text
            ]
            splits = on_page[text] = _Splits(text, self.codec, _occurrences(text, options))
            if len(text.encode(self.codec, "xmlcharrefreplace")) != splits.prefix[-1]:
                self._estimated.add(text)
        return splits

    def _content(self, part: Part, whole: bool = False) -> None:
        if isinstance(part, str):
            self._text(part, whole)
        elif isinstance(part, Entity):
            self.octets += bytes([T.ENTITY]) + T.encode_mb_u_int32(part.code)
        elif isinstance(part, Opaque):
            self.octets += bytes([T.OPAQUE]) + T.encode_mb_u_int32(len(part.data)) + part.data
        else:
            self._extension(part)

    def _extension(self, ext: Extension) -> None:
        if not 0 <= ext.code <= 2:
            raise WbxmlError(f"extension code must be 0, 1 or 2, got {ext.code}")
        if ext.form == "byte":
            self.octets.append(T.EXT_0 + ext.code)
        elif ext.form == "t":
            self._item(_Ref(T.EXT_T_0 + ext.code, ext.value or ""))
        else:
            self.octets.append(T.EXT_I_0 + ext.code)
            self.octets += self._encode_str(ext.value or "") + b"\x00"

    def _text(self, text: str, whole: bool = False) -> None:
        """Text content: characters the charset lacks become ENTITY tokens."""
        if not text:
            return
        if self.codec == "utf-8":
            self._slot(text, whole)
            return
        start = 0
        for i, char in enumerate(text):
            try:
                char.encode(self.codec)
            except UnicodeEncodeError:
                if i > start:
                    self._slot(text[start:i], whole)
                self._content(Entity(ord(char)))
                start = i + 1
        if start < len(text):
            self._slot(text[start:], whole)

    def _encode_str(self, text: str) -> bytes:
        data = text.encode(self.codec, "xmlcharrefreplace")
        if b"\x00" in data:
            raise WbxmlError("strings cannot contain NUL (WBXML 5.8.4.1 terminates them)")
        return data

    def _pi(self, pi: ProcessingInstruction) -> None:
        self.octets.append(T.PI)
        self._attribute(pi.target, [pi.data] if pi.data else [])
        self.octets.append(T.END)


def _pick_page(
    choices: list[tuple[int, int]], ns_page: int | None, current: int
) -> tuple[int, int]:
    for wanted in (ns_page, current):
        for choice in choices:
            if choice[0] == wanted:
                return choice
    return choices[0]


# ---------------------------------------------------------------- string table

_RUNS = re.compile(r"\S+|\s+")
"""A string's words and the whitespace runs between them: both recur (a run is an
indentation), and without the runs a document whose blank text nodes were dropped would
lose the entries those nodes had brought, and encode larger than with them kept."""


@dataclass(frozen=True)
class _Candidates:
    """Strings worth trying as table entries, in three growing sets.

    ``whole``: strings repeated at least twice whose saving beats their table cost.
    ``words``: every whitespace-separated word, and every run of whitespace, of two or
    more characters that occurs at least twice across all strings, whole or inside
    longer ones (libwbxml collects such words too). ``inner``: whole strings that recur
    inside other strings (a title that starts the text, as Kannel's compiler finds);
    quadratic, so only for modest documents. Pricing and pruning decide which survive.
    """

    whole: list[str]
    words: list[str]
    inner: list[str]

    @classmethod
    def of(cls, slots: dict[str, int], with_inner: bool) -> _Candidates:
        whole = [s for s, k in slots.items() if k >= 2 and k * (len(s) + 2) > len(s) + 1 + 2 * k]
        counts: dict[str, int] = {}
        for s, k in slots.items():
            for w in dict.fromkeys(_RUNS.findall(s)):
                counts[w] = counts.get(w, 0) + k * s.count(w)
        taken = set(whole)
        words = [w for w, k in counts.items() if k >= 2 and len(w) >= 2 and w not in taken]
        taken.update(words)
        inner: list[str] = []
        if with_inner and len(slots) <= _SUBSTRING_SEARCH_LIMIT:
            # A string of three or more characters placed twice is in ``whole``, so one
            # left here recurs exactly when another string holds it: when it occurs
            # twice in all the strings joined by NUL (which only a NUL in it could span).
            joined = "\x00".join(slots)
            inner = [
                s
                for s in slots
                if len(s) >= 3
                and s not in taken
                and (
                    joined.count(s) >= 2
                    if "\x00" not in s
                    else any(s in t for t in slots if t != s)
                )
            ]
        return cls(whole, words, inner)


_Split = tuple[int, list[str | int]]
"""(bytes, pieces): inline strings, and references as indices into ``_Pricer.universe``."""


class _Layout:
    """A string table: entries placed (suffixes shared), offsets, encoded bytes, and
    what a reference to each entry costs (STR_T and its mb_u_int32 offset)."""

    def __init__(self, entries: list[str], order: list[str], encoded: dict[str, bytes]) -> None:
        """``order``: every entry that may be placed, longest first (placement order)."""
        self.offset: dict[str, int] = {}
        blob = bytearray()
        placed: list[tuple[bytes, int]] = []
        members = set(entries)
        for text in order:
            if text not in members:
                continue
            data = encoded[text]
            for host, at in placed:  # WBXML 5.7: a reference may point into a string
                if host.endswith(data):
                    self.offset[text] = at + len(host) - len(data)
                    break
            else:
                self.offset[text] = len(blob)
                placed.append((data, len(blob)))
                blob += data + b"\x00"
        self.data = bytes(blob)
        self.rank: dict[str, int] = {}
        """Non-empty entries in placement order: the order splits try them in."""
        for text in self.offset:
            if text:
                self.rank[text] = len(self.rank)
        self.ref_cost = {text: 1 + T.mb_u_int32_size(at) for text, at in self.offset.items()}


class _Pricer:
    """Exact prices of a document's strings against the string tables it tries.

    Which candidate entries each string contains is found once per document, not once
    per table; and a string's cheapest split depends only on the entries it contains,
    in the layout's order, and on what a reference to each costs, so a split is worked
    out once per such combination and reused by every table that offers the same.
    """

    def __init__(self, texts: dict[str, int], universe: list[str], codec: str) -> None:
        self.codec = codec
        self.universe = universe
        self.index = {text: i for i, text in enumerate(universe)}
        self.encoded = {text: text.encode(codec) for text in universe}
        """Each entry's bytes in the table (an entry is always encodable)."""
        self.order = sorted(universe, key=lambda s: -len(self.encoded[s]))
        """Entries longest first, ties in the universe's order: every table's entries come
        in that order too (a table's list is a subsequence of it), so this is how each
        table places them."""
        self.inline = {t: len(t.encode(codec, "xmlcharrefreplace")) + 2 for t in texts}
        self.alone: dict[str, _Split] = {t: (self.inline[t], [t]) for t in texts}
        """Each string's split when no entry fits it: inline, whole."""
        self.within = {t: [e for e in universe if e and e in t] for t in texts}
        self._splits: dict[tuple[object, ...], _Split] = {}
        self._layouts: dict[tuple[str, ...], _Layout] = {}

    def layout(self, entries: list[str]) -> _Layout:
        key = tuple(entries)
        found = self._layouts.get(key)
        if found is None:
            found = self._layouts[key] = _Layout(entries, self.order, self.encoded)
        return found

    def split(
        self, text: str, layout: _Layout, exclude: str | None = None, whole: bool = False
    ) -> _Split:
        """Cheapest STR_I/STR_T pieces for ``text`` without ``exclude``'s entry.

        With ``whole`` the text is one piece: a reference to all of it, or inline."""
        inline = self.inline[text]
        own = layout.ref_cost.get(text) if text != exclude else None
        if own is not None and own <= inline:
            return own, [self.index[text]]
        if whole:
            return self.alone[text]
        rank = layout.rank
        present = [e for e in self.within[text] if e in rank and e != exclude]
        if not present:
            return self.alone[text]
        if len(present) > 1:
            present.sort(key=rank.__getitem__)
        costs = [layout.ref_cost[e] for e in present]
        key = (text, *present, *costs)
        found = self._splits.get(key)
        if found is None:
            found = self._splits[key] = self._cheapest(text, present, costs)
        return found

    def _cheapest(self, text: str, present: list[str], costs: list[int]) -> _Split:
        options = [(e, cost, i) for i, (e, cost) in enumerate(zip(present, costs, strict=True))]
        total, pieces = _cheapest_pieces(text, self.codec, _occurrences(text, options))
        index = self.index
        return total, [index[present[p]] if isinstance(p, int) else p for p in pieces]


def _prune(
    slots: dict[str, int], required: list[str], optional: list[str], pricer: _Pricer
) -> list[str]:
    """Drop optional entries whose references save less than the entry costs.

    An entry's saving is measured by re-splitting, without it, every string whose
    cheapest split uses it (a string that does not use an entry costs the same without
    it); a few rounds, since dropping one entry changes what the others save. Above
    ``_PRUNE_WORK_LIMIT`` characters to re-split, the candidate is left as it is, so
    large documents cost linear work.
    """
    keep = list(optional)
    for _ in range(3):
        layout = pricer.layout(required + keep)
        users: dict[int, list[str]] = {}  # entry -> texts whose split uses it
        costs: dict[str, int] = {}
        work = 0  # characters to re-split
        for text in slots:
            if not pricer.within[text]:
                continue  # no entry can touch it: it has the same cost under every table
            costs[text], pieces = pricer.split(text, layout)
            for piece in pieces:
                if isinstance(piece, int):
                    texts = users.get(piece)
                    if texts is None:
                        users[piece] = [text]
                    elif texts[-1] == text:
                        continue  # the entry used twice in this text
                    else:
                        texts.append(text)
                    work += len(text)
        if work > _PRUNE_WORK_LIMIT:
            return keep
        dropped = []
        for entry in keep:
            saving = 0
            for text in users.get(pricer.index[entry], []):
                saving += slots[text] * (
                    pricer.split(text, layout, exclude=entry)[0] - costs[text]
                )
            if saving <= len(pricer.encoded[entry]) + 1:
                dropped.append(entry)
        if not dropped:
            break
        keep = [e for e in keep if e not in dropped]
    return keep


def _size_prefix(text: str, codec: str) -> list[int]:
    """``prefix[i]``: encoded size of ``text[:i]`` (text reaching here is encodable)."""
    if codec != "utf-8" or text.isascii():
        return list(range(len(text) + 1))
    sizes = (
        1 if c < "\x80" else 2 if c < "\u0800" else 3 if c < "\U00010000" else 4 for c in text
    )
    return list(accumulate(sizes, initial=0))


def _occurrences(
    text: str, options: list[tuple[str, int, int]]
) -> dict[int, list[tuple[int, int, int]]]:
    """Where each (string, cost, token) option occurs: position -> (length, cost, token)."""
    found: dict[int, list[tuple[int, int, int]]] = {}
    for string, cost, token in options:
        at = text.find(string)
        while at >= 0:
            found.setdefault(at, []).append((len(string), cost, token))
            at = text.find(string, at + 1)
    return found


def _cheapest_pieces(
    text: str, codec: str, matches: dict[int, list[tuple[int, int, int]]]
) -> tuple[int, list[str | int]]:
    """Cheapest split of ``text`` into inline runs and tokens (see :class:`_Splits`)."""
    splits = _Splits(text, codec, matches)
    return splits.cost(0), splits.pieces(0)


class _Splits:
    """Cheapest splits of ``text`` and of each of its suffixes into inline runs and
    tokens, by one dynamic programme from the end.

    An inline run costs its bytes plus 2 (STR_I and the terminator); ``matches[i]``
    lists the tokens usable at ``i`` as (characters covered, cost, token value).
    ``free[i]``: cheapest encoding of ``text[i:]`` with no run open at i; ``open_[i]``:
    the same with a run already open (its framing paid). Only the positions where a
    token starts need a decision: anywhere else the cheapest move is to carry the run
    on, so the costs between two such positions follow from the size prefix sums and
    the work is linear in the matches, not in the characters. A suffix's answer depends
    only on the matches inside it, so ``cost(i)`` and ``pieces(i)`` are what a split of
    ``text[i:]`` alone would give.
    """

    def __init__(
        self, text: str, codec: str, matches: dict[int, list[tuple[int, int, int]]]
    ) -> None:
        n = len(text)
        prefix = _size_prefix(text, codec)
        starts = sorted(matches)
        free: dict[int, int] = {n: 0}
        open_: dict[int, int] = {n: 0}
        take: dict[int, tuple[int, int]] = {}
        extend: dict[int, bool] = {}
        for k in range(len(starts) - 1, -1, -1):
            i = starts[k]
            q = starts[k + 1] if k + 1 < len(starts) else n  # the next start after i
            carry = prefix[q] - prefix[i] + open_[q]  # this character, then the run goes on
            best = 2 + carry
            for length, cost, value in matches[i]:
                after = free.get(i + length)
                if after is None:  # not a start: open a run there and carry it on
                    q = _next_start(starts, i + length, n)
                    after = 2 + prefix[q] - prefix[i + length] + open_[q]
                if cost + after < best:
                    best, take[i] = cost + after, (length, value)
            free[i] = best
            extend[i] = carry <= best
            open_[i] = min(carry, best)
        self.text = text
        self.prefix = prefix
        self.starts = starts
        self.free = free
        self.open_ = open_
        self.take = take
        self.extend = extend

    def cost(self, start: int) -> int:
        """Bytes of ``text[start:]`` at its cheapest."""
        total = self.free.get(start)
        if total is None:
            n = len(self.text)
            q = _next_start(self.starts, start, n)
            total = 2 + self.prefix[q] - self.prefix[start] + self.open_[q]
        return total

    def pieces(self, start: int) -> list[str | int]:
        """``text[start:]`` at its cheapest: inline strings and token values."""
        text, free, starts = self.text, self.free, self.starts
        n = len(text)
        pieces: list[str | int] = []
        run_from = -1  # where the open run started, -1 when none is open
        i = start
        while i < n:
            if i not in free:  # no token starts here: the run carries on to the next start
                if run_from < 0:
                    run_from = i
                i = _next_start(starts, i, n)
                continue
            if run_from >= 0 and not self.extend[i]:
                pieces.append(text[run_from:i])
                run_from = -1
            if run_from >= 0:
                i += 1
                continue
            chosen = self.take.get(i)
            if chosen is None:
                run_from = i
                i += 1
            else:
                pieces.append(chosen[1])
                i += chosen[0]
        if run_from >= 0:
            pieces.append(text[run_from:])
        return pieces


def _next_start(starts: list[int], i: int, n: int) -> int:
    """The first token start at or after ``i`` (``n``, the end, when none is)."""
    k = bisect_left(starts, i)
    return starts[k] if k < len(starts) else n


def _assemble(
    plan: list[_Item],
    required: list[str],
    fpi: str | None,
    number: int | None,
    version: tuple[int, int],
    mib: int,
    codec: str,
    *,
    use_table: bool,
    also: list[str],
) -> tuple[bytes, list[str]]:
    """The document's bytes under the smallest string table priced, and its entries;
    ``also`` is one more table to price (its entries)."""
    placed: dict[_Slot, int] = {}  # slot -> how often the plan places it
    refs: dict[str, int] = {}  # string -> how often the plan references it
    fixed = 0  # token octets, the same under every table
    for item in plan:
        if isinstance(item, bytes):
            fixed += len(item)
        elif isinstance(item, _Slot):
            placed[item] = placed.get(item, 0) + 1
        else:
            refs[item.text] = refs.get(item.text, 0) + 1
    slots: dict[str, int] = {}
    for slot, k in placed.items():
        slots[slot.text] = slots.get(slot.text, 0) + k
    large = sum(len(text) for text in slots) > _LARGE_TEXT
    found = _Candidates.of(slots, not large) if use_table else _Candidates([], [], [])
    ladder = [found.whole, found.whole + found.words]
    if not large:
        ladder.append(ladder[1] + found.inner)
    extra = [text for text in dict.fromkeys(also) if text not in required] if use_table else []
    pricer = _Pricer(slots, list(dict.fromkeys(required + ladder[-1] + extra)), codec)
    strategies: list[list[str]] = [[]]
    if large and ladder[1]:
        strategies.append(ladder[1])  # large: the two plainest only
    elif ladder[-1]:
        for optional in ladder:
            if optional in strategies:
                continue  # a rung no longer than the one below: pruned alike
            for choice in (optional, _prune(slots, required, optional, pricer)):
                if choice not in strategies:
                    strategies.append(choice)
    if extra and extra not in strategies:
        strategies.append(extra)
    # Strings no candidate entry can touch are inline under every table.
    priced: dict[_Slot, int] = {}
    for slot, k in placed.items():
        if pricer.within[slot.text]:
            priced[slot] = k
        else:
            fixed += k * pricer.inline[slot.text]
    best: tuple[int, _Layout, dict[_Slot, _Split]] | None = None
    for optional in strategies:
        layout = pricer.layout(required + optional)
        splits = {slot: pricer.split(slot.text, layout, whole=slot.whole) for slot in priced}
        used = set(required)
        for _, split in splits.values():
            for p in split:
                if isinstance(p, int):
                    used.add(pricer.universe[p])
        if len(used) != len(layout.offset):  # drop entries nothing references, re-place
            layout = pricer.layout([s for s in required + optional if s in used])
            splits = {slot: pricer.split(slot.text, layout, whole=slot.whole) for slot in priced}
        # What _emit would write, less the header octets every table shares.
        size = T.mb_u_int32_size(len(layout.data)) + len(layout.data) + fixed
        if fpi is not None:
            size += T.mb_u_int32_size(layout.offset[fpi])
        for text, k in refs.items():
            size += k * layout.ref_cost[text]
        for slot, k in priced.items():
            size += k * splits[slot][0]
        if best is None or size < best[0]:
            best = size, layout, splits
    assert best is not None
    _, layout, chosen = best
    offsets = [layout.offset.get(text, -1) for text in pricer.universe]
    pieces = {
        slot: [offsets[p] if isinstance(p, int) else p for p in split]
        for slot, (_, split) in chosen.items()
    }
    return _emit(plan, layout, pieces, fpi, number, version, mib, codec), list(layout.offset)


def _emit(
    plan: list[_Item],
    layout: _Layout,
    pieces: dict[_Slot, list[str | int]],
    fpi: str | None,
    number: int | None,
    version: tuple[int, int],
    mib: int,
    codec: str,
) -> bytes:
    out = bytearray([VERSIONS[version]])
    if number is not None:
        out += T.encode_mb_u_int32(number)
    else:
        assert fpi is not None
        out += bytes([STRING_TABLE_PUBLIC_ID]) + T.encode_mb_u_int32(layout.offset[fpi])
    if version != (1, 0):  # WBXML 1.0 had no charset field
        out += T.encode_mb_u_int32(mib)
    out += T.encode_mb_u_int32(len(layout.data)) + layout.data
    cache: dict[_Slot, bytes] = {}
    for item in plan:
        if isinstance(item, bytes):
            out += item
        elif isinstance(item, _Ref):
            out.append(item.token)
            out += T.encode_mb_u_int32(layout.offset[item.text])
        else:
            chunk = cache.get(item)
            if chunk is None:
                chunk = cache[item] = _slot_bytes(pieces.get(item, [item.text]), codec)
            out += chunk
    return bytes(out)


def _slot_bytes(pieces: list[str | int], codec: str) -> bytes:
    out = bytearray()
    for piece in pieces:
        if isinstance(piece, int):
            out.append(T.STR_T)
            out += T.encode_mb_u_int32(piece)
        else:
            data = piece.encode(codec, "xmlcharrefreplace")
            if b"\x00" in data:
                raise WbxmlError("strings cannot contain NUL (WBXML 5.8.4.1 terminates them)")
            out.append(T.STR_I)
            out += data + b"\x00"
    return bytes(out)
