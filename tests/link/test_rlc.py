"""link.rlc: exact FEC recovery and ARQ schedules on hand-made traces, the trace file
format, and the synthesized channels' error rate and burst length within 4 standard
errors."""

import itertools
import math
import random
from pathlib import Path

import pytest

from wwanlab.core.errors import UsageError
from wwanlab.link import BlockFec
from wwanlab.link.rlc import (
    ARQ_ROUND_TRIP,
    CODING_SCHEMES,
    PAPER_SLOT_ERRORS,
    GilbertChannel,
    SlotTrace,
    coding_scheme,
    data_blocks,
    effective_rate,
    load_slot_trace,
    recovered,
    redundant_slots,
    rlc_download,
    stream_loss,
)

# Corrupted slots: none, one, five, six (out of 100).
PATTERNS = [[], [37], [0, 1, 2, 3, 4], [10, 11, 12, 13, 14, 99]]


def test_fec_percent_gives_whole_redundant_slots() -> None:
    assert [redundant_slots(f) for f in (0, 1, 5, 5.5, 6, 40, 99)] == [0, 1, 5, 5, 6, 40, 99]
    assert redundant_slots(5, slots=20) == 1
    with pytest.raises(UsageError, match="no data slot"):
        redundant_slots(100)
    with pytest.raises(UsageError, match="fec_percent"):
        redundant_slots(-1)


def test_a_block_is_recovered_when_no_more_slots_are_corrupted_than_redundant() -> None:
    trace = SlotTrace(PATTERNS)
    assert [recovered(len(p), 5) for p in PATTERNS] == [True, True, True, False]
    assert [recovered(len(p), 0) for p in PATTERNS] == [True, False, False, False]
    assert trace.block_error(0) == 3 / 4
    assert trace.block_error(4) == 2 / 4
    assert trace.block_error(5) == 1 / 4
    assert trace.block_error(6) == 0.0
    assert stream_loss(trace, 4, 5) == 1
    assert stream_loss(trace, 8, 1) == 4  # the trace loops: blocks 2, 3, 6, 7
    assert trace.slot_error == 12 / 400


def test_coding_scheme_rates_and_fec_rate() -> None:
    # 3GPP TS 45.003: 9.05, 13.4, 15.6, 21.4 kbit/s per timeslot, 20 ms blocks.
    assert [cs.block_bits for cs in CODING_SCHEMES.values()] == [181, 268, 312, 428]
    cs2 = coding_scheme("CS-2")
    assert effective_rate(cs2, 0) == 13_400.0
    assert effective_rate(cs2, 5, timeslots=3) == pytest.approx(13_400 * 0.95 * 3)
    assert data_blocks(100_000, cs2, 0, 100) == 2986  # ceil(800000 / 268)
    assert data_blocks(100_000, cs2, 5, 100) == 3143  # ceil(800000 / 254.6)
    assert data_blocks(1, cs2, 0, 100) == 1
    with pytest.raises(UsageError, match="unknown coding scheme 'CS-5'"):
        coding_scheme("CS-5")


def test_download_resends_a_failed_block_one_round_trip_later() -> None:
    # Opportunity 1 is lost; feedback 2: its NACK arrives at 1 + 1 + 2 = 4.
    trace = SlotTrace([[], [5], [], [], [], []])
    result = rlc_download(trace, 3, 0, feedback=2, limit=100)
    # 0: BSN 0, 1: BSN 1 (lost), 2: BSN 2, 3: idle (nothing new, NACK not yet), 4: BSN 1.
    assert result.complete
    assert result.opportunities == 5
    assert result.transmissions == 4
    assert result.resent == 1
    assert result.max_resend_delay == 3
    # The same trace with one redundant slot: nothing to resend.
    clean = rlc_download(trace, 3, 1, feedback=2, limit=100)
    assert (clean.opportunities, clean.transmissions, clean.resent) == (3, 3, 0)


def test_download_stalls_on_the_window() -> None:
    trace = SlotTrace([[]])
    # Window 2: BSN 2 waits until BSN 0 is acknowledged at 0 + 1 + 2 = 3.
    result = rlc_download(trace, 3, 0, feedback=2, window=2, limit=100)
    assert (result.opportunities, result.transmissions) == (4, 3)
    assert rlc_download(trace, 3, 0, feedback=2, window=3, limit=100).opportunities == 3


def test_download_resends_before_new_blocks_and_gives_up_at_the_limit() -> None:
    # BSN 0 lost at 0; its NACK at 2 (feedback 1) puts it ahead of BSN 2.
    trace = SlotTrace([[1], [], [], [], []])
    result = rlc_download(trace, 3, 0, feedback=1, limit=100)
    assert (result.opportunities, result.transmissions, result.max_resend_delay) == (4, 4, 2)
    dead = rlc_download(SlotTrace([[0]]), 2, 0, feedback=1, limit=50)
    assert not dead.complete
    assert dead.opportunities == 50


