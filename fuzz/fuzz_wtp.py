"""Fuzz the WTP PDU codec with random and mutated datagrams.

    python fuzz/fuzz_wtp.py --count 1000000 --seed 1 [--json]

Every input must either raise ``WtpCodecError`` or decode to PDUs that encode back to
the very same octets. Anything else (another exception, a different encoding, an input
taking over a second) is a finding, printed with its hex. This module also holds the
small driver the WSP fuzzers share (``run``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from wwanlab.wap.wtp.constants import AbortReason, AbortType, OptionId, TransactionClass
from wwanlab.wap.wtp.pdu import (
    Abort,
    Ack,
    InfoTpi,
    Invoke,
    NegativeAck,
    OptionTpi,
    Pdu,
    PsnTpi,
    Result,
    SduBoundaryTpi,
    SegmentedInvoke,
    SegmentedResult,
    Tpi,
    WtpCodecError,
    decode,
    encode,
)

SLOW_SECONDS = 1.0
INTERESTING = (0x00, 0x01, 0x03, 0x04, 0x07, 0x1F, 0x20, 0x7F, 0x80, 0x81, 0xC0, 0xFF)


@dataclass(frozen=True, slots=True)
class Mutations:
    """How ``mutate`` edits a seed: the most edits, the octet values worth planting, and
    the longest run inserted, deleted or duplicated (each at least 1)."""

    interesting: tuple[int, ...] = INTERESTING
    edits: int = 6
    insert: int = 4
    delete: int = 5
    duplicate: int = 11


def mutate(rng: random.Random, seeds: list[bytes], how: Mutations = Mutations()) -> bytes:
    """A seed with 1 to ``how.edits`` random edits: bit flips, interesting octets,
    inserts, deletes, duplicated runs, or a splice with another seed."""
    data = bytearray(rng.choice(seeds))
    for _ in range(rng.randrange(1, how.edits + 1)):
        kind = rng.randrange(6)
        pos = rng.randrange(len(data) + 1)
        if kind == 0 and data:
            data[pos % len(data)] ^= 1 << rng.randrange(8)
        elif kind == 1 and data:
            data[pos % len(data)] = rng.choice(how.interesting)
        elif kind == 2:
            data[pos:pos] = bytes(
                rng.randrange(256) for _ in range(rng.randrange(1, how.insert + 1))
            )
        elif kind == 3:
            del data[pos : pos + rng.randrange(1, how.delete + 1)]
        elif kind == 4 and data:
            start = rng.randrange(len(data))
            data[pos:pos] = data[start : start + rng.randrange(1, how.duplicate + 1)]
        else:
            other = rng.choice(seeds)
            data = data[:pos] + other[rng.randrange(len(other) + 1) :]
    return bytes(data)


def run(name: str, check: Callable[[bytes], str | None], seeds: list[bytes]) -> int:
    """Parse the command line, fuzz, report; exit status 1 when anything was found."""
    parser = argparse.ArgumentParser(description=f"fuzz the {name} codec")
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    findings: list[dict[str, str]] = []
    started = time.perf_counter()
    for _ in range(args.count):
        if rng.random() < 0.3:
            data = bytes(rng.randrange(256) for _ in range(rng.randrange(40)))
        else:
            data = mutate(rng, seeds)
        began = time.perf_counter()
        problem = check(data)
        if problem is None and time.perf_counter() - began > SLOW_SECONDS:
            problem = "slow input"
        if problem is not None:
            findings.append({"input": data.hex(), "problem": problem})
            if not args.json:
                print(f"FINDING {data.hex()}: {problem}", flush=True)
    seconds = time.perf_counter() - started
    report = {
        "target": name,
        "inputs": args.count,
        "seed": args.seed,
        "seconds": round(seconds, 1),
        "findings": len(findings),
    }
    if args.json:
        print(json.dumps(report | {"details": findings[:20]}))
    else:
        print(
            f"{name}: {args.count} inputs, seed {args.seed}, {seconds:.1f} s, "
            f"{len(findings)} findings"
        )
    return 1 if findings else 0


def random_pdu(rng: random.Random) -> Pdu:
    tid = rng.randrange(0x8000)
    response = rng.random() < 0.5
    tpis: tuple[Tpi, ...] = rng.choice(
        [
            (),
            (PsnTpi(rng.randrange(256)),),
            (OptionTpi(OptionId.MAXIMUM_RECEIVE_UNIT, b"\x05\xdc"), SduBoundaryTpi()),
            (InfoTpi(bytes(rng.randrange(256) for _ in range(rng.randrange(8)))),),
        ]
    )
    data = bytes(rng.randrange(256) for _ in range(rng.randrange(12)))
    options: list[Pdu] = [
        Invoke(tid=tid, tcl=rng.choice(list(TransactionClass)), user_data=data, tpis=tpis),
        Result(tid=tid, tid_response=True, user_data=data, tpis=tpis),
        Ack(tid=tid, tid_response=response, tve_tok=rng.random() < 0.3, tpis=tpis),
        Abort(tid=tid, abort_type=AbortType.PROVIDER, reason=rng.choice(list(AbortReason))),
        SegmentedInvoke(tid=tid, psn=rng.randrange(256), user_data=data, tpis=tpis),
        SegmentedResult(tid=tid, psn=rng.randrange(256), user_data=data, tpis=tpis),
        NegativeAck(tid=tid, missing=tuple(rng.randrange(256) for _ in range(3))),
    ]
    return rng.choice(options)


def seeds(rng: random.Random) -> list[bytes]:
    single = [encode(random_pdu(rng)) for _ in range(200)]
    pairs = [encode([random_pdu(rng), random_pdu(rng)]) for _ in range(50)]
    return single + pairs


def check(data: bytes) -> str | None:
    try:
        pdus = decode(data)
    except WtpCodecError:
        return None
    except Exception as exc:
        return f"decode raised {type(exc).__name__}: {exc}"
    try:
        again = encode(pdus)
    except Exception as exc:
        return f"encode raised {type(exc).__name__}: {exc}"
    return None if again == data else f"re-encoded as {again.hex()}"


if __name__ == "__main__":
    sys.exit(run("WTP", check, seeds(random.Random(0))))
