"""WTP numbers with the spec's names.

Section numbers cite WAP-201-WTP (WAP WTP Version 11-June-1999), clause 9 "Structure
and encoding of protocol data units"; names added by WAP-224-WTP (10-Jul-2001) say so.
"""

from enum import IntEnum

WTP_VERSION = 0x00  # WTP 9.3.1: the version field of an Invoke; 0 is the current version

MAX_TID = 0x7FFF  # WTP 9.2.4: 15 bits of TID, the 16th is the direction flag
TID_RESPONSE_BIT = 0x8000  # WTP 9.2.4: set in every PDU the responder sends


class PduType(IntEnum):
    """WTP 9.2.3, the 4-bit PDU Type of the first octet."""

    NOT_ALLOWED = 0x00  # marks a concatenation of PDUs instead
    INVOKE = 0x01
    RESULT = 0x02
    ACK = 0x03
    ABORT = 0x04
    SEGMENTED_INVOKE = 0x05
    SEGMENTED_RESULT = 0x06
    NEGATIVE_ACK = 0x07


class TransactionClass(IntEnum):
    """WTP 9.3.1 TCL and WTP 5.3: the three transaction classes."""

    CLASS_0 = 0x00  # unreliable invoke message without result message
    CLASS_1 = 0x01  # reliable invoke message without result message
    CLASS_2 = 0x02  # reliable invoke message with exactly one reliable result message


class AbortType(IntEnum):
    """WTP 9.3.4, the 3-bit Abort Type."""

    PROVIDER = 0x00  # TCP: WTP itself aborted
    USER = 0x01  # the WTP user (WSP) aborted; the reason is WSP's (WSP Table 35)


class AbortReason(IntEnum):
    """WTP 9.3.4.1, provider abort reasons (the reason octet when AbortType.PROVIDER)."""

    UNKNOWN = 0x00  # a generic error code
    PROTOERR = 0x01  # protocol error, illegal PDU received
    INVALIDTID = 0x02  # invalid TID
    NOTIMPLEMENTEDCL2 = 0x03  # transaction class 2 is not implemented
    NOTIMPLEMENTEDSAR = 0x04  # segmentation and re-assembly is not implemented
    NOTIMPLEMENTEDUACK = 0x05  # user acknowledgement is not implemented
    WTPVERSIONONE = 0x06  # peer speaks another WTP version (WAP-201 calls it WTPVERSIONZERO)
    CAPTEMPEXCEEDED = 0x07  # capacity temporarily exceeded
    NORESPONSE = 0x08  # no response: the user did not answer in time
    MESSAGETOOLARGE = 0x09  # message too large
    NOTIMPLEMENTEDESAR = 0x0A  # extended SAR is not implemented (WAP-224 9.3.4.1)


class TpiIdentity(IntEnum):
    """WTP 9.4.1, the 4-bit identity of a Transport Information Item."""

    ERROR = 0x00
    INFO = 0x01
    OPTION = 0x02
    PACKET_SEQUENCE_NUMBER = 0x03
    SDU_BOUNDARY = 0x04
    FRAME_BOUNDARY = 0x05


class OptionId(IntEnum):
    """WTP 9.4.4 and the OMNA WTP Option TPI registry: the first octet of an Option TPI."""

    MAXIMUM_RECEIVE_UNIT = 0x01
    TOTAL_MESSAGE_SIZE = 0x02
    DELAY_TRANSMISSION_TIMER = 0x03  # in 1/10 s, sent in the Ack of a packet group
    MAXIMUM_GROUP_SIZE = 0x04
    CURRENT_TID = 0x05  # TID verification: the responder's cached TID
    NO_CACHED_TID = 0x06


MAX_SHORT_TPI_LENGTH = 3  # WTP 9.4.1: 2-bit length in the short form
MAX_LONG_TPI_LENGTH = 0xFF  # WTP 9.4.1: one length octet in the long form
MAX_SHORT_CONCAT_LENGTH = 0x7F  # concatenation: one length octet, MSB clear
MAX_LONG_CONCAT_LENGTH = 0x7FFF  # concatenation: two length octets, MSB of the first set
