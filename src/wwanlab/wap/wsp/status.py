"""HTTP status codes <-> WSP status octets (WSP Table 36).

WSP packs an HTTP status into one octet: the class in the high bits (1xx -> 0x10,
2xx -> 0x20, 3xx -> 0x30, 4xx -> 0x40..0x5F, 5xx -> 0x60) plus the last two digits.
Codes HTTP/1.1 defines map exactly; any other code falls back to its class's generic
code (x00), as HTTP clients treat unknown codes (RFC 9110 15).
"""

from wwanlab.wap.wsp.encoding import WspCodecError

_CLASS_BASE = {1: 0x10, 2: 0x20, 3: 0x30, 4: 0x40, 5: 0x60}
# The last two digits each class may carry: 100-101, 200-206, 300-307, 400-417, 500-505.
_MAX_DETAIL = {1: 1, 2: 6, 3: 7, 4: 17, 5: 5}
_UNASSIGNED = frozenset({306})  # 0x36 is unassigned in Table 36


def http_to_wsp(status: int) -> int:
    """The WSP status octet for an HTTP status code (100..599)."""
    if not 100 <= status <= 599:
        raise WspCodecError(f"HTTP status {status} outside 100..599")
    klass, detail = divmod(status, 100)
    if detail > _MAX_DETAIL[klass] or status in _UNASSIGNED:
        detail = 0
    return _CLASS_BASE[klass] + detail


def wsp_to_http(octet: int) -> int:
    """The HTTP status code for a WSP status octet; unknown octets raise."""
    for klass, base in _CLASS_BASE.items():
        detail = octet - base
        if 0 <= detail <= _MAX_DETAIL[klass] and klass * 100 + detail not in _UNASSIGNED:
            return klass * 100 + detail
    raise WspCodecError(f"WSP status {octet:#04x} is not assigned")
