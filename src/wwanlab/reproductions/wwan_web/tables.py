"""Every table of paper 003 we reproduce, ours beside the paper's, as report tables.

Each row puts the paper's printed number beside ours (mean ± the 95% half-width over the
cell's downloads); where the paper prints an improvement that its own times do not give,
the row shows both ("paper" as printed, "paper's times" recomputed).
"""

import math
from collections.abc import Mapping, Sequence

from wwanlab.report import Table
from wwanlab.reproductions.wwan_web import published as P
from wwanlab.reproductions.wwan_web.claims import GPRS
from wwanlab.reproductions.wwan_web.configs import FIGURE5
from wwanlab.reproductions.wwan_web.results import SHARE_LABELS, SHARES, Results

TableRow = dict[str, object]


def _r(x: float, digits: int = 1) -> float | None:
    return None if math.isnan(x) else round(x, digits)


def _time(r: Results, site: str, config: str, link: str = GPRS) -> str:
    s = r.get(link, site, config)
    return "" if s is None else f"{s.mean:.1f} ± {s.half_width:.1f}"


def _imp(r: Results, site: str, config: str, base: str, link: str = GPRS) -> str:
    g = r.improvement(link, site, config, base)
    return "" if g is None else f"{g.percent:.1f} ± {g.half_width:.1f}"


def table1(r: Results, sites: Sequence[str]) -> Table:
    rows: list[TableRow] = []
    for site in sites:
        row = P.TABLE1[site]
        s = r.get(GPRS, site, "default")
        rows.append(
            {
                "site": site,
                "paper s (sd)": f"{row.wwan_virtual_s:g} ({row.wwan_virtual_sd:g})",
                "ours s": _time(r, site, "default"),
                "ours sd": _r(s.sd) if s else None,
                "paper kbit/s": row.throughput_kbps,
                "ours kbit/s": _r(s.means["kbps"]) if s else None,
                "ours content KB": _r(s.means["content_kb"]) if s else None,
            }
        )
    return Table.from_rows(
        rows, caption="Table 1: WWAN-Virtual download time (HTTP/1.1, gprs-3plus1) and T'put"
    )


def table3(ours: Mapping[str, P.Compressibility]) -> Table:
    rows: list[TableRow] = []
    for site in P.SITES4:
        for who, c in (("paper", P.TABLE3[site]), ("ours", ours.get(site))):
            if c is None:
                continue
            rows.append(
                {
                    "site": site if who == "paper" else "",
                    "": who,
                    "fixed KB": _r(c.fixed_kb),
                    "lossless KB": _r(c.lossless_kb),
                    "variable KB": _r(c.variable_kb),
                    "lossy KB": _r(c.lossy_kb),
                    "total compression %": _r(c.total_compression_pct),
                }
            )
    return Table.from_rows(rows, caption="Table 3: compressibility of the four pages (KB)")


def table4(r: Results) -> Table:
    rows: list[TableRow] = []
    for site in P.SITES4:
        paper = P.TABLE4[site]
        row: TableRow = {"site": site}
        for config in ("default", "lossy", "lossless", "full"):
            row[f"{config} paper"] = paper[config]
            row[f"{config} ours"] = _time(r, site, config)
        row["Improv. paper"] = paper["improv"]
        row["Improv. paper's times"] = _r(P.implied_improvement(paper["default"], paper["full"]))
        row["Improv. ours"] = _imp(r, site, "full", "default")
        rows.append(row)
    return Table.from_rows(rows, caption="Table 4: dynamic content compression (s, %)")


def table6(r: Results) -> Table:
    rows: list[TableRow] = []
    for site in P.SITES4:
        paper = P.TABLE6[site]
        rows.append(
            {
                "site": site,
                "default paper": paper["default"],
                "default ours": _time(r, site, "default"),
                "Pipel. paper": paper["pipelining"],
                "Pipel. ours": _time(r, site, "pipelining"),
                "Improv. paper": paper["pipe_imp"],
                "Improv. ours": _imp(r, site, "pipelining", "default"),
                "Opt. paper": paper["opt"],
                "Opt. ours": _time(r, site, "opt-6"),
                "Opt. Improv. paper": paper["opt_imp"],
                "Opt. Improv. ours": _imp(r, site, "opt-6", "default"),
            }
        )
    return Table.from_rows(rows, caption="Table 6: pipelining and 6 connections (s, %)")


def table7(r: Results) -> Table:
    rows: list[TableRow] = []
    for site in P.SITES4:
        paper = P.TABLE7[site]
        rows.append(
            {
                "site": site,
                "1.1-def. paper": paper["default"],
                "1.1-def. ours": _time(r, site, "full"),
                "1.1-Opt paper": paper["opt"],
                "1.1-Opt ours": _time(r, site, "full-opt"),
                "+ DNS-b paper": paper["opt_dns"],
                "+ DNS-b ours": _time(r, site, "full-opt-dns"),
                "DNS-b gain paper's times": _r(
                    P.implied_improvement(paper["opt"], paper["opt_dns"])
                ),
                "DNS-b gain ours": _imp(r, site, "full-opt-dns", "full-opt"),
                "Improv. paper": paper["improv"],
                "Improv. paper's times": _r(
                    P.implied_improvement(paper["default"], paper["opt_dns"])
                ),
                "Improv. ours (vs 1.1-def. with compression)": _imp(
                    r, site, "full-opt-dns", "full"
                ),
                "Improv. ours (vs plain 1.1-def.)": _imp(r, site, "full-opt-dns", "default"),
            }
        )
    return Table.from_rows(
        rows, caption="Table 7: session techniques, all with full compression (s, %)"
    )


