"""Our measurements, summarized the way the paper's tables are read.

A page download's rows are keyed by (link, site, configuration); ``Points`` holds each
cell's mean download time with its t interval (``experiments.summary``) and the plain
means of its throughput and Figure 4 shares. ``improvement`` is what every table's
"Improv." column means: how much shorter one cell's mean time is than another's, in
percent, with a delta-method interval.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from wwanlab.experiments.scenario import Row
from wwanlab.experiments.summary import Gain, Summary, relative_gain, summarize

SHARES = ("share_payload", "share_dns", "share_handshake", "share_other")
"""Figure 4's components, % of the download time: payload, DNS, TCP 3W/SS, other."""
SHARE_LABELS = ("Payload", "DNS", "TCP 3W/SS", "Other under utilization")
MEANS = ("kbps", "content_kb", *SHARES)

Key = tuple[str, str, str]  # (link, site, configuration)


@dataclass
class Results:
    """Every cell measured: page downloads, FTP transfers, and the pages' Table 3."""

    pages: dict[Key, Summary]
    ftp: dict[tuple[str, int], Summary]  # (link, KB) -> throughput (kbit/s)

    def get(self, link: str, site: str, config: str) -> Summary | None:
        point = self.pages.get((link, site, config))
        return point if point is not None and point.n > 0 else None

    def improvement(self, link: str, site: str, config: str, base: str) -> Gain | None:
        """How much faster ``config`` is than ``base`` (%), None when either is missing."""
        a, b = self.get(link, site, config), self.get(link, site, base)
        if a is None or b is None:
            return None
        gain = relative_gain(a, b)
        return Gain(-gain.percent, gain.half_width)


def results(page_rows: Sequence[Row], ftp_rows: Sequence[Row]) -> Results:
    pages = summarize(
        page_rows, by=("link", "site", "config"), value="seconds", complete="complete", means=MEANS
    )
    ftp = summarize(ftp_rows, by=("link", "kb"), value="kbps", complete="complete")
    return Results(
        {(str(k[0]), str(k[1]), str(k[2])): s for k, s in pages.items()},
        {(str(k[0]), int(str(k[1]))): s for k, s in ftp.items()},
    )


def fmt(s: Summary | None, digits: int = 1) -> str:
    """``mean ± half-width``, or ``not measured``."""
    if s is None:
        return "not measured"
    return f"{s.mean:.{digits}f} ± {s.half_width:.{digits}f}"


def fmt_gain(g: Gain | None) -> str:
    return "not measured" if g is None else f"{g.percent:.1f} ± {g.half_width:.1f}%"
