"""The bulk workload's payload: the octets of ``random.Random(seed).randbytes``."""

import random

import pytest

from wwanlab.sim.bulk import PAYLOAD_PIECE, payload


@pytest.mark.parametrize(
    "size",
    [0, 1, 3, 4, PAYLOAD_PIECE - 1, PAYLOAD_PIECE, PAYLOAD_PIECE + 1, 2 * PAYLOAD_PIECE + 7],
)
def test_payload_drawn_in_pieces_is_randbytes(size: int) -> None:
    assert b"".join(payload(size, 5)) == random.Random(5).randbytes(size)
