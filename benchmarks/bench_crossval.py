"""Cross-validation at full scale: the kernel's TCP through the emulator beside the
simulator's Linux-like TCP, HTTP downloads on serial-9k6 at 0% and 10% loss.

Plain script (root, needs wwanlab.emu):
    python benchmarks/bench_crossval.py [--reps 5] [--sizes 4000,12000,33500,63500] [--json]

Prints, per loss and size, the simulator's median goodput and the kernel's (reno and
cubic, each with its difference from the simulator in percent), and at 0% loss whether
every kernel median lies within 5% of the simulator's (issue 11 item 6). Medians of
``--reps`` transfers; the simulator's runs are deterministic at 0% loss.
"""

import argparse
import asyncio
import json
import sys
import time

from wwanlab.bench import registry
from wwanlab.bench.crossval import AGREEMENT, KERNEL, LOSSES, SIZES, compare, kernel_rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    sizes = tuple(int(s) for s in args.sizes.split(","))
    transports = registry.select(",".join(KERNEL))
    started = time.perf_counter()
    last = [started]

    def progress(what: str) -> None:
        if time.perf_counter() - last[0] >= 5:
            last[0] = time.perf_counter()
            print(f"crossval: {what}", file=sys.stderr)

    table = []
    for loss in LOSSES:
        rows = asyncio.run(kernel_rows(loss, transports, sizes, args.reps, args.seed, progress))
        table.extend(compare(rows, sizes, loss, args.reps, args.seed))
    agree = all(
        abs(row[f"{name}_vs_sim_pct"]) <= 100 * AGREEMENT
        for row in table
        if row["loss"] == 0.0
        for name in KERNEL
    )
    if args.json:
        json.dump({"reps": args.reps, "rows": table, "agree_at_0": agree}, sys.stdout, indent=1)
        print()
        return 0
    print(f"{'loss':>5}{'size':>7}{'sim bit/s':>11}" + "".join(f"{n:>22}" for n in KERNEL))
    for row in table:
        cells = "".join(
            f"{row[f'{n}_bps']:>12.0f} ({row[f'{n}_vs_sim_pct']:+5.1f}%)" for n in KERNEL
        )
        print(f"{row['loss']:>5.0%}{row['size']:>7}{row['sim_bps']:>11.0f}{cells}")
    verdict = "within" if agree else "NOT within"
    print(f"0% loss: every kernel median {verdict} {AGREEMENT:.0%} of the simulator's "
          f"({args.reps} reps, {time.perf_counter() - started:.0f} s)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
