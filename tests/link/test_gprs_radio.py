"""The GPRS radio: exact times for rate, overlapping latency, TBF set-up and release,
LLC resends and outages, and the presets' switches."""

import math
import random
from typing import Any

import pytest

from wwanlab.core.errors import UsageError
from wwanlab.link import ConstantDelay, Direction, Drop, UniformDelay
from wwanlab.link.delay import DelaySum
from wwanlab.link.gprs_radio import GprsRadioStage, Outages, RadioModel, gprs_rate
from wwanlab.link.presets import GPRS_SWITCHES, RACH_WAIT_MAX, get_preset

RATE = 48_000.0
FRAME = 480 * 8 / RATE  # 470 IP octets + 10 of LLC: 80 ms


class Scripted(random.Random):
    """``random()`` from a script (then 0.99, never a loss); ``expovariate`` likewise."""

    def __init__(self, uniforms: list[float], gaps: list[float] | None = None) -> None:
        super().__init__(0)
        self.uniforms = list(uniforms)
        self.gaps = list(gaps or [])

    def random(self) -> float:
        return self.uniforms.pop(0) if self.uniforms else 0.99

    def expovariate(self, lambd: float) -> float:
        return self.gaps.pop(0) if self.gaps else 1e12


def stage(**kw: Any) -> GprsRadioStage:
    args: dict[str, Any] = {
        "latency": ConstantDelay(1.0),
        "per": 0.0,
        "rate_bps": RATE,
        "overhead_bytes": 10,
    }
    args.update(kw)
    return RadioModel(**args).stage()


def test_rates_per_coding_scheme_and_timeslots() -> None:
    assert gprs_rate("CS-2", 4) == 4 * 13_400
    assert gprs_rate("CS-1", 1) == 9_050
    assert gprs_rate("CS-4", 3) == 3 * 21_400
    with pytest.raises(UsageError, match="timeslots"):
        gprs_rate("CS-2", 9)
    with pytest.raises(UsageError, match="coding scheme"):
        gprs_rate("CS-5", 1)


def test_latency_overlaps_so_a_burst_leaves_at_the_rate() -> None:
    radio = stage()
    rng = Scripted([])
    times = [radio.process(470, 0.0, rng) for _ in range(100)]
    assert times[0] == pytest.approx(FRAME + 1.0)
    assert times[-1] == pytest.approx(100 * FRAME + 1.0)  # not 100 * (FRAME + 1.0)


def test_without_overlap_the_latency_holds_the_line() -> None:
    radio = stage(overlap=False)
    rng = Scripted([])
    times = [radio.process(470, 0.0, rng) for _ in range(10)]
    assert times[-1] == pytest.approx(10 * (FRAME + 1.0))


def test_tbf_set_up_on_idle_and_release_after_the_hold() -> None:
    radio = stage(latency=ConstantDelay(0.0), setup=ConstantDelay(0.3), hold=0.5)
    rng = Scripted([])
    first = radio.process(470, 0.0, rng)
    assert isinstance(first, float) and first == pytest.approx(
        0.3 + FRAME
    )  # set-up, then the frame
    # 0.4 s after the line emptied: the TBF is still held (T3192 0.5 s), no set-up.
    assert radio.process(470, first + 0.4, rng) == pytest.approx(first + 0.4 + FRAME)
    idle = radio.busy_until + 0.5 + 1e-9  # just after the release
    assert radio.process(470, idle, rng) == pytest.approx(idle + 0.3 + FRAME)
    assert radio.setups == 2


def test_uplink_tbf_ends_with_its_queue_so_every_burst_pays_access() -> None:
    radio = stage(latency=ConstantDelay(0.0), setup=ConstantDelay(0.2), hold=0.0)
    rng = Scripted([])
    a = radio.process(40, 0.0, rng)
    b = radio.process(40, 0.1, rng)  # arrives during the set-up: joins the same TBF
    assert (a, b) == pytest.approx((0.2 + 50 * 8 / RATE, 0.2 + 100 * 8 / RATE))
    c = radio.process(40, 1.0, rng)  # the queue emptied: a new access
    assert c == pytest.approx(1.2 + 50 * 8 / RATE)
    assert radio.setups == 2


def test_llc_resend_costs_the_ack_wait_and_one_frame_on_the_air() -> None:
    kw = {"latency": ConstantDelay(1.0), "per": 0.5, "llc_ack": True, "ack_wait": 0.1}
    radio = stage(max_retransmissions=2, **kw)
    # First try lost (0.0 < 0.5), the resend arrives (0.99).
    assert radio.process(470, 0.0, Scripted([0.0])) == pytest.approx(FRAME + 1.0 + 0.1 + FRAME)
    assert radio.busy_until == pytest.approx(2 * FRAME)  # the resend took the air
    full = stage(max_retransmissions=2, llc_retry="full-delay", **kw)
    assert full.process(470, 0.0, Scripted([0.0])) == pytest.approx(2 * FRAME + 2.1)
    lost = stage(max_retransmissions=2, **kw)
    assert lost.process(470, 0.0, Scripted([0.0, 0.0, 0.0])) == Drop("arq")
    assert stage(per=0.5).process(470, 0.0, Scripted([0.0])) == Drop("loss:radio")


