"""Reproduction of paper 002 (Rendón, Casadevall, Carrasco, "Wireless TCP proposals with
proxy servers in the GPRS network"): a 512 KB FTP download by TCP Reno over a GPRS
network, with a Snoop agent or a Split-TCP proxy between the GGSN and the SGSN, with and
without LLC acknowledged mode, in a busy cell and a cell with one user (Tables 2 and 3).

The network and the download are in ``network``; every link's parameters are cited in
``wwanlab.link.presets``. ``ASSUMPTIONS`` lists what the paper leaves open.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from wwanlab.experiments.reproduction import (
    Claim,
    Context,
    PaperFigure,
    Reproduction,
    ReproductionResult,
    register,
    reproduction_page,
)
from wwanlab.experiments.scenario import Row, Scenario, experiment_kind
from wwanlab.experiments.summary import Summary, summarize
from wwanlab.link.presets import GPRS_BUSY, GPRS_MSS, GPRS_ONE_USER, LLC_MAX_RETRANSMISSIONS
from wwanlab.report import Figure, Params, Table, Text
from wwanlab.reproductions.gprs_proxies.network import CELLS, FILE_SIZE, download, reno_2002
from wwanlab.tcp import TcpConfig
from wwanlab.tcp.config import Variant

NAME = "gprs-proxies"
PAPER = "papers/002 sections III-V, Tables 1-3"
SEED = 2003
REPETITIONS, QUICK_REPETITIONS = 20, 5

# (proxy, LLC acknowledged mode) of each row of Tables 2 and 3
CONFIGS: dict[str, tuple[str, bool]] = {
    "TCP Reno": ("none", False),
    "Snoop": ("snoop", False),
    "Split": ("split", False),
    "TCP + LLC ACK": ("none", True),
    "Split + LLC ACK": ("split", True),
}
STACKS = {"reno-2002": "TCP Reno, MSS 430, RFC timers", "today": "SACK, Linux timers, MSS 430"}

# Paper 002 Table 2 (busy cell) and Table 3 (one user): throughput (kbit/s) and
# retransmissions (% of segments) by place: (data-driven, timer-driven).
PAPER_TABLES: dict[str, dict[str, tuple[float, dict[str, tuple[float, float]]]]] = {
    "busy": {
        "TCP Reno": (2.73, {"FH": (2.53, 0.23)}),
        "Snoop": (2.29, {"FH": (0.55, 0.60), "Proxy": (6.85, 0.08)}),
        "Split": (2.75, {"FH": (2.14, 0.03), "Proxy": (1.56, 0.24)}),
        "TCP + LLC ACK": (2.95, {"FH": (0.90, 0.08)}),
        "Split + LLC ACK": (2.99, {"FH": (2.14, 0.03), "Proxy": (0.00, 0.01)}),
    },
    "one-user": {
        "TCP Reno": (36.47, {"FH": (1.22, 0.19)}),
        "Snoop": (36.79, {"FH": (0.90, 0.08), "Proxy": (5.93, 0.08)}),
        "Split": (41.94, {"FH": (2.14, 0.03), "Proxy": (0.41, 0.00)}),
        "TCP + LLC ACK": (40.72, {"FH": (1.07, 0.00)}),
        "Split + LLC ACK": (42.37, {"FH": (2.14, 0.03), "Proxy": (0.00, 0.00)}),
    },
}
PAPER_RESIDUAL_PER = {"busy": 5e-4, "one-user": 4e-6}  # % (sections IV.4 and V.4)
RADIOS = {"busy": GPRS_BUSY, "one-user": GPRS_ONE_USER}
SAME = 0.05  # relative difference of throughputs read as "about equal" (assumption)
PRACTICALLY_NONE = 0.1  # %: "practically no retransmissions" (assumption)

ASSUMPTIONS = [
    "Network, radio and Internet: the presets internet-gprs-2002 and gprs-radio-busy / "
    "gprs-radio-one-user (and their -llc-ack forms), whose assumptions `wwanlab links -v` "
    "lists: the radio's delay range as a service time drawn uniformly (the paper publishes "
    "the range, not its histogram), Bernoulli loss at the paper's PER, Internet loss 1% "
    "('less than 1%'), Gaussian Internet delay with sd 20 ms that may reorder packets.",
    "The busy cell's delays and PER are the paper's given values (section IV); the cell "
    "is not simulated user by user.",
    "The proxy sits in the SGSN node, which the GGSN-SGSN (2 Mbit/s) and SGSN-BSS "
    "(64 kbit/s) links join; the SGSN's processing delay is 0 (not given).",
    f"FTP: the server opens the data connection to the mobile (RFC 959 active mode), sends "
    f"{FILE_SIZE} octets and closes; throughput = file bits / (server's SYN to the mobile's "
    "receipt of the last byte), in kbit/s of 1000 bit/s.",
    "TCP Reno (paper) with MSS 430 (Table 1); everything else the RFC defaults: initial "
    "window 3 segments, RTO initial 1 s and minimum 1 s, delayed ACKs (200 ms), receive "
    "window 65535. Both ends, and both sides of the Split proxy, use these.",
    "Retransmissions are counted as % of the file's segments (1220 of 430 octets); "
    "data-driven = after duplicate ACKs, timer-driven = after an RTO (every segment resent "
    "after an RTO until the sender catches up counts as timer-driven).",
    "Snoop: the 1995 agent's snoop_data/snoop_ack rules (wwanlab.pep.snoop); its timer is "
    "RFC 6298's estimator on the wireless round trip with a 200 ms floor and a 1 s initial "
    "value, at most 4 local tries of one segment.",
    "Split: transparent I-TCP; the proxy holds at most 64 KB unacknowledged toward the "
    "mobile plus the wired side's 64 KB window.",
    f"'About equal' throughputs differ by at most {SAME:.0%}; 'practically no "
    f"retransmissions' is below {PRACTICALLY_NONE}%.",
    "LLC acknowledged mode's residual PER is PER^(1+2) for up to two retransmissions of an "
    "independently lost frame; the paper's own figure (5e-4 % busy, 4e-6 % one user) "
    "implies a per-try loss a little below its PER.",
    "'Today' rows (ours, not the paper's): the same network with SACK and Linux's timers "
    "(IW10, 200 ms RTO floor, 40 ms delayed ACK), MSS kept at 430.",
]


def _tcp(stack: str) -> TcpConfig:
    if stack == "today":
        return TcpConfig.linux(Variant.SACK, mss=GPRS_MSS)
    return reno_2002()


@experiment_kind("gprs-download")
def run_one(params: dict[str, Any], seed: int) -> list[Row]:
    """One 512 KB download over one cell with one proxy configuration."""
    proxy, llc = CONFIGS[str(params["stack.config"])]
    result = download(
        str(params["link.cell"]),
        proxy,
        seed,
        llc_ack=llc,
        tcp=_tcp(str(params["stack.tcp"])),
    )
    fh, seg = result.fh, result.segments
    has_proxy = proxy != "none"
    return [
        {
            "complete": result.complete,
            "throughput_kbps": result.throughput_kbps,
            "fh_data_pct": 100 * (fh.retransmissions - fh.timer_retransmissions) / seg,
            "fh_timer_pct": 100 * fh.timer_retransmissions / seg,
            "proxy_data_pct": 100 * result.proxy_data_driven / seg if has_proxy else None,
            "proxy_timer_pct": 100 * result.proxy_timer_driven / seg if has_proxy else None,
        }
    ]


def scenario(quick: bool) -> Scenario:
    return Scenario(
        name="gprs_proxies" + ("_quick" if quick else ""),
        kind="gprs-download",
        sweep={"link.cell": list(CELLS), "stack.config": list(CONFIGS), "stack.tcp": list(STACKS)},
        repetitions=QUICK_REPETITIONS if quick else REPETITIONS,
        seed=SEED,
        description="Paper 002: 512 KB FTP over GPRS with Snoop, Split, LLC ACK",
    )


Points = dict[tuple[str, str, str], Summary]
PCTS = ("fh_data_pct", "fh_timer_pct", "proxy_data_pct", "proxy_timer_pct")


def points(rows: Sequence[Row]) -> Points:
    out: Points = {}
    found = summarize(
        rows,
        by=("link.cell", "stack.config", "stack.tcp"),
        value="throughput_kbps",
        complete="complete",
        means=PCTS,
    )
    for (cell, config, tcp), point in found.items():
        out[(str(cell), str(config), str(tcp))] = point
    return out


def residual_per(cell: str) -> float:
    """% of IP packets LLC acknowledged mode still loses (PER^(1 + retransmissions))."""
    return 100 * RADIOS[cell].per ** (1 + LLC_MAX_RETRANSMISSIONS)


# --- claims -------------------------------------------------------------------------------


def _tp(p: Points, cell: str, config: str, tcp: str = "reno-2002") -> Summary:
    return p[(cell, config, tcp)]


def _fmt(s: Summary) -> str:
    return f"{s.mean:.2f} ± {s.half_width:.2f}"


def _below(a: Summary, b: Summary) -> bool:
    """``a``'s mean is below ``b``'s and their 95% intervals do not overlap."""
    return a.mean + a.half_width < b.mean - b.half_width


def _best(p: Points, cell: str) -> str:
    """The configuration with the highest mean throughput in ``cell``."""
    return max(CONFIGS, key=lambda name: _tp(p, cell, name).mean)


def claims(p: Points) -> list[Claim]:
    out = []
    reno, snoop = _tp(p, "busy", "TCP Reno"), _tp(p, "busy", "Snoop")
    useless = snoop.means["proxy_data_pct"]
    per = 100 * GPRS_BUSY.per
    out.append(
        Claim(
            claim="in the busy cell, Snoop's throughput is below plain Reno's, and its "
            "proxy does many useless data-driven retransmissions (IV.2)",
            paper="2.29 < 2.73 kbit/s; proxy data-driven 6.85% (PER 2.3%)",
            ours=f"Snoop {_fmt(snoop)} vs Reno {_fmt(reno)} kbit/s; proxy data-driven "
            f"{useless:.2f}% against a radio PER of {per:.1f}%",
            holds=_below(snoop, reno) and useless > per,
        )
    )
    split_b, split_o = _tp(p, "busy", "Split"), _tp(p, "one-user", "Split")
    reno_o = _tp(p, "one-user", "TCP Reno")
    same = abs(split_b.mean / reno.mean - 1) <= SAME
    better = _below(reno_o, split_o)
    out.append(
        Claim(
            claim="Split is about equal to Reno in the busy cell (2.75 vs 2.73) and better "
            "with one user (41.94 vs 36.47) (IV.3, V.3)",
            paper="busy +0.7%; one user +15%",
            ours=f"busy {100 * (split_b.mean / reno.mean - 1):+.1f}% "
            f"({'about equal' if same else 'not equal'}); one user "
            f"{100 * (split_o.mean / reno_o.mean - 1):+.1f}% "
            f"({'better' if better else 'not significantly better'})",
            holds=same and better,
        )
    )
    snoop_o = _tp(p, "one-user", "Snoop")
    out.append(
        Claim(
            claim="with one user, the throughputs of Snoop and TCP Reno are quite similar "
            "(36.79 and 36.47) (V.2)",
            paper="+0.9%",
            ours=f"Snoop {_fmt(snoop_o)} vs Reno {_fmt(reno_o)} kbit/s "
            f"({100 * (snoop_o.mean / reno_o.mean - 1):+.1f}%)",
            holds=abs(snoop_o.mean / reno_o.mean - 1) <= SAME,
        )
    )
    residuals = {c: residual_per(c) for c in CELLS}
    close = all(1 / 3 <= residuals[c] / PAPER_RESIDUAL_PER[c] <= 3 for c in CELLS)
    best = {c: _best(p, c) for c in CELLS}
    llc_best = all("LLC" in best[c] for c in CELLS)
    out.append(
        Claim(
            claim="LLC acknowledged mode decreases the PER from 2.3% to 5e-4 % (0.5% to "
            "4e-6 % with one user) and gives the best throughput (IV.4, V.4)",
            paper="5e-4 % and 4e-6 %; best rows: Split + LLC ACK",
            ours=f"residual PER {residuals['busy']:.1e} % and {residuals['one-user']:.1e} % "
            f"({'within' if close else 'not within'} a factor 3 of the paper's); best: "
            f"{best['busy']} (busy), {best['one-user']} (one user)",
            holds=close and llc_best,
        )
    )
    split_llc = {c: _tp(p, c, "Split + LLC ACK").means for c in CELLS}
    wireless = {c: m["proxy_data_pct"] + m["proxy_timer_pct"] for c, m in split_llc.items()}
    out.append(
        Claim(
            claim="When the Split mechanism uses the LLC Acknowledged mode, there are "
            "practically no retransmissions in the wireless part (IV.4)",
            paper="proxy 0.01% (busy), 0.00% (one user)",
            ours=f"proxy {wireless['busy']:.3f}% (busy), {wireless['one-user']:.3f}% (one user)",
            holds=all(w < PRACTICALLY_NONE for w in wireless.values()),
        )
    )
    return out


def findings(p: Points) -> list[str]:
    """What the counters say, in this run's numbers."""
    snoop = _tp(p, "busy", "Snoop").means
    split_llc = _tp(p, "busy", "Split + LLC ACK").means
    today = {c: _tp(p, c, "TCP Reno", "today").mean / _tp(p, c, "TCP Reno").mean for c in CELLS}
    return [
        f"Snoop's proxy resends {snoop['proxy_data_pct']:.1f}% of the segments on duplicate "
        "ACKs in the busy cell, many times the radio's 2.3% PER: the Internet reorders "
        "segments (Gaussian delay), each out-of-order arrival makes the mobile send a "
        "duplicate ACK, and the agent resends a segment that was not lost (paper IV.2).",
        f"Split + LLC ACK's proxy retransmissions in the busy cell "
        f"({split_llc['proxy_data_pct'] + split_llc['proxy_timer_pct']:.2f}%) are timer-driven "
        "resends of segments LLC delayed, not lost: the radio's 0.8-2 s per packet plus LLC "
        "retries outlast the proxy's RTO now and then.",
        f"Today's TCP (SACK, Linux timers) moves Reno's rows by {100 * (today['busy'] - 1):+.0f}% "
        f"(busy) and {100 * (today['one-user'] - 1):+.0f}% (one user).",
    ]


