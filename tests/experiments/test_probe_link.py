"""The probe measures every preset within stated tolerances of what it configures.

Tolerances, with 1000 paced probes per direction:
- loss within 4 binomial standard errors of the configured long-run loss
  (sqrt(max(p (1 - p), 1/n) / n)); exactly 0 where the preset configures none;
- one-way delay p50 and p95 (size-independent part) within 2 ms + 5 % of the configured
  percentile plus framing serialization (the configured percentiles are computed to
  about 1/200 in probability, and LLC retransmissions, not in the configured delay,
  shift a few percent of packets), widened by 4 standard errors of the measured
  quantile and by what the fitted per-octet slope may be off: on a GPRS radio each
  paced probe pays a TBF set-up drawn from hundreds of milliseconds (uniform 0-471 ms
  down), whose spread makes both the quantile (se about 7 ms at n = 1000) and the
  slope through each size's lower quartile (about 10 us per octet) noisy;
- rate within 10 % of the line rate net of framing, where the preset has a rate: the
  busy GPRS radio's random service time (uniform 0.8-2.0 s) gives a 100-packet train a
  standard error of 2.5 %.
"""

import json
import math
import subprocess

import pytest

from wwanlab.experiments.probe import (
    DISCARD_PORT,
    PACED_SIZES,
    PAYLOAD,
    RATE_PACKET,
    RESOLUTION,
    TRAIN_RATE,
    LinkUnderTest,
    dispersion_rate,
    per_octet,
    probe,
    quantile,
)
from wwanlab.experiments.runner import run_scenario
from wwanlab.experiments.scenario import Scenario
from wwanlab.link.presets import PRESETS, VDELDROP_BPS, get_preset
from wwanlab.report.plots import ecdf
from wwanlab.sim.ipv4 import parse_ipv4, parse_udp
from wwanlab.sim.pcap import LINKTYPE_RAW, read_pcap


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_measured_within_tolerance(name: str) -> None:
    result = probe(name, seed=1, count=1000)
    for direction, r in result.directions.items():
        where = f"{name} {direction}"
        p0 = float(r.configured["loss"])
        # Binomial, but never below the resolution of n probes (as the probe reports
        # it): a residual loss of 1e-5 may still lose one of 1000.
        se = math.sqrt(max(p0 * (1 - p0), 1 / r.sent) / r.sent) if p0 > 0 else 0.0
        assert abs(r.loss - p0) <= 4 * se, f"{where}: loss {r.loss} vs {p0} (se {se:.4f})"
        measured = r.measured()["delay_ms"]
        line = r.configured["rate_bps"]
        slope_error = abs(r.per_octet_s - 8 / line) if line else 0.0
        mean_size = sum(PACED_SIZES) / len(PACED_SIZES)
        for q, level in (("p50", 0.5), ("p95", 0.95)):
            expected = r.expected_delay_ms[q]
            band = 2 + 0.05 * expected + 4 * quantile_se(r.delays, level) * 1000
            band += slope_error * mean_size * 1000
            assert abs(measured[q] - expected) <= band, f"{where}: delay {q}"
        if math.isfinite(r.expected_rate_bps):
            assert r.rate_bps is not None
            assert abs(r.rate_bps - r.expected_rate_bps) <= 0.10 * r.expected_rate_bps, where


def quantile_se(values: list[float], q: float) -> float:
    """A distribution-free standard error of the ``q`` quantile of ``values``: half the
    distance between the quantiles one binomial standard error either side of ``q``."""
    step = math.sqrt(q * (1 - q) / len(values))
    lo, hi = quantile(values, max(q - step, 0.0)), quantile(values, min(q + step, 1.0))
    return (hi - lo) / 2


def test_exact_values_on_a_deterministic_link() -> None:
    # dialup-56k down: 56 kbit/s, 8 octets of PPP framing, constant 60 ms, no loss
    r = probe("dialup-56k", seed=3, count=30).directions["down"]
    assert r.loss == 0 and r.received == 30
    assert r.rate_bps == pytest.approx(56_000 * RATE_PACKET / (RATE_PACKET + 8), rel=1e-9)
    assert r.per_octet_s == pytest.approx(8 / 56_000, rel=1e-9)
    framing_ms = 8 * 8 / 56_000 * 1000
    assert r.measured()["delay_ms"]["p50"] == pytest.approx(60 + framing_ms, abs=1e-3)
    raw = sorted(r.raw_delays)
    assert raw[0] == pytest.approx(0.060 + (PACED_SIZES[0] + 8) * 8 / 56_000, abs=1e-9)


