"""WWP sender and receiver together on the pair harness: virtual time, loss, reordering."""

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wwanlab.core.pair import SERVER_ADDR, Pair
from wwanlab.transports.wwp import (
    Connected,
    DataReceived,
    Failed,
    Finished,
    Kind,
    LevelSet,
    ReceiverState,
    SenderState,
    StreamEnded,
    WwpConfig,
    WwpReceiver,
    WwpSender,
    decode,
)

RATE = 1_000_000.0  # bit/s each way
PAYLOAD_RATE = RATE / 8 * 1024 / 1030  # what full DATA segments carry at RATE


def transfer(data: bytes, *, config: WwpConfig | None = None, **link: object) -> Pair:
    config = config or WwpConfig(baseline_bps=PAYLOAD_RATE)
    sender, receiver = WwpSender(SERVER_ADDR, config), WwpReceiver(config)
    pair = Pair(sender, receiver, **link)  # type: ignore[arg-type]
    sender.connect(0.0)
    sender.send(data, 0.0)
    sender.close(0.0)
    pair.run(until=36_000.0)
    return pair


def received(pair: Pair) -> bytes:
    return b"".join(e.data for e in pair.server_events if isinstance(e, DataReceived))


def kinds(pair: Pair, side: str) -> list[Kind]:
    return [decode(s.data, 1024).kind for s in pair.log if s.side == side]


def test_clean_link_sends_full_waves_and_exact_timing() -> None:
    data = random.Random(1).randbytes(100 * 1024)
    pair = transfer(data, latency=0.05, rate_bps=RATE)
    sender = pair.client
    assert isinstance(sender, WwpSender) and sender.state is SenderState.DONE
    assert received(pair) == data
    # CONN, waves of 36, 36, then of 24 (paper 004 2.2: 28 left fill level 2 at most)
    # and the last 4 as the stream's short end, FIN; nothing resent, no probes
    assert kinds(pair, "client") == [Kind.CONN, *[Kind.DATA] * 100, Kind.FIN]
    counts = [decode(s.data, 1024).count for s in pair.sent("client")[1:-1]]
    assert counts == [36] * 72 + [24] * 24 + [4] * 4
    assert sender.stats.probe_cycles == 0 and sender.stats.data_resent == 0
    assert kinds(pair, "server") == [Kind.CONN_ACK, *[Kind.NSACK] * 4, Kind.FIN_ACK]
    # each wave arrived at the baseline rate: level 3 (paper 004 2.2, j = 1)
    levels = [e.level for e in pair.client_events if isinstance(e, LevelSet)]
    assert levels == [3, 3, 3, 3]
    assert pair.client_events[0] == Connected(SERVER_ADDR, 3)
    assert pair.client_events[-1] == Finished()
    assert pair.server_events[-1] == StreamEnded(len(data))
    # CONN+CONN_ACK, 4 x (wave + N-S_ACK), FIN+FIN_ACK: 6 round trips of 0.1 s plus
    # the serialization of every octet; the last FIN_ACK arrives at:
    wire = 8 / RATE
    assert pair.now == pytest.approx(6 * 0.1 + sum(len(s.data) for s in pair.log) * wire)


def test_a_slow_wave_lowers_the_level() -> None:
    # BT twice the link's rate: each wave takes 2 baselines, j = 2, next level 2
    config = WwpConfig(baseline_bps=2 * PAYLOAD_RATE)
    pair = transfer(bytes(60 * 1024), config=config, latency=0.01, rate_bps=RATE)
    levels = [e.level for e in pair.client_events if isinstance(e, LevelSet)]
    assert levels[0] == 2
    counts = sorted({decode(s.data, 1024).count for s in pair.sent("client")[1:-1]})
    assert counts == [24, 36]  # the first wave at level 3, the rest at level 2


def test_lost_segment_triggers_probe_cycle_and_is_resent() -> None:
    data = bytes(range(256)) * 4 * 40  # 40 segments
    pair = transfer(
        data, latency=0.02, rate_bps=RATE, drop=lambda side, i, d: (side, i) == ("client", 5)
    )
    assert received(pair) == data
    client = kinds(pair, "client")
    # wave 1: 36 segments, segment 4 lost; SEND_T; the probe cycle; then 4 again + 4 new
    assert client[37:40] == [Kind.PROBE1, Kind.PROBE2, Kind.PROBE3]
    first_resend = decode(pair.sent("client")[40].data, 1024)
    assert first_resend.seq == 4 and first_resend.count == 5
    sender = pair.client
    assert isinstance(sender, WwpSender)
    assert sender.stats.data_resent == 1 and sender.stats.probe_cycles == 1
    # the probe came SEND_T after the wave left: 3 baselines of 36 segments + PROBE_T
    # (the RTT of 0.04 s is below PROBE_T / 2)
    probe_at = pair.sent("client")[37].sent_at
    send_t = 3 * sender.config.baseline_time(36) + 0.25
    assert probe_at == pytest.approx(0.04 + 2 * 6 * 8 / RATE + send_t)


