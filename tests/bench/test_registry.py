"""The transport registry: families found by walking the package, selection, checks."""

import pytest

from wwanlab.bench import registry
from wwanlab.bench.transports.wap import read_get_json, tuned_retry_interval
from wwanlab.core.errors import UsageError
from wwanlab.link.presets import get_preset


def test_every_family_registers_itself():
    known = registry.load()
    assert {name: t.family for name, t in known.items()} == {
        "kcp-fec": "KCP",
        "kcp-nofec": "KCP",
        "quic-reno": "QUIC",
        "quic-cubic": "QUIC",
        "tcp-reno": "kernel TCP",
        "tcp-cubic": "kernel TCP",
        "tcp-bbr": "kernel TCP",
        "wtp-paper": "WTP/WSP",
        "wtp-tuned": "WTP/WSP",
        "wwp": "WWP",
        "udp-gprs": "UDP-GPRS",
    }
    assert sorted(n for n, t in known.items() if t.ours) == [
        "udp-gprs",
        "wtp-paper",
        "wtp-tuned",
        "wwp",
    ]


def test_select_by_name_keeps_the_order_given():
    assert [t.name for t in registry.select("tcp-reno, wtp-paper")] == ["tcp-reno", "wtp-paper"]


@pytest.mark.parametrize(
    ("names", "message"),
    [("tcp-vegas", "unknown transport 'tcp-vegas'"), (",", "names no transport")],
)
def test_select_refuses_bad_names(names, message):
    with pytest.raises(UsageError, match=message):
        registry.select(names)


def test_a_transport_that_cannot_run_is_refused_by_name_and_left_out_by_default():
    registry.load()
    absent = registry.Transport(
        "absent",
        "test",
        "needs a program nobody has",
        serve=registry.REGISTRY["tcp-reno"].serve,
        check=registry.needs_programs("no-such-program-wwanlab"),
    )
    registry.register(absent)
    try:
        with pytest.raises(UsageError, match="no-such-program-wwanlab not installed"):
            registry.select("absent")
        assert "absent" not in [t.name for t in registry.select(None)]
        with pytest.raises(ValueError, match="registered twice"):
            registry.register(absent)
    finally:
        del registry.REGISTRY["absent"]


def test_python_clients_run_the_client_module():
    argv = registry.REGISTRY["tcp-reno"].command({"host": "h", "port": 1}, "/f/4")
    assert argv[1:] == [
        "-m", "wwanlab.bench.client", "tcp-reno", '{"host": "h", "port": 1}', "/f/4"
    ]  # fmt: skip


def test_wtp_clients_run_wwanlab_get_with_the_servers_retry_interval():
    params = {"gateway": "10.0.0.1:9201", "origin": "127.0.0.1:80", "retry": 6.814}
    argv = registry.REGISTRY["wtp-tuned"].command({**params, "link": "serial-9k6"}, "/f/4000")
    assert argv[0].endswith("wwanlab")
    assert argv[1:] == [
        "get", "http://127.0.0.1:80/f/4000", "--gateway", "10.0.0.1:9201", "--json",
        "--retry-interval", "6.814", "--timeout", "3600", "--retry-link", "serial-9k6",
    ]  # fmt: skip
    paper = registry.REGISTRY["wtp-paper"].command({**params, "link": ""}, "/f/4000")
    assert paper[-2:] == ["--timeout", "3600"]


def test_tuned_retry_interval_covers_a_group_and_the_round_trip():
    # serial-9k6: three 1432-octet packets + 8 PPP octets at 960 octets/s = 4.5 s, the
    # 33-octet Ack 0.0427 s, no delay; times 1.5.
    assert tuned_retry_interval(get_preset("serial-9k6")) == 6.814
    # gprs-busy: three 1404-octet packets and the Ack through 2 Mbit/s, 64 kbit/s and the
    # radio's 48 kbit/s (10 LLC octets a packet): 1.302 s; plus 2 * 1.960 s, the p95 of
    # the radio latency U(720, 1920) ms and the Internet N(100, 20) ms; times 1.5.
    assert tuned_retry_interval(get_preset("gprs-busy")) == pytest.approx(7.810, abs=0.002)
    # vdeldrop at 10 Mbit/s: the floor.
    assert tuned_retry_interval(get_preset("vdeldrop")) == pytest.approx(0.5)


def test_wwanlab_get_json_becomes_connect_plus_method_time():
    fetched = read_get_json(
        {"ok": True, "status": 200, "connect_seconds": 1.25, "seconds": 3.5,
         "sha256": "ab", "body_bytes": 4000}
    )  # fmt: skip
    assert (fetched.handshake_s, fetched.complete_s, fetched.size) == (1.25, 4.75, 4000)
    with pytest.raises(ValueError, match="504"):
        read_get_json({"ok": True, "status": 504})
