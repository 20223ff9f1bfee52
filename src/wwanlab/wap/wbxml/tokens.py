"""Global tokens and the mb_u_int32 integer of WAP-192-WBXML-20010725.

The global tokens (WBXML 5.8.4, table 4) mean the same on every code page, in the tag
and in the attribute token spaces alike.
"""

from typing import Final

from wwanlab.wap.wbxml.errors import WbxmlError

SWITCH_PAGE: Final = 0x00  # WBXML 5.8.4.7.2: change the code page of the current token space
END: Final = 0x01  # WBXML 5.8.4.3: end of attribute list or of element content
ENTITY: Final = 0x02  # WBXML 5.8.4.3: character entity, mb_u_int32 UCS-4 value follows
STR_I: Final = 0x03  # WBXML 5.8.4.1: inline string, NUL terminated
LITERAL: Final = 0x04  # WBXML 5.8.4.5: unknown tag or attribute name, string table index follows
EXT_I_0: Final = 0x40  # WBXML 5.8.4.2: extension tokens with an inline string
EXT_I_1: Final = 0x41
EXT_I_2: Final = 0x42
PI: Final = 0x43  # WBXML 5.8.4.4: processing instruction
LITERAL_C: Final = 0x44  # unknown tag with content
EXT_T_0: Final = 0x80  # WBXML 5.8.4.2: extension tokens with a string table index
EXT_T_1: Final = 0x81
EXT_T_2: Final = 0x82
STR_T: Final = 0x83  # WBXML 5.8.4.1: string table reference
LITERAL_A: Final = 0x84  # unknown tag with attributes
EXT_0: Final = 0xC0  # WBXML 5.8.4.2: single-byte extension tokens
EXT_1: Final = 0xC1
EXT_2: Final = 0xC2
OPAQUE: Final = 0xC3  # WBXML 5.8.4.6: opaque data, mb_u_int32 length follows
LITERAL_AC: Final = 0xC4  # unknown tag with content and attributes

TAG_ATTRIBUTES: Final = 0x80  # WBXML 5.8.2: bit 7 of a tag token, attributes follow
TAG_CONTENT: Final = 0x40  # WBXML 5.8.2: bit 6 of a tag token, content follows
TAG_ID_MASK: Final = 0x3F

GLOBAL_TOKENS: Final = frozenset(
    {
        SWITCH_PAGE, END, ENTITY, STR_I, LITERAL,
        EXT_I_0, EXT_I_1, EXT_I_2, PI, LITERAL_C,
        EXT_T_0, EXT_T_1, EXT_T_2, STR_T, LITERAL_A,
        EXT_0, EXT_1, EXT_2, OPAQUE, LITERAL_AC,
    }
)  # fmt: skip

FIRST_APP_TOKEN: Final = 0x05  # WBXML 5.8.2: application tag and attribute tokens start here
ATTR_VALUE_MIN: Final = 0x80  # WBXML 5.8.3: attribute value tokens are >= 128, starts below

MB_U_INT32_MAX_OCTETS: Final = 5  # WBXML 5.1: a 32-bit value needs at most five 7-bit octets
MB_U_INT32_MAX: Final = 0xFFFFFFFF


def encode_mb_u_int32(value: int) -> bytes:
    """Big-endian base-128 with continuation bit 7 (WBXML 5.1)."""
    if not 0 <= value <= MB_U_INT32_MAX:
        raise WbxmlError(f"mb_u_int32 out of range: {value}")
    out = bytearray([value & 0x7F])
    value >>= 7
    while value:
        out.append(0x80 | (value & 0x7F))
        value >>= 7
    out.reverse()
    return bytes(out)


def mb_u_int32_size(value: int) -> int:
    """Octets ``encode_mb_u_int32(value)`` takes, without building it."""
    size = 1
    while value >= 0x80:
        value >>= 7
        size += 1
    return size


def decode_mb_u_int32(data: bytes, pos: int) -> tuple[int, int]:
    """Read one mb_u_int32 at ``pos``; return (value, next position).

    Bounded to five octets and to 32 bits: a longer run or a larger value is an error,
    so a hostile stream of continuation bits costs at most five reads.
    """
    value = 0
    for i in range(MB_U_INT32_MAX_OCTETS):
        if pos + i >= len(data):
            raise WbxmlError(f"truncated mb_u_int32 at offset {pos}")
        octet = data[pos + i]
        value = (value << 7) | (octet & 0x7F)
        if not octet & 0x80:
            if value > MB_U_INT32_MAX:
                raise WbxmlError(f"mb_u_int32 larger than 32 bits at offset {pos}")
            return value, pos + i + 1
    raise WbxmlError(f"mb_u_int32 longer than {MB_U_INT32_MAX_OCTETS} octets at offset {pos}")