def test_trace_file_round_trip(tmp_path: Path) -> None:
    path = SlotTrace([[], [3, 4]], slots=10, coding="CS-1").save(tmp_path / "t.trace")
    assert path.read_text() == "# wwanlab rlc slot trace 1\n# slots 10\n# coding CS-1\n-\n3 4\n"
    loaded = load_slot_trace(path)
    assert (loaded.blocks, loaded.slots, loaded.coding) == ([(), (3, 4)], 10, "CS-1")
    synthesized = GilbertChannel(0.02, random.Random(4)).trace(500)
    again = load_slot_trace(synthesized.save(tmp_path / "s.trace"))
    assert again.blocks == synthesized.blocks
    assert again.counts(700) == synthesized.counts(700)


def test_trace_file_defaults_and_comments(tmp_path: Path) -> None:
    path = tmp_path / "plain.trace"
    path.write_text("# recorded 2004\n\n0 99\n-\n")
    trace = load_slot_trace(path)
    assert (trace.slots, trace.coding, trace.counts(3)) == (100, "CS-2", [2, 0, 2])


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("# slots 10\n10\n", "below 10"),
        ("5 3\n", "increasing"),
        ("1 1\n", "distinct"),
        ("x\n", "line 1: expected slot numbers"),
        ("-1\n", "line 1: expected slot numbers"),
        ("# only a comment\n", "at least one block"),
        ("# slots ten\n-\n", "slots must be an integer"),
        ("# slots 0\n-\n", "slots must be an integer >= 1"),
        ("# slots 100000\n-\n", "at most 10000"),
        ("# coding CS-9\n-\n", "unknown coding scheme"),
    ],
)
def test_bad_trace_files_name_the_file(tmp_path: Path, text: str, match: str) -> None:
    path = tmp_path / "bad.trace"
    path.write_text(text)
    with pytest.raises(UsageError, match=match) as info:
        load_slot_trace(path)
    assert "bad.trace" in str(info.value)


def test_unreadable_trace_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot read slot trace"):
        load_slot_trace(tmp_path / "missing.trace")


@pytest.mark.parametrize("error", PAPER_SLOT_ERRORS)
def test_synthesized_slot_error_within_4_standard_errors(error: float) -> None:
    channel = GilbertChannel(error, random.Random(11))
    n = 20_000 * 100
    measured = channel.trace(20_000).slot_error
    # Binomial variance widened by the chain's correlation, lambda = 1 - p - r.
    lam = 1 - channel.p - channel.r
    se = math.sqrt(error * (1 - error) / n * (1 + lam) / (1 - lam))
    assert abs(measured - error) < 4 * se


def test_synthesized_bursts_have_the_stated_mean_length() -> None:
    channel = GilbertChannel(0.02, random.Random(5), mean_burst=3.0)
    trace = channel.trace(20_000)
    bad = [b * 100 + s for b, block in enumerate(trace.blocks) for s in block]
    runs = 1 + sum(1 for a, b in itertools.pairwise(bad) if b != a + 1)
    # Run lengths are geometric with mean 3 (sd sqrt(6)); a burst crossing a block
    # boundary is still one run in slot numbers.
    assert abs(len(bad) / runs - 3.0) < 4 * math.sqrt(6 / runs)


def test_independent_channel_matches_the_binomial_block_fec() -> None:
    # With p + r = 1 slots are independent: block loss is BlockFec's binomial tail.
    n = 20_000
    trace = GilbertChannel.independent(0.009, random.Random(8)).trace(n)
    for r in (0, 1, 2):
        expected = BlockFec(0.009, r / 100).block_loss
        assert abs(trace.block_error(r) - expected) < 4 * math.sqrt(expected * (1 - expected) / n)


def test_channel_is_deterministic_however_it_is_read() -> None:
    whole = GilbertChannel(0.042, random.Random(9)).counts(3000)
    piecewise = GilbertChannel(0.042, random.Random(9))
    assert piecewise.counts(7) == whole[:7]
    assert piecewise.counts(1500) == whole[:1500]
    assert piecewise.counts(3000) == whole
    assert GilbertChannel(0.042, random.Random(10)).counts(3000) != whole
    assert GilbertChannel(0.0, random.Random(1)).counts(100) == [0] * 100


def test_bad_channel_parameters() -> None:
    rng = random.Random(1)
    with pytest.raises(UsageError, match="below 1"):
        GilbertChannel(1.0, rng)
    with pytest.raises(UsageError, match="mean_burst"):
        GilbertChannel(0.01, rng, mean_burst=0.5)
    with pytest.raises(UsageError, match="too short"):
        GilbertChannel(0.6, rng, mean_burst=1.0)  # p = 1.5
    with pytest.raises(UsageError, match="slot_error"):
        GilbertChannel(-0.1, rng)


def test_arq_round_trip_is_26_tdma_frames() -> None:
    assert abs(ARQ_ROUND_TRIP - 0.120) < 1e-12
