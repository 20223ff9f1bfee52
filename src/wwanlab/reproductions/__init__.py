"""The papers' reproductions, one module (or sub-package) per paper.

Each module builds its scenarios from the experiments machinery, cites every parameter
to its paper, lists its assumptions and states the paper's claims as data; importing it
registers the reproduction (``wwanlab.experiments.reproduction.register``), and
``load`` imports every module of this package. The experiments machinery below knows
neither this package nor the papers: its readers (``wwanlab reproduce``, ``wwanlab
probe --all``) hand it what ``load`` registered and ``PAPERS``.

``PAPERS`` is the one list of the five papers and the name each one's reproduction
registers under; a paper counts as reproduced once a module registers that name
(``status``), so the README's claim, the report's index and ``reproduce --list``
cannot drift apart.
"""

from wwanlab.experiments.reproduction import (
    Paper,
    Reproduction,
    index_front,
    load_reproductions,
    paper_status,
)
from wwanlab.report.html import Block

PACKAGES = [__name__]
"""Packages whose every module registers its reproduction on import."""

PAPERS = (
    Paper("000", "Ladas, Edwards, Manson: WAP performance on an end-to-end scheme", "wap-vs-tcp"),
    Paper(
        "001",
        "Gehlen, Bergs: Performance of mobile Web Service access using WAP",
        "wsp-webservices",
    ),
    Paper(
        "002",
        "Rendón, Casadevall, Carrasco: Wireless TCP proposals with proxy servers in the GPRS "
        "network",
        "gprs-proxies",
    ),
    Paper(
        "003",
        "Chakravorty, Banerjee, Chesterfield, Rodriguez, Pratt: Performance optimizations "
        "for wireless wide-area networks",
        "wwan-web",
    ),
    Paper("004", "Tsaoussidis, Llahanas, Badr: Wave & Wait Protocol", "wave-and-wait"),
)


def load() -> dict[str, Reproduction]:
    """Every reproduction of ``PACKAGES``, registered by name."""
    return load_reproductions(PACKAGES)


def status() -> list[dict[str, str]]:
    """Each of ``PAPERS``, "reproduced" once its reproduction is registered."""
    return paper_status(PAPERS, load())


def front() -> list[Block]:
    """What the report's index says first: which papers are reproduced today."""
    return index_front(status())
