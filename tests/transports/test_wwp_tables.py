"""Every (state, input) pair of the WWP sender's and receiver's tables, each reached by
real exchanges and then fed the input, with the next state and output asserted."""

from collections.abc import Callable

import pytest

from wwanlab.core.address import Address
from wwanlab.transports.wwp import (
    Kind,
    ReceiverState,
    Segment,
    SenderState,
    WwpConfig,
    WwpReceiver,
    WwpSender,
    decode,
)
from wwanlab.transports.wwp.receiver import TABLE as RECEIVER_TABLE
from wwanlab.transports.wwp.sender import TABLE as SENDER_TABLE
from wwanlab.transports.wwp.sender import SenderInput

PEER: Address = ("10.0.0.2", 9000)
ME: Address = ("10.0.0.1", 5000)
CONFIG = WwpConfig(max_retries=2)
FULL = bytes(1024)

# --- the sender ------------------------------------------------------------------------


def out(sender: WwpSender) -> list[Segment]:
    return [decode(d, 1024) for d, _ in sender.datagrams_to_send(0.0)]


def reply(sender: WwpSender, seg: Segment, now: float = 0.1) -> None:
    sender.receive_datagram(seg.encode(), PEER, now)


def sender_in(state: SenderState) -> WwpSender:
    """A sender brought to ``state`` by the exchanges that get it there."""
    s = WwpSender(PEER, CONFIG)
    if state is SenderState.CLOSED:
        return s
    s.connect(0.0)
    if state is SenderState.FAILED:
        for _ in range(3):
            s.handle_timer(s.get_timer() or 0.0)
    elif state is SenderState.IDLE:
        s.send(bytes(5 * 1024), 0.0)  # less than W(1): wait for more
        reply(s, Segment(Kind.CONN_ACK, 3, count=12, seq=1024))
    elif state is not SenderState.CONNECTING:
        s.send(bytes(40 * 1024), 0.0)
        s.close(0.0)
        reply(s, Segment(Kind.CONN_ACK, 3, count=12, seq=1024))  # -> WAVE (36 segments)
        if state in (SenderState.PROBE1, SenderState.PROBE2, SenderState.PROBE3):
            s.handle_timer(s.get_timer() or 0.0)
        if state in (SenderState.PROBE2, SenderState.PROBE3):
            reply(s, Segment(Kind.PR1_ACK, wave=0), 1.0)
        if state is SenderState.PROBE3:
            reply(s, Segment(Kind.PR2_ACK, wave=0), 1.1)
        if state in (SenderState.CLOSING, SenderState.DONE):
            reply(s, Segment(Kind.NSACK, 3, 0, seq=36, high=36))  # -> wave of 4
            reply(s, Segment(Kind.NSACK, 3, 1, seq=40, high=40))  # -> FIN
        if state is SenderState.DONE:
            reply(s, Segment(Kind.FIN_ACK, seq=40))
    assert s.state is state
    out(s)
    return s


def feed(s: WwpSender, what: SenderInput) -> None:
    wave = s.wave
    match what:
        case SenderInput.CONN_ACK:
            reply(s, Segment(Kind.CONN_ACK, 2, count=12, seq=1024), 2.0)
        case SenderInput.NSACK:
            high = min(s.stats.data_sent, 36)
            reply(s, Segment(Kind.NSACK, 2, wave, seq=high, high=high), 2.0)
        case SenderInput.PR1_ACK:
            reply(s, Segment(Kind.PR1_ACK, wave=wave), 2.0)
        case SenderInput.PR2_ACK:
            reply(s, Segment(Kind.PR2_ACK, wave=wave), 2.0)
        case SenderInput.FIN_ACK:
            reply(s, Segment(Kind.FIN_ACK, seq=40), 2.0)
        case SenderInput.STALE:
            reply(s, Segment(Kind.NSACK, 2, (wave + 7) % 256), 2.0)
        case SenderInput.TIMER:
            s.handle_timer(s.get_timer() or 1e9)
        case SenderInput.DATA_READY:
            s.close(2.0)


