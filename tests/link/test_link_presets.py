"""Presets: registry, citations, fresh state per build, loss override, and a probe of
each preset's measured loss and rate against what it says it configured."""

import math
import random

import pytest

from wwanlab.core.errors import UsageError
from wwanlab.link import ConstantDelay, Direction, Drop, UniformDelay
from wwanlab.link.presets import PRESETS, Preset, delay_summary, get_preset, vdeldrop_preset

PAPER_FILES = ("000_", "002_", "003_", "004_")


def _probe(
    direction: Direction, *, size: int, gap: float, n: int, seed: int
) -> tuple[float, float]:
    """Send ``n`` packets ``gap`` apart: (loss fraction, delivered bits/s over the run)."""
    rng = random.Random(seed)
    delivered: list[float] = []
    for i in range(n):
        verdict = direction.transmit(size, i * gap, rng)
        if not isinstance(verdict, Drop):
            delivered.append(verdict)
    loss = 1 - len(delivered) / n
    return loss, len(delivered) * size * 8 / max(delivered)


def test_registry_and_required_presets() -> None:
    for name in (
        "serial-9k6",
        "gprs-one-user",
        "gprs-busy",
        "gprs-3plus1",
        "cdma-1x",
        "dialup-56k",
        "vdeldrop",
    ):
        assert get_preset(name).name == name
    for name, preset in PRESETS.items():
        assert preset.name == name
        # A preset cites its paper, or says it comes from none and why it exists.
        from_paper = any(paper in preset.citation for paper in PAPER_FILES)
        assert from_paper or preset.citation.startswith("no paper: "), name
        assert preset.assumptions and preset.mtu > 0
        for direction in ("down", "up"):
            configured = preset.configured[direction]
            assert {"rate_bps", "loss", "delay_ms"} <= configured.keys()
            assert {"mean", "p50", "p95"} == configured["delay_ms"].keys()
            assert 0.0 <= configured["loss"] <= 1.0


def test_unknown_preset_lists_the_known_ones() -> None:
    with pytest.raises(UsageError, match=r"unknown link preset 'nope' \(known: serial-9k6, "):
        get_preset("nope")


def test_bad_direction_and_loss_override_raise_usage_error() -> None:
    preset = get_preset("serial-9k6")
    with pytest.raises(UsageError, match="direction"):
        preset.build("sideways")
    with pytest.raises(UsageError, match="loss"):
        preset.with_loss(1.2)
    with pytest.raises(UsageError, match="loss"):
        preset.build("down", loss=-0.5)


def test_each_build_has_fresh_state() -> None:
    preset = get_preset("serial-9k6")
    first, second = preset.build("down"), preset.build("down")
    rng = random.Random(0)
    assert first.transmit(1000, 0.0, rng) == second.transmit(1000, 0.0, rng)
    assert first.stages[1] is not second.stages[1]


def test_serial_9k6_exact_serialization() -> None:
    # 1000 IP octets + 8 PPP octets, 10 bits each, at 9600 bit/s.
    down = get_preset("serial-9k6").build("down")
    assert down.transmit(1000, 0.0, random.Random(0)) == pytest.approx(1008 * 10 / 9600)


def test_with_loss_sets_the_knob_and_the_configured_loss() -> None:
    lossy = get_preset("serial-9k6").with_loss(0.1)
    assert lossy.loss == 0.1
    assert lossy.configured["down"]["loss"] == pytest.approx(0.1)
    assert get_preset("serial-9k6").configured["down"]["loss"] == 0.0
    assert get_preset("vdeldrop").with_loss(0.5).configured["up"]["loss"] == pytest.approx(0.25)


# (preset, packet size, gap between packets as a fraction of its serialization time)
PROBES = [
    ("serial-9k6", 1000, 0.5),  # saturated: measures the rate
    ("gprs-one-user", 470, 0.5),
    ("gprs-busy", 470, 0.5),
    ("gprs-radio-one-user", 470, 0.5),
    ("gprs-3plus1", 1500, 1.25),  # below the rate: the buffer never overflows
    ("cdma-1x", 1500, 1.25),
    ("dialup-56k", 1500, 0.5),
    ("vdeldrop", 1000, 200.0),
]


