"""WSP basic encoding rules (WAP-203-WSP 8.1.2 and 8.4.2.1) and the codec's error.

A ``Reader`` walks a byte string; every read is bounded by what is left and raises
``WspCodecError`` past the end, so no IndexError or struct.error leaks out of the PDU
or header codecs. The ``put_*`` functions are the encoders of the same rules.
"""

from wwanlab.core.errors import WwanlabError
from wwanlab.wap.wsp.constants import AbortReason

MAX_UINTVAR_OCTETS = 5  # WSP 8.1.2: a uintvar carries at most 32 bits in 5 octets
MAX_UINTVAR = 0xFFFFFFFF
MAX_SHORT_LENGTH = 30  # WSP 8.4.2.2: Short-length <Octet 0-30>
LENGTH_QUOTE = 31  # WSP 8.4.2.2: Length-quote, a uintvar length follows
QUOTE = 127  # WSP 8.4.2.1: Quote, precedes a text string starting with an octet >= 128
QUOTED_STRING_START = 34  # WSP 8.4.2.1: Quoted-string starts with <Octet 34>
NO_VALUE_OCTET = 0  # an empty text string is its End-of-string alone
MAX_LONG_INTEGER_OCTETS = 30  # WSP 8.4.2.1: Long-integer is Short-length Multi-octet-integer


class WspCodecError(WwanlabError, ValueError):
    """A WSP PDU, capability or header that is not valid.

    ``reason`` is the WSP abort reason (WSP Table 35) a session would answer with:
    PROTOERR for anything malformed.
    """

    def __init__(self, message: str, reason: AbortReason = AbortReason.PROTOERR) -> None:
        super().__init__(message)
        self.reason = reason


class Reader:
    """A cursor over ``data[pos:end]``; reads never pass ``end``."""

    __slots__ = ("data", "end", "pos")

    def __init__(self, data: bytes, pos: int = 0, end: int | None = None) -> None:
        self.data = data
        self.pos = pos
        self.end = len(data) if end is None else end

    def remaining(self) -> int:
        return self.end - self.pos

    def at_end(self) -> bool:
        return self.pos >= self.end

    def done(self, what: str = "value") -> None:
        """Raise unless every octet was read."""
        if self.pos < self.end:
            raise WspCodecError(f"{self.end - self.pos} stray octets in the {what}")

    def peek(self) -> int:
        if self.pos >= self.end:
            raise WspCodecError("unexpected end of data")
        return self.data[self.pos]

    def octet(self) -> int:
        value = self.peek()
        self.pos += 1
        return value

    def take(self, count: int, what: str = "field") -> bytes:
        """``count`` octets; a count read from the wire is checked against what is left."""
        if count < 0 or count > self.end - self.pos:
            raise WspCodecError(
                f"{what} of {count} octets runs past the end ({self.remaining()} left)"
            )
        chunk = self.data[self.pos : self.pos + count]
        self.pos += count
        return chunk

    def rest(self) -> bytes:
        chunk = self.data[self.pos : self.end]
        self.pos = self.end
        return chunk

    def sub(self, count: int, what: str = "field") -> "Reader":
        """A reader over the next ``count`` octets, which this reader skips."""
        start = self.pos
        self.take(count, what)
        return Reader(self.data, start, self.pos)

    def uintvar(self) -> int:
        """WSP 8.1.2 Uintvar: 7 bits an octet, continuation in the MSB, at most 5 octets,
        no leading zero septets (so that encoding gives back the same octets)."""
        value = 0
        for index in range(MAX_UINTVAR_OCTETS):
            octet = self.octet()
            if index == 0 and octet == 0x80:
                raise WspCodecError("uintvar with a leading zero septet")
            value = value << 7 | octet & 0x7F
            if not octet & 0x80:
                if value > MAX_UINTVAR:
                    raise WspCodecError(f"uintvar {value} exceeds 32 bits")
                return value
        raise WspCodecError("uintvar longer than 5 octets")

    def length(self, what: str = "value") -> int:
        """WSP 8.4.2.2 Value-length, checked against the octets that are left."""
        first = self.octet()
        if first <= MAX_SHORT_LENGTH:
            length = first
        elif first == LENGTH_QUOTE:
            length = self.uintvar()
        else:
            raise WspCodecError(f"octet {first:#04x} is not a value length")
        if length > self.remaining():
            raise WspCodecError(
                f"{what} length {length} runs past the end ({self.remaining()} left)"
            )
        return length

    def cstring(self) -> bytes:
        """Octets up to (not including) the End-of-string NUL, which is consumed."""
        nul = self.data.find(b"\x00", self.pos, self.end)
        if nul < 0:
            raise WspCodecError("text string without its terminating NUL")
        chunk = self.data[self.pos : nul]
        self.pos = nul + 1
        return chunk

    def text_string(self) -> str:
        """WSP 8.4.2.1 Text-string: [Quote] *TEXT End-of-string; the Quote is dropped.

        The first octet decides the form of a WSP value, so a text string cannot start
        with a control octet (that would be a length) nor, unquoted, with 128-255."""
        first = self.peek()
        if NO_VALUE_OCTET < first < 0x20 or first >= 0x80:
            raise WspCodecError(f"octet {first:#04x} cannot start a text string")
        if first == QUOTE:
            self.pos += 1
            raw = self.cstring()
            if not raw or raw[0] < QUOTE:
                raise WspCodecError("Quote before a text string that does not need it")
            return raw.decode("latin-1")
        return self.cstring().decode("latin-1")

    def short_integer(self) -> int:
        octet = self.octet()
        if octet < 0x80:
            raise WspCodecError(f"octet {octet:#04x} is not a short integer")
        return octet & 0x7F

    def long_integer(self) -> int:
        """WSP 8.4.2.1 Long-integer: Short-length then that many big-endian octets."""
        count = self.octet()
        if not 1 <= count <= MAX_LONG_INTEGER_OCTETS:
            raise WspCodecError(f"long integer of {count} octets")
        raw = self.take(count, "long integer")
        if count > 1 and raw[0] == 0:
            raise WspCodecError("long integer with a leading zero octet")
        return int.from_bytes(raw, "big")

    def integer_value(self) -> int:
        """WSP 8.4.2.3 Integer-value: Short-integer | Long-integer."""
        if self.peek() & 0x80:
            return self.short_integer()
        return self.long_integer()

    def skip_value(self) -> bytes:
        """One encoded field value, whatever its form (WSP 8.4.1.2), raw."""
        start = self.pos
        first = self.peek()
        if first <= LENGTH_QUOTE:
            self.take(self.length(), "value")
        elif first < 0x80:
            self.cstring()
        else:
            self.pos += 1
        return self.data[start : self.pos]


