"""Sealed datagrams: what authenticates is delivered once; nothing else ever is."""

import os
import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wwanlab.core.errors import UsageError
from wwanlab.tunnel.seal import (
    HEADER_LEN,
    MAX_DATAGRAM,
    MAX_PAYLOAD,
    REPLAY_WINDOW,
    TAG_LEN,
    Association,
    Keys,
    Opener,
    Rejected,
    ReplayWindow,
    Sealer,
    client_pair,
    new_key_file,
    read_key_file,
    server_pair,
)

PSK = bytes(range(32))
A = Association(1_765_000_000, 7)


def pair(association: Association = A) -> tuple[tuple[Sealer, Opener], tuple[Sealer, Opener]]:
    keys = Keys.from_psk(PSK)
    return client_pair(keys, association), server_pair(keys, association)


def test_round_trip_both_directions_and_layout() -> None:
    (c_seal, c_open), (s_seal, s_open) = pair()
    d = c_seal.seal(b"GET / HTTP/1.1")
    assert len(d) == HEADER_LEN + 14 + TAG_LEN == 55
    assert d[0] == 1 and d[1:9] == Keys.from_psk(PSK).key_id
    assert d[9:17] == bytes.fromhex("6933c34000000007")  # the association
    assert d[17:25] == bytes(8)  # counter 0
    assert b"GET" not in d  # encrypted
    assert s_open.open(d) == b"GET / HTTP/1.1"
    assert c_open.open(s_seal.seal(b"200 OK")) == b"200 OK"
    assert c_seal.seal(b"")[17:25] == (1).to_bytes(8, "big")  # counter 1


def test_each_association_has_its_own_keys() -> None:
    (c_seal, _), _ = pair(Association(1_765_000_000, 8))
    _, (_, s_open) = pair()
    with pytest.raises(Rejected, match="association"):
        s_open.open(c_seal.seal(b"x"))
    assert Association(5, 0) > Association(4, 9) > Association(4, 8)
    assert Association(1000, 1).timely(1120) and not Association(1000, 1).timely(1121)


def test_directions_have_different_keys_so_nothing_reflects() -> None:
    (c_seal, c_open), _ = pair()
    with pytest.raises(Rejected, match="tag"):
        c_open.open(c_seal.seal(b"echo"))


@pytest.mark.parametrize("index", [0, 1, 8, 9, 16, 17, 24, 25, 30, 54])
def test_any_flipped_bit_is_rejected(index: int) -> None:
    (c_seal, _), (_, s_open) = pair()
    d = bytearray(c_seal.seal(b"GET / HTTP/1.1"))
    d[index] ^= 0x01
    with pytest.raises(Rejected) as e:
        s_open.open(bytes(d))
    assert e.value.reason in {"version", "key", "association", "tag"}
    assert s_open.window.newest == -1  # a forgery moves nothing


def test_replay_and_window() -> None:
    (c_seal, _), (_, s_open) = pair()
    sealed = [c_seal.seal(i.to_bytes(2, "big")) for i in range(REPLAY_WINDOW + 2)]
    assert s_open.open(sealed[1]) == b"\x00\x01"
    assert s_open.open(sealed[0]) == b"\x00\x00"  # reordered, inside the window
    for d in sealed[:2]:
        with pytest.raises(Rejected, match="replay"):
            s_open.open(d)
    assert s_open.open(sealed[REPLAY_WINDOW + 1]) == (REPLAY_WINDOW + 1).to_bytes(2, "big")
    with pytest.raises(Rejected, match="replay"):  # counter 1 is now outside the window
        s_open.open(sealed[1])
    assert s_open.open(sealed[2]) == b"\x00\x02"  # the oldest counter still inside


def test_lengths_are_bounded_before_use() -> None:
    (c_seal, _), (_, s_open) = pair()
    good = c_seal.seal(b"x")
    for bad in (b"", good[:HEADER_LEN], good[: HEADER_LEN + TAG_LEN - 1], bytes(MAX_DATAGRAM + 1)):
        with pytest.raises(Rejected, match="length"):
            s_open.open(bad)
    assert len(c_seal.seal(bytes(MAX_PAYLOAD))) == MAX_DATAGRAM
    with pytest.raises(ValueError):
        c_seal.seal(bytes(MAX_PAYLOAD + 1))


def test_wrong_key_is_rejected_by_name() -> None:
    (c_seal, _), _ = pair()
    _, other_open = server_pair(Keys.from_psk(bytes(32)), A)
    with pytest.raises(Rejected, match="key"):
        other_open.open(c_seal.seal(b"x"))


@given(st.binary(max_size=MAX_DATAGRAM + 8))
def test_random_datagrams_never_open(data: bytes) -> None:
    _, (_, s_open) = pair()
    with pytest.raises(Rejected):
        s_open.open(data)


@given(st.lists(st.integers(0, 3000), max_size=200))
def test_window_accepts_each_counter_at_most_once(counters: list[int]) -> None:
    window, accepted = ReplayWindow(), []
    for c in counters:
        if window.fresh(c):
            window.accept(c)
            accepted.append(c)
    assert len(accepted) == len(set(accepted))
    newest = -1
    for c in accepted:  # nothing older than the window behind the newest at the time
        assert c > newest - REPLAY_WINDOW
        newest = max(newest, c)


def test_key_files(tmp_path: Path) -> None:
    path = tmp_path / "tunnel.key"
    new_key_file(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(read_key_file(path)) == 32
    with pytest.raises(FileExistsError):
        new_key_file(path)
    os.chmod(path, 0o644)
    with pytest.raises(UsageError, match="readable by others: chmod 600"):
        read_key_file(path)
    cases = {"zz" * 32: "not hexadecimal", "ab" * 31: "holds 31 octets, not 32"}
    for text, message in cases.items():
        bad = tmp_path / f"{len(text)}{text[:2]}.key"
        bad.write_text(text)
        bad.chmod(0o600)
        with pytest.raises(UsageError, match=message):
            read_key_file(bad)
    with pytest.raises(UsageError, match=r"cannot read the key file .*missing"):
        read_key_file(tmp_path / "missing")
