"""Provisioning content 1.0 (WAP-183-ProvCont-20010724-a, section 7).

Code page 0 is WAP-183's (tags 7.1, attribute starts 7.2, values 7.3); the page-1
entries and the few page-0 additions marked "ProvCont 1.1" come from
OMA-WAP-ProvCont-v1_1, which kept the same public id (0x0B, WBXML 7.2.1).
"""

from wwanlab.wap.wbxml.tables.base import TokenTable, attr_page, page

_TAGS = {
    **page(0, {0x05: "wap-provisioningdoc", 0x06: "characteristic", 0x07: "parm"}),
    **page(1, {0x06: "characteristic", 0x07: "parm"}),  # ProvCont 1.1
}

_PARM_NAMES_0 = {
    0x07: "NAME", 0x08: "NAP-ADDRESS", 0x09: "NAP-ADDRTYPE", 0x0A: "CALLTYPE",
    0x0B: "VALIDUNTIL", 0x0C: "AUTHTYPE", 0x0D: "AUTHNAME", 0x0E: "AUTHSECRET",
    0x0F: "LINGER", 0x10: "BEARER", 0x11: "NAPID", 0x12: "COUNTRY", 0x13: "NETWORK",
    0x14: "INTERNET", 0x15: "PROXY-ID", 0x16: "PROXY-PROVIDER-ID", 0x17: "DOMAIN",
    0x18: "PROVURL", 0x19: "PXAUTH-TYPE", 0x1A: "PXAUTH-ID", 0x1B: "PXAUTH-PW",
    0x1C: "STARTPAGE", 0x1D: "BASAUTH-ID", 0x1E: "BASAUTH-PW", 0x1F: "PUSHENABLED",
    0x20: "PXADDR", 0x21: "PXADDRTYPE", 0x22: "TO-NAPID", 0x23: "PORTNBR",
    0x24: "SERVICE", 0x25: "LINKSPEED", 0x26: "DNLINKSPEED", 0x27: "LOCAL-ADDR",
    0x28: "LOCAL-ADDRTYPE", 0x29: "CONTEXT-ALLOW", 0x2A: "TRUST", 0x2B: "MASTER",
    0x2C: "SID", 0x2D: "SOC", 0x2E: "WSP-VERSION", 0x2F: "PHYSICAL-PROXY-ID",
    0x30: "CLIENT-ID", 0x31: "DELIVERY-ERR-SDU", 0x32: "DELIVERY-ORDER",
    0x33: "TRAFFIC-CLASS", 0x34: "MAX-SDU-SIZE", 0x35: "MAX-BITRATE-UPLINK",
    0x36: "MAX-BITRATE-DNLINK", 0x37: "RESIDUAL-BER", 0x38: "SDU-ERROR-RATIO",
    0x39: "TRAFFIC-HANDL-PRIO", 0x3A: "TRANSFER-DELAY",
    0x3B: "GUARANTEED-BITRATE-UPLINK", 0x3C: "GUARANTEED-BITRATE-DNLINK",
    # ProvCont 1.1 additions on page 0
    0x3D: "PXADDR-FQDN", 0x3E: "PROXY-PW", 0x3F: "PPGAUTH-TYPE", 0x47: "PULLENABLED",
    0x48: "DNS-ADDR", 0x49: "MAX-NUM-RETRY", 0x4A: "FIRST-RETRY-TIMEOUT",
    0x4B: "REREG-THRESHOLD", 0x4C: "T-BIT", 0x4E: "AUTH-ENTITY", 0x4F: "SPI",
}  # fmt: skip

_CHAR_TYPES_0 = {
    0x51: "PXLOGICAL", 0x52: "PXPHYSICAL", 0x53: "PORT", 0x54: "VALIDITY",
    0x55: "NAPDEF", 0x56: "BOOTSTRAP", 0x57: "VENDORCONFIG", 0x58: "CLIENTIDENTITY",
    0x59: "PXAUTHINFO", 0x5A: "NAPAUTHINFO", 0x5B: "ACCESS",
}  # fmt: skip

