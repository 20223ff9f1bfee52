"""SOAP 1.1 RPC envelopes (W3C Note 08 May 2000): calls, responses and faults as bytes.

Built and parsed with lxml, the maintained libxml2 binding: it writes namespaces and
prefixes exactly as asked (the WBXML token table tokenises the ``SOAP-ENV:`` and
``xsi:type`` spellings that paper 001's era of toolkits wrote), and its parser can be
told to resolve no entity and fetch nothing. SOAP's own libraries do not fit the job:
zeep is a client driven by a WSDL over a synchronous HTTP session, spyne's last release
(2022) predates the Python this project targets; neither lets a call ride on WSP.

Values follow SOAP encoding (section 5) as the RPC convention (section 7) uses it:
``str`` is ``xsd:string``, ``int`` is ``xsd:int``, ``bool`` ``xsd:boolean``, a list of
ints a ``SOAP-ENC:Array`` of ``xsd:int``. Parameters and the return value are accessors
named by position (``arg0``...) or by the caller, and ``return`` respectively.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lxml import etree

from wwanlab.core.errors import WwanlabError
from wwanlab.wap.wbxml.soap import SoapError
from wwanlab.wap.wbxml.tables.soap import ENCODING_NS, ENVELOPE_NS

XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
XSD_NS = "http://www.w3.org/2001/XMLSchema"
SERVICE_NS = "urn:wwanlab-benchmark"  # the benchmark service's method namespace

NSMAP = {"SOAP-ENV": ENVELOPE_NS, "SOAP-ENC": ENCODING_NS, "xsi": XSI_NS, "xsd": XSD_NS}
# SOAP 1.1 6.1.1: a request carries SOAPAction; "" says the intent is the request URI
SOAP_HTTP_HEADERS = (("SOAPAction", '""'),)

MAX_ENVELOPE = 4 * 1024 * 1024  # octets: the largest envelope parsed
MAX_ARRAY = 1_000_000  # items of an array accepted in one value

Value = str | int | bool | list[int] | None

_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)


@dataclass(frozen=True)
class Fault(WwanlabError):
    """A SOAP Fault (section 4.4): ``code`` as ``SOAP-ENV:Client`` or ``SOAP-ENV:Server``."""

    code: str
    string: str

    def __str__(self) -> str:
        return f"SOAP fault {self.code}: {self.string}"


@dataclass(frozen=True)
class Call:
    """An RPC call: the method's name and namespace, its parameters in order."""

    method: str
    params: tuple[tuple[str, Value], ...] = ()
    namespace: str = SERVICE_NS


def _q(ns: str, name: str) -> str:
    return f"{{{ns}}}{name}"


def _envelope() -> tuple[etree._Element, etree._Element]:
    env = etree.Element(_q(ENVELOPE_NS, "Envelope"), nsmap=NSMAP)
    body = etree.SubElement(env, _q(ENVELOPE_NS, "Body"))
    return env, body


def _serialize(env: etree._Element) -> bytes:
    return bytes(etree.tostring(env, xml_declaration=True, encoding="UTF-8"))


def _put(parent: etree._Element, name: str, value: Value) -> None:
    """One accessor with its ``xsi:type`` (section 5.1)."""
    el = etree.SubElement(parent, name)
    xsi_type = _q(XSI_NS, "type")
    if value is None:
        el.set(_q(XSI_NS, "nil"), "true")
    elif isinstance(value, bool):
        el.set(xsi_type, "xsd:boolean")
        el.text = "true" if value else "false"
    elif isinstance(value, int):
        el.set(xsi_type, "xsd:int")
        el.text = str(value)
    elif isinstance(value, str):
        el.set(xsi_type, "xsd:string")
        el.text = value
    else:
        el.set(xsi_type, "SOAP-ENC:Array")
        el.set(_q(ENCODING_NS, "arrayType"), f"xsd:int[{len(value)}]")
        for item in value:
            child = etree.SubElement(el, "item")
            child.text = str(item)


def _method_element(parent: etree._Element, name: str, namespace: str) -> etree._Element:
    el = etree.SubElement(parent, _q(namespace, name), nsmap={"ns1": namespace})
    el.set(_q(ENVELOPE_NS, "encodingStyle"), ENCODING_NS)
    return el


def call_envelope(call: Call) -> bytes:
    """The request envelope of ``call``."""
    env, body = _envelope()
    method = _method_element(body, call.method, call.namespace)
    for name, value in call.params:
        _put(method, name, value)
    return _serialize(env)


def response_envelope(call: Call, value: Value) -> bytes:
    """The response to ``call`` (section 7.1: ``<method>Response`` with ``return``)."""
    env, body = _envelope()
    method = _method_element(body, call.method + "Response", call.namespace)
    if value is not None:
        _put(method, "return", value)
    return _serialize(env)


def fault_envelope(fault: Fault) -> bytes:
    env, body = _envelope()
    el = etree.SubElement(body, _q(ENVELOPE_NS, "Fault"))
    etree.SubElement(el, "faultcode").text = fault.code
    etree.SubElement(el, "faultstring").text = fault.string
    return _serialize(env)


def _parse_body(data: bytes) -> etree._Element:
    if len(data) > MAX_ENVELOPE:
        raise SoapError(f"envelope of {len(data)} octets exceeds {MAX_ENVELOPE}")
    try:
        root = etree.fromstring(data, _PARSER)
    except etree.XMLSyntaxError as exc:
        raise SoapError(f"envelope is not well-formed XML: {exc}") from None
    if root.tag != _q(ENVELOPE_NS, "Envelope"):
        raise SoapError(f"root element is {root.tag!r}, not a SOAP 1.1 Envelope")
    body = root.find(_q(ENVELOPE_NS, "Body"))
    if body is None or len(body) == 0:
        raise SoapError("envelope has no Body entry")
    entry: etree._Element = body[0]
    return entry


def _value(el: etree._Element) -> Value:
    if el.get(_q(XSI_NS, "nil")) in ("true", "1"):
        return None
    xsi_type = el.get(_q(XSI_NS, "type"), "xsd:string")
    kind = xsi_type.rpartition(":")[2]
    text = el.text or ""
    try:
        if kind == "Array":
            if len(el) > MAX_ARRAY:
                raise SoapError(f"array of {len(el)} items exceeds {MAX_ARRAY}")
            return [int(item.text or "") for item in el]
        if kind in ("int", "long", "short"):
            return int(text)
        if kind == "boolean":
            if text not in ("true", "false", "1", "0"):
                raise SoapError(f"not a boolean: {text[:40]!r}")
            return text in ("true", "1")
    except ValueError:
        raise SoapError(f"{el.tag}: not an {kind}: {text[:40]!r}") from None
    return text


def parse_call(data: bytes) -> Call:
    """The call a request envelope carries; raises ``SoapError``."""
    entry = _parse_body(data)
    qname = etree.QName(entry)
    params = tuple((etree.QName(el).localname, _value(el)) for el in entry)
    return Call(qname.localname, params, qname.namespace or "")


def parse_response(data: bytes) -> Value:
    """The return value of a response envelope; raises ``Fault`` or ``SoapError``."""
    entry = _parse_body(data)
    if entry.tag == _q(ENVELOPE_NS, "Fault"):
        raise Fault(entry.findtext("faultcode") or "", entry.findtext("faultstring") or "")
    returned: Sequence[etree._Element] = list(entry)
    return _value(returned[0]) if returned else None