def test_llc_residual_loss_and_mean_retry() -> None:
    model = RadioModel(
        latency=ConstantDelay(0.5),
        per=0.1,
        rate_bps=RATE,
        overhead_bytes=10,
        llc_ack=True,
        ack_wait=0.1,
        max_retransmissions=2,
    )
    assert model.residual_loss == pytest.approx(1e-3)
    assert model.retry_mean(470) == pytest.approx(0.1 + FRAME)
    measured = []
    radio, rng = model.stage(), random.Random(4)
    for i in range(20_000):
        t = i * 10.0  # far apart: no queueing
        v = radio.process(470, t, rng)
        if not isinstance(v, Drop):
            measured.append(v - t - FRAME - 0.5)
    mean = sum(measured) / len(measured)
    assert mean == pytest.approx(model.mean_added_delay(470), rel=0.1)


def test_an_outage_holds_frames_and_ends_the_tbf() -> None:
    reselect = Outages("reselection", 1.0, ConstantDelay(4.0))
    radio = stage(
        latency=ConstantDelay(0.0), setup=ConstantDelay(0.3), hold=100.0, outages=(reselect,)
    )
    rng = Scripted([], gaps=[1.0])  # one outage, [1, 5) s
    assert radio.process(470, 0.0, rng) == pytest.approx(0.3 + FRAME)
    # Inside the outage: waits for its end, then a new TBF in the new cell.
    assert radio.process(470, 2.0, rng) == pytest.approx(5.0 + 0.3 + FRAME)
    assert radio.setups == 2
    cut = stage(latency=ConstantDelay(0.0), outages=(reselect,))
    rng = Scripted([], gaps=[1.0])
    # A frame on the air when the outage starts finishes after it.
    assert cut.process(470, 0.95, rng) == pytest.approx(0.95 + FRAME + 4.0)


def test_buffer_drops_what_does_not_fit() -> None:
    radio = stage(buffer_bytes=1000)
    rng = Scripted([])
    verdicts = [radio.process(470, 0.0, rng) for _ in range(3)]
    assert verdicts[2] == Drop("queue") and not isinstance(verdicts[1], Drop)


def test_bad_models_are_usage_errors() -> None:
    with pytest.raises(UsageError, match="exactly one"):
        RadioModel(latency=ConstantDelay(0.0), per=0.0)
    with pytest.raises(UsageError, match="llc_retry"):
        RadioModel(latency=ConstantDelay(0.0), per=0.0, rate_bps=1.0, llc_retry="twice")


def test_delay_sum_mean_and_quantiles() -> None:
    access = DelaySum(UniformDelay(0.0, 0.3), UniformDelay(0.0, 0.1))
    assert access.mean == pytest.approx(0.2)
    assert access.quantile(0.5) == pytest.approx(0.2, abs=0.003)
    assert access.quantile(1.0) == pytest.approx(0.4)
    # Below 0.1 the sum's CDF is x^2 / (2 * 0.03): q = 0.05 at x = sqrt(0.003).
    assert access.quantile(0.05) == pytest.approx(0.003**0.5, abs=0.003)


def test_preset_switches_turn_each_phenomenon_off() -> None:
    preset = get_preset("gprs-radio-one-user")
    assert set(preset.switches) == set(GPRS_SWITCHES)
    rng = random.Random(3)
    down = preset.build("down")
    (radio,) = down.stages
    assert isinstance(radio, GprsRadioStage)
    down.transmit(470, 0.0, rng)
    assert radio.setups == 1
    quiet = preset.with_options(tbf=False, access=False)
    assert quiet.name == "gprs-radio-one-user[access=False,tbf=False]"
    for direction in ("down", "up"):
        d: Direction = quiet.build(direction)
        d.transmit(470, 0.0, rng)
        assert d.stages[0].setups == 0  # type: ignore[attr-defined]
    assert quiet.configured["up"]["setup_ms"] is None
    assert preset.configured["up"]["setup_ms"]["p95"] < (RACH_WAIT_MAX + 0.1) * 1000
    with pytest.raises(UsageError, match="no option 'tbff'"):
        preset.with_options(tbff=False)
    with pytest.raises(UsageError, match="true or false"):
        preset.with_options(tbf="no").build("down")
    assert preset.with_options(t3192=1.5).configured["down"]["release_s"] == 1.5
    assert preset.configured["up"]["release_s"] == 0.0
    # gprs-3plus1 has outages on; paper 002's cell has none.
    assert set(get_preset("gprs-3plus1").configured["down"]["outages"]) == {"reselection", "stall"}
    assert preset.configured["down"]["outages"] == {}


def test_one_user_radio_carries_a_download_at_its_rate_despite_its_latency() -> None:
    # 1000 back-to-back 470-octet packets on the one-user radio: the rate (48 kbit/s for
    # 480 framed octets) is the goodput, not one packet per 80-120 ms delay.
    down = get_preset("gprs-radio-one-user").with_loss(0.0).build("down")
    rng = random.Random(5)
    times = [down.transmit(470, 0.0, rng) for _ in range(1000)]
    last = max(t for t in times if isinstance(t, float))
    assert last == pytest.approx(1000 * FRAME, abs=0.5)  # + set-up (<0.5 s) + latency
    assert last > 1000 * FRAME


def test_outages_cover_the_stated_share_of_time() -> None:
    # Stalls start 60 s (mean, exponential) after the previous one ends and last 5 s:
    # 5/65 of the time. Probes 1 s apart are held when they arrive in one. Each outage
    # holds 5 consecutive probes, so the binomial variance is widened 5 times.
    stall = Outages("stall", 1 / 60, ConstantDelay(5.0))
    radio = stage(latency=ConstantDelay(0.0), outages=(stall,))
    rng = random.Random(9)
    n = 20_000
    held = sum(radio.process(40, float(t), rng) > t + 0.1 for t in range(n))  # type: ignore[operator]
    share = 5 / 65
    se = math.sqrt(5 * share * (1 - share) / n)
    assert abs(held / n - share) <= 4 * se
