"""The radio energy model: exact joules for hand-made traces."""

import pytest

from wwanlab.core.errors import UsageError
from wwanlab.energy import RadioModel, TailStage, account, at_rates, get_model, on_line
from wwanlab.link.delay import UniformDelay
from wwanlab.link.rate import Rate, ServiceTime

MODEL = RadioModel(
    name="test",
    tx_w=2.0,
    rx_w=1.0,
    idle_w=0.1,
    tails=(TailStage("t1", 0.5, 2.0), TailStage("t2", 0.25, 4.0)),
    promotion_s=1.0,
    promotion_w=0.4,
)
RATE = 8000.0  # bit/s: 1000 octets take 1 s
AIR = at_rates(RATE, RATE)


def test_one_packet_pays_promotion_transmit_and_both_tails() -> None:
    report = account([(0.0, "tx", 1000)], MODEL, AIR)
    assert report.seconds == {
        "tx": 1.0,
        "rx": 0.0,
        "promotion": 1.0,
        "idle": 0.0,
        "t1": 2.0,
        "t2": 4.0,
    }
    assert report.joules == pytest.approx(2.0 + 0.4 + 2 * 0.5 + 4 * 0.25)


def test_gaps_stay_in_the_tail_or_fall_idle_and_promote_again() -> None:
    trace = [(0.0, "tx", 1000), (4.0, "rx", 1000), (20.0, "tx", 500)]
    report = account(trace, MODEL, AIR)
    # tx 0-1, rx 3-4 (it arrives at 4): gap 2 s in t1; tx 20-20.5: gap 16 s = t1 2 + t2 4
    # + idle 10, then a second promotion; the final tails run out in full
    assert report.seconds["tx"] == pytest.approx(1.5)
    assert report.seconds["rx"] == pytest.approx(1.0)
    assert report.seconds["t1"] == pytest.approx(2 + 2 + 2)
    assert report.seconds["t2"] == pytest.approx(4 + 4)
    assert report.seconds["idle"] == pytest.approx(10.0)
    assert report.seconds["promotion"] == pytest.approx(2.0)
    expected = 1.5 * 2 + 1.0 * 1 + 6 * 0.5 + 8 * 0.25 + 10 * 0.1 + 2 * 0.4
    assert report.joules == pytest.approx(expected)
    assert report.per_megabyte(2 * 1 << 20) == pytest.approx(expected / 2)


def test_overlapping_transmit_and_receive_count_as_transmit() -> None:
    trace = [(0.0, "tx", 1000), (0.5, "rx", 1000)]  # rx occupies -0.5..0.5
    report = account(trace, MODEL, AIR)
    assert report.seconds["tx"] == pytest.approx(1.0)
    assert report.seconds["rx"] == pytest.approx(0.5)


def test_empty_trace_costs_nothing_and_bad_input_is_refused() -> None:
    assert account([], MODEL, AIR).joules == 0.0
    with pytest.raises(UsageError):
        at_rates(0, RATE)
    with pytest.raises(ValueError, match="neither"):
        account([(0.0, "sideways", 1)], MODEL, AIR)
    with pytest.raises(UsageError, match="unknown radio model"):
        get_model("5g")


def test_published_models_name_a_source_for_their_numbers() -> None:
    for name in ("gprs", "umts"):
        model = get_model(name)
        assert model.sources and all(model.sources.values())
    assert get_model("gprs").tails[0].seconds == 6.0  # Balasubramanian et al. 2009
    assert [t.seconds for t in get_model("umts").tails] == [5.0, 12.0]  # Qian et al. 2010


def test_sends_queue_behind_each_other_and_receptions_bunched_in_the_trace_keep_their_airtime():
    # Three 1000-octet packets sent at once (a wave) are on the air 0-3 s, not 0-1 s;
    # two arriving together at 10 s were on the air 8-10 s.
    trace = [(0.0, "tx", 1000)] * 3 + [(10.0, "rx", 1000), (10.0, "rx", 1000)]
    report = account(trace, MODEL, AIR)
    assert report.seconds["tx"] == pytest.approx(3.0)
    assert report.seconds["rx"] == pytest.approx(2.0)
    assert report.seconds["t1"] == pytest.approx(2.0 + 2.0)  # gap 3-8 s: t1 2, t2 3
    assert report.seconds["t2"] == pytest.approx(3.0 + 4.0)
    assert report.seconds["idle"] == 0.0 and report.seconds["promotion"] == 1.0


def test_a_send_after_the_queue_drained_goes_at_once():
    trace = [(0.0, "tx", 1000), (0.5, "tx", 1000), (5.0, "tx", 1000)]
    seconds = account(trace, MODEL, AIR).seconds
    # on the air 0-1, 1-2 (queued behind the first) and 5-6 (sent into an empty queue);
    # the gap 2-5 s: t1 2 s, t2 1 s; then both tails in full at the end
    assert seconds["tx"] == pytest.approx(3.0)
    assert seconds["t1"] == pytest.approx(2.0 + 2.0)
    assert seconds["t2"] == pytest.approx(1.0 + 4.0)


def test_airtime_on_a_line_counts_framing_and_on_a_gprs_radio_the_size_at_its_rate():
    serial = Rate(9600, 8, bits_per_byte=10)  # 1000 + 8 octets of 10 bits: 1.05 s
    radio = ServiceTime(UniformDelay(0.8, 2.0))  # a mean 1.4 s per 470-octet packet
    air = on_line([serial], [radio])
    assert air("tx", 1000) == pytest.approx(1.05)
    assert air("rx", 470) == pytest.approx(1.4)
    assert air("rx", 40) == pytest.approx(1.4 * 40 / 470)
    report = account([(0.0, "tx", 1000), (0.0, "rx", 470)], MODEL, air)
    assert report.seconds["tx"] == pytest.approx(1.05)
    assert report.seconds["rx"] == pytest.approx(1.4)  # -1.4..0, before the send
