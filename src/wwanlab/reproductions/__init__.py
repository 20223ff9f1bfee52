"""The papers' reproductions, one module (or sub-package) per paper.

Each module builds its scenarios from the experiments machinery, cites every parameter
to its paper, lists its assumptions and states the paper's claims as data; importing it
registers the reproduction (``wwanlab.experiments.reproduction.register``), and
``wwanlab reproduce`` imports every module of this package.

``PAPERS`` is the one list of the five papers and the name each one's reproduction
registers under; a paper counts as reproduced once a module registers that name
(``wwanlab.experiments.reproduction.paper_status``), so the README's claim, the
report's index and ``reproduce --list`` cannot drift apart.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Paper:
    id: str  # the number of its file in papers/
    title: str
    reproduction: str  # the name its reproduction registers under


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
