"""Fuzz the WBXML decoder with random and mutated corpus inputs.

    python fuzz/fuzz_wbxml.py --count 1000000 --seed 1 [--json]

Every input must either raise ``WbxmlError`` or decode to a document that survives
encode -> decode with the same canonical tree, and that ``to_xml`` either refuses with
``WbxmlError`` (a name XML cannot hold...) or writes as XML our parser reads back (XML
1.1 character references aside). Anything else (another exception, a mismatch, an input
taking over a second) is a finding, printed with its hex.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

from wwanlab.wap.wbxml import (
    Document,
    Element,
    ProcessingInstruction,
    WbxmlError,
    decode,
    encode,
    parse_xml,
    to_xml,
)
from wwanlab.wap.wbxml.tree import Part, canonical_events, parts_text
from wwanlab.wap.wbxml.xmlio import NOT_XML_10

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fuzz.fuzz_wtp import Mutations, mutate

CORPUS_DIR = Path(__file__).resolve().parent.parent / "tests" / "wap" / "wbxml" / "corpus"
SLOW_SECONDS = 1.0
HEADERS = [bytes.fromhex(h) for h in ("03016a00", "030a6a00", "0305 6a00", "039f536a00")]
# planted octets: WBXML global tokens SWITCH_PAGE, END, STR_I, LITERAL, PI, STR_T, OPAQUE
# (WAP-192-WBXML section 7.1), and 0xFF
MUTATIONS = Mutations((0x00, 0x01, 0x03, 0x04, 0x43, 0x83, 0xC3, 0xFF), 7, 5, 7, 15)


def corpus() -> list[bytes]:
    docs = [p.read_bytes() for p in sorted(CORPUS_DIR.iterdir())]
    out = [encode(d) for d in docs]
    out += [encode(d, version="1.1", string_table=False) for d in docs]
    return out


def random_input(rng: random.Random) -> bytes:
    body = bytes(rng.randrange(256) for _ in range(rng.randrange(48)))
    return rng.choice(HEADERS).replace(b" ", b"") + body if rng.random() < 0.7 else body


def check(data: bytes) -> str | None:
    """None if the input is handled correctly, else a description of the finding."""
    try:
        doc = decode(data)
    except WbxmlError:
        return None
    except Exception as exc:
        return f"decode raised {type(exc).__name__}: {exc}"
    try:
        xml = to_xml(doc)
    except WbxmlError:
        xml = None
    except Exception as exc:
        return f"to_xml raised {type(exc).__name__}: {exc}"
    if xml is not None and not NOT_XML_10.search(parts_text(_all_text(doc))):
        try:
            parse_xml(xml)
        except WbxmlError as exc:
            return f"to_xml wrote XML that does not parse: {exc}"
    try:
        doc.charset = 106
        again = decode(encode(doc))
    except Exception as exc:
        return f"round trip raised {type(exc).__name__}: {exc}"
    if canonical_events(again.root, ignore_xmlns=True) != canonical_events(
        doc.root, ignore_xmlns=True
    ):
        return "round trip changed the tree"
    return None


def _all_text(doc: Document) -> list[Part]:
    """Every text part and attribute value part of a document."""
    out: list[Part] = [pi.data for pi in doc.before + doc.after]
    stack = [doc.root]
    while stack:
        element = stack.pop()
        for _, value in element.attributes:
            out.extend(value)
        for child in element.children:
            if isinstance(child, Element):
                stack.append(child)
            elif isinstance(child, ProcessingInstruction):
                out.append(child.data)
            else:
                out.append(child)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    seeds = corpus()
    findings: list[dict[str, str]] = []
    decoded = 0
    started = time.perf_counter()
    for i in range(args.count):
        data = mutate(rng, seeds, MUTATIONS) if rng.random() < 0.6 else random_input(rng)
        t0 = time.perf_counter()
        problem = check(data)
        if time.perf_counter() - t0 > SLOW_SECONDS:
            problem = problem or f"took {time.perf_counter() - t0:.2f} s"
        if problem is not None:
            findings.append({"input": data.hex(), "problem": problem})
            print(
                f"finding #{len(findings)} at input {i}: {problem}: {data.hex()}", file=sys.stderr
            )
        else:
            try:
                decode(data)
                decoded += 1
            except WbxmlError:
                pass
        if not args.json and (i + 1) % 100_000 == 0:
            rate = (i + 1) / (time.perf_counter() - started)
            print(f"{i + 1} inputs, {decoded} decoded, {len(findings)} findings, {rate:.0f}/s")
    elapsed = time.perf_counter() - started
    summary = {
        "count": args.count,
        "seed": args.seed,
        "seconds": round(elapsed, 1),
        "decoded": decoded,
        "finding_count": len(findings),
        "findings": findings[:20],
    }
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"{args.count} inputs in {elapsed:.1f} s: {decoded} decoded cleanly, "
              f"{len(findings)} findings")  # fmt: skip
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
