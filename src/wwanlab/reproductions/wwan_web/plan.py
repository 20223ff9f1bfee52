"""Which cells the reproduction measures, full and quick.

A cell is one configuration on one link and one site, named ``link/site/config``; each
is downloaded once per page seed, and every configuration sees the same pages (page
seed = repetition), so two columns of a table differ by the technique alone.
"""

from collections.abc import Callable
from dataclasses import dataclass

from wwanlab.reproductions.wwan_web import published as P
from wwanlab.reproductions.wwan_web.ablation import measured_cells
from wwanlab.reproductions.wwan_web.band import BAND_CONFIGS, VARIANTS, link_name
from wwanlab.reproductions.wwan_web.configs import CONFIGS, Config

GPRS = "gprs-3plus1"
REPETITIONS = 20  # section 3: "all experiments were repeated 20 or more times"
QUICK_REPETITIONS = 3
FTP_REPETITIONS = 20
QUICK_FTP_REPETITIONS = 3
VARIANT_REPETITIONS = 10  # the band's and the ablation's cells: a side view, half the pages

GPRS_CONFIGS = [c for c in CONFIGS if c != "default"]
QUICK_CONFIGS = [
    c for c in GPRS_CONFIGS if c not in ("opt-5", "opt-7", "opt-10", "opt-15", "opt-20")
]


@dataclass(frozen=True)
class Plan:
    cells: tuple[str, ...]  # link/site/config
    repetitions: int
    ftp_repetitions: int
    sites: tuple[str, ...]  # Table 1's rows measured
    variant_cells: tuple[str, ...] = ()  # the band's and the ablation's
    variant_repetitions: int = 0


def cell(link: str, site: str, config: str) -> str:
    return f"{link}/{site}/{config}"


def split_cell(name: str) -> tuple[str, str, str]:
    link, site, config = name.split("/")
    return link, site, config


def make_plan(quick: bool, sites: tuple[str, ...], available: Callable[[Config], bool]) -> Plan:
    """Table 1's ``sites`` (the full run: all ten) with the default browser on GPRS; the
    four sites of Tables 3-9 in every ``available`` configuration; the four on the other
    links with the default browser (Table 11); the band's cells on each of its links
    (``band``) and the ablation's (``ablation``), ``VARIANT_REPETITIONS`` pages each.
    The quick run leaves out Table 1's other
    six sites, Figure 5's 5, 7, 10, 15 and 20 connections and the band, and repeats
    three times (their intervals are wide: a first look only)."""
    table1 = P.SITES4 if quick else sites
    cells = [cell(GPRS, s, "default") for s in table1]
    configs = [c for c in (QUICK_CONFIGS if quick else GPRS_CONFIGS) if available(CONFIGS[c])]
    for site in P.SITES4:
        cells += [cell(GPRS, site, c) for c in configs]
    for link in P.LINKS[1:]:
        cells += [cell(link, s, "default") for s in P.SITES4]
    band = [c for c in BAND_CONFIGS if c in ("default", *configs)]
    variants = [cell(link_name(k), s, c) for k in VARIANTS for s in P.SITES4 for c in band]
    variants = [] if quick else variants
    variants += [cell(*c) for c in measured_cells(P.SITES4)]
    return Plan(
        tuple(cells),
        QUICK_REPETITIONS if quick else REPETITIONS,
        QUICK_FTP_REPETITIONS if quick else FTP_REPETITIONS,
        table1,
        tuple(variants),
        QUICK_REPETITIONS if quick else VARIANT_REPETITIONS,
    )