def _with_probe_loss(preset: Preset) -> Preset:
    return preset if preset.configured["down"]["loss"] > 0 else preset.with_loss(0.05)


@pytest.mark.parametrize(("name", "size", "load"), PROBES)
def test_probe_matches_configured_loss_and_rate(name: str, size: int, load: float) -> None:
    preset = _with_probe_loss(get_preset(name))
    configured = preset.configured["down"]
    rate = configured["rate_bps"]
    per_packet = (size + configured["overhead_bytes"]) * configured["bits_per_byte"] / rate
    n = 8000 if name != "vdeldrop" else 20_000
    loss, bps = _probe(preset.build("down"), size=size, gap=load * per_packet, n=n, seed=7)
    p = configured["loss"]
    # vdeldrop: 20000 packets 0.05 s apart are 50 whole 20 s cycles, half of the
    # packets in On; the noise is binomial over the On packets only.
    on_only = math.sqrt(n / 2 * 0.1 * 0.9) / n
    se = on_only if name == "vdeldrop" else math.sqrt(p * (1 - p) / n)
    assert abs(loss - p) < 4 * se, (loss, p)
    if load < 1:
        # Saturated and without the knob's loss (which may fall after the line), the
        # delivered throughput is the configured rate for IP octets. For the random
        # service times of GPRS, the mean of n service times has relative sd
        # (range/sqrt(12))/mean/sqrt(n) (<= 0.5% here), so 3% bounds 4 of them.
        framing = size / (size + configured["overhead_bytes"])
        ip_rate = rate * framing * 8 / configured["bits_per_byte"]
        _, bps = _probe(
            preset.with_loss(0.0).build("down"), size=size, gap=load * per_packet, n=n, seed=8
        )
        assert bps == pytest.approx(ip_rate, rel=0.03)


def test_vdeldrop_factory_names_its_variant() -> None:
    assert vdeldrop_preset().name == "vdeldrop"
    variant = vdeldrop_preset(on=4.0, off=10.0, p=0.33)
    assert variant.name == "vdeldrop-4-10-0.33"
    assert variant.configured["down"]["loss"] == pytest.approx(4 / 14 * 0.33)


def test_delay_summary_of_a_sum_and_of_a_mixture() -> None:
    # U(0,1) + U(0,1) is triangular on [0, 2]: median 1, p95 = 2 - sqrt(0.1). The grid
    # is 200 points per component, so quantiles are good to about 1/200 in probability.
    summary = delay_summary([UniformDelay(0, 1), UniformDelay(0, 1)])
    assert summary["mean"] == pytest.approx(1000)
    assert summary["p50"] == pytest.approx(1000, abs=10)
    assert summary["p95"] == pytest.approx((2 - math.sqrt(0.1)) * 1000, abs=10)
    # Half the packets see 1 s, half nothing.
    half = delay_summary([ConstantDelay(1.0)], active=0.5)
    assert half == {"mean": 500.0, "p50": 0.0, "p95": 1000.0}


def test_llc_ack_presets_state_residual_loss_and_added_delay() -> None:
    configured = get_preset("gprs-busy-llc-ack").configured["down"]
    assert configured["loss"] == pytest.approx(1 - (1 - 0.023**3) * (1 - 0.01))
    # Delivered packets failed k tries with probability p^k (1-p) / (1-p^3); each failed
    # try costs the 0.1 s acknowledgement wait plus one more frame on the air: 470 IP
    # octets and 10 of LLC at 48 kbit/s, 80 ms.
    p = 0.023
    failed = (p * (1 - p) + 2 * p**2 * (1 - p)) / (1 - p**3)
    assert configured["arq_mean_added_delay_ms"] == pytest.approx(failed * 180, abs=1e-3)
