"""Grouped summaries with Student t intervals, and relative gains."""

import math

import pytest

from wwanlab.experiments.summary import Summary, relative_gain, summarize, t_quantile


@pytest.mark.parametrize(
    ("df", "exact"), [(1, 12.7062), (4, 2.7764), (9, 2.2622), (19, 2.0930), (29, 2.0452)]
)
def test_t_quantile_matches_tables(df: int, exact: float) -> None:
    assert t_quantile(df) == pytest.approx(exact, abs=1e-4)


def test_t_quantile_without_degrees_of_freedom_is_nan() -> None:
    assert math.isnan(t_quantile(0))


def test_summarize_groups_in_key_order_and_leaves_out_incomplete_runs() -> None:
    rows = [
        {"p": "b", "x": 1.0, "ok": True, "c": 2},
        {"p": "a", "x": 2.0, "ok": True, "c": 0},
        {"p": "a", "x": 4.0, "ok": True, "c": 1},
        {"p": "a", "x": 99.0, "ok": False, "c": 5},
    ]
    out = summarize(rows, by=["p"], value="x", complete="ok", means=["c"])
    assert list(out) == [("a",), ("b",)]
    a, b = out[("a",)], out[("b",)]
    assert (a.n, a.failed, a.mean, a.means) == (2, 1, 3.0, {"c": 2.0})
    assert a.sd == pytest.approx(2**0.5)
    assert a.half_width == pytest.approx(12.7062 * 2**0.5 / 2**0.5, rel=1e-5)
    assert (b.n, b.mean) == (1, 1.0) and math.isnan(b.half_width)


def test_summarize_without_complete_counts_every_row() -> None:
    out = summarize([{"k": 1, "v": 2}, {"k": 1, "v": 4}], by=["k"], value="v")
    assert out[(1,)].n == 2 and out[(1,)].failed == 0 and out[(1,)].mean == 3.0


def test_relative_gain_by_the_delta_method() -> None:
    a = Summary(("a",), 20, 6000.0, 2 * 20**0.5)  # standard error 2
    b = Summary(("b",), 20, 3000.0, 1 * 20**0.5)  # standard error 1
    gain = relative_gain(a, b)
    assert gain.percent == pytest.approx(100.0)
    assert gain.half_width == pytest.approx(200 * math.hypot(2 / 6000, 1 / 3000) * 2.0930, 1e-4)


def test_means_of_a_column_null_throughout_are_nan() -> None:
    out = summarize([{"k": 1, "v": 2.0, "c": None}], by=["k"], value="v", means=["c"])
    assert math.isnan(out[(1,)].means["c"])