def test_lost_nsack_is_recovered_by_probes_without_resending_data() -> None:
    data = bytes(30 * 1024)
    pair = transfer(
        data, latency=0.02, rate_bps=RATE, drop=lambda side, i, d: (side, i) == ("server", 1)
    )
    assert received(pair) == data
    sender = pair.client
    assert isinstance(sender, WwpSender)
    assert sender.stats.data_resent == 0 and sender.stats.probe_cycles == 1


def test_lost_probes_and_fin_are_resent_on_probe_t() -> None:
    drops = {("client", 2), ("client", 3), ("server", 1), ("client", 5), ("server", 3)}
    pair = transfer(bytes(1024), latency=0.01, drop=lambda side, i, d: (side, i) in drops)
    assert received(pair) == bytes(1024)
    assert isinstance(pair.client, WwpSender) and pair.client.state is SenderState.DONE


@pytest.mark.parametrize("seed", range(5))
def test_exactly_once_in_order_under_half_loss_and_reordering(seed: int) -> None:
    data = random.Random(seed).randbytes(150 * 1024 + 17)
    pair = transfer(
        data, latency=0.01, jitter=0.03, rate_bps=RATE, loss=0.5, rng=random.Random(seed)
    )
    assert received(pair) == data
    receiver = pair.server
    assert isinstance(receiver, WwpReceiver) and receiver.state is ReceiverState.CLOSED
    assert isinstance(pair.client, WwpSender) and pair.client.state is SenderState.DONE
    ended = [e for e in pair.server_events if isinstance(e, StreamEnded)]
    assert ended == [StreamEnded(len(data))]


def test_empty_stream_connects_and_closes() -> None:
    pair = transfer(b"", latency=0.01)
    assert kinds(pair, "client") == [Kind.CONN, Kind.FIN]
    assert pair.server_events == [StreamEnded(0)]


def test_sender_waits_for_a_full_wave_until_closed() -> None:
    config = WwpConfig()
    sender, receiver = WwpSender(SERVER_ADDR, config), WwpReceiver(config)
    pair = Pair(sender, receiver, latency=0.01)
    sender.connect(0.0)
    sender.send(bytes(5 * 1024), 0.0)
    pair.run(until=1.0)
    assert sender.state is SenderState.IDLE and kinds(pair, "client") == [Kind.CONN]
    sender.send(bytes(7 * 1024), pair.now)  # 12 segments: a level-1 wave
    pair.run(until=2.0)
    assert kinds(pair, "client")[1:] == [Kind.DATA] * 12


def test_sender_gives_up_after_max_retries() -> None:
    config = WwpConfig(max_retries=3, probe_t=0.5)
    sender = WwpSender(SERVER_ADDR, config)
    pair = Pair(sender, WwpReceiver(config), drop=lambda side, i, d: True)
    sender.connect(0.0)
    pair.run(until=100.0)
    assert sender.state is SenderState.FAILED
    # PROBE_T backs off: 0.5, 1, 2, 4 s
    assert [s.sent_at for s in pair.sent("client")] == [0.0, 0.5, 1.5, 3.5]
    assert pair.now == pytest.approx(7.5)


def test_a_receiver_that_never_answers_the_set_up_is_given_up_after_19_conns() -> None:
    """The default set-up bound: 19 CONNs resent (PROBE_T 0.25 s doubling to 8 s), then
    Failed with ``setup`` 127.75 s after the first (Linux TCP's 127 s), where the 64
    retries of a transfer would take over 6 minutes."""
    sender = WwpSender(SERVER_ADDR, WwpConfig())
    pair = Pair(sender, WwpReceiver(WwpConfig()), drop=lambda side, i, d: True)
    sender.connect(0.0)
    pair.run(until=600.0)
    assert sender.state is SenderState.FAILED
    sent = [s.sent_at for s in pair.sent("client")]
    assert sent == [0.0, 0.25, 0.75, 1.75, 3.75, *(7.75 + 8 * k for k in range(15))]
    assert pair.now == pytest.approx(127.75)
    failed = [e for e in pair.client_events if isinstance(e, Failed)]
    assert failed == [Failed("19 CONNs unanswered", setup=True)]