def put_uintvar(value: int) -> bytes:
    if not 0 <= value <= MAX_UINTVAR:
        raise WspCodecError(f"uintvar {value} outside 0..2**32-1")
    out = [value & 0x7F]
    value >>= 7
    while value:
        out.append(0x80 | value & 0x7F)
        value >>= 7
    return bytes(reversed(out))


def put_length(length: int) -> bytes:
    """WSP 8.4.2.2 Value-length: a Short-length, or Length-quote and a uintvar."""
    if length <= MAX_SHORT_LENGTH:
        return bytes([length])
    return bytes([LENGTH_QUOTE]) + put_uintvar(length)


def put_text_string(text: str) -> bytes:
    try:
        raw = text.encode("latin-1")
    except UnicodeEncodeError:
        raise WspCodecError("text strings hold Latin-1 characters only") from None
    if b"\x00" in raw:
        raise WspCodecError("text strings cannot hold NUL")
    if raw and raw[0] < 0x20:
        raise WspCodecError("a text string cannot start with a control character")
    if raw and raw[0] >= QUOTE:  # an initial 127 would read as the Quote itself
        return bytes([QUOTE]) + raw + b"\x00"
    return raw + b"\x00"


def put_short_integer(value: int) -> bytes:
    if not 0 <= value <= 0x7F:
        raise WspCodecError(f"short integer {value} outside 0..127")
    return bytes([0x80 | value])


def put_long_integer(value: int) -> bytes:
    if value < 0:
        raise WspCodecError("long integers are unsigned")
    raw = value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big")
    if len(raw) > MAX_LONG_INTEGER_OCTETS:
        raise WspCodecError(f"long integer {value} needs more than 30 octets")
    return bytes([len(raw)]) + raw


def put_integer_value(value: int) -> bytes:
    """WSP 8.4.2.3: the short form when the value fits in 7 bits."""
    return put_short_integer(value) if 0 <= value <= 0x7F else put_long_integer(value)
