"""WBXML (WAP-192-WBXML-20010725): codec, token tables and the WML compiler.

``encode`` turns a document tree or XML bytes into WBXML, ``decode`` the reverse,
``to_xml`` writes a tree as XML, ``compile_wml`` is what a WAP gateway does to a WML
deck before it goes over the air.
"""

from wwanlab.wap.wbxml.decoder import decode
from wwanlab.wap.wbxml.encoder import encode
from wwanlab.wap.wbxml.errors import WbxmlError
from wwanlab.wap.wbxml.tables import (
    ALL_TABLES,
    TokenTable,
    table_by_name,
    table_for_public_id,
    table_for_root,
)
from wwanlab.wap.wbxml.tree import (
    Document,
    Element,
    Entity,
    Extension,
    Opaque,
    ProcessingInstruction,
)
from wwanlab.wap.wbxml.xmlio import parse_xml, to_xml

__all__ = [
    "ALL_TABLES",
    "Document",
    "Element",
    "Entity",
    "Extension",
    "Opaque",
    "ProcessingInstruction",
    "TokenTable",
    "WbxmlError",
    "decode",
    "encode",
    "parse_xml",
    "table_by_name",
    "table_for_public_id",
    "table_for_root",
    "to_xml",
]
