"""The report page "today's transports on 2003 links": a section per link, the target.

Per link: a table of the per-transport, per-size summary (``run.summarize_bench``) and
a plot of median goodput against file size per transport, with the link's C and
C(1-p) drawn. The target (issue 11, a benchmark figure): on serial-9k6 at 10% loss,
wwanlab's best transport reaches at least 85% of C from 12 KB up and is ahead of the
kernel's best congestion control at every size.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from wwanlab.experiments.scenario import Row
from wwanlab.report.html import (
    ClaimsTable,
    Figure,
    Params,
    PartLike,
    ReportPage,
    Section,
    Table,
    Text,
)
from wwanlab.report.provenance import RunInfo

TARGET_LINK = ("serial-9k6", 0.1)  # issue 11 item 7: the target's link and loss
TARGET_PCT_C = 85.0  # % of C from TARGET_FROM octets up
TARGET_FROM = 12000
SLUG = "transports"
TITLE = "Today's transports on 2003 links"


@dataclass(frozen=True)
class LinkResult:
    """One link configuration's bench: its rows' summary, C and p."""

    link: str
    loss: float
    capacity_bps: float
    summary: Sequence[Row]
    loss_before_line: float = 0.0  # the part of p dropped before the line

    @property
    def label(self) -> str:
        return f"{self.link} at {self.loss:.0%} loss"

    def loss_note(self) -> str:
        """Whether C(1-p) bounds goodput here, which depends on where p happens."""
        if self.loss <= 0:
            return "No loss: C bounds every transport."
        if self.loss_before_line > 0:
            part = (
                "All"
                if math.isclose(self.loss_before_line, self.loss)
                else f"{self.loss_before_line:.1%}"
            )
            where = (
                "NISTNet's place in paper 000's emulator; serial-9k6-air loses its packets "
                "on the air instead"
                if self.link == "serial-9k6"
                else "ahead of the bottleneck"
            )
            return (
                f"{part} of the {self.loss:.1%} loss is dropped before the line ({where}): "
                "a dropped packet costs no line time, so a transport can exceed 100% of "
                "C(1-p), up to C."
            )
        return (
            "The loss happens after the line (on the air): a lost packet has used its "
            "line time, so C(1-p) bounds every transport's long-run goodput without FEC; "
            "a short transfer that happens to lose fewer than p of its packets can still "
            "exceed it."
        )


@dataclass(frozen=True)
class Verdict:
    """A target checked on our data, rendered like a paper's claim."""

    claim: str
    paper: str
    ours: str
    holds: bool
    parts: Sequence[PartLike] = ()


def target_verdicts(result: LinkResult) -> list[Verdict]:
    """The two halves of the target, on ``result`` (serial-9k6 at 10%)."""
    by: dict[tuple[str, int], Row] = {(r["transport"], r["size"]): r for r in result.summary}
    sizes = sorted({r["size"] for r in result.summary})
    ours = sorted({r["transport"] for r in result.summary if r["ours"]})
    kernel = sorted({r["transport"] for r in result.summary if r["family"] == "kernel TCP"})

    def best(names: Sequence[str], size: int) -> tuple[str, float]:
        scored = [(n, _num(by.get((n, size), {}).get("goodput_bps"))) for n in names]
        scored = [(n, g) for n, g in scored if math.isfinite(g)]
        return max(scored, key=lambda s: s[1]) if scored else ("none", math.nan)

    share, ahead = [], []
    reach = ahead_ok = bool(sizes)
    for size in sizes:
        name, goodput = best(ours, size)
        k_name, k_goodput = best(kernel, size)
        pct = 100 * goodput / result.capacity_bps
        if size >= TARGET_FROM:
            share.append(f"{size} B: {name} {pct:.1f}%")
            reach = reach and pct >= TARGET_PCT_C
        ahead.append(f"{size} B: {name} {goodput:.0f} vs {k_name} {k_goodput:.0f} bit/s")
        ahead_ok = ahead_ok and goodput > k_goodput
    return [
        Verdict(
            f"wwanlab's best transport reaches at least {TARGET_PCT_C:g}% of C from "
            f"{TARGET_FROM} B up",
            f"target (C(1-p) is {100 * (1 - result.loss):.0f}% of C)",
            "; ".join(share) or "no size at or above the threshold",
            reach and bool(share),
        ),
        Verdict(
            "wwanlab's best transport is ahead of the kernel's best congestion control at "
            "every size",
            "target",
            "; ".join(ahead),
            ahead_ok,
        ),
    ]


def _num(value: object) -> float:
    return float(value) if isinstance(value, (int, float)) and value is not None else math.nan


def link_section(result: LinkResult, out: Path) -> Section:
    from wwanlab.report.plots import goodput_plot  # matplotlib: only when drawing

    transports = list(dict.fromkeys(r["transport"] for r in result.summary))
    sizes = sorted({r["size"] for r in result.summary})
    by = {(r["transport"], r["size"]): _num(r["goodput_bps"]) / 1000 for r in result.summary}
    series = {t: [by.get((t, size), math.nan) for size in sizes] for t in transports}
    slug = f"{result.link}-{round(result.loss * 100)}"
    c_kbps = result.capacity_bps / 1000
    figure = goodput_plot(
        sizes,
        series,
        {"C": c_kbps, "C(1-p)": c_kbps * (1 - result.loss)},
        out / "figures" / f"transports-{slug}.png",
        title=result.label,
    )
    columns = [
        "transport", "size", "runs", "failed", "goodput_bps", "goodput_p10", "goodput_p90",
        "pct_c", "pct_c_loss", "completion_s", "handshake_s", "bytes_up", "bytes_down",
        "congestion_control",
    ]  # fmt: skip
    return Section(
        result.label,
        [
            Text(result.loss_note()),
            Figure(figure, f"{result.label}: median goodput by file size (kbit/s)"),
            Table.from_rows(result.summary, columns, "medians; p10-p90 over the repetitions"),
        ],
    )


def transports_page(
    results: Sequence[LinkResult],
    out: Path,
    transports: Sequence[Row],
    params: dict[str, object],
    run: RunInfo | None = None,
) -> ReportPage:
    """The page: what was run, the target, then one section per link."""
    method = Text(
        "A client inside the emulator fetches the same random file from a server outside "
        "with each transport; the sha256 is checked on every transfer. Completion time "
        "runs from the client's start (before any handshake) to the file's last octet; "
        "goodput is file bits over that time. C is the link's downward IP rate for "
        "full-MTU packets, p its long-run loss; bytes are the emulator's counts of what "
        "entered the link in each direction (medians). A kernel TCP row's congestion "
        "control is read back from the server's socket (TCP_CONGESTION); two of them can "
        "still agree to the octet when the file fits in the initial window (10 segments, "
        "RFC 6928) and the link, seeded alike for every transport, loses the same packets."
    )
    sections = [
        Section("How", [method, Table.from_rows(transports), Params(params, "Bench")]),
    ]
    target = next((r for r in results if (r.link, round(r.loss, 6)) == TARGET_LINK), None)
    if target is not None:
        sections.append(Section("Target", [ClaimsTable(target_verdicts(target))]))
    sections.extend(link_section(r, out) for r in results)
    if run is not None:
        sections.append(Section("This run", [run.block()]))
    return ReportPage(
        TITLE,
        sections,
        slug=SLUG,
        summary=f"{len(results)} links, kernel TCP, WTP/WSP, QUIC and KCP side by side",
    )
