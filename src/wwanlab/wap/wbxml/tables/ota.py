"""Nokia/Ericsson Over The Air Settings 7.0: browser settings and bookmarks by SMS.

The pre-WAP-provisioning format Kannel 1.4 still sends (its ``ota_compiler`` and the
``bookmark.txt``/``settings4.txt`` test documents). One code page; numbers from the
"Over The Air Settings Specification" 7.0 (Nokia and Ericsson, 2001), cross-checked with
libwbxml 0.11.8's table. The format has no formal public identifier and no well-known
number: documents carry public id 1 (unknown, WBXML 7.2.1), so a reader must be told
the type (``decode(..., table=table_by_name("ota7"))``); the encoder finds it from the
root element.
"""

from wwanlab.wap.wbxml.tables.base import TokenTable, attr_page, page

UNKNOWN_PUBLIC_ID = 0x01  # WBXML 7.2.1

OTA7 = TokenTable(
    name="ota7",
    public_id=UNKNOWN_PUBLIC_ID,
    fpi="",
    system_id="",
    root="CHARACTERISTIC-LIST",
    collapse_space=True,
    tags=page(0, {0x05: "CHARACTERISTIC-LIST", 0x06: "CHARACTERISTIC", 0x07: "PARM"}),
    attr_starts=attr_page(
        0,
        {
            0x06: "TYPE=ADDRESS", 0x07: "TYPE=URL", 0x08: "TYPE=NAME",
            0x10: "NAME", 0x11: "VALUE",
            0x12: "NAME=BEARER", 0x13: "NAME=PROXY", 0x14: "NAME=PORT", 0x15: "NAME=NAME",
            0x16: "NAME=PROXY_TYPE", 0x17: "NAME=URL", 0x18: "NAME=PROXY_AUTHNAME",
            0x19: "NAME=PROXY_AUTHSECRET", 0x1A: "NAME=SMS_SMSC_ADDRESS",
            0x1B: "NAME=USSD_SERVICE_CODE", 0x1C: "NAME=GPRS_ACCESSPOINTNAME",
            0x1D: "NAME=PPP_LOGINTYPE", 0x1E: "NAME=PROXY_LOGINTYPE",
            0x21: "NAME=CSD_DIALSTRING", 0x22: "NAME=PPP_AUTHTYPE", 0x23: "NAME=PPP_AUTHNAME",
            0x24: "NAME=PPP_AUTHSECRET", 0x28: "NAME=CSD_CALLTYPE", 0x29: "NAME=CSD_CALLSPEED",
            0x45: "VALUE=GSM/CSD", 0x46: "VALUE=GSM/SMS", 0x47: "VALUE=GSM/USSD",
            0x48: "VALUE=IS-136/CSD", 0x49: "VALUE=GPRS",
            0x60: "VALUE=9200", 0x61: "VALUE=9201", 0x62: "VALUE=9202", 0x63: "VALUE=9203",
            0x64: "VALUE=AUTOMATIC", 0x65: "VALUE=MANUAL", 0x6A: "VALUE=AUTO",
            0x6B: "VALUE=9600", 0x6C: "VALUE=14400", 0x6D: "VALUE=19200",
            0x6E: "VALUE=28800", 0x6F: "VALUE=38400", 0x70: "VALUE=PAP", 0x71: "VALUE=CHAP",
            0x72: "VALUE=ANALOGUE", 0x73: "VALUE=ISDN", 0x74: "VALUE=43200",
            0x75: "VALUE=57600", 0x76: "VALUE=MSISDN_NO", 0x77: "VALUE=IPV4",
            0x78: "VALUE=MS_CHAP",
            0x7C: "TYPE=MMSURL", 0x7D: "TYPE=ID", 0x7E: "NAME=ISP_NAME", 0x7F: "TYPE=BOOKMARK",
        },
    ),
)  # fmt: skip
