"""UDP-GPRS on a line of known rate (``UdpGprsConfig.line_bps``): the tail probe waits
at least the minimum RTO beyond the line time of what is in flight, and the bench sizes
the configuration to the link under test by the defaults' own rules."""

import dataclasses
import random

import pytest

from wwanlab.bench.transports.udp_gprs import config_for
from wwanlab.core.pair import SERVER_ADDR, Pair
from wwanlab.link.presets import get_preset
from wwanlab.transports.udp_gprs import UdpGprsChannel, UdpGprsConfig, decode
from wwanlab.transports.udp_gprs.config import MAX_DATAGRAM
from wwanlab.transports.udp_gprs.outbound import Outbound

LINE = dataclasses.replace(UdpGprsConfig(credit=3 * MAX_DATAGRAM), line_bps=8000.0)
FULL = LINE.max_payload  # message octets of a full datagram


def test_rto_covers_the_line_time_of_what_is_in_flight():
    out = Outbound(LINE)
    out.queue(bytes(3 * FULL))
    for _ in range(3):
        out.take(0.0)
    assert out.outstanding == 3 * MAX_DATAGRAM
    # before any sample: max(3 s initial, 1 s + 4416 octets at 8 kbit/s)
    assert out.rto == pytest.approx(1.0 + 3 * MAX_DATAGRAM * 8 / 8000)
    out.acknowledge(1, LINE.credit, 0.1)  # one round trip of 0.1 s sampled
    assert out.srtt == pytest.approx(0.1)
    # RFC 6298 alone says max(1 s, 0.1 + 4 * 0.05); the line still holds two datagrams
    assert out.rto == pytest.approx(1.0 + 2 * MAX_DATAGRAM * 8 / 8000)
    out.config = UdpGprsConfig()
    assert out.rto == pytest.approx(1.0)


def test_without_a_line_rate_the_rto_is_rfc_6298s():
    out = Outbound(UdpGprsConfig())
    out.queue(bytes(3 * FULL))
    for _ in range(3):
        out.take(0.0)
    assert out.rto == 3.0


def test_the_first_flight_arms_the_tail_probe_for_all_of_it():
    client = UdpGprsChannel.client(SERVER_ADDR, random.Random(3), LINE)
    server = UdpGprsChannel.server(LINE)
    p = Pair(client, server, latency=0.05, drop=lambda side, i, d: side == "client")
    client.send_message(bytes(3 * FULL), 0.0)
    p.run(until=6.0)
    data = [s for s in p.sent("client") if decode(s.data, MAX_DATAGRAM).kind.name == "DATA"]
    assert [s.sent_at for s in data] == [0.0, 0.0, 0.0, pytest.approx(5.416)]
    assert decode(data[3].data, MAX_DATAGRAM).seq == 2  # the newest, resent


def test_the_bench_sizes_udp_gprs_to_serial_9k6():
    config = config_for(get_preset("serial-9k6"))
    # 9600 bit/s of 10-bit octets less the PPP octets of a 1500-octet packet; a full
    # packet and a 40-octet ACK, 8 PPP octets each, take 1556 / 960 s with empty queues
    rtt = (1508 + 48) / 960
    assert config.line_bps == pytest.approx(7680 * 1500 / 1508)
    assert config.credit == 4492  # 1548 octets of bandwidth-delay product + 2 * 1472
    assert config.nak_interval == pytest.approx(rtt + (4492 + 1472) * 8 / config.line_bps)
    assert config.nak_interval == pytest.approx(7.866, abs=5e-4)
    assert config.rto_initial == pytest.approx(rtt)  # 1.62 s, not 3 s
    assert config_for(get_preset("vdeldrop")).rto_initial == 1.0  # RFC 6298 2.4's floor


def test_a_later_message_puts_the_tail_probe_off_until_it_can_have_crossed():
    client = UdpGprsChannel.client(SERVER_ADDR, random.Random(3), LINE)
    server = UdpGprsChannel.server(LINE)
    p = Pair(client, server, latency=0.05, drop=lambda side, i, d: side == "client")
    client.send_message(bytes(8), 0.0)  # a 28-octet DATA: RTO max(3 s, 1.028 s)
    p.run(until=1.0)
    client.send_message(bytes(2 * FULL), 1.0)  # then 28 + 2 * 1472 octets in flight
    p.run(until=6.0)
    data = [s for s in p.sent("client") if decode(s.data, MAX_DATAGRAM).kind.name == "DATA"]
    probe = 1.0 + 1.0 + (28 + 2 * MAX_DATAGRAM) * 8 / 8000
    assert [s.sent_at for s in data] == [0.0, 1.0, 1.0, pytest.approx(probe)]
    assert decode(data[3].data, MAX_DATAGRAM).seq == 2
