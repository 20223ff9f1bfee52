"""Draw a ``PageDownload``: the timeline of paper 003 Figure 3 above the latency
breakdown of Figure 4, to a PNG or SVG file."""

from pathlib import Path

from wwanlab.core.errors import UsageError
from wwanlab.web.breakdown import LABELS, SHARES
from wwanlab.web.browser import PageDownload

FORMATS = {".png": "png", ".svg": "svg"}
SHARE_COLOURS = {
    "payload": "tab:green",
    "other": "tab:gray",
    "dns": "tab:red",
    "tcp": "tab:orange",
    "under": "tab:blue",
}
# No software version or date in the file: the same download gives the same bytes.
METADATA = {"png": {"Software": None}, "svg": {"Date": None, "Creator": None}}


def plot_format(path: Path) -> str:
    """``png`` or ``svg`` from the file name; anything else is a ``UsageError``."""
    kind = FORMATS.get(path.suffix.lower())
    if kind is None:
        raise UsageError(f"--plot {str(path)!r}: name a .png or .svg file")
    return kind


def plot_download(result: PageDownload, path: Path) -> Path:
    """Connections against time (a line per connection from its SYN to its end, a tick
    per GET, a dot per response, DNS lookups in red below) and the breakdown bar."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # only when drawing
    from matplotlib.figure import Figure

    kind = plot_format(path)
    fig = Figure(figsize=(8.0, 6.0), dpi=100)
    timeline, bar = fig.subplots(2, 1, height_ratios=(4, 1))
    connections = sorted(result.connections, key=lambda c: (c.opened, c.id))
    servers = list(dict.fromkeys(c.server for c in connections))
    colours = [f"C{i % 10}" for i in range(len(servers))]
    for row, conn in enumerate(connections, start=1):
        colour = colours[servers.index(conn.server)]
        ends = [t for t in (conn.closed, *(at for at, _ in conn.responses)) if t is not None]
        end = max(ends) if ends else result.total_time
        timeline.plot([conn.opened, end], [row, row], color=colour, linewidth=1.2)
        gets = [at for at, _ in conn.gets]
        timeline.scatter(gets, [row + 0.25] * len(gets), marker="|", color=colour, s=40)
        answers = [at for at, _ in conn.responses]
        timeline.scatter(answers, [row] * len(answers), marker=".", color=colour, s=12)
    for lookup in result.lookups:
        end = result.total_time if lookup.finished is None else lookup.finished
        timeline.plot([lookup.started, end], [0, 0], color="tab:red", linewidth=4)
    names: dict[str, list[str]] = {}
    for lookup in result.lookups:
        names.setdefault(lookup.address, []).append(lookup.name)
    for server, colour in zip(servers, colours, strict=True):
        label = ", ".join(names.get(server, [])) or server
        timeline.plot([], [], color=colour, label=label)
    timeline.plot([], [], color="tab:red", linewidth=4, label="DNS lookup")
    timeline.set_ylabel("TCP connections (cumulative)")
    timeline.set_xlabel("time, s (tick: GET sent, dot: response complete)")
    timeline.set_xlim(0, max(result.total_time, 1e-3))
    timeline.grid(True, alpha=0.3)
    timeline.legend(fontsize="x-small", loc="upper left")
    setup = result.setup
    timeline.set_title(
        f"{result.page} over {setup.link}, {setup.strategy}: {result.total_time:.1f} s"
    )
    left = 0.0
    shares = result.breakdown.shares()
    for name in SHARES:
        bar.barh(0, shares[name], left=left, color=SHARE_COLOURS[name], label=LABELS[name])
        left += shares[name]
    bar.set_xlim(0, 100)
    bar.set_yticks([])
    bar.set_xlabel("share of the download time, %")
    bar.legend(
        fontsize="x-small", ncol=len(SHARES), loc="upper center", bbox_to_anchor=(0.5, -0.6)
    )
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    FigureCanvasAgg(fig)
    fig.savefig(path, format=kind, metadata=METADATA[kind])
    return path
