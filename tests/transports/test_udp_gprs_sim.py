"""UDP-GPRS on the simulator over the gprs-3plus1 preset: 100 KB downloaded in messages,
beside the project's TCP (Linux's configuration) on the same link. The times are
printed for the record (``pytest -s``), never asserted: only what the design
guarantees is checked."""

from wwanlab.experiments.udp_gprs import tcp_download, udp_gprs_download
from wwanlab.link.presets import GPRS_3PLUS1_DOWN_BPS, WWAN_MAX_RTT, WWAN_MIN_RTT
from wwanlab.transports.udp_gprs import UdpGprsConfig

OBJECTS = [10 * 1024] * 10  # 100 KB as ten 10 KB messages


def test_100_kb_over_gprs_3plus1_keeps_the_queue_short() -> None:
    udp = udp_gprs_download(OBJECTS, seed=1)
    tcp = tcp_download(OBJECTS, seed=1)
    print(f"\n100 KB over gprs-3plus1: UDP-GPRS {udp.seconds:.2f} s, TCP {tcp.seconds:.2f} s")
    assert udp.complete and tcp.complete  # every octet arrived, in order (checked inside)
    # no download beats the line: every downlink octet at 39.6 kbit/s, plus one way
    assert udp.seconds > udp.down_bytes * 8 / GPRS_3PLUS1_DOWN_BPS + WWAN_MIN_RTT / 2
    # credit flow control: at most the credit, an ACK's worth and the datagram itself
    # ahead of any packet, so its one-way delay stays far below the 2.4 s buffer
    credit = UdpGprsConfig().credit
    bound = WWAN_MIN_RTT / 2 + (credit + 1500 + 64) * 8 / GPRS_3PLUS1_DOWN_BPS
    assert udp.max_down_delay <= bound < tcp.max_down_delay
    assert udp.dropped == 0 and udp.resent == 0  # nothing overflowed the queue


def test_losses_are_repaired_and_the_download_completes() -> None:
    runs = [udp_gprs_download(OBJECTS, loss=0.05, seed=seed) for seed in range(1, 6)]
    assert all(run.complete for run in runs)
    assert sum(run.resent for run in runs) > 0  # some losses hit DATA and were repaired


def test_a_stall_costs_udp_gprs_little_more_than_the_stall() -> None:
    clean = udp_gprs_download(OBJECTS, seed=1)
    stalled = udp_gprs_download(OBJECTS, seed=1, stall=(5.0, 15.0))
    tcp = tcp_download(OBJECTS, seed=1, stall=(5.0, 15.0))
    print(f"\n10 s stall: UDP-GPRS {stalled.seconds:.2f} s, TCP {tcp.seconds:.2f} s")
    assert stalled.complete and tcp.complete
    assert stalled.dropped == 0  # the credit kept the stalled queue within its buffer
    # resumed by the first keep-alive or tail probe through: at most one keep-alive
    # interval and one worst round trip later than the stall alone explains
    config = UdpGprsConfig()
    assert stalled.seconds - clean.seconds <= 10.0 + config.keepalive_interval + WWAN_MAX_RTT
