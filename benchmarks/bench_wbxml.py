"""WBXML codec: encoded size and encode/decode throughput, ours against libwbxml.

Plain script:  python benchmarks/bench_wbxml.py [--repeats 5] [--json] [--write]

libwbxml is timed in-process through ctypes on ``libwbxml2.so.1`` (its converter API,
``wbxml_conv_xml2wbxml_run`` and ``wbxml_conv_wbxml2xml_run``), so neither side pays a
process start. Both encoders start from XML bytes (parse included) and both decoders end
with XML bytes. Ours encodes with ``whitespace="trim"``, which is what ``xml2wbxml`` does
by default, so the sizes compare the same document. Throughput is MB/s of the input
(XML for encoding, WBXML for decoding), the median of ``--repeats`` batches timed in
CPU time, ours and libwbxml's taken in turn.
``--write`` replaces the "## WBXML" section of docs/performance.md up to its first
"###" subsection (the written findings stay).
"""

from __future__ import annotations

import argparse
import ctypes
import datetime
import json
import os
import re
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wwanlab.report.provenance import machine_line
from wwanlab.wap.wbxml import decode, encode, table_by_name, to_xml

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "wap" / "wbxml" / "corpus"
DOC = ROOT / "docs" / "performance.md"
BATCH_SECONDS = 0.2
PAPER_001_SOAP = (508, 326)  # paper 001 section 3.1: BabelFish SOAP call, XML -> WBXML

_Bytes = ctypes.POINTER(ctypes.c_ubyte)


class LibWbxml:
    """libwbxml's converters through ctypes (no headers needed: four calls each way)."""

    def __init__(self, version: int = 3) -> None:
        self.lib = ctypes.CDLL("libwbxml2.so.1")
        for name in ("wbxml_conv_xml2wbxml_run", "wbxml_conv_wbxml2xml_run"):
            getattr(self.lib, name).argtypes = [
                ctypes.c_void_p,
                ctypes.c_char_p,
                ctypes.c_uint,
                ctypes.POINTER(_Bytes),
                ctypes.POINTER(ctypes.c_uint),
            ]
        self.lib.wbxml_conv_xml2wbxml_set_version.argtypes = [ctypes.c_void_p, ctypes.c_int]
        self.lib.wbxml_conv_wbxml2xml_set_gen_type.argtypes = [ctypes.c_void_p, ctypes.c_int]
        self.lib.wbxml_free.argtypes = [ctypes.c_void_p]
        self.enc = ctypes.c_void_p()
        self.dec = ctypes.c_void_p()
        if self.lib.wbxml_conv_xml2wbxml_create(ctypes.byref(self.enc)) != 0:
            raise RuntimeError("wbxml_conv_xml2wbxml_create failed")
        if self.lib.wbxml_conv_wbxml2xml_create(ctypes.byref(self.dec)) != 0:
            raise RuntimeError("wbxml_conv_wbxml2xml_create failed")
        self.lib.wbxml_conv_xml2wbxml_set_version(self.enc, version)
        self.lib.wbxml_conv_wbxml2xml_set_gen_type(self.dec, 0)  # compact XML

    def _run(self, fn: Any, conv: ctypes.c_void_p, data: bytes) -> bytes:
        out = _Bytes()
        size = ctypes.c_uint()
        if fn(conv, data, len(data), ctypes.byref(out), ctypes.byref(size)) != 0:
            raise RuntimeError("libwbxml conversion failed")
        result = ctypes.string_at(out, size.value)
        self.lib.wbxml_free(out)
        return result

    def encode(self, xml: bytes) -> bytes:
        return self._run(self.lib.wbxml_conv_xml2wbxml_run, self.enc, xml)

    def decode(self, wbxml: bytes) -> bytes:
        return self._run(self.lib.wbxml_conv_wbxml2xml_run, self.dec, wbxml)


def _batch(fn: Callable[[], object]) -> int:
    """Calls of ``fn`` that take about BATCH_SECONDS."""
    start = time.process_time()
    fn()
    return max(1, int(BATCH_SECONDS / max(time.process_time() - start, 1e-7)))


def _rate(fn: Callable[[], object], size: int, count: int) -> float:
    """MB/s of ``count`` calls, in CPU time of this process (ours and libwbxml both run
    in it), so another program taking the shared machine's CPU counts against neither."""
    start = time.process_time()
    for _ in range(count):
        fn()
    return count * size / (time.process_time() - start) / 1e6


def throughput(fn: Callable[[], object], size: int, repeats: int) -> float:
    """Median MB/s over ``repeats`` batches."""
    count = _batch(fn)
    return statistics.median(_rate(fn, size, count) for _ in range(repeats))


def side_by_side(
    ours: Callable[[], object],
    theirs: Callable[[], object],
    sizes: tuple[int, int],
    repeats: int,
) -> tuple[float, float]:
    """Median MB/s of each over ``repeats`` batches, taken in turn: ours, theirs, ours..."""
    counts = _batch(ours), _batch(theirs)
    pairs = [
        (_rate(ours, sizes[0], counts[0]), _rate(theirs, sizes[1], counts[1]))
        for _ in range(repeats)
    ]
    return statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs)


