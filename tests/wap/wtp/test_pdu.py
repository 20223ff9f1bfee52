"""WTP PDU codec: exact bytes, round trips, hostile input (WAP-201-WTP clause 9)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wwanlab.wap.wtp.constants import AbortReason, AbortType, OptionId, TransactionClass
from wwanlab.wap.wtp.pdu import (
    Abort,
    Ack,
    ErrorTpi,
    FrameBoundaryTpi,
    InfoTpi,
    Invoke,
    NegativeAck,
    OptionTpi,
    Pdu,
    PsnTpi,
    Result,
    SduBoundaryTpi,
    SegmentedInvoke,
    SegmentedResult,
    Tpi,
    UnknownTpi,
    WtpCodecError,
    decode,
    decode_pdu,
    encode,
    encode_pdu,
    wire_tid,
)

# (bytes, PDU) pairs worked out by hand from the layouts of WTP 9.3 and 9.4.
VECTORS: list[tuple[str, Pdu]] = [
    # Invoke: type 1, TTR; TID 1; octet 4 = U/P | class 2; user data 0x01
    (
        "0a00011201",
        Invoke(tid=1, tcl=TransactionClass.CLASS_2, up_flag=True, user_data=b"\x01"),
    ),
    # Invoke class 0 with TIDnew and RID, GTR+TTR (segmentation not supported)
    ("0f7fff20", Invoke(tid=0x7FFF, tcl=0, tid_new=True, gtr=True, rid=True)),
    # Result from the responder: TID 0x8001
    ("128001abcd", Result(tid=1, tid_response=True, user_data=b"\xab\xcd")),
    # Ack from the initiator, and a TID verification (Tve) from the responder
    ("180001", Ack(tid=1)),
    ("1c8007", Ack(tid=7, tid_response=True, tve_tok=True)),
    # Ack of a packet group with a PSN TPI: CON set, TPI 0x19 = PSN, short, length 1
    ("9800051903", Ack(tid=5, tpis=(PsnTpi(3),))),
    # Provider abort PROTOERR from the responder; user abort with WSP reason 0xE0
    ("20800101", Abort(tid=1, tid_response=True, reason=AbortReason.PROTOERR)),
    ("210002e0", Abort(tid=2, abort_type=AbortType.USER, reason=0xE0)),
    # Segmented Invoke, PSN 1, last of its group
    ("2c000301ff", SegmentedInvoke(tid=3, psn=1, gtr=True, user_data=b"\xff")),
    ("32800302", SegmentedResult(tid=3, tid_response=True, psn=2, ttr=True)),
    # Negative Ack for packets 1 and 3
    ("380005020103", NegativeAck(tid=5, missing=(1, 3))),
    # Invoke with an MRU option TPI (0x13: option, short, 3 octets) then user data
    (
        "8a000102130105dc55",
        Invoke(
            tid=1,
            tcl=2,
            user_data=b"\x55",
            tpis=(OptionTpi(OptionId.MAXIMUM_RECEIVE_UNIT, b"\x05\xdc"),),
        ),
    ),
    # Two TPIs, the first with CON set: SDU boundary (0xa0), then a long Info TPI (0x0c)
    (
        "920001a00c056869212121",
        Result(tid=1, tpis=(SduBoundaryTpi(), InfoTpi(b"hi!!!"))),
    ),
    # A PSN TPI in the long form although it would fit the short form
    ("9800051c0107", Ack(tid=5, tpis=(PsnTpi(7, long_form=True),))),
    # Error TPI: code 1 for bad TPI identity 9
    ("9800050119", Ack(tid=5, tpis=(ErrorTpi(1, 9),))),
    # Frame boundary and an unknown TPI identity 12
    ("980005a861aa", Ack(tid=5, tpis=(FrameBoundaryTpi(), UnknownTpi(12, b"\xaa")))),
]


@pytest.mark.parametrize(("hex_", "pdu"), VECTORS)
def test_vectors_decode_and_encode_exactly(hex_: str, pdu: Pdu) -> None:
    data = bytes.fromhex(hex_.replace(" ", ""))
    assert decode(data) == [pdu]
    assert encode(pdu) == data
    assert encode(decode(data)) == data


def test_invoke_vector_bits() -> None:
    pdu = decode_pdu(bytes.fromhex("0a00011201"))
    assert isinstance(pdu, Invoke)
    assert (pdu.gtr, pdu.ttr, pdu.rid, pdu.tid_new, pdu.up_flag) == (
        False,
        True,
        False,
        False,
        True,
    )
    assert pdu.tcl is TransactionClass.CLASS_2


def test_tid_direction_bit_is_the_top_bit() -> None:
    pdu = decode_pdu(bytes.fromhex("18ffff"))
    assert (pdu.tid, pdu.tid_response) == (0x7FFF, True)
    assert wire_tid(pdu) == 0xFFFF
    assert wire_tid(Ack(tid=0x1234)) == 0x1234


def test_concatenation_of_two_pdus() -> None:
    # WTP concatenation: 0x00, then each PDU behind a one-octet length
    data = bytes.fromhex("00031800010420800101")
    pdus: list[Pdu] = [Ack(tid=1), Abort(tid=1, tid_response=True, reason=AbortReason.PROTOERR)]
    assert decode(data) == pdus
    assert encode(pdus) == data


def test_concatenation_with_a_two_octet_length() -> None:
    big = Result(tid=9, user_data=bytes(200))
    data = encode([Ack(tid=9), big])
    assert data[:5] == bytes.fromhex("0003180009")
    assert data[5:7] == (0x8000 | 203).to_bytes(2, "big")
    assert decode(data) == [Ack(tid=9), big]


def test_single_pdu_list_encodes_plain() -> None:
    assert encode([Ack(tid=1)]) == bytes.fromhex("180001")


def test_long_data_forces_the_long_tpi_form() -> None:
    tpi = InfoTpi(b"abcd")
    assert tpi.long_form
    assert encode(Ack(tid=1, tpis=(tpi,))) == bytes.fromhex("9800010c04") + b"abcd"


@pytest.mark.parametrize(
    ("hex_", "reason", "tid"),
    [
        ("", AbortReason.PROTOERR, None),
        ("0a00", AbortReason.PROTOERR, None),  # header cut short
        ("0a0001", AbortReason.PROTOERR, 1),  # Invoke without octet 4
        ("0a000142", AbortReason.WTPVERSIONONE, 1),  # version 1
        ("0a000103", AbortReason.PROTOERR, 1),  # transaction class 3
        ("40000100", AbortReason.PROTOERR, 1),  # PDU type 8
        ("22000101", AbortReason.PROTOERR, 1),  # abort type 2
        ("18000100", AbortReason.PROTOERR, 1),  # trailing octet after an Ack
        ("98000119", AbortReason.PROTOERR, 1),  # PSN TPI whose data is missing
        ("9800011b03", AbortReason.PROTOERR, 1),  # TPI length 3 past the end
        ("9800011cff01", AbortReason.PROTOERR, 1),  # long TPI length 255 past the end
        ("9800011c", AbortReason.PROTOERR, 1),  # long TPI without its length octet
        ("98000118", AbortReason.PROTOERR, 1),  # PSN TPI of zero octets
        ("98000110", AbortReason.PROTOERR, 1),  # option TPI without identity
        ("98000101", AbortReason.PROTOERR, 1),  # error TPI without data
        ("380005030102", AbortReason.PROTOERR, 5),  # 3 missing PSNs announced, 2 sent
        ("00", AbortReason.PROTOERR, None),  # empty concatenation
        ("0003180001", AbortReason.PROTOERR, None),  # concatenation of one PDU
        ("0005180001", AbortReason.PROTOERR, None),  # length past the end
        ("00ffff180001", AbortReason.PROTOERR, None),  # 32767-octet length past the end
        ("008003180001180002", AbortReason.PROTOERR, None),  # two-octet length for 3
        ("0000180001", AbortReason.PROTOERR, None),  # empty PDU in a concatenation
        ("0080", AbortReason.PROTOERR, None),  # two-octet length cut short
        ("0002000003180001", AbortReason.PROTOERR, None),  # nested concatenation
    ],
)
def test_malformed_input_raises_the_codec_error(
    hex_: str, reason: AbortReason, tid: int | None
) -> None:
    with pytest.raises(WtpCodecError) as info:
        decode(bytes.fromhex(hex_))
    assert info.value.reason is reason
    assert info.value.tid == tid


@pytest.mark.parametrize(
    "pdu",
    [
        Ack(tid=0x8000),
        Invoke(tid=1, tcl=3),
        Abort(tid=1, abort_type=2),
        Abort(tid=1, reason=256),
        SegmentedInvoke(tid=1, psn=256),
        NegativeAck(tid=1, missing=(256,)),
        NegativeAck(tid=1, missing=(*range(256), 1)),
        Ack(tid=1, tpis=(InfoTpi(bytes(256)),)),
        Ack(tid=1, tpis=(UnknownTpi(16),)),
    ],
)
def test_encoding_fields_out_of_range_raises(pdu: Pdu) -> None:
    with pytest.raises(WtpCodecError):
        encode_pdu(pdu)


def test_tpi_fields_out_of_range_raise_at_construction() -> None:
    with pytest.raises(WtpCodecError):
        PsnTpi(256)
    with pytest.raises(WtpCodecError):
        ErrorTpi(16, 0)


def test_encoding_a_huge_pdu_into_a_concatenation_raises() -> None:
    with pytest.raises(WtpCodecError):
        encode([Ack(tid=1), Result(tid=1, user_data=bytes(0x8000))])
    with pytest.raises(WtpCodecError):
        encode([])


def _decode_exactly_or_reject(data: bytes) -> None:
    """Either the codec error, or PDUs that encode back to exactly ``data``."""
    try:
        pdus = decode(data)
    except WtpCodecError:
        return
    assert encode(pdus) == data


@pytest.mark.parametrize(("hex_", "pdu"), VECTORS)
def test_every_prefix_decodes_or_raises_the_codec_error(hex_: str, pdu: Pdu) -> None:
    data = bytes.fromhex(hex_)
    for end in range(len(data)):
        _decode_exactly_or_reject(data[:end])


# --- hypothesis round trips --------------------------------------------------------------

tids = st.integers(0, 0x7FFF)
octet = st.integers(0, 0xFF)
small = st.binary(max_size=40)
flags = st.booleans()

tpi_strategy: st.SearchStrategy[Tpi] = st.one_of(
    st.builds(
        ErrorTpi,
        st.integers(0, 15),
        st.integers(0, 15),
        st.binary(max_size=4),
        long_form=flags,
    ),
    st.builds(InfoTpi, small, long_form=flags),
    st.builds(OptionTpi, octet, st.binary(max_size=6), long_form=flags),
    st.builds(PsnTpi, octet, long_form=flags),
    st.builds(SduBoundaryTpi, long_form=flags),
    st.builds(FrameBoundaryTpi, long_form=flags),
    st.builds(UnknownTpi, st.integers(6, 15), small, long_form=flags),
)
tpi_lists = st.lists(tpi_strategy, max_size=3).map(tuple)
common = {"tid": tids, "tid_response": flags, "tpis": tpi_lists}

pdu_strategy: st.SearchStrategy[Pdu] = st.one_of(
    st.builds(
        Invoke,
        tcl=st.sampled_from(TransactionClass),
        user_data=small,
        gtr=flags,
        ttr=flags,
        rid=flags,
        tid_new=flags,
        up_flag=flags,
        reserved=st.integers(0, 3),
        **common,
    ),
    st.builds(Result, user_data=small, gtr=flags, ttr=flags, rid=flags, **common),
    st.builds(Ack, tve_tok=flags, rid=flags, reserved=flags, **common),
    st.builds(
        Abort,
        abort_type=st.sampled_from(AbortType),
        reason=st.sampled_from(AbortReason),
        **common,
    ),
    st.builds(Abort, abort_type=st.just(AbortType.USER), reason=octet, **common),
    st.builds(SegmentedInvoke, psn=octet, user_data=small, gtr=flags, ttr=flags, **common),
    st.builds(SegmentedResult, psn=octet, user_data=small, gtr=flags, ttr=flags, **common),
    st.builds(
        NegativeAck,
        missing=st.lists(octet, max_size=10).map(tuple),
        rid=flags,
        reserved=st.integers(0, 3),
        **common,
    ),
)


@given(pdu_strategy)
def test_decode_inverts_encode(pdu: Pdu) -> None:
    assert decode(encode(pdu)) == [pdu]


@given(st.lists(pdu_strategy, min_size=2, max_size=4))
def test_concatenations_round_trip(pdus: list[Pdu]) -> None:
    data = encode(pdus)
    assert data[0] == 0
    assert decode(data) == pdus


@settings(max_examples=300)
@given(st.binary(max_size=30))
def test_encode_inverts_decode_on_any_accepted_bytes(data: bytes) -> None:
    _decode_exactly_or_reject(data)


@given(pdu_strategy, st.data())
def test_prefixes_of_encoded_pdus_never_leak_other_errors(pdu: Pdu, data: st.DataObject) -> None:
    encoded = encode(pdu)
    end = data.draw(st.integers(0, len(encoded)))
    _decode_exactly_or_reject(encoded[:end])
