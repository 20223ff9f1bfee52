"""Matplotlib plots written straight to PNG files (no pyplot, no display needed).

Each helper draws one figure into a file and returns its path, for a ``Figure`` block.
Figures are built with ``matplotlib.figure.Figure`` and the Agg canvas, so plotting
works in worker processes and on machines without a display, and never shares state
between calls.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

SIZE = (6.4, 4.0)
DPI = 100
METADATA = {"Software": None}  # no version string, so the same data gives the same bytes


def _save(fig: Figure, path: Path | str) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    FigureCanvasAgg(fig)
    fig.savefig(path, format="png", metadata=METADATA)
    return path


def cdf_plot(
    series: Mapping[str, Sequence[float]],
    path: Path | str,
    *,
    xlabel: str,
    title: str = "",
) -> Path:
    """Empirical CDF of each named sample (a step per distinct value)."""
    fig = Figure(figsize=SIZE, dpi=DPI)
    ax = fig.add_subplot()
    for label, values in series.items():
        xs = sorted(values)
        if not xs:
            continue
        ys = [(i + 1) / len(xs) for i in range(len(xs))]
        ax.step(xs, ys, where="post", label=label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("fraction of packets ≤ x")
    ax.set_ylim(0.0, 1.02)
    ax.grid(True, alpha=0.3)
    if title:
        ax.set_title(title)
    if len(series) > 1:
        ax.legend()
    return _save(fig, path)


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
    return _save(fig, path)


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
    return _save(fig, path)


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
    return _save(fig, path)
