"""SOAP envelopes in WBXML with the project's SOAP 1.1 token table (``tables/soap.py``).

The codec the gateway (``wap.gateway.translate``) and the SOAP endpoints
(``wwanlab.soap``) share, so it lives below both, with its error and SOAP's XML type.

No content type is registered for WBXML-encoded SOAP; the vendor type below names it
on the wire, so a gateway knows to decode a Post's body before the HTTP service sees it
and a client asks for it with Accept.
"""

import dataclasses

from wwanlab.core.errors import WwanlabError
from wwanlab.wap.wbxml import WbxmlError, decode, encode, to_xml
from wwanlab.wap.wbxml.tables.soap import SOAP11

SOAP_WBXML = "application/vnd.wwanlab.soap+wbxml"
XML_CONTENT_TYPE = "text/xml; charset=utf-8"  # SOAP 1.1 section 6.1.1


class SoapError(WwanlabError):
    """An envelope that is not a well-formed SOAP 1.1 RPC message."""


def to_wbxml(xml: bytes) -> bytes:
    """A SOAP envelope (XML) as WBXML 1.3 with the SOAP token table; raises ``SoapError``."""
    try:
        return encode(xml, version="1.3", table=SOAP11)
    except WbxmlError as exc:
        raise SoapError(f"cannot encode the envelope as WBXML: {exc}") from None


def from_wbxml(data: bytes) -> bytes:
    """The XML envelope of a WBXML SOAP body; raises ``SoapError``."""
    try:
        doc = decode(data, table=SOAP11)
    except WbxmlError as exc:
        raise SoapError(f"WBXML SOAP body does not decode: {exc}") from None
    # SOAP 1.1 section 3: a SOAP message must not contain a DTD, so the table's FPI
    # (which names the token table, WBXML 5.5) does not become a DOCTYPE.
    try:
        return to_xml(dataclasses.replace(doc, public_id=None, system_id=None))
    except WbxmlError as exc:
        raise SoapError(f"WBXML SOAP body does not decode: {exc}") from None
