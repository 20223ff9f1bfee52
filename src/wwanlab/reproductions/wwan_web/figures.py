"""The page's figures: Figure 4 (latency components), Figure 5 (time against the number of
connections) and Tables 4/6/7-9 as bars of ours beside the paper's times.

Matplotlib is imported inside each function: importing the reproduction (which every
``wwanlab reproduce`` does) must stay cheap.
"""

from pathlib import Path

from wwanlab.reproductions.wwan_web import published as P
from wwanlab.reproductions.wwan_web.claims import GPRS
from wwanlab.reproductions.wwan_web.configs import FIGURE5
from wwanlab.reproductions.wwan_web.results import SHARE_LABELS, SHARES, Results

# The colours of ``wwanlab web --plot`` (web.plot); "other" there is link overhead, here
# the paper's "Other under utilization" (overhead and idle), in its under-utilization blue.
SHARE_COLOURS = ("tab:green", "tab:red", "tab:orange", "tab:blue")


def figure4(r: Results, path: Path) -> Path:
    """Stacked shares per site, ours; the paper's text as marks: the under-utilization
    range (35-55%) and mail's DNS + 3W/SS (29%); the totals above the bars."""
    from matplotlib.figure import Figure

    from wwanlab.report.plots import PAPER_COLOUR, PAPER_SHADE, save

    fig = Figure(figsize=(7.5, 4.2), dpi=100)
    ax = fig.add_subplot()
    sites = [s for s in P.SITES4 if r.get(GPRS, s, "default") is not None]
    bottom = [0.0] * len(sites)
    for share, label, colour in zip(SHARES, SHARE_LABELS, SHARE_COLOURS, strict=True):
        values = []
        for site in sites:
            s = r.get(GPRS, site, "default")
            values.append(s.means[share] if s else 0.0)
        ax.bar(range(len(sites)), values, 0.5, bottom=bottom, color=colour, label=f"ours: {label}")
        bottom = [b + v for b, v in zip(bottom, values, strict=True)]
    lo, hi = P.FIGURE4_UNDERUSE_RANGE
    ax.axhspan(lo, hi, color=PAPER_SHADE, zorder=0, label="paper: under-utilized 35-55%")
    if "mail" in sites:
        x = sites.index("mail")
        ax.plot([x - 0.3, x + 0.3], [P.FIGURE4_MAIL_DNS_HANDSHAKE] * 2, color=PAPER_COLOUR)
        ax.annotate(
            "paper: mail DNS+3W/SS 29%", (x + 0.3, P.FIGURE4_MAIL_DNS_HANDSHAKE), fontsize=7
        )
    for i, site in enumerate(sites):
        s = r.get(GPRS, site, "default")
        if s is not None:
            ax.annotate(
                f"{s.mean:.1f} s\n(paper {P.FIGURE4_TOTALS[site]:g})",
                (i, 101),
                ha="center",
                fontsize=7,
            )
    ax.set_xticks(range(len(sites)), sites)
    ax.set_ylim(0, 115)
    ax.set_ylabel("% of the download time")
    ax.legend(fontsize=7, loc="lower right")
    ax.grid(True, axis="y", alpha=0.3)
    return save(fig, path)


