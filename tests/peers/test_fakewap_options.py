from pathlib import Path

import pytest

from wwanlab.peers.kannel import (
    FAKEWAP,
    FakewapOptions,
    KannelConfig,
    KannelError,
    parse_fakewap_log,
)

# Real fakewap 1.4.5 logs (-D 1), shortened to the lines the parser reads.
OK_LOG = """\
2026-11-23 06:24:20 [8162] [0] INFO: fakewap: starting
2026-11-23 06:24:20 [8162] [0] DEBUG: Sent WSP_CONNECT packet
2026-11-23 06:24:20 [8162] [0] DEBUG: Received WTP_RESULT pdu, gtr 0, ttr 1, payload len 63
2026-11-23 06:24:20 [8162] [0] INFO: fakewap: Received WSP Reply with status code 200OK
2026-11-23 06:24:20 [8162] [0] INFO: fakewap: Received WSP Reply with status code 200OK
2026-11-23 06:24:20 [8162] [0] WARNING: fakewap: Warning - received reply with status 404
2026-11-23 06:24:20 [8162] [0] INFO: fakewap: complete.
2026-11-23 06:24:20 [8162] [0] INFO: fakewap: 2 client threads made total 3 transactions.
2026-11-23 06:24:20 [8162] [0] INFO: fakewap: total running time 1.0 seconds
2026-11-23 06:24:20 [8162] [0] INFO: fakewap: 3.0 messages/seconds on average
2026-11-23 06:24:20 [8162] [0] INFO: fakewap: time of best, worst and average transaction: \
0.1 s, 0.3 s, 0.2 s
"""

LOSSY_LOG = """\
2026-11-23 06:24:21 [8170] [0] DEBUG: Dropped packet, new timeout 10
2026-11-23 06:24:21 [8170] [0] DEBUG: Dropped packet, new timeout 10
2026-11-23 06:24:21 [8170] [0] DEBUG: Sending WTP_NACK pdu, num_lost 1, lost_seg0 4
2026-11-23 06:24:31 [8170] [0] INFO: fakewap: Timeout while receiving from socket.
2026-11-23 06:24:31 [8170] [0] PANIC: fakewap: Failed to receive entire message!?!
"""


def test_parse_counts_replies_statuses_and_summary():
    r = parse_fakewap_log(OK_LOG, 0, 1.5)
    assert (r.clients, r.transactions, r.replies_ok, r.bad_statuses) == (2, 3, 2, (404,))
    assert (r.best_s, r.worst_s, r.average_s, r.reported_running_time_s) == (0.1, 0.3, 0.2, 1.0)
    assert r.transactions_per_second == 2.0
    assert r.errors == ()
    assert not r.ok  # one of three replies was a 404


def test_parse_lossy_failure():
    r = parse_fakewap_log(LOSSY_LOG, 255, 10.2)
    assert (r.dropped, r.nacks, r.timeouts, r.transactions) == (2, 1, 1, 0)
    assert r.errors == ("fakewap: Failed to receive entire message!?!",)
    assert not r.ok


def test_command_uses_fakewap_flags():
    opts = FakewapOptions(
        gateway="127.0.0.3",
        clients=8,
        max_requests=100,
        interval=0.0,
        loss_percent=10,
        post_file=Path("/tmp/in"),
        out_file=Path("/tmp/out"),
        tid_new=True,
    )
    assert opts.command(["http://127.0.0.1:1/x"]) == [
        str(FAKEWAP),
        *("-g", "127.0.0.3", "-M", "1", "-c", "8", "-m", "100", "-i", "0.0", "-D", "1"),
        *("-l", "10", "-P", "/tmp/in", "-w", "/tmp/out", "-n"),
        "http://127.0.0.1:1/x",
    ]
    bound = FakewapOptions(gateway="127.0.0.3", source="127.0.0.1:40123")
    assert bound.command(["u"])[-3:] == ["-I", "127.0.0.1:40123", "u"]
    cl = FakewapOptions(gateway="127.0.0.3", connectionless=True, port=9200, debug=0)
    assert cl.command(["u"])[3:5] == ["-M", "0"]
    assert cl.command(["u"])[-3:] == ["-p", "9200", "u"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (FakewapOptions(gateway="10.0.0.1"), "loopback"),
        (FakewapOptions(gateway="127.0.0.1", loss_percent=100), "0..99"),
        (FakewapOptions(gateway="127.0.0.1", max_requests=0), "max_requests"),
        (FakewapOptions(gateway="127.0.0.1", source="0.0.0.0:9"), "loopback"),
    ],
)
def test_command_rejects_bad_options(options: FakewapOptions, message: str):
    with pytest.raises(KannelError, match=message):
        options.command(["http://127.0.0.1/"])


def test_config_is_wap_only_on_loopback(tmp_path: Path):
    text = KannelConfig("127.0.0.7", 13000, 13002, tmp_path, log_level=2).render()
    lines = text.splitlines()
    assert lines[0] == "group = core"
    assert 'wdp-interface-name = "127.0.0.7"' in lines
    assert "admin-interface = 127.0.0.1" in lines
    assert "wapbox-port = 13002" in lines
    assert "group = wapbox" in lines
    assert f'log-file = "{tmp_path / "wapbox.log"}"' in lines
    assert lines.count("log-level = 2") == 2
    assert "smsc" not in text and "smsbox" not in text


def test_parse_run_without_finished_transactions_has_no_average():
    log = (
        "2026-11-23 06:24:20 [1] [0] INFO: fakewap: time of best, worst and average "
        "transaction: 1000000.0 s, 0.0 s, -nan s\n"
    )
    assert parse_fakewap_log(log, 0, 1.0).average_s is None