def measure(path: Path, lib: LibWbxml, repeats: int) -> dict[str, Any]:
    """Sizes and throughputs of one corpus document, ours and libwbxml's."""
    xml = path.read_bytes()
    ours = encode(xml, version="1.3", whitespace="trim")
    row: dict[str, Any] = {"document": path.name, "xml_bytes": len(xml), "ours_bytes": len(ours)}

    def our_encode() -> bytes:
        return encode(xml, version="1.3", whitespace="trim")

    def our_decode() -> bytes:
        return to_xml(decode(ours))

    try:
        theirs = lib.encode(xml)
    except RuntimeError:  # libwbxml has no table for it (SOAP)
        row["ours_encode_mbps"] = throughput(our_encode, len(xml), repeats)
        row["ours_decode_mbps"] = throughput(our_decode, len(ours), repeats)
        return row
    row["libwbxml_bytes"] = len(theirs)
    row["ours_encode_mbps"], row["libwbxml_encode_mbps"] = side_by_side(
        our_encode, lambda: lib.encode(xml), (len(xml), len(xml)), repeats
    )
    row["ours_decode_mbps"], row["libwbxml_decode_mbps"] = side_by_side(
        our_decode, lambda: lib.decode(theirs), (len(ours), len(theirs)), repeats
    )
    return row


def run(repeats: int) -> dict[str, Any]:
    lib = LibWbxml()
    rows = []
    for path in sorted(CORPUS.iterdir()):
        row = measure(path, lib, repeats)
        rows.append(row)
    soap = (CORPUS / "soap_babelfish.xml").read_bytes()
    soap_sizes = {
        "xml": len(soap),
        "soap_table_fpi_in_string_table": len(encode(soap)),
        "soap_table_public_id_unknown": len(
            encode(soap, public_id=1, table=table_by_name("soap11"))
        ),
        "generic_literal_tags": len(encode(soap, public_id=1)),
        "paper_001": {"xml": PAPER_001_SOAP[0], "wbxml": PAPER_001_SOAP[1]},
    }
    return {
        "machine": machine_line(),
        "date": datetime.date.today().isoformat(),
        "repeats": repeats,
        "load_average": round(os.getloadavg()[0], 1),
        "libwbxml_timing": "in-process via ctypes on libwbxml2.so.1",
        "documents": rows,
        "soap": soap_sizes,
    }


def markdown(result: dict[str, Any]) -> str:
    lines = [
        f"Run {result['date']} on {result['machine']} with `python benchmarks/bench_wbxml.py"
        f" --write` (1-minute load average {result['load_average']} on the shared machine:"
        " batches are timed in CPU time, ours and libwbxml's in turn);"
        f" medians of {result['repeats']} batches; libwbxml 0.11 "
        f"{result['libwbxml_timing']}. WBXML 1.3; both encoders parse the XML and trim text "
        "nodes (xml2wbxml's default); both decoders write compact XML.",
        "",
        "| document | XML B | ours B | libwbxml B | encode MB/s ours / lib (ratio) | "
        "decode MB/s ours / lib (ratio) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for row in result["documents"]:
        lib_b = row.get("libwbxml_bytes", "-")
        enc, dec = (_speeds(row, kind) for kind in ("encode", "decode"))
        lines.append(
            f"| {row['document']} | {row['xml_bytes']} | {row['ours_bytes']} | {lib_b} "
            f"| {enc} | {dec} |"
        )
    soap = result["soap"]
    lines += [
        "",
        f"Paper 001's SOAP call ({soap['paper_001']['xml']} B XML -> "
        f"{soap['paper_001']['wbxml']} B WBXML) against our reconstruction "
        f"(`soap_babelfish.xml`, {soap['xml']} B): our SOAP table "
        f"{soap['soap_table_fpi_in_string_table']} B with its FPI in the string table, "
        f"{soap['soap_table_public_id_unknown']} B with public id 1 (table agreed out of "
        f"band), {soap['generic_literal_tags']} B with no table (every name literal). "
        "libwbxml has no SOAP table and refuses the document.",
        "",
    ]
    return "\n".join(lines)


def _speeds(row: dict[str, Any], kind: str) -> str:
    ours = row[f"ours_{kind}_mbps"]
    lib = row.get(f"libwbxml_{kind}_mbps")
    if lib is None:
        return f"{ours:.2f} / -"
    return f"{ours:.2f} / {lib:.1f} ({ours / lib:.2f})"


def write_section(text: str) -> None:
    doc = DOC.read_text()
    pattern = re.compile(r"(## WBXML\n)(.*?)(?=\n## |\n### |\Z)", re.S)
    match = pattern.search(doc)
    if match is None:
        raise SystemExit(f"no '## WBXML' section in {DOC}")
    DOC.write_text(doc[: match.start(2)] + "\n" + text + doc[match.end(2) :])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--write", action="store_true", help="update docs/performance.md")
    args = parser.parse_args()
    result = run(args.repeats)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(markdown(result))
    if args.write:
        write_section(markdown(result))


if __name__ == "__main__":
    main()