S, In = SenderState, SenderInput
# (state, input) -> (next state, kinds sent); every pair not here: unchanged, nothing sent
SENDER_EXPECTED: dict[tuple[SenderState, SenderInput], tuple[SenderState, list[Kind]]] = {
    (S.CONNECTING, In.CONN_ACK): (S.IDLE, []),  # no data yet, stream still open
    (S.CONNECTING, In.TIMER): (S.CONNECTING, [Kind.CONN]),
    (S.WAVE, In.NSACK): (S.WAVE, [Kind.DATA] * 4),  # level 2, 4 segments left: short wave
    (S.WAVE, In.TIMER): (S.PROBE1, [Kind.PROBE1]),
    (S.PROBE1, In.PR1_ACK): (S.PROBE2, [Kind.PROBE2]),
    (S.PROBE1, In.NSACK): (S.WAVE, [Kind.DATA] * 4),
    (S.PROBE1, In.TIMER): (S.PROBE1, [Kind.PROBE1]),
    (S.PROBE2, In.PR2_ACK): (S.PROBE3, [Kind.PROBE3]),
    (S.PROBE2, In.NSACK): (S.WAVE, [Kind.DATA] * 4),
    (S.PROBE2, In.TIMER): (S.PROBE2, [Kind.PROBE2]),
    (S.PROBE3, In.NSACK): (S.WAVE, [Kind.DATA] * 4),
    (S.PROBE3, In.TIMER): (S.PROBE3, [Kind.PROBE3]),
    (S.IDLE, In.DATA_READY): (S.WAVE, [Kind.DATA] * 5),  # closed: the rest as a short wave
    (S.CLOSING, In.FIN_ACK): (S.DONE, []),
    (S.CLOSING, In.TIMER): (S.CLOSING, [Kind.FIN]),
}


def test_expected_rows_are_the_table() -> None:
    assert set(SENDER_EXPECTED) == set(SENDER_TABLE)


@pytest.mark.parametrize("state", list(SenderState))
@pytest.mark.parametrize("what", list(SenderInput))
def test_sender_pair(state: SenderState, what: SenderInput) -> None:
    s = sender_in(state)
    ignored = sum(s.stats.ignored.values())
    if what is SenderInput.TIMER and s.get_timer() is None:
        assert state in (S.CLOSED, S.IDLE, S.DONE, S.FAILED)  # no timer runs there
        s.handle_timer(1e9)
        assert s.state is state and out(s) == []
        return
    feed(s, what)
    if (state, what) in SENDER_EXPECTED:
        next_state, kinds = SENDER_EXPECTED[(state, what)]
        assert (s.state, [seg.kind for seg in out(s)]) == (next_state, kinds)
    else:
        assert s.state is state and out(s) == []
        if what is not SenderInput.TIMER:
            assert sum(s.stats.ignored.values()) == ignored + 1


# --- the receiver ----------------------------------------------------------------------


def rout(r: WwpReceiver) -> list[Segment]:
    return [decode(d, 1024) for d, _ in r.datagrams_to_send(0.0)]


def send(r: WwpReceiver, seg: Segment, now: float = 0.0) -> None:
    r.receive_datagram(seg.encode(), ME, now)


def receiver_in(state: ReceiverState) -> WwpReceiver:
    r = WwpReceiver(CONFIG)
    if state is not ReceiverState.LISTEN:
        send(r, Segment(Kind.CONN, 3, count=12, seq=1024))
        send(r, Segment(Kind.DATA, 3, 0, 2, 0, payload=FULL), 0.1)  # wave 0: 1 of 2
    if state in (ReceiverState.PROBED1, ReceiverState.PROBED2):
        send(r, Segment(Kind.PROBE1, wave=0), 1.0)
    if state is ReceiverState.PROBED2:
        send(r, Segment(Kind.PROBE2, wave=0), 1.01)
    if state is ReceiverState.CLOSED:
        send(r, Segment(Kind.DATA, 3, 0, 2, 1, last=True, payload=b"end"), 0.2)
        send(r, Segment(Kind.FIN, seq=2), 0.3)
    assert r.state is state
    rout(r)
    return r


RECEIVER_INPUTS: dict[str, Callable[[WwpReceiver], None]] = {
    "CONN": lambda r: send(r, Segment(Kind.CONN, 3, count=12, seq=1024), 2.0),
    "DATA": lambda r: send(r, Segment(Kind.DATA, 3, 0, 2, 1, payload=FULL), 2.0),
    "PROBE1": lambda r: send(r, Segment(Kind.PROBE1, wave=0), 2.0),
    "PROBE2": lambda r: send(r, Segment(Kind.PROBE2, wave=0), 2.0),
    "PROBE3": lambda r: send(r, Segment(Kind.PROBE3, wave=0), 2.0),
    "FIN": lambda r: send(r, Segment(Kind.FIN, seq=2), 2.0),
}