@settings(max_examples=40, deadline=None)
@given(
    size=st.integers(0, 40 * 1024),
    losses=st.lists(st.booleans(), min_size=1, max_size=64),
    latency=st.floats(0.001, 0.2),
)
def test_random_loss_patterns_deliver_exactly_once(
    size: int, losses: list[bool], latency: float
) -> None:
    """Whatever the fates of each side's first 100 datagrams (a repeating pattern), the
    bytes arrive once, in order, and both sides close. (Under a loss that never lets a
    probe cycle through cleanly WWP stays paused by design: docs/wwp.md.)"""
    data = bytes(i % 251 for i in range(size))

    def drop(side: str, i: int, d: bytes) -> bool:
        return i < 100 and losses[i % len(losses)]

    config = WwpConfig(baseline_bps=PAYLOAD_RATE, max_retries=1000, setup_retries=1000)
    pair = transfer(data, config=config, latency=latency, rate_bps=RATE, drop=drop)
    assert received(pair) == data
    assert isinstance(pair.client, WwpSender) and pair.client.state is SenderState.DONE


def test_receiver_drops_forged_and_out_of_window_segments() -> None:
    from wwanlab.transports.wwp.segment import Segment

    config = WwpConfig()
    receiver = WwpReceiver(config)
    peer = ("10.0.0.1", 5000)
    conn = Segment(Kind.CONN, 3, count=12, seq=1024).encode()
    receiver.receive_datagram(conn, peer, 0.0)
    full = bytes(1024)
    bad = [
        (Segment(Kind.DATA, 3, 0, 36, 0, payload=full).encode(), ("10.9.9.9", 1)),  # stranger
        (Segment(Kind.DATA, 3, 0, 36, 255, payload=full).encode(), peer),  # out of window
        (Segment(Kind.DATA, 3, 0, 36, 0, payload=b"short").encode(), peer),  # truncated
        (Segment(Kind.DATA, 3, 0, 200, 0, payload=full).encode(), peer),  # oversized wave
        (Segment(Kind.NSACK).encode(), peer),  # a sender's segment
        (b"\x10\x00", peer),  # shorter than a header
        (Segment(Kind.CONN, 3, count=12, seq=512).encode(), peer),  # other payload size
        (Segment(Kind.FIN, seq=1).encode(), peer),  # FIN before its data
    ]
    for data, addr in bad:
        receiver.receive_datagram(data, addr, 0.1)
    assert receiver.stats.malformed == len(bad)
    assert receiver.next_event() is None
    ok = Segment(Kind.DATA, 3, 0, 2, 0, payload=full).encode()
    end = Segment(Kind.DATA, 3, 0, 2, 1, last=True, payload=b"x").encode()
    receiver.receive_datagram(end, peer, 0.2)
    receiver.receive_datagram(Segment(Kind.DATA, 3, 0, 2, 2, payload=full).encode(), peer, 0.2)
    receiver.receive_datagram(ok, peer, 0.3)
    assert receiver.stats.malformed == len(bad) + 1  # a segment past the LAST one
    assert receiver.next_event() == DataReceived(full + b"x")


@pytest.mark.parametrize(("backoff", "gaps"), [(False, [0.25] * 4), (True, [0.5, 1, 2, 4])])
def test_unanswered_probes_repeat_every_probe_t_unless_backing_off(
    backoff: bool, gaps: list[float]
) -> None:
    """Paper 004 2.2: at level 0 "the sender will immediately probe"; the doubling of
    PROBE_T is ours and an option (``probe_backoff``)."""
    config = WwpConfig(max_retries=5, probe_backoff=backoff)
    sender = WwpSender(SERVER_ADDR, config)
    pair = Pair(
        sender,
        WwpReceiver(config),
        latency=0.01,
        drop=lambda side, i, d: side == "server" and i > 0,
    )
    sender.connect(0.0)
    sender.send(bytes(1024), 0.0)
    sender.close(0.0)
    pair.run(until=100.0)
    assert sender.state is SenderState.FAILED
    probes = [s.sent_at for s in pair.sent("client") if decode(s.data, 1024).kind is Kind.PROBE1]
    assert [round(b - a, 9) for a, b in itertools.pairwise(probes)] == gaps
