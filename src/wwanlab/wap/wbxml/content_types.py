"""Textual content types and the binary types a WAP gateway turns them into.

Type names from the WINA registry as assigned in WAP-230-WSP appendix A (content type
assignments 0x08 text/vnd.wap.wml -> 0x14 application/vnd.wap.wmlc, 0x2D/0x2E SI,
0x2F/0x30 SL, 0x31/0x32 CO, 0x35/0x36 connectivity, 0x42/0x43 SyncML).
"""

from __future__ import annotations

from wwanlab.wap.wbxml.encoder import encode
from wwanlab.wap.wbxml.tables import TokenTable, table_by_name
from wwanlab.wap.wbxml.wmlc import compile_wml
from wwanlab.wap.wbxml.xmlio import Whitespace
from wwanlab.web.media_type import parse_media_type

BINARY_TYPES: dict[str, str] = {
    "text/vnd.wap.wml": "application/vnd.wap.wmlc",
    "text/vnd.wap.si": "application/vnd.wap.sic",
    "text/vnd.wap.sl": "application/vnd.wap.slc",
    "text/vnd.wap.co": "application/vnd.wap.coc",
    "text/vnd.wap.connectivity-xml": "application/vnd.wap.connectivity-wbxml",
    "application/vnd.syncml+xml": "application/vnd.syncml+wbxml",
}
"""Textual type -> its WBXML type."""

TEXT_TYPES: dict[str, str] = {binary: text for text, binary in BINARY_TYPES.items()}

_TABLES: dict[str, str] = {
    "text/vnd.wap.si": "si10",
    "text/vnd.wap.sl": "sl10",
    "text/vnd.wap.co": "co10",
    "text/vnd.wap.connectivity-xml": "prov10",
}


def compile_content(content_type: str, body: bytes, version: str = "1.3") -> tuple[str, bytes]:
    """What a gateway sends for an origin response: (binary type, WBXML body).

    ``content_type`` may carry parameters (``; charset=...``); a type with no binary form
    raises ``KeyError`` and a malformed one ``ValueError``, so the caller decides to pass
    it through. SyncML names its version in the DOCTYPE or namespace, so the table is
    found from the document.
    """
    base = parse_media_type(content_type).essence
    binary = BINARY_TYPES[base]
    if base == "text/vnd.wap.wml":
        return binary, compile_wml(body, version)
    table: TokenTable | None = table_by_name(_TABLES[base]) if base in _TABLES else None
    whitespace: Whitespace = "trim" if table is not None else "ignorable"
    return binary, encode(body, version=version, table=table, whitespace=whitespace)
