"""Cross-validation at small scale: a 12 KB download on serial-9k6 without loss, the
kernel's reno and cubic through the emulator within 5% of the simulator's goodput.

The simulator half is checked alone too: without loss it is deterministic, and its
time is the line's (the first packet to the last octet of the body).
"""

import asyncio
import os

import pytest

from wwanlab.bench import registry
from wwanlab.bench.crossval import AGREEMENT, KERNEL, compare, kernel_rows, simulated
from wwanlab.link.presets import SERIAL_MTU


def test_simulated_download_without_loss_is_deterministic_and_at_the_line_rate():
    goodputs = simulated(12000, 0.0, 3, seed=1)
    assert len(set(goodputs)) == 1
    # The body and an 81-octet head in 8 full segments (1448 octets of data beside the
    # timestamps) and one of 497 octets (+ 52 header and 8 PPP octets each) on a 960
    # octet/s line; the handshake and the request add less than half a second.
    line_time = (8 * (SERIAL_MTU + 8) + 497 + 60) / 960
    assert line_time < 12000 * 8 / goodputs[0] < line_time + 0.5


def test_simulated_download_with_loss_varies_by_seed():
    assert len(set(simulated(12000, 0.1, 5, seed=1))) > 1


@pytest.mark.slow
def test_kernel_tcp_through_the_emulator_agrees_with_the_simulator_at_0_loss():
    pytest.importorskip("wwanlab.emu.link")
    if os.geteuid() != 0:
        pytest.skip("the emulator needs root")
    transports = registry.select(",".join(KERNEL))
    rows = asyncio.run(kernel_rows(0.0, transports, (12000,), reps=1, seed=1))
    assert all(r["complete"] for r in rows), [r["error"] for r in rows]
    (row,) = compare(rows, (12000,), 0.0, reps=1, seed=1)
    for name in KERNEL:
        assert abs(row[f"{name}_vs_sim_pct"]) <= 100 * AGREEMENT, row
