"""Lossy image recompression on paper 003's four pages, beside its Table 3.

Plain script:  python benchmarks/bench_images.py [--quality Q] [--colours C] [--json]

Each page's images are the bench's decodable pictures (``bench.sites.served_site``),
which is what a browser behind ``wwanlab tunnel`` fetches; each goes through
``tunnel.images.recompress`` (an image it returns None for is counted at its size, as
the tunnel forwards it). The ratio is octets after over octets served; Table 3's is its
variable-fidelity KB after the lossy reduction over before. ``--quality`` and
``--colours`` run the reduction at other settings than the defaults, for a band.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from wwanlab.bench.sites import served_site
from wwanlab.tunnel.images import DEFAULT_QUALITY, PALETTE_COLOURS, recompress
from wwanlab.web.pages import TABLE3, page_for


def measure(site: str, quality: int, colours: int) -> dict[str, Any]:
    """One page's images: counts and octets as modelled, served and recompressed."""
    page = page_for(site)
    modelled = page.site()
    row: dict[str, Any] = {"site": site, "images": 0, "reduced": 0, "by_type": {}}
    totals = {"modelled": 0, "served": 0, "after": 0}
    for url, obj in served_site(page).items():
        if not obj.content_type.startswith("image/"):
            continue
        smaller = recompress(obj.body, obj.content_type, quality, colours)
        after = len(smaller) if smaller is not None else len(obj.body)
        kind = row["by_type"].setdefault(obj.content_type, {"n": 0, "served": 0, "after": 0})
        kind["n"] += 1
        kind["served"] += len(obj.body)
        kind["after"] += after
        row["images"] += 1
        row["reduced"] += smaller is not None
        totals["modelled"] += len(modelled[url].body)
        totals["served"] += len(obj.body)
        totals["after"] += after
    row.update(totals)
    row["ratio"] = totals["after"] / totals["served"]
    row["table3_ratio"] = TABLE3[site].lossy_ratio
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quality", type=int, default=DEFAULT_QUALITY, help="JPEG quality")
    parser.add_argument("--colours", type=int, default=PALETTE_COLOURS, help="GIF/PNG palette")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = parser.parse_args()
    if not (1 <= args.quality <= 100 and 2 <= args.colours <= 256):
        parser.error("--quality must be in 1..100 and --colours in 2..256")
    rows = [measure(site, args.quality, args.colours) for site in TABLE3]
    if args.json:
        print(json.dumps({"quality": args.quality, "colours": args.colours, "pages": rows}))
        return
    print(f"JPEG quality {args.quality}, GIF/PNG {args.colours} colours")
    print("page    images reduced modelled served   after  ratio  Table 3")
    for r in rows:
        print(
            f"{r['site']:<8}{r['images']:>6}{r['reduced']:>8}{r['modelled']:>9}{r['served']:>7}"
            f"{r['after']:>8}  {r['ratio']:.3f}  {r['table3_ratio']:.3f}"
        )
        for kind, t in sorted(r["by_type"].items()):
            ratio = t["after"] / t["served"]
            print(f"  {kind:<12}{t['n']:>5}{t['served']:>21}{t['after']:>8}  {ratio:.3f}")


if __name__ == "__main__":
    main()
