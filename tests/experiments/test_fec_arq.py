"""experiments.fec_arq: rows per FEC level, the normalization (best channel without FEC
is exactly 1.0), determinism per seed, the optimum and the plots."""

import math
import random
from pathlib import Path

import pytest

from wwanlab.core.errors import UsageError
from wwanlab.experiments.fec_arq import (
    DOWNLOAD_KIND,
    PAPER_STATEMENTS,
    REPETITIONS,
    STREAM_KIND,
    download_rows,
    download_run,
    download_scenario,
    latency_cells,
    latency_plot,
    loss_cells,
    loss_plot,
    lowest_fec,
    normalize,
    optimum,
    stream_rows,
    stream_run,
    stream_scenario,
)
from wwanlab.experiments.runner import run_scenario
from wwanlab.experiments.scenario import Row, Scenario, load_scenario
from wwanlab.experiments.summary import Summary
from wwanlab.link.rlc import BLOCK_PERIOD, GilbertChannel, SlotTrace, load_slot_trace


def small_download(seed: int = 1) -> Scenario:
    return Scenario(
        name="fec_arq_test",
        kind=DOWNLOAD_KIND,
        params={"params.fec_step": 10, "workload.file_bytes": 20_000},
        sweep={"link.slot_error": [0.00016, 0.02]},
        repetitions=3,
        seed=seed,
    )


def test_error_free_download_takes_one_opportunity_per_block() -> None:
    rows = download_run({"link.slot_error": 0.0, "params.fec_step": 20}, 1)
    assert [r["fec_percent"] for r in rows] == [0, 20, 40]
    first = rows[0]
    assert first["blocks"] == 2986  # ceil(800000 / 268): 100 KB over CS-2
    assert first["latency_s"] == first["blocks"] * BLOCK_PERIOD / 3
    assert (first["transmissions"], first["block_error"], first["resent_blocks"]) == (2986, 0, 0)
    assert rows[1]["blocks"] == 3732  # ceil(800000 / 214.4)
    assert rows[1]["rate_bps"] == pytest.approx(13_400 * 0.8 * 3)


def test_normalized_latency_is_exactly_one_on_the_best_channel_without_fec() -> None:
    rows = run_scenario(small_download(), jobs=1)
    assert len(rows) == 2 * 3 * 5  # two channels, three repetitions, FEC 0..40 by 10
    cells = latency_cells(rows)
    assert cells[(0.00016, 0)].mean == 1.0
    assert cells[(0.00016, 0)].sd == 0.0
    # A worse channel without FEC is slower; FEC costs its share of slots once errors
    # are rare.
    assert cells[(0.02, 0)].mean > cells[(0.00016, 0)].mean
    assert cells[(0.00016, 40)].mean > cells[(0.00016, 10)].mean > 1.0
    by_rep = {(r["repetition"], r["link.slot_error"], r["fec_percent"]): r for r in rows}
    for row in normalize(rows):
        ref = by_rep[(row["repetition"], 0.00016, 0)]["latency_s"]
        assert row["normalized_latency"] == row["latency_s"] / ref


def test_normalize_pairs_repetitions_and_marks_incomplete_runs() -> None:
    rows: list[Row] = [
        {"repetition": 0, "link.slot_error": 0.1, "fec_percent": 0, "complete": False,
         "latency_s": None},
        {"repetition": 0, "link.slot_error": 0.1, "fec_percent": 10, "complete": True,
         "latency_s": 6.0},
        {"repetition": 0, "link.slot_error": 0.001, "fec_percent": 0, "complete": True,
         "latency_s": 4.0},
        {"repetition": 1, "link.slot_error": 0.1, "fec_percent": 10, "complete": True,
         "latency_s": 6.0},
        {"repetition": 1, "link.slot_error": 0.001, "fec_percent": 0, "complete": True,
         "latency_s": 5.0},
    ]  # fmt: skip
    ratios = [r["normalized_latency"] for r in normalize(rows)]
    assert math.isnan(ratios[0])
    assert ratios[1:] == [1.5, 1.0, 1.2, 1.0]


def test_runs_are_deterministic_per_seed() -> None:
    first = run_scenario(small_download(), jobs=1)
    assert run_scenario(small_download(), jobs=1) == first
    assert run_scenario(small_download(seed=2), jobs=1) != first


def test_stream_loss_is_the_trace_block_error() -> None:
    rows = stream_run({"link.slot_error": 0.02, "params.fec_step": 5}, 7)
    assert [r["fec_percent"] for r in rows] == [0, 5, 10, 15, 20, 25, 30]
    blocks = rows[0]["blocks"]
    assert blocks == 9000  # 60 s, 3 timeslots, 20 ms blocks
    trace = GilbertChannel(0.02, random.Random(7)).trace(blocks)
    for row in rows:
        lost = sum(len(block) > row["fec_percent"] for block in trace.blocks)
        assert row["loss_percent"] == 100 * lost / blocks
    losses = [r["loss_percent"] for r in rows]
    assert losses == sorted(losses, reverse=True)


def summary(mean: float, failed: int = 0) -> Summary:
    return Summary((), REPETITIONS, mean, 0.02, failed)


