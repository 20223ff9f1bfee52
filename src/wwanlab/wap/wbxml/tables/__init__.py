"""Token tables (code pages) and their lookup by public identifier.

A table maps, per code page, tag tokens to tag names, attribute-start tokens to an
attribute name plus value prefix, and attribute-value tokens to strings (WBXML 5.8.2,
5.8.3). Numbers come from each document type's specification, cited in its module.
"""

from __future__ import annotations

from collections.abc import Iterable

from wwanlab.wap.wbxml.errors import WbxmlError
from wwanlab.wap.wbxml.tables.base import TokenTable
from wwanlab.wap.wbxml.tables.ota import OTA7, UNKNOWN_PUBLIC_ID
from wwanlab.wap.wbxml.tables.prov import PROV10
from wwanlab.wap.wbxml.tables.push import CO10, SI10, SL10
from wwanlab.wap.wbxml.tables.soap import SOAP11
from wwanlab.wap.wbxml.tables.syncml import (
    DEVINF11,
    DEVINF12,
    METINF12,
    SYNCML11,
    SYNCML12,
)
from wwanlab.wap.wbxml.tables.wml import WML11, WML12, WML13

ALL_TABLES: tuple[TokenTable, ...] = (
    WML11, WML12, WML13, SI10, SL10, CO10, PROV10,
    SYNCML11, DEVINF11, SYNCML12, METINF12, DEVINF12, SOAP11, OTA7,
)  # fmt: skip

# A table sent as "unknown" (OTA settings) is found from its root, never from the header.
_BY_NUMBER = {t.public_id: t for t in ALL_TABLES if t.public_id not in (None, UNKNOWN_PUBLIC_ID)}
_BY_FPI = {t.fpi: t for t in ALL_TABLES if t.fpi}
_BY_NAME = {t.name.lower(): t for t in ALL_TABLES}


def table_for_public_id(public_id: int | str) -> TokenTable | None:
    """The table of a public identifier: a well-known number (WBXML 7.2.1) or an FPI."""
    if isinstance(public_id, int):
        return _BY_NUMBER.get(public_id)
    return _BY_FPI.get(public_id)


def table_by_name(name: str) -> TokenTable:
    """A table by short name (``wml13``, ``si10``, ``syncml12``, ``soap11``...) or FPI."""
    table = _BY_NAME.get(name.lower()) or _BY_FPI.get(name)
    if table is None:
        known = ", ".join(sorted(_BY_NAME))
        raise WbxmlError(f"unknown document type {name!r} (known: {known})")
    return table


def table_for_root(root_tag: str, namespaces: Iterable[str] = ()) -> TokenTable | None:
    """Guess a table from the root element when the document names no public id.

    Only unambiguous guesses: a namespace a table puts on its first code page (SyncML,
    SOAP), or a root tag some table starts with (the latest version wins: WML 1.3).
    """
    local = root_tag.rpartition(":")[2]
    for namespace in namespaces:
        for table in ALL_TABLES:
            if namespace in (table.root_namespace, table.page_namespaces.get(0)) and (
                table.root.rpartition(":")[2] == local
            ):
                return table
    by_root = [t for t in ALL_TABLES if t.root == root_tag and not t.namespaces]
    return by_root[-1] if by_root else None


__all__ = [
    "ALL_TABLES",
    "TokenTable",
    "table_by_name",
    "table_for_public_id",
    "table_for_root",
]
