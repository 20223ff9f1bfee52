"""Progress of long work: nothing when off, plain lines every interval off a terminal."""

import io
import re
import time

from wwanlab.core.progress import track

LINE = re.compile(r"wwanlab: runs: (finished |stopped at )?(\d+)/4 \((\d+)%\) after \d+ s\n")


def test_off_prints_nothing() -> None:
    stream = io.StringIO()
    with track("runs", 4, enabled=False, stream=stream) as advance:
        advance()
    assert stream.getvalue() == ""


def test_work_shorter_than_the_interval_prints_nothing() -> None:
    stream = io.StringIO()  # not a terminal
    with track("runs", 4, stream=stream, interval=60) as advance:
        for _ in range(4):
            advance()
    assert stream.getvalue() == ""


def test_off_a_terminal_a_line_every_interval_then_a_closing_line() -> None:
    stream = io.StringIO()
    with track("runs", 4, stream=stream, interval=0.02) as advance:
        for _ in range(4):
            time.sleep(0.05)  # a slow unit: lines come from the timer, not from advance
            advance()
    lines = stream.getvalue().splitlines(keepends=True)
    assert len(lines) >= 3
    matches = [LINE.fullmatch(line) for line in lines]
    assert all(matches), lines
    counts = [int(m.group(2)) for m in matches if m]
    assert counts == sorted(counts)
    assert lines[-1].startswith("wwanlab: runs: finished 4/4 (100%) after ")
    assert all(m.group(1) is None for m in matches[:-1] if m)


def test_work_that_stops_early_says_where() -> None:
    stream = io.StringIO()
    try:
        with track("runs", 4, stream=stream, interval=0.01) as advance:
            advance()
            time.sleep(0.05)
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    assert stream.getvalue().splitlines()[-1].startswith("wwanlab: runs: stopped at 1/4 (25%)")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_a_bar_that_is_removed_when_done() -> None:
    stream = Terminal()
    with track("runs", 4, stream=stream, interval=0.01) as advance:
        for _ in range(4):
            advance()
    shown = stream.getvalue()
    assert "wwanlab: runs" not in shown  # no plain lines on a terminal
    assert "runs \x1b[90m━━━" in shown and "4/4" in shown  # a rich bar, drawn in place
    assert shown.endswith("\x1b[1A\x1b[2K")  # and erased: the cursor goes up, the line cleared


def test_advance_by_a_count_for_work_measured_in_octets() -> None:
    stream = io.StringIO()
    try:
        with track("runs", 4, stream=stream, interval=0.01) as advance:
            advance(3)  # e.g. octets acknowledged since the last call
            time.sleep(0.05)
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    assert stream.getvalue().splitlines()[-1].startswith("wwanlab: runs: stopped at 3/4 (75%)")
    bar = Terminal()
    with track("runs", 4, stream=bar) as advance:
        advance(4)
    assert "4/4" in bar.getvalue()
