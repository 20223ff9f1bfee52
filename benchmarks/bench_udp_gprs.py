"""UDP-GPRS against the project's TCP (Linux's configuration) on the simulator: one
web-like download over a preset link, repeated over seeds, at several loss rates.

Plain script:  python benchmarks/bench_udp_gprs.py [--preset gprs-3plus1] [--seeds 20]
               [--size 102400] [--messages 10] [--loss 0,0.01,0.03,0.05]
               [--stalls 10,30]

Prints per loss rate the median download time of each protocol, their ratio
(UDP-GPRS / TCP, below 1 is faster), the median of the longest downlink one-way delay
(queueing included) and the medians of the packets dropped and data resent; then the
same without loss for a link stall of each length starting 5 s into the download.
Paper 003 Table 8 reports UDP-GPRS 7-14% faster than no transport optimisation on real
pages, and section 4.3.2 that TCP suffers "severe back-offs" in stalls.
"""

import argparse
import statistics
from collections.abc import Callable, Sequence

from wwanlab.core.progress import track
from wwanlab.experiments.udp_gprs import Download, tcp_download, udp_gprs_download

Runner = Callable[..., Download]
STALL_AT = 5.0  # s into the download: after slow start, with TCP's queue built up


def medians(runs: Sequence[Download]) -> dict[str, float]:
    return {
        "seconds": statistics.median(r.seconds for r in runs),
        "max_down_delay": statistics.median(r.max_down_delay for r in runs),
        "dropped": statistics.median(r.dropped for r in runs),
        "resent": statistics.median(r.resent for r in runs),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="gprs-3plus1")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--size", type=int, default=100 * 1024)
    parser.add_argument("--messages", type=int, default=10)
    parser.add_argument("--loss", default="0,0.01,0.03,0.05")
    parser.add_argument("--stalls", default="10,30")
    args = parser.parse_args()
    cases = [(float(x), 0.0) for x in args.loss.split(",")]
    cases += [(0.0, float(x)) for x in args.stalls.split(",") if x]
    sizes = [args.size // args.messages] * args.messages
    runners: dict[str, Runner] = {"udp-gprs": udp_gprs_download, "tcp": tcp_download}
    rows = []
    with track("downloads", len(cases) * len(runners) * args.seeds) as advance:
        for loss, stall in cases:
            stalled = (STALL_AT, STALL_AT + stall) if stall else None
            row: dict[str, dict[str, float]] = {}
            for name, run in runners.items():
                runs = []
                for seed in range(1, args.seeds + 1):
                    kw = {"preset": args.preset, "loss": loss, "seed": seed, "stall": stalled}
                    runs.append(run(sizes, **kw))
                    advance()
                if not all(r.complete for r in runs):
                    raise SystemExit(f"{name} did not complete at loss {loss}, stall {stall}")
                row[name] = medians(runs)
            rows.append((loss, stall, row))
    print(
        f"{sum(sizes)} octets in {args.messages} messages over {args.preset}, "
        f"medians of {args.seeds} seeds; stalls start {STALL_AT:.0f} s in"
    )
    print("loss  stall  UDP-GPRS s  TCP s  ratio   max delay s (U/T)  dropped (U/T)  resent (U/T)")
    for loss, stall, row in rows:
        u, t = row["udp-gprs"], row["tcp"]
        ratio = u["seconds"] / t["seconds"]
        print(
            f"{loss:<5} {stall:5.0f} {u['seconds']:10.2f} {t['seconds']:6.2f} {ratio:6.3f}"
            f"   {u['max_down_delay']:5.2f} / {t['max_down_delay']:5.2f}"
            f"      {u['dropped']:4.1f} / {t['dropped']:4.1f}"
            f"    {u['resent']:4.1f} / {t['resent']:4.1f}"
        )


if __name__ == "__main__":
    main()
