"""The band over what the paper leaves open about its GPRS link: its base round trip and
its buffer.

Section 3 gives the first packet of a burst "600 ms to 3 seconds" across the link; the
``gprs-3plus1`` preset takes the lowest, 600 ms, as its propagation round trip and a
2.4 s drop-tail buffer for the rest. Every idle gap the browser leaves costs a round
trip, and every extra connection's first flight lands in that buffer, so the claims
about idle time and about the techniques that close gaps depend on both choices: the
reproduction measures those cells again on each ``VARIANTS`` link and judges the same
claims there.

The browser's ``Setup`` names its link by preset name, so the band's links are added to
the preset table as ``gprs-3plus1@<variant>`` (``register``); importing this module does
it, in every worker process that runs a download.
"""

import dataclasses
from dataclasses import dataclass
from typing import Any

from wwanlab.link import presets
from wwanlab.link.delay import ConstantDelay
from wwanlab.link.presets import GPRS_3PLUS1, GPRS_3PLUS1_LINK, WWAN_MIN_RTT, Plan, Preset
from wwanlab.reproductions.wwan_web.results import Results

BASE = GPRS_3PLUS1.name
BAND_CONFIGS = ("default", "pipelining", "opt-6", "full-opt", "full-opt-dns")


@dataclass(frozen=True)
class Variant:
    """The preset with its base round trip ``rtt`` (s) and its buffer times ``buffer``."""

    label: str
    rtt: float = WWAN_MIN_RTT
    buffer: float = 1.0


# Assumed: the slow end of the paper's 600 ms-3 s for the propagation alone, and a buffer
# four times the preset's (9.6 s at the link rate), the paper's "large queues" (4.3.1).
VARIANTS = {
    "rtt1.5": Variant("base round trip 1.5 s", rtt=1.5),
    "buf4": Variant("buffer x 4 (9.6 s)", buffer=4.0),
}


def with_variant(preset: Preset, key: str) -> Preset:
    """``preset`` with ``(rtt - 0.6) / 2`` more constant delay each way and its buffer
    (the radio's ``buffer_s`` option) ``buffer`` times as deep."""
    v = VARIANTS[key]
    extra = (v.rtt - WWAN_MIN_RTT) / 2

    def plan(direction: str, loss: float | None, **options: Any) -> Plan:
        if v.buffer != 1.0:
            base = GPRS_3PLUS1_LINK.buffer_s
            assert base is not None
            options = {"buffer_s": base * v.buffer, **options}
        inner = preset.plan(direction, loss, **options)
        stages = list(inner.stages)
        if extra:
            stages.append(ConstantDelay(extra))
        return Plan(stages, inner.configured, inner.fifo)

    return dataclasses.replace(
        preset,
        name=link_name(key),
        title=f"{preset.title}, {v.label}",
        assumptions=(*preset.assumptions, f"band: {v.label}"),
        plan=plan,
    )


def link_name(key: str) -> str:
    return f"{BASE}@{key}"


def register() -> None:
    for key in VARIANTS:
        presets.PRESETS.setdefault(link_name(key), with_variant(GPRS_3PLUS1, key))


def at_variant(r: Results, key: str) -> Results:
    """``r``'s GPRS cells measured on the variant ``key``, keyed as the preset's own, so
    every claim reads them unchanged."""
    name = link_name(key)
    return Results({(BASE, s, c): v for (link, s, c), v in r.pages.items() if link == name}, {})


def findings(r: Results) -> list[str]:
    """Each link-dependent claim judged again on each variant of the band."""
    from wwanlab.report.html import verdict
    from wwanlab.reproductions.wwan_web import claims as C

    out = []
    for key, v in VARIANTS.items():
        rr = at_variant(r, key)
        if not rr.pages:
            continue
        judged = [
            ("idle 35-55%", C.idle_claim(rr)),
            ("pipelining 35-56%", C.pipelining_claim(rr)),
            ("6 connections 31-43%", C.connections_claim(rr)),
            ("DNS boosting 5-9%", C.dns_claim(rr)),
        ]
        out.append(
            f"The band, {v.label} (the preset: 0.6 s, 2.4 s): "
            + "; ".join(f"{name} {verdict(c)} ({c.ours})" for name, c in judged)
        )
    return out


def links() -> dict[str, str]:
    """Label -> link name: the preset, then each variant."""
    return {"preset": BASE, **{v.label: link_name(k) for k, v in VARIANTS.items()}}


def table_rows(r: Results) -> list[dict[str, object]]:
    """Mean time per site and configuration on each link of the band."""
    rows: list[dict[str, object]] = []
    sites = sorted({s for (link, s, _) in r.pages if link.startswith(BASE + "@")})
    for site in sites:
        for config in BAND_CONFIGS:
            row: dict[str, object] = {"site": site, "configuration": config}
            for label, link in links().items():
                s = r.get(link, site, config)
                row[label] = "" if s is None else f"{s.mean:.1f} ± {s.half_width:.1f}"
            rows.append(row)
    return rows


register()
