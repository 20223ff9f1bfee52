"""Figures as a reader sees them: text readable on the page, legends off the paper's lines."""

from pathlib import Path

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.text import Text
from PIL import Image

from wwanlab.report.plots import (
    MIN_TEXT_PX,
    PAGE_WIDTH_PX,
    PAPER_COLOUR,
    PAPER_SHADE,
    is_reference,
    save,
)


def _crowded(width: float = 6.4) -> Figure:
    """A figure whose legend, as drawn, sits on a paper line: upper right, where the
    paper's 1.9 runs, in 6-point text."""
    fig = Figure(figsize=(width, 4.0), dpi=100)
    ax = fig.add_subplot()
    ax.plot([0, 1, 2], [0, 1, 2], label="ours")
    ax.axhline(1.9, color=PAPER_COLOUR, linestyle="--", label="paper: 1.9")
    ax.axhspan(0.0, 0.3, color=PAPER_SHADE, label="paper: band")
    ax.tick_params(labelsize=6)
    ax.legend(fontsize=6, loc="upper right")
    return fig


def _legend(ax: Axes) -> Legend:
    legend = ax.get_legend()
    assert legend is not None
    return legend


def _page_px(fig: Figure, path: Path, text: Text) -> float:
    """The text's height in CSS pixels on the report page: points at the figure's dpi,
    scaled down with the PNG when it is wider than the page."""
    width = Image.open(path).size[0]
    return float(text.get_fontsize()) * fig.dpi / 72 * min(1.0, PAGE_WIDTH_PX / width)


def test_legend_leaves_the_paper_lines_and_text_is_readable(tmp_path: Path) -> None:
    fig = _crowded()
    ax = fig.axes[0]
    renderer = FigureCanvasAgg(fig).get_renderer()
    paper_line = ax.lines[1]
    # The figure as drawn: the defect this guards against.
    assert _legend(ax).get_window_extent(renderer).overlaps(paper_line.get_window_extent(renderer))
    path = save(fig, tmp_path / "f.png")
    box = _legend(ax).get_window_extent(renderer)
    for artist in (paper_line, ax.patches[0]):
        assert not box.overlaps(artist.get_window_extent(renderer))
    texts = [t for t in fig.findobj(Text) if t.get_text()]
    ticks = [t.label1 for t in ax.xaxis.get_major_ticks()]
    assert ticks and all(_page_px(fig, path, t) >= MIN_TEXT_PX - 1e-9 for t in texts + ticks)


def test_a_figure_wider_than_the_page_gets_larger_text(tmp_path: Path) -> None:
    narrow, wide = _crowded(6.4), _crowded(13.0)
    save(narrow, tmp_path / "n.png")
    path = save(wide, tmp_path / "w.png")
    assert Image.open(path).size[0] > PAGE_WIDTH_PX
    (n,), (w,) = (_legend(f.axes[0]).get_texts()[:1] for f in (narrow, wide))
    assert float(w.get_fontsize()) > float(n.get_fontsize())
    assert _page_px(wide, path, w) >= MIN_TEXT_PX - 1e-9


def test_a_legend_with_no_free_place_goes_outside(tmp_path: Path) -> None:
    fig = Figure(figsize=(6.4, 4.0), dpi=100)
    ax = fig.add_subplot()
    for y in (0.1, 0.3, 0.5, 0.7, 0.9):
        ax.axhline(y, color=PAPER_COLOUR, label=f"paper: {y}")
    for x in (0.1, 0.5, 0.9):
        ax.axvline(x, color=PAPER_COLOUR)
    ax.legend()
    save(fig, tmp_path / "o.png")
    renderer = FigureCanvasAgg(fig).get_renderer()
    legend = _legend(ax).get_window_extent(renderer)
    assert legend.x0 > ax.get_window_extent(renderer).x1


def test_references_are_the_paper_colour_shade_or_label() -> None:
    fig = Figure()
    ax = fig.add_subplot()
    black = ax.axhline(1, color=PAPER_COLOUR)
    ours = ax.plot([0, 1], [0, 1], color="tab:blue")[0]
    named = ax.plot([0, 1], [1, 0], color="tab:red", label="paper (knees)")[0]
    band = ax.axhspan(0, 1, color=PAPER_SHADE)
    assert [is_reference(a) for a in (black, ours, named, band)] == [True, False, True, True]


def test_same_data_same_bytes(tmp_path: Path) -> None:
    a, b = save(_crowded(), tmp_path / "a.png"), save(_crowded(), tmp_path / "b.png")
    assert a.read_bytes() == b.read_bytes()
