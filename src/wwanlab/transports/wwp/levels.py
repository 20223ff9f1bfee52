"""The receiver's two level decisions: after a whole wave (paper 004 2.2) and at the end
of a probe cycle (2.3, whose rules the paper leaves open: ours, see docs/wwp.md)."""

import math

FUZZ = 1e-9  # relative: a wave that took exactly j baselines counts as j, not j + 1


def wave_level(measured: float, baseline: float, levels: int) -> int:
    """Paper 004 2.2: "if T(i) is in the range (j-1, j] X B(i), then next wave level is
    set to (4-j); else set wave-level to 0", generalised from 3 levels to ``levels``.

    A wave of one segment has no baseline (B = 0): nothing was measured, so the level
    stays at the top, as for a wave that arrived at the baseline rate.
    """
    if baseline <= 0 or measured <= 0:
        return levels
    j = max(1, math.ceil(measured / baseline * (1 - FUZZ)))
    return levels + 1 - j if j <= levels else 0


def probe_level(
    current: int,
    rtt1: float,
    rtt2: float,
    base: float,
    levels: int,
    *,
    clear: float,
    loaded: float,
) -> int:
    """Paper 004 2.3: from "the absolute values of the two RTTs ... as well as the
    difference between these two RTTs", relative to the current level.

    With ``base`` the smallest RTT seen (floored at the clock tick): both RTTs within
    ``clear`` x base and jitter within base is a clear path, a transient loss: go back
    to the top level at once ("it can adjust back immediately to a high wave level").
    Within ``loaded`` x base and jitter within (loaded - clear) x base the path is
    loaded: one level down, never below 1. Anything worse is congestion: pause (0).
    """
    worst, jitter = max(rtt1, rtt2), abs(rtt2 - rtt1)
    if worst <= clear * base and jitter <= base:
        return levels
    if worst <= loaded * base and jitter <= (loaded - clear) * base:
        return max(current - 1, 1)
    return 0
