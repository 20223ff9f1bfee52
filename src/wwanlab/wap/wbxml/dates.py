"""SI dates as OPAQUE data (WAP-167-ServiceInd-20010731-a, section 8.2.2).

``created`` and ``si-expires`` are ISO 8601 UTC times ``YYYY-MM-DDThh:mm:ssZ``; in WBXML
they travel as OPAQUE: the 14 digits packed two per octet (BCD), trailing zero octets
left out.
"""

import re

from wwanlab.wap.wbxml.errors import WbxmlError

_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z")


def pack_date(text: str) -> bytes | None:
    """The OPAQUE form of an SI date, or None if ``text`` is not one."""
    match = _DATE.fullmatch(text)
    if match is None:
        return None
    digits = "".join(match.groups())
    packed = bytes.fromhex(digits)
    return packed.rstrip(b"\x00")


def unpack_date(data: bytes) -> str:
    """The text of an OPAQUE SI date (1 to 7 BCD octets)."""
    if not 1 <= len(data) <= 7:
        raise WbxmlError(f"SI date must be 1 to 7 octets, got {len(data)}")
    digits = (data + bytes(7 - len(data))).hex()
    if not digits.isdigit():
        raise WbxmlError(f"SI date is not BCD: {data.hex()}")
    d = digits
    return f"{d[0:4]}-{d[4:6]}-{d[6:8]}T{d[8:10]}:{d[10:12]}:{d[12:14]}Z"
