"""The dual proxy of paper 003 against the browser's direct default on the simulator:
Table 1 pages downloaded over a preset link, repeated over seeds.

Plain script:  python benchmarks/bench_dual_proxy.py [--preset gprs-3plus1]
               [--sites altavista,mail,yahoo,amazon] [--seeds 5]

Per site, the medians over seeds (each seed its own generated page) of the download time
of: the browser straight to the origins (HTTP/1.1, 2 connections per server: the peer),
the dual proxy over TCP with no technique, with parse-and-push, over UDP-GPRS with
parse-and-push, and a repeat visit (web.content.revisit) with CHK caching and delta
encoding after a first one through the same stores; each as a ratio to the peer.
Paper 003 reports parse-and-push 5-12% (4.2.3), CHK caching and delta 3-6% on
fast-changing sites (4.1.3) and the Client-reconf. set 64-72% (Table 9).
"""

import argparse
import random
import statistics
from collections.abc import Callable

from wwanlab.core.progress import track
from wwanlab.pep.dual import ChkStore, DualConfig
from wwanlab.pep.dual.testbed import dual_proxy
from wwanlab.web.browser import Setup, download
from wwanlab.web.content import revisit
from wwanlab.web.page import Page
from wwanlab.web.pages import generate

PUSH = DualConfig(push=True)
CACHE = DualConfig(chk=True, delta=True)


def repeat_visit(page: Page, preset: str, seed: int) -> float:
    """The second of two visits, some minutes apart, through the same CHK stores."""
    stores = ChkStore(), ChkStore()
    download(page, Setup(link=preset, explicit=dual_proxy(CACHE, *stores)), seed)
    later = revisit(page, random.Random(seed))
    return download(
        later, Setup(link=preset, explicit=dual_proxy(CACHE, *stores)), seed
    ).total_time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="gprs-3plus1")
    parser.add_argument("--sites", default="altavista,mail,yahoo,amazon")
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args()
    sites = args.sites.split(",")
    runs: dict[str, Callable[[Page, int], float]] = {
        "direct": lambda page, seed: download(page, Setup(link=args.preset), seed).total_time,
        "dual": lambda page, seed: (
            download(
                page, Setup(link=args.preset, explicit=dual_proxy(DualConfig())), seed
            ).total_time
        ),
        "push": lambda page, seed: (
            download(page, Setup(link=args.preset, explicit=dual_proxy(PUSH)), seed).total_time
        ),
        "push-udp": lambda page, seed: (
            download(
                page,
                Setup(link=args.preset, explicit=dual_proxy(PUSH, transport="udp-gprs")),
                seed,
            ).total_time
        ),
        "repeat": lambda page, seed: repeat_visit(page, args.preset, seed),
    }
    table: dict[str, dict[str, float]] = {}
    with track("downloads", len(sites) * len(runs) * args.seeds) as advance:
        for site in sites:
            times: dict[str, list[float]] = {name: [] for name in runs}
            for seed in range(1, args.seeds + 1):
                page = generate(site, seed)
                for name, run in runs.items():
                    times[name].append(run(page, seed))
                    advance()
            table[site] = {name: statistics.median(values) for name, values in times.items()}
    print(f"{args.preset}, medians of {args.seeds} seeds; seconds (ratio to direct)")
    print("site        " + "".join(f"{name:>18}" for name in runs))
    for site, row in table.items():
        cells = "".join(f"{row[name]:9.2f} ({row[name] / row['direct']:5.3f})" for name in runs)
        print(f"{site:<12}{cells}")


if __name__ == "__main__":
    main()
