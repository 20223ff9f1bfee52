"""WTP protocol data units: typed frozen dataclasses and a pure codec.

``decode(datagram)`` gives the PDUs of one WDP datagram (one, or several when the
datagram is a concatenation); ``encode(pdu_or_pdus)`` gives the datagram back, byte for
byte: ``encode(decode(b)) == b`` for every datagram ``decode`` accepts. To make that
exact the dataclasses keep what the wire can say two ways: each TPI remembers whether
it came in the long form, and the reserved bits of Invoke, Ack and Negative Ack are kept.

Layouts (WAP-201-WTP clause 9; bit 7 is the most significant)::

    octet 1, all PDUs     CON | PDU type (4) | three type-specific bits
      Invoke, Result, Segmented Invoke/Result:   GTR | TTR | RID
      Ack:                                       Tve/Tok | RES | RID
      Abort:                                     Abort type (3)
      Negative Ack:                              RES | RES | RID
    octets 2-3            TID, the top bit set in every PDU the responder sends
    Invoke octet 4        Version (2) | TIDnew | U/P | RES (2) | TCL (2)
    Abort octet 4         abort reason
    Segmented octet 4     packet sequence number
    Negative Ack          octet 4 number of missing packets, then one PSN octet each
    then, when CON is set, TPIs; then the user data (Invoke, Result, Segmented only)

A TPI starts with CON (another TPI follows) | identity (4) | long flag | and either a
2-bit length (short form) or, after 2 reserved bits, a length octet (long form).

A concatenation starts with octet 0x00 (PDU type "not allowed") followed by PDUs, each
behind its length: one octet (MSB 0, up to 127) or two octets (MSB 1, 15 bits).

Malformed input raises ``WtpCodecError``, whose ``reason`` is the abort reason a
responder sends back (PROTOERR for a broken PDU, WTPVERSIONONE for another version) and
whose ``tid`` is the TID when the PDU got that far.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field

from wwanlab.core.errors import WwanlabError
from wwanlab.wap.wtp.constants import (
    MAX_LONG_CONCAT_LENGTH,
    MAX_LONG_TPI_LENGTH,
    MAX_SHORT_CONCAT_LENGTH,
    MAX_SHORT_TPI_LENGTH,
    MAX_TID,
    TID_RESPONSE_BIT,
    WTP_VERSION,
    AbortReason,
    AbortType,
    PduType,
    TpiIdentity,
    TransactionClass,
)


class WtpCodecError(WwanlabError, ValueError):
    """A datagram or PDU that is not valid WTP.

    ``reason`` is the provider abort reason (WTP 9.3.4.1) to answer with; ``tid`` the
    15-bit TID of the offending PDU, or None when it could not be read.
    """

    def __init__(
        self, message: str, reason: AbortReason = AbortReason.PROTOERR, tid: int | None = None
    ) -> None:
        super().__init__(message)
        self.reason = reason
        self.tid = tid


# --- Transport Information Items (WTP 9.4) -----------------------------------------


@dataclass(frozen=True, slots=True)
class _TpiBase:
    """Common part of every TPI: whether the long form (WTP 9.4.1) carries it.

    Data longer than a short TPI can say forces the long form.
    """

    long_form: bool = field(default=False, kw_only=True)

    def __post_init__(self) -> None:
        if len(self.data_octets()) > MAX_SHORT_TPI_LENGTH and not self.long_form:
            object.__setattr__(self, "long_form", True)

    def data_octets(self) -> bytes:
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class ErrorTpi(_TpiBase):
    """WTP 9.4.2: error code (high nibble) and the bad TPI's identity (low nibble),
    then ``detail`` (e.g. the unsupported option's identity)."""

    error_code: int
    bad_tpi: int
    detail: bytes = b""

    def data_octets(self) -> bytes:
        if not (0 <= self.error_code <= 0x0F and 0 <= self.bad_tpi <= 0x0F):
            raise WtpCodecError("error TPI fields must fit in 4 bits")
        return bytes([self.error_code << 4 | self.bad_tpi]) + self.detail


@dataclass(frozen=True, slots=True)
class InfoTpi(_TpiBase):
    """WTP 9.4.3: opaque information for the peer's user or management entity."""

    data: bytes

    def data_octets(self) -> bytes:
        return self.data


@dataclass(frozen=True, slots=True)
class OptionTpi(_TpiBase):
    """WTP 9.4.4: one option (``OptionId``) and its value, big-endian when numeric."""

    option: int
    value: bytes = b""

    def data_octets(self) -> bytes:
        if not 0 <= self.option <= 0xFF:
            raise WtpCodecError(f"option identity {self.option} does not fit in one octet")
        return bytes([self.option]) + self.value


@dataclass(frozen=True, slots=True)
class PsnTpi(_TpiBase):
    """WTP 9.4.5: the packet sequence number an Ack or Invoke/Result refers to."""

    psn: int

    def data_octets(self) -> bytes:
        if not 0 <= self.psn <= 0xFF:
            raise WtpCodecError(f"packet sequence number {self.psn} does not fit in one octet")
        return bytes([self.psn])


@dataclass(frozen=True, slots=True)
class SduBoundaryTpi(_TpiBase):
    """WTP 9.4.6 (WAP-224): the packet ends a service data unit; no data."""

    def data_octets(self) -> bytes:
        return b""


@dataclass(frozen=True, slots=True)
class FrameBoundaryTpi(_TpiBase):
    """WTP 9.4.7 (WAP-224): the packet ends a frame; no data."""

    def data_octets(self) -> bytes:
        return b""


@dataclass(frozen=True, slots=True)
class UnknownTpi(_TpiBase):
    """A TPI whose identity this codec does not know (6..15), kept raw so the
    state machine can answer with an Error TPI rather than abort."""

    identity: int
    data: bytes = b""

    def data_octets(self) -> bytes:
        return self.data


Tpi = ErrorTpi | InfoTpi | OptionTpi | PsnTpi | SduBoundaryTpi | FrameBoundaryTpi | UnknownTpi


def _tpi_identity(tpi: Tpi) -> int:
    if isinstance(tpi, UnknownTpi):
        return tpi.identity
    return _TPI_IDENTITIES[type(tpi)]


_TPI_IDENTITIES: dict[type, int] = {
    ErrorTpi: TpiIdentity.ERROR,
    InfoTpi: TpiIdentity.INFO,
    OptionTpi: TpiIdentity.OPTION,
    PsnTpi: TpiIdentity.PACKET_SEQUENCE_NUMBER,
    SduBoundaryTpi: TpiIdentity.SDU_BOUNDARY,
    FrameBoundaryTpi: TpiIdentity.FRAME_BOUNDARY,
}


# --- PDUs (WTP 9.3) --------------------------------------------------------------------
#
# ``tid`` is the 15-bit transaction identifier; ``tid_response`` is the top bit of the
# 16-bit TID field, set in every PDU the responder sends (WTP 9.2.4).


@dataclass(frozen=True, slots=True, kw_only=True)
class Invoke:
    """WTP 9.3.1: the first (or only) packet of an invoke message."""

    tid: int
    tcl: TransactionClass | int
    user_data: bytes = b""
    tid_response: bool = False
    gtr: bool = False
    ttr: bool = True
    rid: bool = False
    tid_new: bool = False
    up_flag: bool = False  # U/P: user acknowledgement required
    reserved: int = 0  # the two RES bits of octet 4, kept for an exact round trip
    tpis: tuple[Tpi, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Result:
    """WTP 9.3.2: the first (or only) packet of a result message."""

    tid: int
    user_data: bytes = b""
    tid_response: bool = False
    gtr: bool = False
    ttr: bool = True
    rid: bool = False
    tpis: tuple[Tpi, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Ack:
    """WTP 9.3.3: acknowledgement; with ``tve_tok`` a TID verification (Tve from the
    responder) or its answer (Tok from the initiator)."""

    tid: int
    tid_response: bool = False
    tve_tok: bool = False
    rid: bool = False
    reserved: bool = False  # the RES bit of octet 1
    tpis: tuple[Tpi, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Abort:
    """WTP 9.3.4: ends a transaction; ``reason`` is an ``AbortReason`` for a provider
    abort and WSP's reason code (WSP Table 35) for a user abort."""

    tid: int
    abort_type: AbortType | int = AbortType.PROVIDER
    reason: int = AbortReason.UNKNOWN
    tid_response: bool = False
    tpis: tuple[Tpi, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class SegmentedInvoke:
    """WTP 9.3.5: packet ``psn`` (1..255) of a segmented invoke message."""

    tid: int
    psn: int
    user_data: bytes = b""
    tid_response: bool = False
    gtr: bool = False
    ttr: bool = False
    rid: bool = False
    tpis: tuple[Tpi, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class SegmentedResult:
    """WTP 9.3.6: packet ``psn`` (1..255) of a segmented result message."""

    tid: int
    psn: int
    user_data: bytes = b""
    tid_response: bool = False
    gtr: bool = False
    ttr: bool = False
    rid: bool = False
    tpis: tuple[Tpi, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class NegativeAck:
    """WTP 9.3.7: asks for the listed packets of the current group again."""

    tid: int
    missing: tuple[int, ...] = ()
    tid_response: bool = False
    rid: bool = False
    reserved: int = 0  # the two RES bits of octet 1
    tpis: tuple[Tpi, ...] = ()


Pdu = Invoke | Result | Ack | Abort | SegmentedInvoke | SegmentedResult | NegativeAck


def wire_tid(pdu: Pdu) -> int:
    """The 16-bit TID field as sent: the TID with its direction bit."""
    return pdu.tid | (TID_RESPONSE_BIT if pdu.tid_response else 0)


# --- decoding ----------------------------------------------------------------------------


def decode(datagram: bytes) -> list[Pdu]:
    """The PDUs of one datagram, in order; raises ``WtpCodecError``."""
    if not datagram:
        raise WtpCodecError("empty datagram")
    if datagram[0] != 0x00:
        return [decode_pdu(datagram)]
    pdus: list[Pdu] = []
    pos = 1
    while pos < len(datagram):
        first = datagram[pos]
        if first & 0x80:
            if pos + 2 > len(datagram):
                raise WtpCodecError("concatenated PDU length cut short")
            length = (first & 0x7F) << 8 | datagram[pos + 1]
            if length <= MAX_SHORT_CONCAT_LENGTH:
                raise WtpCodecError(f"two-octet length {length} fits in one octet")
            pos += 2
        else:
            length = first
            pos += 1
        if length == 0:
            raise WtpCodecError("empty PDU in a concatenation")
        if pos + length > len(datagram):
            raise WtpCodecError(
                f"concatenated PDU of {length} octets runs past the datagram's end"
            )
        sub = datagram[pos : pos + length]
        if sub[0] == 0x00:
            raise WtpCodecError("nested concatenation")
        pdus.append(decode_pdu(sub))
        pos += length
    if len(pdus) < 2:
        raise WtpCodecError("a concatenation needs at least two PDUs")
    return pdus


def decode_pdu(data: bytes) -> Pdu:
    """One PDU filling all of ``data``; raises ``WtpCodecError``."""
    if not data:
        raise WtpCodecError("empty PDU")
    first = data[0]
    con = bool(first & 0x80)
    type_code = first >> 3 & 0x0F
    if len(data) < 3:
        raise WtpCodecError(f"PDU of {len(data)} octets is shorter than its fixed header")
    raw_tid = data[1] << 8 | data[2]
    tid = raw_tid & MAX_TID
    response = bool(raw_tid & TID_RESPONSE_BIT)
    b2, b1, b0 = bool(first & 0x04), bool(first & 0x02), bool(first & 0x01)

    def need(length: int) -> None:
        if len(data) < length:
            raise WtpCodecError(f"PDU cut short: fixed header needs {length} octets", tid=tid)

    match type_code:
        case PduType.INVOKE:
            need(4)
            octet4 = data[3]
            if octet4 >> 6 != WTP_VERSION:
                raise WtpCodecError(
                    f"WTP version {octet4 >> 6} is not supported",
                    AbortReason.WTPVERSIONONE,
                    tid,
                )
            tcl = octet4 & 0x03
            if tcl > TransactionClass.CLASS_2:
                raise WtpCodecError(f"transaction class {tcl} does not exist", tid=tid)
            tpis, pos = _decode_tpis(data, 4, con, tid)
            return Invoke(
                tid=tid,
                tcl=TransactionClass(tcl),
                user_data=data[pos:],
                tid_response=response,
                gtr=b2,
                ttr=b1,
                rid=b0,
                tid_new=bool(octet4 & 0x20),
                up_flag=bool(octet4 & 0x10),
                reserved=octet4 >> 2 & 0x03,
                tpis=tpis,
            )
        case PduType.RESULT:
            tpis, pos = _decode_tpis(data, 3, con, tid)
            return Result(
                tid=tid,
                user_data=data[pos:],
                tid_response=response,
                gtr=b2,
                ttr=b1,
                rid=b0,
                tpis=tpis,
            )
        case PduType.ACK:
            tpis, pos = _decode_tpis(data, 3, con, tid)
            _no_trailing(data, pos, tid)
            return Ack(tid=tid, tid_response=response, tve_tok=b2, rid=b0, reserved=b1, tpis=tpis)
        case PduType.ABORT:
            need(4)
            abort_type = first & 0x07
            if abort_type > AbortType.USER:
                raise WtpCodecError(f"abort type {abort_type} does not exist", tid=tid)
            tpis, pos = _decode_tpis(data, 4, con, tid)
            _no_trailing(data, pos, tid)
            reason = data[3]
            return Abort(
                tid=tid,
                abort_type=AbortType(abort_type),
                reason=AbortReason(reason)
                if abort_type == AbortType.PROVIDER and reason in _PROVIDER_REASONS
                else reason,
                tid_response=response,
                tpis=tpis,
            )
        case PduType.SEGMENTED_INVOKE | PduType.SEGMENTED_RESULT:
            need(4)
            tpis, pos = _decode_tpis(data, 4, con, tid)
            cls = SegmentedInvoke if type_code == PduType.SEGMENTED_INVOKE else SegmentedResult
            return cls(
                tid=tid,
                psn=data[3],
                user_data=data[pos:],
                tid_response=response,
                gtr=b2,
                ttr=b1,
                rid=b0,
                tpis=tpis,
            )
        case PduType.NEGATIVE_ACK:
            need(4)
            count = data[3]
            need(4 + count)
            tpis, pos = _decode_tpis(data, 4 + count, con, tid)
            _no_trailing(data, pos, tid)
            return NegativeAck(
                tid=tid,
                missing=tuple(data[4 : 4 + count]),
                tid_response=response,
                rid=b0,
                reserved=first >> 1 & 0x03,
                tpis=tpis,
            )
    raise WtpCodecError(f"PDU type {type_code} does not exist", tid=tid)


_PROVIDER_REASONS = frozenset(int(r) for r in AbortReason)


def _no_trailing(data: bytes, pos: int, tid: int) -> None:
    if pos != len(data):
        raise WtpCodecError(f"{len(data) - pos} octets after a PDU that has no data", tid=tid)


def _decode_tpis(data: bytes, pos: int, con: bool, tid: int) -> tuple[tuple[Tpi, ...], int]:
    tpis: list[Tpi] = []
    more = con
    while more:
        if pos >= len(data):
            raise WtpCodecError("TPI announced but the PDU ends", tid=tid)
        head = data[pos]
        more = bool(head & 0x80)
        identity = head >> 3 & 0x0F
        long_form = bool(head & 0x04)
        if long_form:
            if pos + 2 > len(data):
                raise WtpCodecError("long TPI without its length octet", tid=tid)
            if head & 0x03:
                raise WtpCodecError("reserved bits set in a long TPI", tid=tid)
            length = data[pos + 1]
            pos += 2
        else:
            length = head & 0x03
            pos += 1
        if pos + length > len(data):
            raise WtpCodecError(f"TPI of {length} octets runs past the end of the PDU", tid=tid)
        tpis.append(_make_tpi(identity, data[pos : pos + length], long_form, tid))
        pos += length
    return tuple(tpis), pos


def _make_tpi(identity: int, body: bytes, long_form: bool, tid: int) -> Tpi:
    match identity:
        case TpiIdentity.ERROR:
            if not body:
                raise WtpCodecError("error TPI without data", tid=tid)
            return ErrorTpi(body[0] >> 4, body[0] & 0x0F, body[1:], long_form=long_form)
        case TpiIdentity.INFO:
            return InfoTpi(body, long_form=long_form)
        case TpiIdentity.OPTION:
            if not body:
                raise WtpCodecError("option TPI without an option identity", tid=tid)
            return OptionTpi(body[0], body[1:], long_form=long_form)
        case TpiIdentity.PACKET_SEQUENCE_NUMBER:
            if len(body) != 1:
                raise WtpCodecError(f"PSN TPI of {len(body)} octets, expected 1", tid=tid)
            return PsnTpi(body[0], long_form=long_form)
        case TpiIdentity.SDU_BOUNDARY | TpiIdentity.FRAME_BOUNDARY:
            if body:
                raise WtpCodecError("boundary TPI with data", tid=tid)
            if identity == TpiIdentity.SDU_BOUNDARY:
                return SduBoundaryTpi(long_form=long_form)
            return FrameBoundaryTpi(long_form=long_form)
    return UnknownTpi(identity, body, long_form=long_form)


# --- encoding ----------------------------------------------------------------------------


def encode(pdus: Pdu | Sequence[Pdu]) -> bytes:
    """One datagram: the PDU alone, or two or more PDUs concatenated."""
    if not isinstance(pdus, Sequence):
        return encode_pdu(pdus)
    if not pdus:
        raise WtpCodecError("nothing to encode")
    if len(pdus) == 1:
        return encode_pdu(pdus[0])
    out = bytearray(b"\x00")
    for pdu in pdus:
        body = encode_pdu(pdu)
        if len(body) <= MAX_SHORT_CONCAT_LENGTH:
            out.append(len(body))
        elif len(body) <= MAX_LONG_CONCAT_LENGTH:
            out += (0x8000 | len(body)).to_bytes(2, "big")
        else:
            raise WtpCodecError(f"a PDU of {len(body)} octets cannot be concatenated")
        out += body
    return bytes(out)


def encode_pdu(pdu: Pdu) -> bytes:
    """The octets of one PDU; raises ``WtpCodecError`` for fields out of range."""
    if not 0 <= pdu.tid <= MAX_TID:
        raise WtpCodecError(f"TID {pdu.tid} does not fit in 15 bits")
    con = 0x80 if pdu.tpis else 0
    tid_octets = wire_tid(pdu).to_bytes(2, "big")
    tpis = _encode_tpis(pdu.tpis)
    match pdu:
        case Invoke():
            if not 0 <= pdu.tcl <= TransactionClass.CLASS_2:
                raise WtpCodecError(f"transaction class {pdu.tcl} does not exist")
            if not 0 <= pdu.reserved <= 0x03:
                raise WtpCodecError("Invoke reserved bits must fit in 2 bits")
            octet4 = (
                WTP_VERSION << 6
                | (0x20 if pdu.tid_new else 0)
                | (0x10 if pdu.up_flag else 0)
                | pdu.reserved << 2
                | pdu.tcl
            )
            head = con | PduType.INVOKE << 3 | _trailer_bits(pdu.gtr, pdu.ttr, pdu.rid)
            return bytes([head]) + tid_octets + bytes([octet4]) + tpis + pdu.user_data
        case Result():
            head = con | PduType.RESULT << 3 | _trailer_bits(pdu.gtr, pdu.ttr, pdu.rid)
            return bytes([head]) + tid_octets + tpis + pdu.user_data
        case Ack():
            head = con | PduType.ACK << 3 | _trailer_bits(pdu.tve_tok, pdu.reserved, pdu.rid)
            return bytes([head]) + tid_octets + tpis
        case Abort():
            if not 0 <= pdu.abort_type <= AbortType.USER:
                raise WtpCodecError(f"abort type {pdu.abort_type} does not exist")
            if not 0 <= pdu.reason <= 0xFF:
                raise WtpCodecError(f"abort reason {pdu.reason} does not fit in one octet")
            head = con | PduType.ABORT << 3 | pdu.abort_type
            return bytes([head]) + tid_octets + bytes([pdu.reason]) + tpis
        case SegmentedInvoke() | SegmentedResult():
            if not 0 <= pdu.psn <= 0xFF:
                raise WtpCodecError(f"packet sequence number {pdu.psn} does not fit")
            code = (
                PduType.SEGMENTED_INVOKE
                if isinstance(pdu, SegmentedInvoke)
                else PduType.SEGMENTED_RESULT
            )
            head = con | code << 3 | _trailer_bits(pdu.gtr, pdu.ttr, pdu.rid)
            return bytes([head]) + tid_octets + bytes([pdu.psn]) + tpis + pdu.user_data
        case NegativeAck():
            if len(pdu.missing) > 0xFF or not all(0 <= p <= 0xFF for p in pdu.missing):
                raise WtpCodecError("a Negative Ack lists at most 255 one-octet PSNs")
            if not 0 <= pdu.reserved <= 0x03:
                raise WtpCodecError("Negative Ack reserved bits must fit in 2 bits")
            head = con | PduType.NEGATIVE_ACK << 3 | pdu.reserved << 1 | int(pdu.rid)
            missing = bytes([len(pdu.missing), *pdu.missing])
            return bytes([head]) + tid_octets + missing + tpis


def _trailer_bits(bit2: bool, bit1: bool, bit0: bool) -> int:
    return (0x04 if bit2 else 0) | (0x02 if bit1 else 0) | (0x01 if bit0 else 0)


def _encode_tpis(tpis: Sequence[Tpi]) -> bytes:
    out = bytearray()
    for index, tpi in enumerate(tpis):
        identity = _tpi_identity(tpi)
        if not 0 <= identity <= 0x0F:
            raise WtpCodecError(f"TPI identity {identity} does not fit in 4 bits")
        body = tpi.data_octets()
        more = 0x80 if index + 1 < len(tpis) else 0
        if tpi.long_form or len(body) > MAX_SHORT_TPI_LENGTH:
            if len(body) > MAX_LONG_TPI_LENGTH:
                raise WtpCodecError(f"TPI data of {len(body)} octets is too long")
            out += bytes([more | identity << 3 | 0x04, len(body)])
        else:
            out.append(more | identity << 3 | len(body))
        out += body
    return bytes(out)