# --- tables and figures -------------------------------------------------------------------------


def table_rows(p: Points, cell: str, tcp: str = "reno-2002") -> list[dict[str, object]]:
    """One cell's table beside the paper's, a row per configuration and place."""
    rows: list[dict[str, object]] = []
    for config, (paper_tp, places) in PAPER_TABLES[cell].items():
        s = _tp(p, cell, config, tcp)
        for place in ("FH", "Proxy"):
            if place == "Proxy" and CONFIGS[config][0] == "none":
                continue
            data, timer = (
                (s.means["fh_data_pct"], s.means["fh_timer_pct"])
                if place == "FH"
                else (s.means["proxy_data_pct"], s.means["proxy_timer_pct"])
            )
            paper = places.get(place)
            rows.append(
                {
                    "configuration": config if place == "FH" else "",
                    "place": place,
                    "paper kbit/s": paper_tp if place == "FH" else None,
                    "ours kbit/s": round(s.mean, 2) if place == "FH" else None,
                    "± 95%": round(s.half_width, 2) if place == "FH" else None,
                    "paper data %": paper[0] if paper else None,
                    "ours data %": round(data, 2),
                    "paper timer %": paper[1] if paper else None,
                    "ours timer %": round(timer, 2),
                    "paper total %": round(sum(paper), 2) if paper else None,
                    "ours total %": round(data + timer, 2),
                }
            )
    return rows


