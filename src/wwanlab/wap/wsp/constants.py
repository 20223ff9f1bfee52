"""WSP protocol numbers with the spec's names (WAP-203-WSP Appendix A and clause 8).

Header field, content-type, charset and language numbers live in ``assigned``; status
codes in ``status``.
"""

from enum import IntEnum

from wwanlab.wap.wtp.constants import AbortReason as WtpAbortReason
from wwanlab.wap.wtp.constants import AbortType

WSP_VERSION = 0x10  # WSP 8.2.2.1: Connect carries major 1, minor 0 in one octet


class PduType(IntEnum):
    """WSP Table 34 (Appendix A): the PDU Type octet."""

    CONNECT = 0x01
    CONNECT_REPLY = 0x02
    REDIRECT = 0x03
    REPLY = 0x04
    DISCONNECT = 0x05
    PUSH = 0x06
    CONFIRMED_PUSH = 0x07
    SUSPEND = 0x08
    RESUME = 0x09
    GET = 0x40
    OPTIONS = 0x41
    HEAD = 0x42
    DELETE = 0x43
    TRACE = 0x44
    POST = 0x60
    PUT = 0x61


GET_EXTENDED_FIRST = 0x50  # Table 34: 0x50-0x5F, extended methods sent as a Get PDU
GET_EXTENDED_LAST = 0x5F
POST_EXTENDED_FIRST = 0x70  # Table 34: 0x70-0x7F, extended methods sent as a Post PDU
POST_EXTENDED_LAST = 0x7F
GET_METHODS = frozenset(
    [*range(PduType.GET, PduType.TRACE + 1), *range(GET_EXTENDED_FIRST, GET_EXTENDED_LAST + 1)]
)
POST_METHODS = frozenset(
    [*range(PduType.POST, PduType.PUT + 1), *range(POST_EXTENDED_FIRST, POST_EXTENDED_LAST + 1)]
)
# WSP Table 34: the HTTP method name of each well-known method's PDU type (the Allow and
# Public headers encode methods by the same numbers)
METHOD_NAMES: dict[int, str] = {
    PduType.GET: "GET",
    PduType.OPTIONS: "OPTIONS",
    PduType.HEAD: "HEAD",
    PduType.DELETE: "DELETE",
    PduType.TRACE: "TRACE",
    PduType.POST: "POST",
    PduType.PUT: "PUT",
}


class AbortReason(IntEnum):
    """WSP Table 35: reason codes of S-Disconnect, S-MethodAbort and the WTP user abort."""

    PROTOERR = 0xE0
    DISCONNECT = 0xE1
    SUSPEND = 0xE2
    RESUME = 0xE3
    CONGESTION = 0xE4
    CONNECTERR = 0xE5
    MRUEXCEEDED = 0xE6
    MOREXCEEDED = 0xE7
    PEERREQ = 0xE8
    NETERR = 0xE9
    USERREQ = 0xEA
    USERRFS = 0xEB
    USERPND = 0xEC
    USERDCR = 0xED
    USERDCU = 0xEE


def abort_reason_name(reason: int, abort_type: int | None = None) -> str:
    """An abort reason by its spec name: a WTP provider reason (WTP 9.3.4.1, 0x00-0x0A)
    or a WSP user reason (Table 35, 0xE0-0xEE), as WSP passes both up in one octet; the
    ranges do not overlap, so ``abort_type`` is needed only to refuse a mismatch. A
    number neither table names stays in hex."""
    table: type[IntEnum]
    for table, kind in ((WtpAbortReason, AbortType.PROVIDER), (AbortReason, AbortType.USER)):
        if abort_type in (None, kind) and reason in table._value2member_map_:
            return table(reason).name
    return f"{reason:#04x}"


class CapabilityId(IntEnum):
    """WSP Table 37: well-known capability identifiers (WSP 8.3.2)."""

    CLIENT_SDU_SIZE = 0x00
    SERVER_SDU_SIZE = 0x01
    PROTOCOL_OPTIONS = 0x02
    METHOD_MOR = 0x03
    PUSH_MOR = 0x04
    EXTENDED_METHODS = 0x05
    HEADER_CODE_PAGES = 0x06
    ALIASES = 0x07
    CLIENT_MESSAGE_SIZE = 0x08  # WAP-230
    SERVER_MESSAGE_SIZE = 0x09  # WAP-230


# WSP 8.3.2.3: bits of the first Protocol Options octet
OPTION_CONFIRMED_PUSH = 0x80
OPTION_PUSH = 0x40
OPTION_SESSION_RESUME = 0x20
OPTION_ACKNOWLEDGEMENT_HEADERS = 0x10
OPTION_LARGE_DATA_TRANSFER = 0x08  # WAP-230

# WSP 8.2.2.3: Redirect flags
REDIRECT_PERMANENT = 0x80
REDIRECT_REUSE_SECURITY_SESSION = 0x40

# WSP 8.2.2.3: Address Type And Length octet of a redirect address (and of an alias)
ADDRESS_BEARER_TYPE_INCLUDED = 0x80
ADDRESS_PORT_NUMBER_INCLUDED = 0x40
ADDRESS_LENGTH_MASK = 0x3F

CONNECTIONLESS_PORT = 9200  # WDP/WAP assigned port: connectionless WSP
CONNECTION_ORIENTED_PORT = 9201  # WSP over WTP