def table8(r: Results) -> Table:
    rows: list[TableRow] = []
    for site in P.SITES4:
        paper = P.TABLE8[site]
        rows.append(
            {
                "site": site,
                "None paper": paper["none"],
                "None ours": _time(r, site, "full-opt-dns"),
                "T1 paper": paper["tcp_wwan"],
                "T1 ours": _time(r, site, "tcp-wwan"),
                "T1 Improv. paper": paper["t1_imp"],
                "T1 paper's times": _r(P.implied_improvement(paper["none"], paper["tcp_wwan"])),
                "T1 Improv. ours": _imp(r, site, "tcp-wwan", "full-opt-dns"),
                "T2 paper": paper["udp_gprs"],
                "T2 ours": _time(r, site, "udp-gprs"),
                "T2 Improv. paper": paper["t2_imp"],
                "T2 paper's times": _r(P.implied_improvement(paper["none"], paper["udp_gprs"])),
                "T2 Improv. ours": _imp(r, site, "udp-gprs", "full-opt-dns"),
            }
        )
    return Table.from_rows(
        rows, caption="Table 8: transport techniques over App. + Session opts (s, %)"
    )


TABLE9_CONFIGS = {
    "no_reconf_1": "tcp-wwan",
    "no_reconf_2": "no-reconf-2",
    "client": "client-reconf",
}
TABLE9_LABELS = {
    "no_reconf_1": "No-reconf.-I",
    "no_reconf_2": "No-reconf.-II",
    "client": "Client-reconf.",
}


def table9(r: Results) -> Table:
    rows: list[TableRow] = []
    for site in P.SITES4:
        row: TableRow = {"site": site}
        for key, config in TABLE9_CONFIGS.items():
            latency, improv = P.TABLE9[site][key]
            name = TABLE9_LABELS[key]
            row[f"{name} paper"] = f"{latency:g} ({improv:g}%)"
            row[f"{name} ours"] = _time(r, site, config)
            row[f"{name} Improv. ours"] = _imp(r, site, config, "default")
        rows.append(row)
    return Table.from_rows(
        rows, caption="Table 9: combined schemes, improvement over HTTP/1.1-default (s, %)"
    )


def table10(r: Results) -> Table:
    rows: list[TableRow] = []
    for kb in P.FTP_SIZES_KB:
        row: TableRow = {"file KB": kb}
        for link in P.LINKS:
            kbps, dgr = P.TABLE10[link][kb]
            s = r.ftp.get((link, kb))
            row[f"{link} paper"] = f"{kbps:g} ({dgr}%)"
            row[f"{link} ours"] = (
                ""
                if s is None
                else f"{s.mean:.1f} ± {s.half_width:.1f} ({P.degradation(s.mean, link):.0f}%)"
            )
        rows.append(row)
    return Table.from_rows(
        rows, caption="Table 10: FTP throughput, kbit/s (degradation from the ideal rate)"
    )


def table11(r: Results) -> Table:
    rows: list[TableRow] = []
    for site in P.SITES4:
        row: TableRow = {"site": site}
        for link in P.LINKS:
            kbps, dgr = P.TABLE11[link][site]
            s = r.get(link, site, "default")
            row[f"{link} paper"] = f"{kbps:g} ({dgr}%)"
            row[f"{link} ours"] = (
                ""
                if s is None
                else f"{s.means['kbps']:.1f} ({P.degradation(s.means['kbps'], link):.0f}%)"
            )
        rows.append(row)
    return Table.from_rows(
        rows, caption="Table 11: web throughput without optimizations, kbit/s (degradation)"
    )


def figure4_table(r: Results) -> Table:
    rows: list[TableRow] = []
    for site in P.SITES4:
        s = r.get(GPRS, site, "default")
        row: TableRow = {"site": site, "paper total s": P.FIGURE4_TOTALS[site]}
        row["ours total s"] = _r(s.mean) if s else None
        for share, label in zip(SHARES, SHARE_LABELS, strict=True):
            row[f"{label} %"] = _r(s.means[share]) if s else None
        rows.append(row)
    return Table.from_rows(rows, caption="Figure 4: latency components, % of the download time")


def figure5_rows(r: Results) -> list[TableRow]:
    """Each site's mean time per connection count, normalized to 2 connections."""
    rows: list[TableRow] = []
    for site in P.SITES4:
        base = r.get(GPRS, site, "default")
        row: TableRow = {"site": site}
        for n, config in FIGURE5.items():
            s = r.get(GPRS, site, config)
            row[f"N={n}"] = _r(s.mean / base.mean, 3) if s and base else None
        rows.append(row)
    return rows