def test_optimum_is_the_least_latency_among_complete_cells() -> None:
    cells = {
        (0.009, 0): summary(1.6),
        (0.009, 5): summary(1.2),
        (0.009, 6): summary(1.2),  # a tie goes to the smaller FEC
        (0.009, 10): summary(1.3),
        (0.1, 0): summary(math.nan, failed=REPETITIONS),
        (0.1, 10): summary(2.5, failed=1),  # not every download finished: left out
        (0.1, 20): summary(1.4),
    }
    best = optimum(cells)
    assert list(best) == [0.1, 0.009]
    assert best[0.009].fec_percent == 5
    assert best[0.009].reduction_percent == pytest.approx(25.0)
    assert best[0.009].half_width > 0
    assert best[0.1].fec_percent == 20
    assert math.isnan(best[0.1].reduction_percent)


def test_lowest_fec_reaching_a_loss() -> None:
    cells = {(0.009, 0): summary(37.0), (0.009, 5): summary(2.6), (0.009, 10): summary(0.1)}
    assert lowest_fec(cells, 0.009, 5.0) == 5
    assert lowest_fec(cells, 0.009, 1.0) == 10
    assert lowest_fec(cells, 0.009, 0.01) is None


def test_plots_write_png(tmp_path: Path) -> None:
    rows = run_scenario(small_download(), jobs=1)
    png = latency_plot(latency_cells(rows), tmp_path / "figure6.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    stream = [
        {"link.slot_error": e, **row}
        for e in (0.009, 0.1)
        for row in stream_run({"link.slot_error": e, "params.fec_step": 10}, 1)
    ]
    png = loss_plot(loss_cells(stream), tmp_path / "figure7.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_scenarios_cover_the_paper_grid() -> None:
    for scenario, kind in ((download_scenario(), DOWNLOAD_KIND), (stream_scenario(), STREAM_KIND)):
        assert scenario.kind == kind
        assert scenario.repetitions >= 20
        assert scenario.sweep["link.slot_error"] == [0.10, 0.042, 0.020, 0.009, 0.002, 0.00016]
    assert download_scenario(quick=True).params["params.fec_step"] == 4
    with pytest.raises(UsageError, match=r"link\.slot_error must be at most 0\.5"):
        Scenario("x", DOWNLOAD_KIND, params={"link.slot_error": 0.7})


def test_paper_statements_are_cited_and_distinct() -> None:
    keys = [s.key for s in PAPER_STATEMENTS]
    assert len(keys) == len(set(keys))
    assert all(s.where.startswith("paper 003 4.") and s.quote for s in PAPER_STATEMENTS)
    by_key = {s.key: s for s in PAPER_STATEMENTS}
    assert by_key["reduction-0.9"].percent == 21.9
    assert by_key["arq-jitter"].seconds == (0.6, 3.0)


def test_a_loaded_trace_replays_through_both_experiments(tmp_path: Path) -> None:
    # A user's trace: 10 slots per CS-1 block, every other block loses two slots.
    path = SlotTrace([[], [0, 1]], slots=10, coding="CS-1").save(tmp_path / "mine.trace")
    trace = load_slot_trace(path)
    rows = download_rows(trace, coding=trace.coding, size=100, fec_levels=[0, 20])
    # FEC 0: 5 blocks (ceil(800 / 181)); blocks 1 and 3 fail at opportunities 1 and 3,
    # are NACKed 1 + 18 opportunities later (120 ms at 6.67 ms) and resent at 20 and 22.
    assert [(r["blocks"], r["transmissions"], r["resent_blocks"]) for r in rows] == [
        (5, 7, 2),
        (6, 6, 0),  # FEC 20%: 2 redundant slots recover every block; ceil(800 / 144.8)
    ]
    assert rows[0]["latency_s"] == 23 * BLOCK_PERIOD / 3
    assert rows[0]["max_resend_delay_s"] == 19 * BLOCK_PERIOD / 3
    assert rows[1]["latency_s"] == 6 * BLOCK_PERIOD / 3
    stream = stream_rows(trace, seconds=0.02, fec_levels=[0, 10, 20])
    assert [r["loss_percent"] for r in stream] == [100 / 3, 100 / 3, 0.0]


def test_a_scenario_file_replays_a_trace_from_a_block_drawn_per_run(tmp_path: Path) -> None:
    trace = GilbertChannel(0.009, random.Random(3), coding="CS-1").trace(400)
    path = trace.save(tmp_path / "cell.trace")
    scenario_file = tmp_path / "mine.toml"
    scenario_file.write_text(
        f'name = "mine"\nkind = "{STREAM_KIND}"\nrepetitions = 3\nseed = 5\n'
        f'[link]\ntrace = "{path}"\n[params]\nfec_step = 10\n'
    )
    rows = run_scenario(load_scenario(scenario_file), jobs=1)
    assert len(rows) == 3 * 4  # FEC 0, 10, 20, 30
    # Each run starts at its own block of the looping trace: 9000 blocks = 22.5 loops of
    # 400, so the loss differs from run to run only through the partial loop.
    zero = [r["loss_percent"] for r in rows if r["fec_percent"] == 0]
    assert len(set(zero)) > 1
    assert all(abs(z - 100 * trace.block_error(0)) < 2 for z in zero)
    download = download_run({"link.trace": str(path), "params.fec_step": 40}, 1)
    assert download[0]["blocks"] == 4420  # CS-1, the trace's: ceil(800000 / 181)
    assert download[0]["rate_bps"] == 9_050 * 3


def test_a_run_needs_exactly_one_channel() -> None:
    with pytest.raises(UsageError, match=r"exactly one of link\.slot_error and link\.trace"):
        stream_run({}, 1)
    with pytest.raises(UsageError, match="exactly one"):
        stream_run({"link.slot_error": 0.01, "link.trace": "x"}, 1)