def throughput_figure(p: Points, path: Path) -> Path:
    from matplotlib.figure import Figure as MplFigure

    from wwanlab.report.plots import PAPER_COLOUR, save

    fig = MplFigure(figsize=(9, 4), dpi=100)
    for ax, cell in zip(fig.subplots(1, 2), CELLS, strict=True):
        names = list(CONFIGS)
        for offset, tcp, colour in ((-0.2, "reno-2002", "tab:blue"), (0.2, "today", "tab:grey")):
            pts = [_tp(p, cell, n, tcp) for n in names]
            ax.bar(
                [i + offset for i in range(len(names))],
                [s.mean for s in pts],
                0.4,
                yerr=[s.half_width for s in pts],
                color=colour,
                label=f"ours: {STACKS[tcp]}",
                capsize=2,
            )
        ax.scatter(
            range(len(names)),
            [PAPER_TABLES[cell][n][0] for n in names],
            marker="D",
            color=PAPER_COLOUR,
            zorder=3,
            label="paper (Tables 2, 3)",
        )
        ax.set_xticks(range(len(names)), names, rotation=25, fontsize=7)
        ax.set_title(f"{cell} cell", fontsize=9)
        ax.set_ylabel("throughput (kbit/s)")
        ax.grid(True, axis="y", alpha=0.3)
    fig.axes[0].legend(fontsize=7)
    fig.tight_layout()
    return save(fig, path)