def figure5(r: Results, path: Path) -> Path:
    """Mean time per connection count, normalized to 2 connections, one line per site; the
    paper's text as marks: best at 6, 35-42% below the default there."""
    from matplotlib.figure import Figure

    from wwanlab.report.plots import PAPER_COLOUR, save

    fig = Figure(figsize=(6.4, 4.0), dpi=100)
    ax = fig.add_subplot()
    for site in P.SITES4:
        base = r.get(GPRS, site, "default")
        xs, ys, errs = [], [], []
        for n, config in FIGURE5.items():
            s = r.get(GPRS, site, config)
            if s is None or base is None:
                continue
            xs.append(n)
            ys.append(s.mean / base.mean)
            errs.append(s.half_width / base.mean)
        if xs:
            ax.errorbar(xs, ys, yerr=errs, marker="o", capsize=2, label=f"ours: {site}")
    lo, hi = P.FIGURE5_RANGE
    best = P.FIGURE5_BEST
    ax.errorbar(
        [best],
        [1 - (lo + hi) / 200],
        yerr=[[(hi - lo) / 200], [(hi - lo) / 200]],
        color=PAPER_COLOUR,
        marker="D",
        capsize=4,
        label="paper: best at 6, 35-42% below",
    )
    ax.set_xlabel("number of connections per server")
    ax.set_ylabel("download time / HTTP/1.1-default (2)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    return save(fig, path)


def times_figure(r: Results, path: Path, columns: dict[str, tuple[str, dict[str, float]]]) -> Path:
    """Grouped bars of mean times per site: for each column ours (with its interval) and the
    paper's time as a black diamond. ``columns``: label -> (our config, paper's site -> s)."""
    from matplotlib.figure import Figure

    from wwanlab.report.plots import PAPER_COLOUR, save

    fig = Figure(figsize=(9, 4.0), dpi=100)
    axes = fig.subplots(1, len(P.SITES4))
    for ax, site in zip(axes, P.SITES4, strict=True):
        for i, (config, paper) in enumerate(columns.values()):
            s = r.get(GPRS, site, config)
            if s is not None:
                ax.bar(i, s.mean, 0.6, yerr=s.half_width, capsize=2, color="tab:blue")
            if site in paper:
                ax.scatter([i], [paper[site]], marker="D", color=PAPER_COLOUR, zorder=3)
        ax.set_xticks(range(len(columns)), list(columns), rotation=60, fontsize=7)
        ax.set_title(site, fontsize=9)
        ax.grid(True, axis="y", alpha=0.3)
    axes[0].set_ylabel("download time (s); paper: black diamonds")
    fig.tight_layout()
    return save(fig, path)


def throughput_figure(r: Results, path: Path) -> Path:
    """Tables 10 and 11 side by side: FTP throughput against file size and the four sites'
    web throughput, per link, ours (lines, bars) and the paper's (black marks); the ideal
    rate of each link dotted."""
    from matplotlib.figure import Figure

    from wwanlab.report.plots import PAPER_COLOUR, save

    fig = Figure(figsize=(11, 4.0), dpi=100)
    ftp_ax, web_ax = fig.subplots(1, 2)
    colours = dict(zip(P.LINKS, ("tab:blue", "tab:orange", "tab:green"), strict=True))
    width = 0.8 / len(P.LINKS)
    for j, link in enumerate(P.LINKS):
        colour = colours[link]
        sizes = [kb for kb in P.FTP_SIZES_KB if (link, kb) in r.ftp]
        ftp_ax.errorbar(
            sizes,
            [r.ftp[(link, kb)].mean for kb in sizes],
            yerr=[r.ftp[(link, kb)].half_width for kb in sizes],
            marker="o",
            color=colour,
            capsize=2,
            label=f"ours: {link}",
        )
        paper = P.TABLE10[link]
        ftp_ax.scatter(
            list(paper),
            [v[0] for v in paper.values()],
            marker="D",
            color=PAPER_COLOUR,
            edgecolors=colour,
            linewidths=1.5,
        )
        ftp_ax.axhline(P.IDEAL_KBPS[link], color=colour, linestyle=":")
        xs = [i + (j - 1) * width for i in range(len(P.SITES4))]
        ours = []
        for site in P.SITES4:
            s = r.get(link, site, "default")
            ours.append(s.means["kbps"] if s else 0.0)
        web_ax.bar(xs, ours, width, color=colour, label=f"ours: {link}")
        web_ax.scatter(
            xs,
            [P.TABLE11[link][s][0] for s in P.SITES4],
            marker="D",
            color=PAPER_COLOUR,
            edgecolors=colour,
            linewidths=1.5,
        )
    ftp_ax.set_xscale("log")
    ftp_ax.set_xlabel("file size (KB)")
    ftp_ax.set_ylabel("FTP throughput (kbit/s); paper: black diamonds")
    ftp_ax.set_title("Table 10", fontsize=9)
    ftp_ax.legend(fontsize=7)
    ftp_ax.grid(True, alpha=0.3)
    web_ax.set_xticks(range(len(P.SITES4)), list(P.SITES4))
    web_ax.set_ylabel("web throughput (kbit/s); paper: diamonds")
    web_ax.set_title("Table 11 (HTTP/1.1-default)", fontsize=9)
    web_ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    return save(fig, path)


def band_figure(r: Results, path: Path, links: dict[str, str], configs: tuple[str, ...]) -> Path:
    """Mean time per configuration and site, one bar per link of the band (``links``:
    label -> link name), with 95% intervals."""
    from matplotlib.figure import Figure

    from wwanlab.report.plots import save

    fig = Figure(figsize=(9, 4.0), dpi=100)
    axes = fig.subplots(1, len(P.SITES4))
    width = 0.8 / max(len(links), 1)
    for ax, site in zip(axes, P.SITES4, strict=True):
        for j, (label, link) in enumerate(links.items()):
            xs, ys, errs = [], [], []
            for i, config in enumerate(configs):
                s = r.get(link, site, config)
                if s is not None:
                    xs.append(i + (j - (len(links) - 1) / 2) * width)
                    ys.append(s.mean)
                    errs.append(s.half_width)
            ax.bar(xs, ys, width, yerr=errs, capsize=2, label=label)
        ax.set_xticks(range(len(configs)), list(configs), rotation=60, fontsize=7)
        ax.set_title(site, fontsize=9)
        ax.grid(True, axis="y", alpha=0.3)
    axes[0].set_ylabel("download time (s)")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    return save(fig, path)
