"""Matplotlib plots written straight to PNG files (no pyplot, no display needed).

Each helper draws one figure into a file and returns its path, for a ``Figure`` block.
Figures are built with ``matplotlib.figure.Figure`` and the Agg canvas, so plotting
works in worker processes and on machines without a display, and never shares state
between calls.
"""

from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

SIZE = (6.4, 4.0)
DPI = 100
METADATA = {"Software": None}  # no version string, so the same data gives the same bytes


# One colour per protocol and one line style per loss rate, the same in every figure.
PROTOCOL_COLOURS = {
    "wap": "tab:blue",
    "http-sack": "tab:red",
    "http-reno": "tab:green",
    "http-newreno": "tab:purple",
    "http": "tab:red",  # paper 001: SOAP over HTTP/TCP
    "wsp": "tab:blue",  # SOAP over connectionless WSP
    "wsp-wbxml": "teal",
    "wsp-co": "slategray",
}
SPARE_COLOURS = ("tab:orange", "tab:brown", "tab:pink", "tab:olive", "tab:cyan")
LineStyle = str | tuple[int, tuple[int, ...]]
LOSS_STYLES: dict[float, LineStyle] = {
    0.0: "-",
    0.01: (0, (5, 1)),
    0.05: "-.",
    0.10: "--",
    0.20: ":",
}
SPARE_STYLE: LineStyle = (0, (3, 1, 1, 1, 1, 1))
PAPER_COLOUR = "black"  # the paper's published numbers: black, labelled "paper"
PAPER_SHADE = "0.85"


def protocol_colour(protocol: str) -> str:
    """The protocol's colour; one not in the table gets a spare one, fixed by its name."""
    if protocol in PROTOCOL_COLOURS:
        return PROTOCOL_COLOURS[protocol]
    return SPARE_COLOURS[zlib.crc32(protocol.encode()) % len(SPARE_COLOURS)]


def loss_style(loss: float) -> LineStyle:
    """The line style of a loss rate (solid without loss, dashed at 10%...)."""
    return LOSS_STYLES.get(round(loss, 6), SPARE_STYLE)


def save(fig: Figure, path: Path | str) -> Path:
    """Write ``fig`` as a PNG at ``path`` (folders made), the same bytes for the same data."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    FigureCanvasAgg(fig)
    fig.savefig(path, format="png", metadata=METADATA)
    return path


def ecdf(values: Sequence[float]) -> tuple[list[float], list[float]]:
    """The empirical CDF as its steps: each distinct value once, with the fraction of
    values at or below it (a constant sample is one step to 1)."""
    counts = Counter(values)
    xs = sorted(counts)
    ys: list[float] = []
    seen = 0
    for x in xs:
        seen += counts[x]
        ys.append(seen / len(values))
    return xs, ys


def cdf_plot(
    series: Mapping[str, Sequence[float]],
    path: Path | str,
    *,
    xlabel: str,
    title: str = "",
) -> Path:
    """Empirical CDF of each named sample, a step per distinct value, from 0 below the
    smallest (values should be rounded to the resolution they were measured at)."""
    fig = Figure(figsize=SIZE, dpi=DPI)
    ax = fig.add_subplot()
    for label, values in series.items():
        if not values:
            continue
        xs, ys = ecdf(values)
        ax.step([xs[0], *xs], [0.0, *ys], where="post", label=label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("fraction of packets ≤ x")
    ax.set_ylim(0.0, 1.02)
    ax.grid(True, alpha=0.3)
    if title:
        ax.set_title(title)
    if len(series) > 1:
        ax.legend()
    return save(fig, path)


def line_plot(
    x: Sequence[float],
    series: Mapping[str, Sequence[float]],
    path: Path | str,
    *,
    xlabel: str,
    ylabel: str,
    title: str = "",
    paper: Mapping[str, Sequence[float]] | None = None,
) -> Path:
    """Our series as solid lines with markers; the paper's (same ``x``) dashed beside them."""
    fig = Figure(figsize=SIZE, dpi=DPI)
    ax = fig.add_subplot()
    for label, ys in series.items():
        ax.plot(x, ys, marker="o", label=label)
    for label, ys in (paper or {}).items():
        ax.plot(x, ys, linestyle="--", marker="x", label=f"{label} (paper)")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    if title:
        ax.set_title(title)
    ax.legend()
    return save(fig, path)


def bar_plot(
    categories: Sequence[str],
    series: Mapping[str, Sequence[float]],
    path: Path | str,
    *,
    ylabel: str,
    title: str = "",
) -> Path:
    """Grouped bars: one group per category, one bar per named series."""
    fig = Figure(figsize=SIZE, dpi=DPI)
    ax = fig.add_subplot()
    width = 0.8 / max(len(series), 1)
    for i, (label, ys) in enumerate(series.items()):
        xs = [c + (i - (len(series) - 1) / 2) * width for c in range(len(categories))]
        ax.bar(xs, ys, width=width, label=label)
    ax.set_xticks(range(len(categories)), list(categories))
    ax.set_ylabel(ylabel)
    ax.grid(True, axis="y", alpha=0.3)
    if title:
        ax.set_title(title)
    if len(series) > 1:
        ax.legend()
    return save(fig, path)


def goodput_plot(
    sizes: Sequence[int],
    series: Mapping[str, Sequence[float]],
    limits: Mapping[str, float],
    path: Path | str,
    *,
    title: str = "",
) -> Path:
    """Goodput (kbit/s) against file size per transport, the link's limits as lines."""
    fig = Figure(figsize=(7.2, 4.4), dpi=DPI)
    ax = fig.add_subplot()
    kb = [s / 1000 for s in sizes]
    for label, ys in series.items():
        ax.plot(kb, ys, marker="o", label=label)
    for i, (label, y) in enumerate(limits.items()):
        ax.axhline(y, color="black", linestyle=("--", ":", "-.")[i % 3], linewidth=1)
        ax.annotate(label, (kb[-1], y), textcoords="offset points", xytext=(4, 2), fontsize=8)
    ax.set_xlabel("file size (KB)")
    ax.set_ylabel("goodput (kbit/s)")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    if title:
        ax.set_title(title)
    ax.legend(fontsize=7, ncol=2)
    return save(fig, path)
