"""gprs-proxies: the mobile's radio energy beside throughput."""

import dataclasses

import pytest

from wwanlab.energy import RadioLog, account, get_model, on_line
from wwanlab.reproductions import gprs_proxies
from wwanlab.reproductions.gprs_proxies.network import (
    FILE_SIZE,
    MH_IP,
    download,
    radio,
    reno_2002,
)


def test_the_tap_on_the_mobile_only_reads() -> None:
    log = RadioLog(MH_IP)
    tapped = download("one-user", "split", 4, radio_log=log)
    assert dataclasses.asdict(tapped) == dataclasses.asdict(download("one-user", "split", 4))
    sent = [p for p in log.packets if p[1] == "tx"]
    received = [p for p in log.packets if p[1] == "rx"]
    assert tapped.complete and sent and received
    # the MH receives the 512 KB (1220 segments of 430 octets, plus headers) at least
    assert sum(size for _, _, size in received) >= FILE_SIZE + 1220 * 40


def test_rows_carry_joules_and_j_per_mb_of_the_file() -> None:
    params = {"link.cell": "one-user", "stack.config": "TCP Reno", "stack.tcp": "reno-2002"}
    (row,) = gprs_proxies.run_one(params, 4)
    log = RadioLog(MH_IP)
    tcp = reno_2002(recover=gprs_proxies.RECOVER)  # the reproduction's fixed host
    download("one-user", "none", 4, radio_log=log, tcp=tcp, net_kind=gprs_proxies.INTERNET)
    up, down = (radio("one-user", d, llc_ack=False) for d in ("up", "down"))
    joules = account(log.packets, get_model("gprs"), on_line(up.stages, down.stages)).joules
    assert row["joules_gprs"] == joules
    assert row["j_per_mb_gprs"] == pytest.approx(2 * joules)  # the file is half a MB
    # received for at least the file's octets at the cell's 37,600 bit/s, at 0.5 W
    assert joules > 0.5 * FILE_SIZE * 8 / 37_600
