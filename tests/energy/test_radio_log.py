"""The simulator's tap on the mobile host and the energy columns reproductions add."""

import math
import socket

import pytest

from wwanlab.energy import RadioLog, account, at_rates, energy_columns, get_model
from wwanlab.experiments.transfers import wap_transfer


def ipv4(src: str, dst: str, size: int) -> bytes:
    """Enough of an IPv4 packet for the tap: addresses at octets 12-19, ``size`` long."""
    return bytes(12) + socket.inet_aton(src) + socket.inet_aton(dst) + bytes(size - 20)


def test_the_tap_keeps_the_hosts_own_packets_by_address():
    log = RadioLog("10.0.0.1")
    log.tap(1.0, ipv4("10.0.0.1", "10.0.0.2", 60))
    log.tap(2.5, ipv4("10.0.0.2", "10.0.0.1", 1500))
    log.tap(3.0, ipv4("10.0.0.2", "10.0.0.3", 40))  # passing through: not the mobile's
    assert log.packets == [(1.0, "tx", 60), (2.5, "rx", 1500)]


def test_the_client_tap_sees_what_the_serial_line_carried_to_and_from_it():
    """Two recordings of one lossy run agree: the tap on the client host, and the trace of
    the serial link (sent up; delivered down)."""
    result = wap_transfer(20_000, 0.1, seed=3)
    assert result.complete and result.dropped_up > 0 and result.dropped_down > 0
    from_trace = [(p.sent, "tx", p.size) for p in result.trace if p.direction == "up"] + [
        (p.delivered, "rx", p.size)
        for p in result.trace
        if p.direction == "down" and p.delivered is not None
    ]
    assert sorted(result.radio) == sorted(from_trace)


def test_columns_per_model_and_no_megabyte_from_a_transfer_that_failed():
    trace = [(0.0, "tx", 1000), (2.0, "rx", 1000)]
    air = at_rates(8000, 8000)
    columns = energy_columns(trace, air, 1 << 19, ("gprs", "umts"))
    gprs = account(trace, get_model("gprs"), air).joules
    # gprs: tx 1 s at 1 W, rx 1 s at 0.5 W, the 0-gap tail and the final 6 s at 0.25 W
    assert gprs == pytest.approx(1.0 + 0.5 + 6 * 0.25)
    assert columns["joules_gprs"] == gprs and columns["j_per_mb_gprs"] == pytest.approx(2 * gprs)
    assert columns["joules_umts"] == account(trace, get_model("umts"), air).joules
    failed = energy_columns(trace, air, None, ("gprs",))
    assert failed["joules_gprs"] == gprs and math.isnan(failed["j_per_mb_gprs"])


def test_wap_vs_tcp_rows_carry_the_clients_energy():
    from wwanlab.reproductions import wap_vs_tcp

    params = {"stack.protocol": "wap", "workload.size": 4000, "link.overrides.loss": 0.0}
    (row,) = wap_vs_tcp.run_one(params, 2002)
    result = wap_transfer(4000, 0.0, 2002)
    joules = account(result.radio, get_model("gprs"), wap_vs_tcp.AIRTIME).joules
    assert row["joules_gprs"] == joules
    assert row["j_per_mb_gprs"] == pytest.approx(joules / (4000 / (1 << 20)))
    # the whole exchange is on the line or in the tail: at least 0.5 W for its duration
    assert joules > 0.5 * row["duration_s"]