def rtt_figure(path: Path) -> Path:
    """RTT at the fixed host over time, TCP Reno, both cells (paper 002 Figures 2, 3)."""
    from matplotlib.figure import Figure as MplFigure

    from wwanlab.report.plots import save

    fig = MplFigure(figsize=(9, 3.6), dpi=100)
    for ax, cell in zip(fig.subplots(1, 2), CELLS, strict=True):
        samples = download(cell, "none", SEED, rtt=True).rtt_samples
        ax.plot([t for t, _ in samples], [r for _, r in samples], ".", markersize=2)
        ax.set_title(f"{cell} cell (Figure {2 if cell == 'busy' else 3})", fontsize=9)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("RTT at the FH (s)")
        ax.grid(True, alpha=0.3)
    return save(fig, path)


# --- the reproduction -------------------------------------------------------------------------


def body(ctx: Context) -> ReproductionResult:
    sc = scenario(ctx.quick)
    rows = ctx.execute(sc)
    p = points(rows)
    found = claims(p)
    fig_tp = throughput_figure(p, ctx.figure_path("throughput.png"))
    fig_rtt = rtt_figure(ctx.figure_path("rtt.png"))
    residual_rows = [
        {
            "cell": c,
            "PER %": 100 * RADIOS[c].per,
            "ours residual %": f"{residual_per(c):.2e}",
            "paper residual %": f"{PAPER_RESIDUAL_PER[c]:.0e}",
        }
        for c in CELLS
    ]
    page = reproduction_page(
        ctx,
        title="Wireless TCP proposals with proxy servers in the GPRS network (paper 002)",
        summary="paper 002: Snoop, Split and LLC ACK for TCP Reno over GPRS (Tables 2, 3)",
        setup=[
            Text(
                "An FTP server on the Internet sends a 512 KB file by TCP Reno to a mobile "
                "host across the GGSN, the SGSN (where the Snoop agent or the Split proxy "
                "sits) and the GPRS radio of a busy cell or a cell with one user, with and "
                "without LLC acknowledged mode. The same rows with today's TCP (SACK, Linux "
                "timers) show which conclusions survive."
            ),
            Params(
                {
                    "file": f"{FILE_SIZE} octets",
                    "cells": ", ".join(CELLS),
                    "configurations": ", ".join(CONFIGS),
                    "TCP": "; ".join(f"{k}: {v}" for k, v in STACKS.items()),
                    "repetitions per point": sc.repetitions,
                    "seed": SEED,
                }
            ),
            Table.from_rows(residual_rows, caption="LLC ACK: residual PER"),
        ],
        claims=found,
        figures=[
            PaperFigure(
                "Tables 2 and 3: throughput",
                Figure(fig_tp, "Throughput per configuration, 95% CIs; the paper's in black"),
                "Tables 2 and 3's throughputs, drawn as black diamonds",
                shown=[
                    Table.from_rows(table_rows(p, "busy"), caption="Table 2: busy cell"),
                    Table.from_rows(table_rows(p, "one-user"), caption="Table 3: one user"),
                ],
            ),
            PaperFigure(
                "RTT at the fixed host (Figures 2 and 3)",
                Figure(fig_rtt, "RTT samples at the FH, TCP Reno, one download per cell"),
                "Figures 2 and 3 did not survive extraction",
                Table.from_rows(
                    table_rows(p, "busy", "today") + table_rows(p, "one-user", "today"),
                    caption="Today's TCP (ours, not the paper's): busy, then one user",
                ),
            ),
        ],
        assumptions=ASSUMPTIONS,
        findings=findings(p),
    )
    return ReproductionResult(NAME, found, page)


register(
    Reproduction(
        NAME,
        paper=PAPER,
        title="Snoop and Split proxies and LLC ACK mode in a GPRS network",
        body=body,
    )
)