R = ReceiverState
RECEIVER_EXPECTED: dict[tuple[ReceiverState, str], tuple[ReceiverState, list[Kind]]] = {
    (R.LISTEN, "CONN"): (R.OPEN, [Kind.CONN_ACK]),
    (R.OPEN, "CONN"): (R.OPEN, [Kind.CONN_ACK]),
    (R.OPEN, "DATA"): (R.OPEN, [Kind.NSACK]),  # the wave is whole
    (R.OPEN, "PROBE1"): (R.PROBED1, [Kind.PR1_ACK]),
    (R.OPEN, "PROBE3"): (R.OPEN, []),  # no N-S_ACK of this cycle to repeat yet
    (R.OPEN, "FIN"): (R.OPEN, []),  # before the data it closes: dropped as forged
    (R.PROBED1, "PROBE1"): (R.PROBED1, [Kind.PR1_ACK]),
    (R.PROBED1, "PROBE2"): (R.PROBED2, [Kind.PR2_ACK]),
    (R.PROBED1, "DATA"): (R.OPEN, [Kind.NSACK]),
    (R.PROBED1, "FIN"): (R.PROBED1, []),
    (R.PROBED2, "PROBE1"): (R.PROBED2, []),  # a repeat of this cycle's PROBE1
    (R.PROBED2, "PROBE2"): (R.PROBED2, [Kind.PR2_ACK]),
    (R.PROBED2, "PROBE3"): (R.OPEN, [Kind.NSACK]),
    (R.PROBED2, "DATA"): (R.OPEN, [Kind.NSACK]),
    (R.PROBED2, "FIN"): (R.PROBED2, []),
    (R.CLOSED, "FIN"): (R.CLOSED, [Kind.FIN_ACK]),
}


def test_receiver_expected_rows_are_the_table() -> None:
    assert {(s, k) for s, k in RECEIVER_EXPECTED} == {(s, k.name) for s, k in RECEIVER_TABLE}


@pytest.mark.parametrize("state", list(ReceiverState))
@pytest.mark.parametrize("what", list(RECEIVER_INPUTS))
def test_receiver_pair(state: ReceiverState, what: str) -> None:
    r = receiver_in(state)
    RECEIVER_INPUTS[what](r)
    next_state, kinds = RECEIVER_EXPECTED.get((state, what), (state, []))
    assert (r.state, [seg.kind for seg in rout(r)]) == (next_state, kinds)


def test_repeated_probe3_gets_the_same_nsack() -> None:
    r = receiver_in(ReceiverState.PROBED2)
    send(r, Segment(Kind.PROBE3, wave=0), 1.02)
    first = rout(r)
    send(r, Segment(Kind.PROBE3, wave=0), 1.5)
    (nsack,) = first
    assert rout(r) == first
    # segment 1 never arrived and nothing after it: cum = high = 1, the sender resends it
    assert (nsack.seq, nsack.high, nsack.missing) == (1, 1, ())


def test_probe_rtts_set_the_level() -> None:
    r = receiver_in(ReceiverState.PROBED2)  # PR1_ACK at 1.0, PROBE2 at 1.01: RTT1 10 ms
    send(r, Segment(Kind.PROBE3, wave=0), 1.06)  # RTT2 50 ms: > 4 x the 10 ms base
    (nsack,) = rout(r)
    assert nsack.level == 0 and r.probes[-1].rtt1 == pytest.approx(0.01)


def test_sender_drops_forged_replies() -> None:
    s = sender_in(SenderState.WAVE)
    reply(s, Segment(Kind.NSACK, 2, 0, seq=0, high=37))  # acks segment 36, never sent
    reply(s, Segment(Kind.CONN_ACK, 3, count=12, seq=512))  # other payload size
    s.receive_datagram(Segment(Kind.NSACK, 2, 0, seq=36, high=36).encode(), ME, 0.2)  # stranger
    s.receive_datagram(b"\x40\x00", PEER, 0.2)  # truncated
    assert s.stats.malformed == 4 and s.state is SenderState.WAVE and out(s) == []
    two = WwpSender(PEER, WwpConfig(levels=2, initial_level=2))
    two.connect(0.0)
    reply(two, Segment(Kind.CONN_ACK, 3, count=12, seq=1024))  # level 3 of 2
    assert two.stats.malformed == 1 and two.state is SenderState.CONNECTING
