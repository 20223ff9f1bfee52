"""The radio energy model: exact joules for hand-made traces."""

import pytest

from wwanlab.core.errors import UsageError
from wwanlab.energy import RadioModel, TailStage, account, get_model

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


def test_one_packet_pays_promotion_transmit_and_both_tails() -> None:
    report = account([(0.0, "tx", 1000)], MODEL, up_bps=RATE, down_bps=RATE)
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
    report = account(trace, MODEL, up_bps=RATE, down_bps=RATE)
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
    report = account(trace, MODEL, up_bps=RATE, down_bps=RATE)
    assert report.seconds["tx"] == pytest.approx(1.0)
    assert report.seconds["rx"] == pytest.approx(0.5)


def test_empty_trace_costs_nothing_and_bad_input_is_refused() -> None:
    assert account([], MODEL, up_bps=RATE, down_bps=RATE).joules == 0.0
    with pytest.raises(UsageError):
        account([], MODEL, up_bps=0, down_bps=RATE)
    with pytest.raises(ValueError, match="neither"):
        account([(0.0, "sideways", 1)], MODEL, up_bps=RATE, down_bps=RATE)
    with pytest.raises(UsageError, match="unknown radio model"):
        get_model("5g")


def test_published_models_name_a_source_for_their_numbers() -> None:
    for name in ("gprs", "3g"):
        model = get_model(name)
        assert model.sources and all(model.sources.values())
    assert get_model("gprs").tails[0].seconds == 6.0  # Balasubramanian et al. 2009
    assert [t.seconds for t in get_model("3g").tails] == [5.0, 12.0]  # Qian et al. 2010