_ATTRS = {
    **attr_page(
        0,
        {
            0x05: "name",
            0x06: "value",
            0x45: "version",
            0x46: "version=1.0",
            0x50: "type",
            **{t: f"name={v}" for t, v in _PARM_NAMES_0.items()},
            **{t: f"type={v}" for t, v in _CHAR_TYPES_0.items()},
        },
    ),
    **attr_page(  # ProvCont 1.1 page 1
        1,
        {
            0x05: "name",
            0x06: "value",
            0x07: "name=NAME",
            0x14: "name=INTERNET",
            0x1C: "name=STARTPAGE",
            0x22: "name=TO-NAPID",
            0x23: "name=PORTNBR",
            0x24: "name=SERVICE",
            0x2E: "name=AACCEPT",
            0x2F: "name=AAUTHDATA",
            0x30: "name=AAUTHLEVEL",
            0x31: "name=AAUTHNAME",
            0x32: "name=AAUTHSECRET",
            0x33: "name=AAUTHTYPE",
            0x34: "name=ADDR",
            0x35: "name=ADDRTYPE",
            0x36: "name=APPID",
            0x37: "name=APROTOCOL",
            0x38: "name=PROVIDER-ID",
            0x39: "name=TO-PROXY",
            0x3A: "name=URI",
            0x3B: "name=RULE",
            0x50: "type",
            0x53: "type=PORT",
            0x55: "type=APPLICATION",
            0x56: "type=APPADDR",
            0x57: "type=APPAUTH",
            0x58: "type=CLIENTIDENTITY",
            0x59: "type=RESOURCE",
        },
    ),
}

_VALUES = {
    **page(
        0,
        {
            0x85: "IPV4",
            0x86: "IPV6",
            0x87: "E164",
            0x88: "ALPHA",
            0x89: "APN",
            0x8A: "SCODE",
            0x8B: "TETRA-ITSI",
            0x8C: "MAN",
            0x90: "ANALOG-MODEM",
            0x91: "V.120",
            0x92: "V.110",
            0x93: "X.31",
            0x94: "BIT-TRANSPARENT",
            0x95: "DIRECT-ASYNCHRONOUS-DATA-SERVICE",
            0x9A: "PAP",
            0x9B: "CHAP",
            0x9C: "HTTP-BASIC",
            0x9D: "HTTP-DIGEST",
            0x9E: "WTLS-SS",
            0x9F: "MD5",
            0xA2: "GSM-USSD",
            0xA3: "GSM-SMS",
            0xA4: "ANSI-136-GUTS",
            0xA5: "IS-95-CDMA-SMS",
            0xA6: "IS-95-CDMA-CSD",
            0xA7: "IS-95-CDMA-PACKET",
            0xA8: "ANSI-136-CSD",
            0xA9: "ANSI-136-GPRS",
            0xAA: "GSM-CSD",
            0xAB: "GSM-GPRS",
            0xAC: "AMPS-CDPD",
            0xAD: "PDC-CSD",
            0xAE: "PDC-PACKET",
            0xAF: "IDEN-SMS",
            0xB0: "IDEN-CSD",
            0xB1: "IDEN-PACKET",
            0xB2: "FLEX/REFLEX",
            0xB3: "PHS-SMS",
            0xB4: "PHS-CSD",
            0xB5: "TETRA-SDS",
            0xB6: "TETRA-PACKET",
            0xB7: "ANSI-136-GHOST",
            0xB8: "MOBITEX-MPAK",
            0xB9: "CDMA2000-1X-SIMPLE-IP",
            0xBA: "CDMA2000-1X-MOBILE-IP",
            0xC5: "AUTOBAUDING",
            0xCA: "CL-WSP",
            0xCB: "CO-WSP",
            0xCC: "CL-SEC-WSP",
            0xCD: "CO-SEC-WSP",
            0xCE: "CL-SEC-WTA",
            0xCF: "CO-SEC-WTA",
            0xD0: "OTA-HTTP-TO",
            0xD1: "OTA-HTTP-TLS-TO",
            0xD2: "OTA-HTTP-PO",
            0xD3: "OTA-HTTP-TLS-PO",
            0xE0: "AAA",
            0xE1: "HA",
        },
    ),
    **page(
        1,
        {
            0x86: "IPV6",
            0x87: "E164",
            0x88: "ALPHA",
            0x8D: "APPSRV",
            0x8E: "OBEX",
            0x90: ",",
            0x91: "HTTP-",
            0x92: "BASIC",
            0x93: "DIGEST",
        },
    ),
}

PROV10 = TokenTable(
    name="prov10",
    public_id=0x0B,
    fpi="-//WAPFORUM//DTD PROV 1.0//EN",
    system_id="http://www.wapforum.org/DTD/prov.dtd",
    root="wap-provisioningdoc",
    collapse_space=True,
    tags=_TAGS,
    attr_starts=_ATTRS,
    attr_values=_VALUES,
)
