"""Throughput and delay over time from an emulator log, as one PNG.

Mahimahi draws its meters live in a window; here the same two views are drawn from
``--log`` after the run: the IP rate each direction offered and delivered, averaged
over ``window`` seconds, and each packet's added delay at the time it left, with
drops marked where they happened.
"""

import math
from pathlib import Path

from wwanlab.core.errors import UsageError
from wwanlab.emu.capture import read_log

WINDOW = 0.5  # s: averaging window of the throughput curves
DIRECTION_COLOURS = {"down": "tab:blue", "up": "tab:orange"}


def plot_log(log: Path, out: Path, *, window: float = WINDOW) -> Path:
    """Draw ``log`` into the PNG ``out``: rates on top, per-packet delay below."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # only when drawing
    from matplotlib.figure import Figure

    rows = read_log(log)
    if not rows:
        raise UsageError(f"log {str(log)!r} has no packets to plot")
    start = min(r.arrival for r in rows)
    end = max(r.departure or r.arrival for r in rows)
    bins = max(1, math.ceil((end - start) / window))
    fig = Figure(figsize=(8.0, 6.0), dpi=100)
    rate_ax, delay_ax = fig.subplots(2, 1, sharex=True)
    for direction, colour in DIRECTION_COLOURS.items():
        mine = [r for r in rows if r.direction == direction]
        if not mine:
            continue
        offered = [0.0] * bins
        delivered = [0.0] * bins
        for r in mine:
            offered[min(bins - 1, int((r.arrival - start) / window))] += r.size
            if r.departure is not None:
                delivered[min(bins - 1, int((r.departure - start) / window))] += r.size
        xs = [(i + 0.5) * window for i in range(bins)]
        rate_ax.plot(
            xs,
            [b * 8 / window / 1000 for b in delivered],
            color=colour,
            label=f"{direction} delivered",
        )
        rate_ax.plot(
            xs,
            [b * 8 / window / 1000 for b in offered],
            color=colour,
            linestyle="--",
            label=f"{direction} offered",
        )
        sent = [r for r in mine if r.departure is not None]
        delay_ax.scatter(
            [r.departure - start for r in sent if r.departure is not None],
            [(r.departure - r.arrival) * 1000 for r in sent if r.departure is not None],
            s=4,
            color=colour,
            label=f"{direction} delay",
        )
        drops = [r.arrival - start for r in mine if r.departure is None]
        if drops:
            delay_ax.scatter(
                drops, [0.0] * len(drops), marker="x", color=colour, label=f"{direction} drop"
            )
    rate_ax.set_ylabel(f"IP rate, kbit/s ({window:g} s mean)")
    rate_ax.grid(True, alpha=0.3)
    rate_ax.legend(fontsize="small")
    delay_ax.set_ylabel("added delay, ms")
    delay_ax.set_xlabel("time since the first packet, s")
    delay_ax.grid(True, alpha=0.3)
    delay_ax.legend(fontsize="small")
    out = Path(out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        FigureCanvasAgg(fig)
        fig.savefig(out, format="png", metadata={"Software": None})
    except OSError as exc:
        raise UsageError(f"cannot write plot {str(out)!r}: {exc.strerror}") from None
    return out
