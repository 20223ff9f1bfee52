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
from typing import Any, Literal, get_args

from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.backend_bases import RendererBase
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import Collection, LineCollection
from matplotlib.colors import same_color
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.text import Text
from matplotlib.transforms import Bbox

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


PAGE_WIDTH_PX = 992
"""Widest a figure shows on a report page (report.html: a 64rem body less 2rem of
padding, at the browser's 16 px rem); a wider PNG is scaled down to it."""

MIN_TEXT_PX = 11
"""Smallest text on the page at 100% zoom, in CSS pixels: tick labels, legends and
annotations below it are enlarged when the figure is saved."""

LegendPlace = Literal[
    "upper right",
    "upper left",
    "lower right",
    "lower left",
    "center right",
    "center left",
    "upper center",
    "lower center",
    "center",
]
LEGEND_PLACES: tuple[LegendPlace, ...] = get_args(LegendPlace)
"""Where a legend may go inside its axes, in the order tried."""

PAD = 0.1
"""Inches of margin around what a saved figure draws (it is cropped to its contents)."""


def save(fig: Figure, path: Path | str) -> Path:
    """Write ``fig`` as a PNG at ``path`` (folders made), the same bytes for the same data.

    Every figure passes here, so here its text is made readable on the page and its
    legends are kept off the paper's reference lines (``readable``, ``clear_references``).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    renderer = FigureCanvasAgg(fig).get_renderer()  # type: ignore[no-untyped-call]
    # Larger text makes larger legends, which may then cover what they did not.
    readable(fig, renderer)
    clear_references(fig, renderer)
    readable(fig, renderer)
    fig.savefig(path, format="png", metadata=METADATA, bbox_inches="tight", pad_inches=PAD)
    return path


def min_font_points(fig: Figure, renderer: RendererBase) -> float:
    """The font size in points that shows as ``MIN_TEXT_PX`` on the page: a figure
    wider than ``PAGE_WIDTH_PX`` (as saved, with what sticks out of it) is scaled down."""
    width_px = (fig.get_tightbbox(renderer).width + 2 * PAD) * fig.dpi
    px_per_point = fig.dpi / 72 * min(1.0, PAGE_WIDTH_PX / width_px)
    return MIN_TEXT_PX / px_per_point


def readable(fig: Figure, renderer: RendererBase) -> None:
    """Enlarge every text of ``fig`` smaller than ``min_font_points``."""
    floor = min_font_points(fig, renderer)
    for ax in fig.axes:  # tick labels made while drawing copy the axis' settings
        for axis in (ax.xaxis, ax.yaxis):
            major, minor = axis.majorTicks[:1], axis.minorTicks[:1]
            if major and float(major[0].label1.get_fontsize()) < floor:
                axis.set_tick_params(which="major", labelsize=floor)
            if minor and float(minor[0].label1.get_fontsize()) < floor:
                axis.set_tick_params(which="minor", labelsize=floor)
    for text in fig.findobj(Text):
        if isinstance(text, Text) and text.get_text() and float(text.get_fontsize()) < floor:
            text.set_fontsize(floor)
    engine = fig.get_layout_engine()
    if engine is not None:
        engine.execute(fig)


def is_reference(artist: Artist) -> bool:
    """Whether ``artist`` draws the paper's numbers: black (``PAPER_COLOUR``) or the
    paper's shade, as every figure of the reproductions draws them, or labelled so.
    Black text counts too: annotations name the paper's lines and must stay legible."""
    if str(artist.get_label()).startswith("paper"):
        return True
    colours: list[Any] = []
    if isinstance(artist, Line2D):
        colours = [artist.get_color(), artist.get_markerfacecolor()]
    elif isinstance(artist, Patch):
        colours = [artist.get_facecolor()]
    elif isinstance(artist, Collection):
        colours = [*artist.get_facecolor(), *artist.get_edgecolor()]
    elif isinstance(artist, Text):
        colours = [artist.get_color()]
    return any(
        same_color(c, ref)
        for c in colours
        if not (isinstance(c, str) and c == "none")
        for ref in (PAPER_COLOUR, PAPER_SHADE)
    )


def _inside(points: Any, box: Bbox) -> bool:
    return any(box.contains(float(x), float(y)) for x, y in points)


def _covers(artist: Artist, box: Bbox, renderer: RendererBase) -> bool:
    """Whether ``artist`` is drawn inside ``box`` (display coordinates)."""
    if isinstance(artist, Line2D):
        path = artist.get_transform().transform_path(artist.get_path())
        drawn = artist.get_linestyle() not in ("None", "", " ")
        return _inside(path.vertices, box) or (drawn and path.intersects_bbox(box, False))
    if isinstance(artist, Collection):
        offsets = artist.get_offset_transform().transform(artist.get_offsets())
        if _inside(offsets, box):
            return True
        return isinstance(artist, LineCollection) and any(
            artist.get_transform().transform_path(p).intersects_bbox(box, False)
            for p in artist.get_paths()
        )
    return bool(artist.get_window_extent(renderer).overlaps(box))


def _overlaps(ax: Axes, legend: Legend, renderer: RendererBase) -> tuple[int, int]:
    """How many reference artists and how many other artists of ``ax`` the legend covers."""
    box = legend.get_window_extent(renderer)
    artists: list[Artist] = [*ax.lines, *ax.patches, *ax.collections, *ax.texts]
    covered = [a for a in artists if a.get_visible() and _covers(a, box, renderer)]
    references = sum(1 for a in covered if is_reference(a))
    return references, len(covered) - references


def clear_references(fig: Figure, renderer: RendererBase) -> None:
    """Move each legend that covers one of the paper's reference artists to a place
    inside its axes where it covers nothing drawn, or else outside: to the right of the
    axes, or below it when another axes stands to its right."""
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is None or not legend.get_window_extent(renderer).overlaps(
            ax.get_window_extent(renderer)
        ):
            continue  # no legend, or one already placed outside the axes
        if _overlaps(ax, legend, renderer)[0] == 0:
            continue
        scores = {}
        for place in LEGEND_PLACES:
            legend.set_loc(place)
            legend.set_bbox_to_anchor(None)
            scores[place] = _overlaps(ax, legend, renderer)
        free = [place for place in LEGEND_PLACES if scores[place] == (0, 0)]
        if free:
            legend.set_loc(free[0])
        elif _has_neighbour_right(fig, ax):
            tight = ax.get_tightbbox(renderer)
            below = 0.0 if tight is None else tight.transformed(ax.transAxes.inverted()).y0
            legend.set_loc("upper center")
            legend.set_bbox_to_anchor((0.5, below), transform=ax.transAxes)
        else:
            legend.set_loc("upper left")
            legend.set_bbox_to_anchor((1.02, 1.0), transform=ax.transAxes)


def _has_neighbour_right(fig: Figure, ax: Axes) -> bool:
    mine = ax.get_position()
    return any(
        other.get_position().x0 >= mine.x1
        and other.get_position().y1 > mine.y0
        and other.get_position().y0 < mine.y1
        for other in fig.axes
        if other is not ax
    )


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
