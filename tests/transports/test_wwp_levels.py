"""The receiver's level rules: paper 004 2.2's wave rule and our probe-cycle rule."""

import pytest

from wwanlab.transports.wwp.config import CLEAR_RTT, LOADED_RTT, WwpConfig
from wwanlab.transports.wwp.levels import probe_level, wave_level


@pytest.mark.parametrize(
    ("ratio", "level"),
    [(0.5, 3), (1.0, 3), (1.01, 2), (2.0, 2), (2.5, 1), (3.0, 1), (3.01, 0), (10.0, 0)],
)
def test_wave_rule_maps_t_over_b_to_the_paper_levels(ratio: float, level: int) -> None:
    # "if T(i) is in the range (j-1, j] X B(i), then next wave level is set to (4-j)"
    assert wave_level(ratio * 0.3, 0.3, 3) == level


def test_wave_rule_with_fewer_levels_and_no_baseline() -> None:
    assert wave_level(1.5, 1.0, 2) == 1
    assert wave_level(2.5, 1.0, 2) == 0
    assert wave_level(0.2, 0.0, 3) == 3  # a one-segment wave measures nothing


def test_wave_sizes_and_baseline_follow_the_config() -> None:
    c = WwpConfig(baseline_bps=102_400.0)
    assert [c.wave_size(i) for i in range(4)] == [0, 12, 24, 36]
    assert c.baseline_time(35) == pytest.approx(0.35)


@pytest.mark.parametrize(
    ("rtts", "current", "level"),
    [
        ((0.010, 0.012), 1, 3),  # clear: back to the top at once
        ((0.015, 0.030), 3, 2),  # loaded: one down
        ((0.030, 0.031), 1, 1),  # loaded, never below 1
        ((0.010, 0.041), 3, 0),  # too slow: pause
        ((0.010, 0.025), 2, 1),  # within 4x but jitter above 1x base: loaded
    ],
)
def test_probe_rule(rtts: tuple[float, float], current: int, level: int) -> None:
    got = probe_level(current, *rtts, 0.010, 3, clear=CLEAR_RTT, loaded=LOADED_RTT)
    assert got == level
