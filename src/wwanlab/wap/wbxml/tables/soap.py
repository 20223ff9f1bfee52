"""A SOAP 1.1 envelope token table of wwanlab's own design (no standard one exists).

Neither the WAP Forum nor libwbxml define WBXML tokens for SOAP; paper 001 (Gehlen and
Bergs) encodes SOAP calls with WBXML but does not publish its table. This one tokenises
the envelope vocabulary of SOAP 1.1 (W3C Note 08 May 2000, sections 4 and 5) with the
three usual prefixes, the namespace declarations and the ``xsi:type`` values a SOAP
encoding (section 5) writes most. Application elements (the call itself) stay literal.
It has no well-known public id: documents name it by the FPI below, carried in the
string table (WBXML 5.5), or the receiver is told the table out of band.
"""

from wwanlab.wap.wbxml.tables.base import TokenTable, attr_page, page

ENVELOPE_NS = "http://schemas.xmlsoap.org/soap/envelope/"
ENCODING_NS = "http://schemas.xmlsoap.org/soap/encoding/"

_TAGS = {
    0x05: "SOAP-ENV:Envelope", 0x06: "SOAP-ENV:Header", 0x07: "SOAP-ENV:Body",
    0x08: "SOAP-ENV:Fault", 0x09: "faultcode", 0x0A: "faultstring", 0x0B: "faultactor",
    0x0C: "detail", 0x0D: "soap:Envelope", 0x0E: "soap:Header", 0x0F: "soap:Body",
    0x10: "soap:Fault", 0x11: "env:Envelope", 0x12: "env:Header", 0x13: "env:Body",
    0x14: "env:Fault", 0x15: "item", 0x16: "return", 0x17: "result",
}  # fmt: skip

_ATTRS = {
    0x05: "xmlns:SOAP-ENV", 0x06: f"xmlns:SOAP-ENV={ENVELOPE_NS}",
    0x07: f"xmlns:SOAP-ENC={ENCODING_NS}", 0x08: "xmlns:SOAP-ENC",
    0x09: "xmlns:xsi=http://www.w3.org/2001/XMLSchema-instance",
    0x0A: "xmlns:xsi=http://www.w3.org/1999/XMLSchema-instance", 0x0B: "xmlns:xsi",
    0x0C: "xmlns:xsd=http://www.w3.org/2001/XMLSchema",
    0x0D: "xmlns:xsd=http://www.w3.org/1999/XMLSchema", 0x0E: "xmlns:xsd",
    0x0F: f"SOAP-ENV:encodingStyle={ENCODING_NS}", 0x10: "SOAP-ENV:encodingStyle",
    0x11: "xsi:type", 0x12: "xsi:type=xsd:string", 0x13: "xsi:type=xsd:int",
    0x14: "xsi:type=xsd:boolean", 0x15: "xsi:type=xsd:double", 0x16: "xsi:type=xsd:float",
    0x17: "xsi:type=xsd:long", 0x18: "xsi:type=xsd:dateTime",
    0x19: "xsi:type=SOAP-ENC:Array", 0x1A: "SOAP-ENC:arrayType",
    0x1B: "SOAP-ENV:mustUnderstand=1", 0x1C: "SOAP-ENV:actor", 0x1D: "xsi:nil=true",
    0x1E: f"xmlns:soap={ENVELOPE_NS}", 0x1F: "xmlns:soap",
    0x20: f"soap:encodingStyle={ENCODING_NS}", 0x21: f"xmlns:soapenc={ENCODING_NS}",
    0x22: "xsi:type=soapenc:Array", 0x23: "soapenc:arrayType",
    0x24: f"xmlns:env={ENVELOPE_NS}", 0x25: f"env:encodingStyle={ENCODING_NS}",
    0x26: "xmlns", 0x27: "id", 0x28: "href", 0x29: "xmlns:ns1", 0x2A: "xmlns:ns1=urn:",
    0x2B: "xmlns:m", 0x2C: "xmlns:m=urn:",
}  # fmt: skip

_VALUES = {
    0x85: ENVELOPE_NS, 0x86: ENCODING_NS, 0x87: "http://www.w3.org/2001/XMLSchema",
    0x88: "http://www.w3.org/1999/XMLSchema", 0x89: "-instance", 0x8A: "xsd:",
    0x8B: "urn:", 0x8C: "http://", 0x8D: "http://www.", 0x8E: ".com/", 0x8F: ".org/",
    0x90: "string", 0x91: "int", 0x92: "SOAP-ENV:Client", 0x93: "SOAP-ENV:Server",
}  # fmt: skip

SOAP11 = TokenTable(
    name="soap11",
    public_id=None,
    fpi="-//WWANLAB//DTD SOAP 1.1 WBXML 1.0//EN",
    system_id="",
    root="SOAP-ENV:Envelope",
    tags=page(0, _TAGS),
    attr_starts=attr_page(0, _ATTRS),
    attr_values=page(0, _VALUES),
    root_namespace=ENVELOPE_NS,
)
