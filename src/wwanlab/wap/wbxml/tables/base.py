"""The token table type shared by every document type."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

PageToken = tuple[int, int]
"""(code page, token)."""


@dataclass(frozen=True)
class TokenTable:
    """Code pages of one document type.

    ``public_id`` is the well-known number of WBXML 7.2.1 (``None`` for a type that has
    none, as our own SOAP table); ``fpi`` the formal public identifier. ``namespaces``
    maps an XML namespace to the tag code page holding its elements (SyncML's MetInf).
    """

    name: str
    public_id: int | None
    fpi: str
    system_id: str
    root: str
    tags: Mapping[PageToken, str]
    attr_starts: Mapping[PageToken, tuple[str, str]] = field(default_factory=dict)
    attr_values: Mapping[PageToken, str] = field(default_factory=dict)
    namespaces: Mapping[str, int] = field(default_factory=dict)
    root_namespace: str | None = None
    """A namespace that identifies the type when the root declares it (any prefix)."""
    date_attrs: frozenset[str] = frozenset()
    """Attributes whose dates travel as OPAQUE BCD (SI, WAP-167 8.2.2)."""
    collapse_space: bool = False
    """Text whitespace is not significant (WML outside ``pre``, SI, SL, CO, provisioning):
    encoding XML collapses it by default, as Kannel's compilers and libwbxml do."""
    space_kept_in: frozenset[str] = frozenset()
    """Elements whose text keeps its whitespace even so (WML 11.8.1 ``pre``)."""
    space_kept_beside: frozenset[str] = frozenset()
    """Elements whose neighbouring space is significant (WML 11.8.1 emphasis)."""
    whole_text_in: frozenset[str] = frozenset()
    """Elements whose text travels as one string token, never split over several:
    libwbxml 0.11.8 writes each piece of a SyncML ``Data`` as its own CDATA section
    and produces malformed XML when there are several."""

    @cached_property
    def tag_tokens(self) -> dict[str, list[PageToken]]:
        """Tag name -> its (page, token) choices, lowest page first."""
        index: dict[str, list[PageToken]] = {}
        for key in sorted(self.tags):
            index.setdefault(self.tags[key], []).append(key)
        return index

    @cached_property
    def attr_tokens(self) -> dict[str, list[tuple[str, int, int]]]:
        """Attribute name -> (value prefix, page, token) choices, longest prefix first."""
        index: dict[str, list[tuple[str, int, int]]] = {}
        for (page, token), (name, prefix) in sorted(self.attr_starts.items()):
            index.setdefault(name, []).append((prefix, page, token))
        for choices in index.values():
            choices.sort(key=lambda c: (-len(c[0]), c[1]))
        return index

    @cached_property
    def attr_prefixes(self) -> dict[str, tuple[list[int], dict[str, list[tuple[str, int, int]]]]]:
        """Attribute name -> (its prefix lengths, longest first; prefix -> its choices).

        The choices a value can start with are then found by slicing the value at each
        length instead of trying every prefix (provisioning's ``name`` has 87); within
        a prefix they keep ``attr_tokens``' order."""
        index: dict[str, tuple[list[int], dict[str, list[tuple[str, int, int]]]]] = {}
        for name, choices in self.attr_tokens.items():
            by_prefix: dict[str, list[tuple[str, int, int]]] = {}
            for choice in choices:
                by_prefix.setdefault(choice[0], []).append(choice)
            lengths = sorted({len(prefix) for prefix in by_prefix}, reverse=True)
            index[name] = (lengths, by_prefix)
        return index

    @cached_property
    def value_tokens(self) -> dict[str, list[tuple[str, int, int]]]:
        """First character -> (value string, page, token), longest first."""
        index: dict[str, list[tuple[str, int, int]]] = {}
        for (page, token), value in sorted(self.attr_values.items()):
            index.setdefault(value[0], []).append((value, page, token))
        for choices in index.values():
            choices.sort(key=lambda c: (-len(c[0]), c[1]))
        return index

    @cached_property
    def value_pattern(self) -> re.Pattern[str] | None:
        """Matches where any attribute-value string occurs (one scan instead of one per
        value), or None when the table has none."""
        values = sorted(set(self.attr_values.values()))
        return re.compile("|".join(map(re.escape, values))) if values else None

    @cached_property
    def by_code(self) -> tuple[dict[int, str], dict[int, tuple[str, str]], dict[int, str]]:
        """``tags``, ``attr_starts`` and ``attr_values`` keyed by ``page << 8 | token``:
        the decoder looks one up per token, and an int key needs no tuple built."""
        return (
            {page << 8 | token: v for (page, token), v in self.tags.items()},
            {page << 8 | token: v for (page, token), v in self.attr_starts.items()},
            {page << 8 | token: v for (page, token), v in self.attr_values.items()},
        )

    @cached_property
    def page_namespaces(self) -> dict[int, str]:
        return {page: ns for ns, page in self.namespaces.items()}


def page(number: int, entries: Mapping[int, str]) -> dict[PageToken, str]:
    """One tag or attribute-value code page as {(page, token): string}."""
    return {(number, token): name for token, name in entries.items()}


def attr_page(number: int, entries: Mapping[int, str]) -> dict[PageToken, tuple[str, str]]:
    """One attribute-start code page; an entry is ``name`` or ``name=value prefix``."""
    out: dict[PageToken, tuple[str, str]] = {}
    for token, spec in entries.items():
        name, _, prefix = spec.partition("=")
        out[(number, token)] = (name, prefix)
    return out