def test_same_seed_same_json_and_pcap(tmp_path) -> None:
    a, b, c = tmp_path / "a.pcap", tmp_path / "b.pcap", tmp_path / "c.pcap"
    one = probe("gprs-busy-llc-ack", seed=7, count=200, pcap=a).to_json()
    two = probe("gprs-busy-llc-ack", seed=7, count=200, pcap=b).to_json()
    other = probe("gprs-busy-llc-ack", seed=8, count=200, pcap=c).to_json()
    assert json.dumps(one) == json.dumps(two)
    assert a.read_bytes() == b.read_bytes()
    assert json.dumps(one) != json.dumps(other)
    assert a.read_bytes() != c.read_bytes()


def test_pcap_holds_every_probe_the_link_delivered(tmp_path) -> None:
    path = tmp_path / "p.pcap"
    result = probe("serial-9k6", seed=1, count=12, pcap=path)
    linktype, records = read_pcap(path.read_bytes())
    assert linktype == LINKTYPE_RAW
    down = result.directions["down"]
    assert len(records) == 2 * (down.rate_train + 12)
    lossy = probe(LinkUnderTest(get_preset("serial-9k6"), loss=0.5), seed=1, count=12, pcap=path)
    delivered = sum(r.received + r.rate_received for r in lossy.directions.values())
    assert len(read_pcap(path.read_bytes())[1]) == delivered < len(records)
    times = [t for t, _ in records]
    assert times == sorted(times)
    header, payload = parse_ipv4(records[0][1])
    udp, data = parse_udp(header.src, header.dst, payload)
    assert udp.dst_port == DISCARD_PORT
    assert data[: PAYLOAD.size] == PAYLOAD.pack(TRAIN_RATE, 0)
    assert len(records[0][1]) == RATE_PACKET
    sizes = sorted({len(p) for _, p in records})
    assert sizes == sorted({RATE_PACKET, *PACED_SIZES})


def test_overrides_loss_rate() -> None:
    lossy = LinkUnderTest(get_preset("cdma-1x"), loss=0.2)
    r = probe(lossy, seed=2, count=1000).directions["up"]
    se = math.sqrt(0.2 * 0.8 / 1000)
    assert abs(r.loss - 0.2) <= 4 * se
    shaped = LinkUnderTest(get_preset("cdma-1x"), rate_bps=20_000)
    s = probe(shaped, seed=2, count=50).directions["down"]
    assert s.expected_rate_bps == 20_000
    assert s.rate_bps == pytest.approx(20_000, rel=0.01)
    assert s.configured["override_rate_bps"] == 20_000


def test_trace_override(tmp_path) -> None:
    trace = tmp_path / "t.trace"
    # one 1500-octet delivery opportunity every 100 ms: 120 kbit/s, below cdma-1x's 144
    trace.write_text("".join(f"{ms}\n" for ms in range(100, 1100, 100)))
    r = probe(LinkUnderTest(get_preset("cdma-1x"), trace=trace), seed=1, count=50)
    down = r.directions["down"]
    assert down.configured["override_trace_bps"] == pytest.approx(120_000)
    assert down.expected_rate_bps == pytest.approx(120_000)
    assert down.rate_bps == pytest.approx(120_000, rel=0.05)


def test_quantile_nearest_rank() -> None:
    assert quantile([3.0, 1.0, 2.0, 4.0], 0.5) == 2.0
    assert quantile([3.0, 1.0, 2.0, 4.0], 0.95) == 4.0
    assert quantile([5.0], 0.5) == 5.0


def test_probe_as_scenario_kind() -> None:
    scenario = Scenario(
        "probe-serial",
        "probe",
        params={"link.preset": "serial-9k6", "workload.count": 400},
        sweep={"link.overrides.loss": [0.0, 0.3]},
        seed=4,
    )
    rows = run_scenario(scenario, jobs=1)
    assert [(r["link.overrides.loss"], r["direction"]) for r in rows] == [
        (0.0, "down"),
        (0.0, "up"),
        (0.3, "down"),
        (0.3, "up"),
    ]
    for row in rows:
        p0 = row["configured_loss"]
        assert p0 == row["link.overrides.loss"]
        assert abs(row["loss"] - p0) <= 4 * math.sqrt(p0 * (1 - p0) / 400)


