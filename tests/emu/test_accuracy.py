"""The emulator's link is the simulator's link: the probe measures the same through both.

For each preset the probe runs through the forwarder (real IPv4/UDP bytes over socket
pairs, wall clock) and through the simulator with the same seed and schedule. Both
links draw the same random numbers for the same packets, so any difference is the
emulator's timing. Asserted per direction:

* rate within 2% of the simulator's measurement on the same draws, and within 2% of
  the configured IP rate where the preset's rate is not jittered (GPRS's radio latency
  is: ten frames' arrivals carry 0-40 ms each);
* the size-independent delay's p50 and p95 within 2 ms of the simulator's;
* the loss inside the 99% binomial interval of the configured loss.

Schedules are cut to a few seconds per preset, each sized for the precision asserted
(see ``CASES``); the simulator's own probe, with its minutes of probing, checks the
models against their configuration elsewhere.
"""

import math
from dataclasses import dataclass
from statistics import NormalDist

import pytest

from wwanlab.emu.probe import probe_emulated
from wwanlab.experiments.probe import probe
from wwanlab.link.presets import VDELDROP_DROP, VDELDROP_PHASE, get_preset

RATE_TOLERANCE = 0.02  # the accuracy asked of the emulator
DELAY_TOLERANCE_MS = 2.0
Z99 = NormalDist().inv_cdf(0.995)  # two-sided 99% interval


@dataclass(frozen=True)
class Case:
    count: int  # paced probes per direction
    train: int | None  # rate train length; None: the simulator probe's own choice
    gap: float | None  # seconds between paced probes; None: the simulator probe's
    random_rate: bool  # the preset's rate is drawn per packet (only its mean is configured)
    expected_loss: float | None = None  # None: the preset's configured loss


CASES = {
    # A 470-octet packet lasts 0.49 s at 960 octets/s: 3 of them span 1 s, so a 1 ms
    # timer error moves the rate 0.1%. The delay is deterministic: one paced probe of
    # each size fits the per-octet line exactly. A 1.6 s gap drains 1400 octets (1.47 s).
    "serial-9k6": Case(count=3, train=3, gap=1.6, random_rate=False),
    # Ten frames at the radio's 48 kbit/s behind one TBF set-up, each with 0-40 ms of
    # latency; 9 paced probes (3 of each size) 1.2 s apart: every probe finds the TBF
    # released (T3192 0.5 s after the last frame, which ends at most 0.23 s after the
    # probe reaches the radio; the Internet's jitter moves that by tens of ms), so the
    # emulator's timing never decides whether a set-up is drawn.
    "gprs-one-user": Case(count=9, train=10, gap=1.2, random_rate=True),
    # The simulator's train (40 x p95 delay, 5000 packets, 2 s at 10 Mbit/s) evens out
    # the On phase's 0-50 ms delays to within 1% of the line rate. The whole probe falls
    # in the first On phase (10 s from time 0), where the drop rate is the paper's 10%.
    "vdeldrop": Case(
        count=30, train=None, gap=None, random_rate=False, expected_loss=VDELDROP_DROP
    ),
    # 1000 packets of 376 us span 0.38 s: a 1 ms error at either end moves the rate 0.5%.
    "ref-10m-50ms": Case(count=30, train=1000, gap=None, random_rate=False),
}


@pytest.mark.parametrize("name", list(CASES))
def test_probe_through_the_emulator_matches_the_simulator(name):
    case = CASES[name]
    emu, summary = probe_emulated(name, seed=1, count=case.count, train=case.train, gap=case.gap)
    sim = probe(name, seed=1, count=case.count, train=case.train, gap=case.gap)
    if name == "vdeldrop":
        assert summary["elapsed_s"] < VDELDROP_PHASE
    for d in ("down", "up"):
        e, s = emu.directions[d], sim.directions[d]
        assert e.rate_bps == pytest.approx(s.rate_bps, rel=RATE_TOLERANCE), d
        if not case.random_rate:
            assert e.rate_bps == pytest.approx(e.expected_rate_bps, rel=RATE_TOLERANCE), d
        for q in ("p50", "p95"):
            emu_ms, sim_ms = e.measured()["delay_ms"][q], s.measured()["delay_ms"][q]
            assert abs(emu_ms - sim_ms) <= DELAY_TOLERANCE_MS, (d, q, emu_ms, sim_ms)
        p = float(get_preset(name).configured[d]["loss"])
        if case.expected_loss is not None:
            p = case.expected_loss
        half = Z99 * math.sqrt(p * (1 - p) / e.sent)
        assert p - half <= e.loss <= p + half, (d, e.loss, p, half)
        # Every probe the emulator read was delivered or dropped, none left behind.
        assert summary[d]["in_flight"] == 0
