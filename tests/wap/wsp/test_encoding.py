"""WSP basic rules: uintvar (WSP 8.1.2), lengths, integers, text strings; bounds on all."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wwanlab.wap.wsp.encoding import (
    Reader,
    WspCodecError,
    put_integer_value,
    put_length,
    put_text_string,
    put_uintvar,
)


@pytest.mark.parametrize(
    ("value", "hex_"),
    [(0, "00"), (0x7F, "7f"), (0x80, "8100"), (0x3FFF, "ff7f"), (2**32 - 1, "8fffffff7f")],
)
def test_uintvar_vectors(value: int, hex_: str) -> None:
    assert put_uintvar(value) == bytes.fromhex(hex_)
    reader = Reader(bytes.fromhex(hex_))
    assert reader.uintvar() == value
    assert reader.at_end()


@pytest.mark.parametrize(
    ("hex_", "fragment"),
    [
        ("9080808000", "exceeds 32 bits"),
        ("8080808080", "leading zero septet"),
        ("8181818181", "longer than 5 octets"),
        ("81", "end of data"),
    ],
)
def test_uintvar_bounds(hex_: str, fragment: str) -> None:
    with pytest.raises(WspCodecError, match=fragment):
        Reader(bytes.fromhex(hex_)).uintvar()


def test_encoders_refuse_values_out_of_range() -> None:
    with pytest.raises(WspCodecError):
        put_uintvar(2**32)
    with pytest.raises(WspCodecError):
        put_uintvar(-1)
    with pytest.raises(WspCodecError):
        put_integer_value(1 << 240)  # a Long-integer holds at most 30 octets
    with pytest.raises(WspCodecError):
        put_text_string("a\x00b")
    with pytest.raises(WspCodecError):
        put_text_string("\x01x")


def test_value_length_claiming_4_gb_is_refused_before_any_read() -> None:
    with pytest.raises(WspCodecError, match="length 4294967295 runs past the end"):
        Reader(bytes.fromhex("1f8fffffff7f00")).length()


@given(st.integers(0, 2**32 - 1))
def test_uintvar_round_trip(value: int) -> None:
    data = put_uintvar(value)
    assert len(data) <= 5
    assert Reader(data).uintvar() == value


@given(st.integers(0, 2**64))
def test_integer_value_round_trip(value: int) -> None:
    reader = Reader(put_integer_value(value))
    assert reader.integer_value() == value
    assert reader.at_end()


@given(st.integers(0, 10**6))
def test_length_round_trip(length: int) -> None:
    reader = Reader(put_length(length) + bytes(length))
    assert reader.length() == length


@given(st.text(st.characters(min_codepoint=32, max_codepoint=255), max_size=20))
def test_text_string_round_trip(text: str) -> None:
    reader = Reader(put_text_string(text))
    assert reader.text_string() == text
    assert reader.at_end()
