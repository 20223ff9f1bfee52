import random

import pytest

from wwanlab.core import Endpoint, RngStreams, derive_seed
from wwanlab.core.contract import Echoer, Pinger, PongReceived
from wwanlab.core.pair import Pair

# Pinned so that a change to the derivation (which would change every run) is noticed.
SEED_1_LINK_DOWN = 0xD244DA06F265490C


def test_example_endpoints_satisfy_the_contract():
    assert isinstance(Pinger(("10.0.0.2", 7), 1), Endpoint)
    assert isinstance(Echoer(), Endpoint)


def test_pinger_rtts_are_exact_on_virtual_time():
    pinger = Pinger(("10.0.0.2", 7), count=3)
    pair = Pair(pinger, Echoer(), latency=0.25)
    pinger.start(0.0)
    pair.run(until=10.0)
    assert pair.client_events == [PongReceived(i, 0.5) for i in range(3)]
    assert [s.sent_at for s in pair.sent("client")] == [0.0, 0.5, 1.0]


def test_scripted_drop_causes_exactly_one_retransmission():
    pinger = Pinger(("10.0.0.2", 7), count=2)
    pair = Pair(pinger, Echoer(), latency=0.1, drop=lambda side, i, _: side == "client" and i == 0)
    pinger.start(0.0)
    pair.run()
    client = pair.sent("client")
    assert [s.sent_at for s in client] == pytest.approx([0.0, 1.0, 1.2])
    assert client[0].reason == "scripted"
    rtts = [e.rtt for e in pair.client_events if isinstance(e, PongReceived)]
    assert rtts == pytest.approx([0.2, 0.2])


def test_mtu_drops_oversized_datagrams():
    pair = Pair(Echoer(), Echoer(), mtu=3)
    pair.client.receive_datagram(b"abcd", ("10.0.0.9", 1), 0.0)
    pair.run()
    assert pair.log[0].reason == "mtu"
    assert pair.log[0].delivered_at is None


def test_rate_serializes_back_to_back_datagrams():
    pair = Pair(Echoer(), Echoer(), latency=0.1, rate_bps=8000)
    for _ in range(3):
        pair.client.receive_datagram(b"x" * 100, ("10.0.0.9", 1), 0.0)
    pair.flush()
    assert [s.delivered_at for s in pair.log] == [0.2, 0.30000000000000004, 0.4]


def test_bernoulli_loss_rate_is_within_four_standard_errors():
    n, p = 4000, 0.2
    pair = Pair(Echoer(), Echoer(), loss=p, rng=random.Random(7))
    for _ in range(n):
        pair.client.receive_datagram(b"x", ("10.0.0.9", 1), 0.0)
    pair.flush()
    lost = sum(1 for s in pair.log if s.reason == "loss")
    se = (p * (1 - p) / n) ** 0.5
    assert abs(lost / n - p) < 4 * se


def test_derived_seeds_are_pinned_and_independent():
    assert derive_seed(1, "link", "down") == SEED_1_LINK_DOWN
    assert derive_seed(1, "link", "down") != derive_seed(1, "link", "up")
    assert derive_seed(1, "ab") != derive_seed(1, "a", "b")
    streams = RngStreams(42)
    assert streams.stream("x") is streams.stream("x")
    a = [RngStreams(42).stream("x").random() for _ in range(2)]
    assert a[0] == a[1]