@pytest.mark.peer
def test_tshark_dissects_the_capture(tmp_path) -> None:
    path = tmp_path / "p.pcap"
    result = probe("gprs-one-user", seed=1, count=20, pcap=path)
    fields = ["-T", "fields", "-e", "ip.src", "-e", "udp.dstport", "-e", "ip.len"]
    proc = subprocess.run(
        ["tshark", "-n", "-r", str(path), *fields],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    lines = [line.split("\t") for line in proc.stdout.splitlines()]
    _, records = read_pcap(path.read_bytes())
    assert len(lines) == len(records)
    assert {port for _, port, _ in lines} == {str(DISCARD_PORT)}
    assert [int(n) for _, _, n in lines] == [len(p) for _, p in records]
    from_server = sum(1 for src, _, _ in lines if src == "10.0.0.1")
    down = result.directions["down"]
    assert from_server == down.received + down.rate_received


def test_rate_under_loss_before_and_after_the_line_is_the_line_rate() -> None:
    # serial-9k6 at 10% drop: NISTNet drops downlink packets before the line (they never
    # occupy it) and uplink packets after it. Counting every sequence number as served
    # read 8215 bit/s downlink; the line carries 9600/10 octets/s, of which 470 of 478
    # are IP octets.
    line = 9600 / 10 * 8 * RATE_PACKET / (RATE_PACKET + 8)
    result = probe(LinkUnderTest(get_preset("serial-9k6"), loss=0.10), seed=1, count=100)
    down, up = result.directions["down"], result.directions["up"]
    assert down.rate_received < down.rate_train and up.rate_received < up.rate_train
    assert down.rate_served == "arrived" and up.rate_served == "sent"
    assert down.rate_bps == pytest.approx(line, rel=1e-12)
    assert up.rate_bps == pytest.approx(line, rel=1e-12)


def test_dispersion_rate_chooses_the_count_the_arrivals_follow() -> None:
    per_packet = RATE_PACKET * 8 / 1000  # a 1000 bit/s bottleneck
    # seq 2 lost before the bottleneck: the arrivals stay back to back
    before = [(0, 1.0), (1, 1.0 + per_packet), (3, 1.0 + 2 * per_packet)]
    fit = dispersion_rate(before)
    assert fit is not None and fit.served == "arrived"
    assert fit.rate_bps == pytest.approx(1000, rel=1e-12)
    # seq 2 lost after it: a hole of one service time
    after = [(0, 1.0), (1, 1.0 + per_packet), (3, 1.0 + 3 * per_packet)]
    fit = dispersion_rate(after)
    assert fit is not None and fit.served == "sent"
    assert fit.rate_bps == pytest.approx(1000, rel=1e-12)
    assert dispersion_rate([(0, 1.0)]) is None
    same = dispersion_rate([(0, 1.0), (1, 1.0)])
    assert same is not None and same.rate_bps == math.inf


def test_jittery_link_gives_no_negative_delay() -> None:
    # vdeldrop: VDELDROP_BPS (paper 004 Table 1), 38 octets of framing, 0-50 ms of jitter in
    # On phases and none in Off phases. A slope through every sample tilted with the
    # jitter (1.43 us per octet downlink) and gave a median of -0.032 ms; through each
    # size's lower quartile (more than half the packets cross an Off phase) it is the
    # line's own.
    result = probe("vdeldrop", seed=1, count=1000)
    framing = 38 * 8 / VDELDROP_BPS
    for r in result.directions.values():
        assert r.per_octet_s == pytest.approx(8 / VDELDROP_BPS, rel=1e-9)
        assert min(r.delays) == pytest.approx(framing, abs=1e-6)
        assert r.measured()["delay_ms"]["p50"] == pytest.approx(framing * 1000, abs=1e-3)


def test_constant_delay_reads_as_one_value() -> None:
    # serial-9k6 and gprs-3plus1 without TBFs and outages delay every packet by the same
    # amount: after the serialization is taken off, every sample is the same microsecond.
    plain = "gprs-3plus1[access=false,reselection=false,stalls=false,tbf=false]"
    for name, expected in (("serial-9k6", 8 * 10 / 9600), (plain, 0.3)):
        for r in probe(name, seed=2, count=60).directions.values():
            (only,) = set(r.delays)
            assert only == pytest.approx(expected, abs=RESOLUTION / 2)


def test_ecdf_has_a_step_per_distinct_value() -> None:
    assert ecdf([8.333, 8.333, 8.333]) == ([8.333], [1.0])
    assert ecdf([2.0, 1.0, 2.0, 3.0]) == ([1.0, 2.0, 3.0], [0.25, 0.75, 1.0])


def test_short_jittered_probe_never_gives_a_negative_delay() -> None:
    # 60 paced probes fit inside vdeldrop's first On phase: every sample carries 0-50 ms
    # of jitter, and an unbounded fit gave slopes of -7 to +12 us per octet and delays
    # down to -14 ms. Bounded by what can be true, the slope stays in [0, min delay/size].
    for seed in range(1, 6):
        for r in probe("vdeldrop", seed=seed, count=60).directions.values():
            assert min(r.delays) >= 0 and r.per_octet_s >= 0


def test_per_octet_bounds() -> None:
    # a line through the lower quartiles; then kept within [0, min(delay / size)]
    line = [(size, 0.010 + 1e-6 * size) for size in PACED_SIZES for _ in range(4)]
    assert per_octet(line) == pytest.approx(1e-6, rel=1e-9)
    falling = [(100, 0.030), (576, 0.020), (1400, 0.010)]
    assert per_octet(falling) == 0.0
    steep = [(100, 0.001), (576, 0.060), (1400, 0.150)]
    assert per_octet(steep) == pytest.approx(0.001 / 100)
    assert per_octet([]) == 0.0
