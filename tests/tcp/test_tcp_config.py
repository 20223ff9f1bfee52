"""Config: initial windows per RFC, variant names, validation."""

import pytest

from wwanlab.core.errors import UsageError
from wwanlab.tcp import InitialWindow, TcpConfig, Variant


@pytest.mark.parametrize(
    ("rule", "smss", "expected"),
    [
        (InitialWindow.RFC5681, 536, 4 * 536),  # SMSS <= 1095: 4 segments
        (InitialWindow.RFC5681, 1460, 3 * 1460),  # 1095 < SMSS <= 2190: 3 segments
        (InitialWindow.RFC5681, 4000, 2 * 4000),  # SMSS > 2190: 2 segments
        (InitialWindow.RFC3390, 536, 2144),  # min(4*536, max(1072, 4380))
        (InitialWindow.RFC3390, 1460, 4380),
        (InitialWindow.RFC6928, 1460, 14600),  # min(14600, max(2920, 14600))
        (InitialWindow.RFC6928, 536, 5360),
        (InitialWindow.ONE, 1460, 1460),
        (InitialWindow.TWO, 430, 860),
    ],
)
def test_initial_window(rule: InitialWindow, smss: int, expected: int) -> None:
    assert TcpConfig(initial_window=rule).initial_cwnd(smss) == expected


def test_variants_by_name_and_errors() -> None:
    assert TcpConfig.for_variant("NewReno").variant is Variant.NEWRENO
    with pytest.raises(UsageError, match="unknown TCP variant 'vegas'"):
        TcpConfig.for_variant("vegas")
    with pytest.raises(UsageError):
        TcpConfig(rto_min=2.0)  # above the initial RTO
    with pytest.raises(UsageError):
        TcpConfig(delayed_ack_timeout=0.5)  # RFC 1122 4.2.3.2: less than 0.5 s
    with pytest.raises(UsageError):
        TcpConfig(mss=1000, receive_buffer=500)


def test_linux_preset() -> None:
    linux = TcpConfig.linux(mss=1000)
    assert linux.mss == 1000
    assert linux.initial_window is InitialWindow.RFC6928
    assert (linux.rto_min, linux.rto_max, linux.delayed_ack_timeout) == (0.2, 120.0, 0.04)
    assert linux.rto_min_floors_variance and linux.rtt_every_ack and linux.quick_acks == 16


def test_ns2_reno_profile() -> None:
    # ns-2.35 tcl/lib/ns-default.tcl: window_ 20, windowInit_ 2, tcpTick_ 0.01,
    # minrto_ 0.2, rtxcur_init_ 3.0, maxrto_ 60, bugFix_ true; TCPSink ACKs every packet
    ns2 = TcpConfig.ns2_reno(430)
    assert ns2.variant is Variant.RENO and ns2.reno_recover
    assert (ns2.receive_buffer, ns2.initial_cwnd(430)) == (20 * 430, 2 * 430)
    assert (ns2.clock_granularity, ns2.rto_min, ns2.rto_initial, ns2.rto_max) == (
        0.01,
        0.2,
        3.0,
        60.0,
    )
    assert not ns2.delayed_ack and not ns2.byte_counting and ns2.limited_transmit
    assert not TcpConfig.ns2_reno(430, reno_recover=False).reno_recover
