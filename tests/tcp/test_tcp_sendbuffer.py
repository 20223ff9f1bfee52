"""The send buffer reads and drops exactly as one bytearray would."""

from hypothesis import given
from hypothesis import strategies as st

from wwanlab.tcp.sendbuffer import GATHER_BELOW, SendBuffer

SIZES = st.sampled_from([0, 1, 7, 1460, GATHER_BELOW - 1, GATHER_BELOW, GATHER_BELOW + 3])
STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("append"), SIZES, st.just(0)),
        st.tuples(st.just("read"), st.integers(0, 3 * GATHER_BELOW), st.integers(0, 4000)),
        st.tuples(st.just("drop"), st.integers(0, 2 * GATHER_BELOW), st.just(0)),
    ),
    max_size=30,
)


@given(STEPS)
def test_reads_and_drops_match_a_bytearray(steps: list[tuple[str, int, int]]) -> None:
    buffer = SendBuffer()
    model = bytearray()
    counter = 0
    for op, a, b in steps:
        if op == "append":
            data = bytes((counter + i) % 251 for i in range(a))
            counter += a
            buffer.append(data)
            model += data
        elif op == "read":
            start = min(a, len(model))
            stop = min(start + b, len(model))
            got = buffer.read(start, stop)
            assert type(got) is bytes
            assert got == model[start:stop]
        else:
            buffer.drop(min(a, len(model)))
            del model[: min(a, len(model))]
        assert buffer.size == len(model)


def test_many_small_sends_read_back_across_their_boundaries() -> None:
    buffer = SendBuffer()
    for i in range(100):
        buffer.append(bytes([i]) * 10)
    assert buffer.read(995, 1005) == bytes([99]) * 5
    buffer.drop(998)
    assert (buffer.size, buffer.read(0, 2)) == (2, bytes([99]) * 2)


def test_a_read_across_the_boundary_of_a_later_piece() -> None:
    # A gathered piece, a large one kept as it is, a gathered one: the read starts in
    # the second piece and ends in the third (an offset once taken from the wrong piece).
    buffer = SendBuffer()
    data = bytes(i % 251 for i in range(2 * GATHER_BELOW + 1))
    buffer.append(data[: GATHER_BELOW - 1])
    buffer.append(data[GATHER_BELOW - 1 : 2 * GATHER_BELOW - 1])
    buffer.append(data[2 * GATHER_BELOW - 1 :])
    start = 2 * GATHER_BELOW - 4000
    assert buffer.read(start, start + 4000) == data[start : start + 4000]
    buffer.drop(10)
    assert buffer.read(start - 10, start - 10 + 4000) == data[start : start + 4000]
