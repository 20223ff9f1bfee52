"""WWP segment octets: exact layouts, round trips, and every malformed case refused."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wwanlab.transports.wwp.segment import Kind, Segment, SegmentError, decode


def test_data_header_is_six_octets_with_fields_in_place() -> None:
    seg = Segment(Kind.DATA, level=3, wave=7, count=36, seq=0x010203, last=True, payload=b"ab")
    assert seg.encode() == bytes([0x1E, 7, 36, 1, 2, 3]) + b"ab"
    assert decode(seg.encode(), 1024) == seg


def test_nsack_lists_missing_segments() -> None:
    seg = Segment(Kind.NSACK, level=2, wave=5, seq=10, high=14, missing=(10, 12))
    wire = seg.encode()
    assert wire == bytes([0x48, 5, 2, 0, 0, 10, 0, 0, 14, 0, 0, 10, 0, 0, 12])
    assert decode(wire, 1024) == seg


def test_control_segments_are_six_octets() -> None:
    for kind in (Kind.PROBE1, Kind.PR1_ACK, Kind.PROBE2, Kind.PR2_ACK, Kind.PROBE3, Kind.FIN):
        wire = Segment(kind, wave=9, seq=3).encode()
        assert wire == bytes([kind << 4, 9, 0, 0, 0, 3])
        assert decode(wire, 1024) == Segment(kind, wave=9, seq=3)


@pytest.mark.parametrize(
    ("wire", "why"),
    [
        (b"", "shorter"),
        (bytes([0x10, 0, 1, 0, 0]), "shorter"),
        (bytes([0xF0, 0, 0, 0, 0, 0]), "unknown segment type"),
        (bytes([0x11, 0, 1, 0, 0, 0, 9]), "reserved"),
        (bytes([0x10, 0, 1, 0, 0, 0]), "payload of 0"),
        (bytes([0x10, 0, 1, 0, 0, 0]) + bytes(1025), "payload of 1025"),
        (bytes([0x10, 0, 0, 0, 0, 0, 9]), "wave of 0"),
        (bytes([0x52, 0, 0, 0, 0, 0]), "LAST flag on PROBE1"),
        (bytes([0x50, 0, 0, 0, 0, 0, 0]), "must be 6"),
        (bytes([0x40, 0, 1, 0, 0, 0, 0, 0, 1]), "listing 1"),
        (bytes([0x40, 0, 0, 0, 0, 5, 0, 0, 4]), "outside"),
        (bytes([0x40, 0, 1, 0, 0, 1, 0, 0, 4, 0, 0, 4]), "outside"),
    ],
)
def test_malformed_segments_are_refused(wire: bytes, why: str) -> None:
    with pytest.raises(SegmentError, match=why):
        decode(wire, 1024)


def test_encode_bounds_fields() -> None:
    with pytest.raises(SegmentError):
        Segment(Kind.DATA, level=4).encode()
    with pytest.raises(SegmentError):
        Segment(Kind.DATA, seq=1 << 24).encode()
    with pytest.raises(SegmentError):
        Segment(Kind.NSACK, high=300, missing=tuple(range(256))).encode()


segments = st.one_of(
    st.builds(
        Segment,
        kind=st.just(Kind.DATA),
        level=st.integers(0, 3),
        wave=st.integers(0, 255),
        count=st.integers(1, 255),
        seq=st.integers(0, (1 << 24) - 1),
        last=st.booleans(),
        payload=st.binary(min_size=1, max_size=64),
    ),
    st.builds(
        lambda cum, extra, picks, level, wave: Segment(
            Kind.NSACK,
            level,
            wave,
            seq=cum,
            high=cum + extra,
            missing=tuple(sorted({cum + p % extra for p in picks})) if extra else (),
        ),
        st.integers(0, 1000),
        st.integers(0, 300),
        st.lists(st.integers(0, 10_000), max_size=40),
        st.integers(0, 3),
        st.integers(0, 255),
    ),
)


@given(segments)
def test_round_trip(seg: Segment) -> None:
    assert decode(seg.encode(), 64) == seg


@given(st.binary(max_size=80))
def test_decode_never_raises_anything_but_segment_error(data: bytes) -> None:
    try:
        seg = decode(data, 64)
    except SegmentError:
        return
    assert seg.encode() == data
