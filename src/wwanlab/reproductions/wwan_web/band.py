"""The band over what the paper leaves open about its GPRS link: its base round trip.

Section 3 gives the first packet of a burst "600 ms to 3 seconds" across the link; the
``gprs-3plus1`` preset takes the lowest, 600 ms, as its propagation round trip and lets
its queue add the rest. Every idle gap the browser leaves costs a round trip, so the
claims about idle time and about the techniques that close gaps depend on this choice:
the reproduction measures those cells again with the base round trip raised to the
band's slow end (``RTTS``) and judges the same claims there.

The browser's ``Setup`` names its link by preset name, so the band's links are added to
the preset table under ``gprs-3plus1@rtt<seconds>`` (``register``); importing this
module does it, in every worker process that runs a download.
"""

import dataclasses

from wwanlab.link import presets
from wwanlab.link.delay import ConstantDelay
from wwanlab.link.presets import GPRS_3PLUS1, WWAN_MIN_RTT, Plan, Preset
from wwanlab.reproductions.wwan_web.results import Results

BASE = GPRS_3PLUS1.name
RTTS = (WWAN_MIN_RTT, 1.5)  # s: the preset's 600 ms and a slower channel (assumed)
BAND_CONFIGS = ("default", "pipelining", "opt-6", "full-opt", "full-opt-dns")


def with_rtt(preset: Preset, rtt: float, base: float = WWAN_MIN_RTT) -> Preset:
    """``preset`` with ``(rtt - base) / 2`` of constant delay added in each direction."""
    extra = (rtt - base) / 2

    def plan(direction: str, loss: float | None) -> Plan:
        inner = preset.plan(direction, loss)
        return Plan([*inner.stages, ConstantDelay(extra)], inner.configured, inner.fifo)

    return dataclasses.replace(
        preset,
        name=link_name(rtt),
        title=f"{preset.title}, base round trip {rtt:g} s",
        assumptions=(*preset.assumptions, f"{extra * 1000:.0f} ms more delay each way"),
        plan=plan,
    )


def link_name(rtt: float) -> str:
    return BASE if rtt == WWAN_MIN_RTT else f"{BASE}@rtt{rtt:g}"


def register() -> None:
    for rtt in RTTS[1:]:
        presets.PRESETS.setdefault(link_name(rtt), with_rtt(GPRS_3PLUS1, rtt))


def at_rtt(r: Results, rtt: float) -> Results:
    """``r``'s GPRS cells measured at base round trip ``rtt``, keyed as the preset's own,
    so every claim reads them unchanged."""
    name = link_name(rtt)
    return Results({(BASE, s, c): v for (link, s, c), v in r.pages.items() if link == name}, {})


register()


def findings(r: Results) -> list[str]:
    """Each round-trip-dependent claim judged again at the band's slower round trips."""
    from wwanlab.report.html import verdict
    from wwanlab.reproductions.wwan_web import claims as C

    out = []
    for rtt in RTTS[1:]:
        rr = at_rtt(r, rtt)
        if not rr.pages:
            continue
        judged = [
            ("idle 35-55%", C.idle_claim(rr)),
            ("pipelining 35-56%", C.pipelining_claim(rr)),
            ("6 connections 31-43%", C.connections_claim(rr)),
            ("DNS boosting 5-9%", C.dns_claim(rr)),
        ]
        out.append(
            f"The band's slow end, a base round trip of {rtt:g} s instead of "
            f"{WWAN_MIN_RTT:g} s: "
            + "; ".join(f"{name} {verdict(c)} ({c.ours})" for name, c in judged)
        )
    return out


def table_rows(r: Results) -> list[dict[str, object]]:
    """Mean time per site and configuration at each round trip of the band."""
    rows: list[dict[str, object]] = []
    sites = sorted({s for (link, s, _) in r.pages if link != BASE and link.startswith(BASE)})
    for site in sites:
        for config in BAND_CONFIGS:
            row: dict[str, object] = {"site": site, "configuration": config}
            for rtt in RTTS:
                s = r.get(link_name(rtt), site, config)
                row[f"RTT {rtt:g} s"] = "" if s is None else f"{s.mean:.1f} ± {s.half_width:.1f}"
            rows.append(row)
    return rows
