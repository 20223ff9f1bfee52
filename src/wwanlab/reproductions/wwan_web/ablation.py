"""The ablation behind every miss (issue 22 item 6): each new phenomenon of the models
switched off alone, the cells a claim needs measured again, the claim's own test applied.

A ``Switch`` names one phenomenon and how its "off" run differs from the reproduction's
own cells: another page (the even host spread: ``site@even``), another link (a preset
with one of its options off, registered under its own name), or other configurations
(the CHK + delta cells with the browser cache cleared). ``at_switch`` maps the off
run's cells onto the keys of the reproduction's own, so every claim reads them
unchanged; ``explain`` attaches the runs, off beside on, to each claim that misses.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from wwanlab.experiments.reproduction import AblationRun, Claim
from wwanlab.reproductions.wwan_web import band
from wwanlab.reproductions.wwan_web.results import Results

GPRS = "gprs-3plus1"


@dataclass(frozen=True)
class Switch:
    """One phenomenon and the cells of its "off" run."""

    key: str
    off: str  # the run's label, e.g. "host distribution off (even spread)"
    configs: tuple[str, ...]  # configurations measured off (their own names, see renamed)
    claims: tuple[str, ...]  # the claims (keys of the page's) whose cells it measures
    site_suffix: str = ""  # "@even": the sites' pages with another host spread
    link: str = GPRS  # the link the off run uses
    renamed: dict[str, str] = field(default_factory=dict)  # off config -> the one it stands for

    def cells(self, sites: Sequence[str]) -> list[tuple[str, str, str]]:
        return [(self.link, s + self.site_suffix, c) for s in sites for c in self.configs]


def at_switch(r: Results, switch: Switch) -> Results:
    """The off run's cells keyed as the reproduction's own (link, site, configuration);
    the reproduction's other cells are left out, so a claim reads only what was run off."""
    pages = {}
    for (link, site, config), summary in r.pages.items():
        if link != switch.link or not site.endswith(switch.site_suffix):
            continue
        name = site.removesuffix(switch.site_suffix) if switch.site_suffix else site
        if switch.site_suffix == "" and "@" in site:
            continue
        if config in switch.renamed:
            pages[(GPRS, name, switch.renamed[config])] = summary
        elif config in switch.configs and not switch.renamed:
            pages[(GPRS, name, config)] = summary
    return Results(pages, r.ftp)


Judge = Callable[[Results], Claim]


def runs(claim: Claim, judge: Judge, r: Results, switches: Sequence[Switch]) -> list[AblationRun]:
    """The reproduction's own run of ``claim`` (everything on), then ``judge`` on each
    switch's off run."""
    out = [AblationRun("all on (the reproduction)", claim.ours, claim.holds)]
    for switch in switches:
        off = at_switch(r, switch)
        if not off.pages:
            continue
        judged = judge(_with_base(off, r, switch))
        out.append(AblationRun(switch.off, judged.ours, judged.holds))
    return out


def _with_base(off: Results, r: Results, switch: Switch) -> Results:
    """``off`` plus the reproduction's cells that the switch does not touch and that a
    claim compares against (a configuration's base, run on the same link and pages):
    only where the switch changes configurations, not pages or links."""
    if not switch.renamed:
        return off
    pages = dict(off.pages)
    for key, summary in r.pages.items():
        pages.setdefault(key, summary)
    return Results(pages, r.ftp)


def explain(key: str, claim: Claim, judge: Judge, r: Results, mechanism: str) -> Claim:
    """``claim`` with ``mechanism`` and the runs of the switches that measure its cells
    attached when it misses."""
    if claim.holds:
        return claim
    switches = [s for s in SWITCHES if key in s.claims]
    return claim.with_why(mechanism, runs(claim, judge, r, switches))


LINK_CONFIGS = (
    "default", "pipelining", "opt-6", "full", "full-opt", "full-opt-dns", "tcp-wwan",
    "udp-gprs", "client-reconf", "dual", "dual-push",
)  # fmt: skip
"""The cells a page or link switch measures again: every claim's but Figure 5's other
connection counts and the CHK + delta revisits (the cache switch's)."""
LINK_CLAIMS = (
    "throughput", "idle", "compression", "pipelining", "connections", "dns", "transport",
    "dual", "all",
)  # fmt: skip

# The radio's phenomena off, as ``gprs-3plus1`` variants (``link.presets`` options).
RADIO_OFF = {
    "notbf": band.Variant(
        "no TBF set-up or uplink access", options=(("access", False), ("tbf", False))
    ),
    "nooutage": band.Variant(
        "no cell reselections or stalls", options=(("reselection", False), ("stalls", False))
    ),
}
band.register(RADIO_OFF)

HOSTS = Switch(
    "hosts", "host distribution off (objects spread evenly over the host names)", LINK_CONFIGS,
    LINK_CLAIMS, site_suffix="@even",
)  # fmt: skip
TBF = Switch(
    "tbf", "TBF set-up and uplink access off", LINK_CONFIGS, LINK_CLAIMS,
    link=band.link_name("notbf"),
)  # fmt: skip
OUTAGES = Switch(
    "outages", "cell reselections and stalls off", LINK_CONFIGS, LINK_CLAIMS,
    link=band.link_name("nooutage"),
)  # fmt: skip
CACHE = Switch(
    "cache",
    "browser cache off (cleared before the revisit)",
    ("dual-repeat-nocache", "dual-chk-nocache"),
    ("dual",),
    renamed={"dual-repeat-nocache": "dual-repeat", "dual-chk-nocache": "dual-chk"},
)
SWITCHES: tuple[Switch, ...] = (HOSTS, TBF, OUTAGES, CACHE)
"""Every phenomenon the ablation switches off, one at a time."""


def measured_cells(sites: Sequence[str]) -> list[tuple[str, str, str]]:
    """The cells the switches add to the plan (the cache's are the plan's own)."""
    return [c for s in SWITCHES if not s.renamed for c in s.cells(sites)]
