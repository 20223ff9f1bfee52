"""The runner over loopback: every transport moves the file intact; failures are rows."""

import asyncio
import contextlib
import json
import math
import os
import sys
from collections.abc import AsyncIterator

import pytest

from wwanlab.bench import registry
from wwanlab.bench.http import Fetched
from wwanlab.bench.run import (
    BenchConfig,
    LoopbackLink,
    capacity_bps,
    deciles,
    loopback,
    run_bench,
    summarize_bench,
)
from wwanlab.bench.suite import link_opener
from wwanlab.core.errors import UsageError
from wwanlab.link.presets import get_preset

SERIAL = get_preset("serial-9k6")


def test_every_available_transport_moves_the_file_intact_over_loopback():
    transports = registry.select(None)
    assert len(transports) >= 8  # bbr is a module some kernels lack
    config = BenchConfig(SERIAL, sizes=(12000,), reps=1, emulated=False)
    seen: list[str] = []
    rows = asyncio.run(run_bench(loopback, transports, config, seen.append))
    assert [r["transport"] for r in rows] == [t.name for t in transports]
    assert len(seen) == len(rows)
    for row in rows:
        assert row["complete"], (row["transport"], row["error"])
        assert row["completion_s"] > 0 and row["goodput_bps"] > 0
        assert row["link"] == "loopback" and row["pct_c"] is None and row["bytes_up"] is None
        has_handshake = row["family"] not in ("KCP", "UDP-GPRS")  # both start with data
        assert (row["handshake_s"] is not None) == has_handshake
    assert len({r["seed"] for r in rows}) == 1  # the same link for every transport


def _lying(name: str) -> registry.Transport:
    """A transport whose client reports a body other than the file."""
    said = json.dumps(Fetched(0.1, 0.2, "0" * 64, 4000).to_json())
    return registry.Transport(
        name,
        "test",
        "lies",
        serve=registry.load()["tcp-reno"].serve,
        argv=lambda params, path: [sys.executable, "-c", f"print({said!r})"],
    )


def test_a_wrong_body_or_a_failing_client_is_a_failed_row():
    config = BenchConfig(SERIAL, sizes=(4000,), reps=1, emulated=False)
    (row,) = asyncio.run(run_bench(loopback, [_lying("liar")], config))
    assert not row["complete"]
    assert row["error"] == "wrong body (4000 octets, sha256 000000000000)"
    assert math.isnan(row["goodput_bps"])

    # Python clients look their transport up in the registry of the client process.
    unknown = registry.Transport(
        "unregistered", "test", "", serve=registry.load()["tcp-reno"].serve
    )
    (row,) = asyncio.run(run_bench(loopback, [unknown], config))
    assert not row["complete"]
    assert row["error"] == "no client for transport 'unregistered'"


class CountingLink(LoopbackLink):
    """Loopback with counters that grow by a known amount per transfer."""

    def __init__(self) -> None:
        self.reads = 0

    def counters(self) -> dict[str, int] | None:
        self.reads += 1
        return {"packets_up": self.reads, "packets_down": 2 * self.reads,
                "bytes_up": 100 * self.reads, "bytes_down": 1000 * self.reads}  # fmt: skip


@contextlib.asynccontextmanager
async def counting(seed: int) -> AsyncIterator[CountingLink]:
    yield CountingLink()


def test_rows_carry_the_links_counters_before_and_after_and_percent_of_c():
    config = BenchConfig(SERIAL.with_loss(0.1), sizes=(4000,), reps=2)
    rows = asyncio.run(run_bench(counting, [registry.load()["tcp-reno"]], config))
    assert [
        (r["packets_up"], r["packets_down"], r["bytes_up"], r["bytes_down"]) for r in rows
    ] == [(1, 2, 100, 1000)] * 2
    for row in rows:
        assert row["link"] == "serial-9k6" and row["loss"] == pytest.approx(0.1)
        assert row["pct_c"] == pytest.approx(100 * row["goodput_bps"] / capacity_bps(SERIAL))
        assert row["pct_c_loss"] == pytest.approx(row["pct_c"] / 0.9)
    assert [r["rep"] for r in rows] == [0, 1]
    assert rows[0]["seed"] != rows[1]["seed"]


def test_capacity_is_the_ip_rate_of_full_mtu_packets():
    # 960 octets/s on the async line; 1500 of every 1508 octets are IP.
    assert capacity_bps(SERIAL) == pytest.approx(960 * 1500 / 1508 * 8)
    # gprs-one-user and gprs-busy: the radio's 48 kbit/s of LLC frames (paper 002 V.1),
    # 10 octets of LLC per packet, below the 64 kbit/s SGSN-BSS line; the latency does
    # not hold the line.
    radio = 48_000 * 1500 / 1510
    assert capacity_bps(get_preset("gprs-one-user")) == pytest.approx(radio)
    assert capacity_bps(get_preset("gprs-busy")) == pytest.approx(radio)


def test_summary_medians_and_deciles():
    rows = [
        {"link": "l", "loss": 0.0, "transport": "t", "family": "f", "ours": False,
         "size": 1000, "complete": True, "completion_s": s, "goodput_bps": 8000 / s,
         "pct_c": None, "pct_c_loss": None, "handshake_s": 0.1 * s,
         "bytes_up": 10, "bytes_down": 20, "drain_s": 0.0}
        for s in (1.0, 2.0, 3.0, 4.0, 5.0)
    ]  # fmt: skip
    rows.append({**rows[0], "complete": False, "completion_s": math.nan})
    (summary,) = summarize_bench(rows)
    assert (summary["runs"], summary["failed"]) == (6, 1)
    assert summary["completion_s"] == 3.0
    assert summary["handshake_s"] == pytest.approx(0.3)
    assert (summary["completion_p10"], summary["completion_p90"]) == pytest.approx((1.4, 4.6))
    assert summary["goodput_bps"] == pytest.approx(8000 / 3)
    assert summary["pct_c"] is None
    assert all(math.isnan(x) for x in deciles([]))
    assert deciles([7.0]) == (7.0, 7.0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"reps": 0}, "--reps 0"), ({"sizes": ()}, "--sizes"), ({"sizes": (0,)}, "--sizes")],
)
def test_config_refuses_bad_values(kwargs, message):
    with pytest.raises(UsageError, match=message):
        BenchConfig(SERIAL, **kwargs)


@pytest.mark.slow
def test_through_the_emulator_rows_carry_the_links_byte_counts():
    pytest.importorskip("wwanlab.emu.link")
    if os.geteuid() != 0:
        pytest.skip("the emulator needs root")
    config = BenchConfig(get_preset("gprs-one-user"), sizes=(4000,), reps=1)
    chosen = registry.select("tcp-cubic,wtp-tuned")
    rows = asyncio.run(run_bench(link_opener(config, None), chosen, config))
    for row in rows:
        assert row["complete"], row["error"]
        assert row["link"] == "gprs-one-user"
        # The file went down, requests and Acks up; headers make each side larger.
        assert row["bytes_down"] > 4000 and 0 < row["bytes_up"] < 4000
        assert row["packets_down"] >= 3 and row["packets_up"] >= 2
        # 4000 octets at 37.6 kbit/s take 0.85 s of radio, plus at least 0.4 s of delay.
        assert row["completion_s"] > 1.2 and 0 < row["pct_c"] < 100
