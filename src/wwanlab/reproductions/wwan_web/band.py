"""The band over what the paper and the radio's sources leave open about the GPRS link:
its base round trip, its buffer and its TBF release timer.

Section 3 gives the first packet of a burst "600 ms to 3 seconds" across the link; the
``gprs-3plus1`` preset takes 300 ms of radio latency each way (600 ms round trip) and adds
the TBF set-up on an idle link, uplink access, and outages; its buffer is 2.4 s at the
link rate, and its downlink TBF is released T3192 = 0.5 s after the last block, the low end
of operators' 0.5-1.5 s. Every idle gap the browser leaves costs a round trip (and a TBF
set-up once the TBF is released), and every extra connection's first flight lands in the
buffer, so the claims about idle time and about the techniques that close gaps depend on
these choices: the reproduction measures those cells again on each ``VARIANTS`` link
and judges the same claims there.

The browser's ``Setup`` names its link by preset name, so the band's links (and the
ablation's, ``ablation``) are added to the preset table as ``gprs-3plus1@<variant>``
(``register``); importing this module does it, in every worker process that runs a
download.
"""

import dataclasses
from dataclasses import dataclass
from typing import Any

from wwanlab.link import presets
from wwanlab.link.delay import ConstantDelay
from wwanlab.link.presets import GPRS_3PLUS1, T3192_BAND, WWAN_MIN_RTT, Plan, Preset
from wwanlab.reproductions.wwan_web.results import Results

BASE = GPRS_3PLUS1.name
BAND_CONFIGS = ("default", "pipelining", "opt-6", "full-opt", "full-opt-dns")


@dataclass(frozen=True)
class Variant:
    """The preset with its base round trip ``rtt`` (s) and ``options`` of its radio
    (``Preset.with_options``)."""

    label: str
    rtt: float = WWAN_MIN_RTT
    options: tuple[tuple[str, Any], ...] = ()


BUFFER_S = 2.4  # s at the link rate: the preset's (WWAN_MAX_RTT - WWAN_MIN_RTT)
# Assumed: the slow end of the paper's 600 ms-3 s for the propagation alone, and a buffer
# four times the preset's (9.6 s at the link rate), the paper's "large queues" (4.3.1);
# T3192 at the top of operators' band (link.presets.T3192_BAND).
VARIANTS = {
    "rtt1.5": Variant("base round trip 1.5 s", rtt=1.5),
    "buf4": Variant("buffer x 4 (9.6 s)", options=(("buffer_s", 4 * BUFFER_S),)),
    "t3192": Variant(
        f"T3192 = {T3192_BAND[1]:g} s (operators' top)", options=(("t3192", T3192_BAND[1]),)
    ),
}


def with_variant(preset: Preset, variant: Variant, name: str) -> Preset:
    """``preset`` with the variant's options and ``(rtt - 0.6) / 2`` more constant delay
    each way, called ``name``."""
    base = preset.with_options(**dict(variant.options)) if variant.options else preset
    extra = (variant.rtt - WWAN_MIN_RTT) / 2

    def plan(direction: str, loss: float | None, **options: Any) -> Plan:
        inner = base.plan(direction, loss, **options)
        stages = [*inner.stages, ConstantDelay(extra)] if extra else list(inner.stages)
        return Plan(stages, inner.configured, inner.fifo)

    return dataclasses.replace(
        base,
        name=name,
        title=f"{preset.title}, {variant.label}",
        assumptions=(*preset.assumptions, f"variant: {variant.label}"),
        plan=plan,
    )


def link_name(key: str) -> str:
    return f"{BASE}@{key}"


def register(variants: dict[str, Variant]) -> None:
    """Add each variant of ``gprs-3plus1`` to the preset table as ``link_name(key)``."""
    for key, variant in variants.items():
        presets.PRESETS.setdefault(
            link_name(key), with_variant(GPRS_3PLUS1, variant, link_name(key))
        )


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
            f"The band, {v.label} (the preset: 0.6 s round trip, 2.4 s buffer, T3192 0.5 s): "
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


register(VARIANTS)
