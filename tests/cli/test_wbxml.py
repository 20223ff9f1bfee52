"""``wwanlab wbxml encode|decode``: files both ways, --json, and exit 2 on bad input."""

import json
import subprocess
import sys
from pathlib import Path

from wwanlab.wap.wbxml import decode, parse_xml
from wwanlab.wap.wbxml.tree import canonical_events

CORPUS = Path(__file__).parents[1] / "wap" / "wbxml" / "corpus"


def wwanlab(*args: str) -> subprocess.CompletedProcess[str]:
    """The installed command line, so exit codes and stderr are the real ones."""
    code = "from wwanlab.cli import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=60
    )


def test_encode_then_decode_round_trips(tmp_path: Path) -> None:
    out = tmp_path / "deck.wbxml"
    done = wwanlab("wbxml", "encode", str(CORPUS / "wml13_deck.wml"), "-o", str(out),
                   "--version", "1.1", "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["wbxml_bytes"] == out.stat().st_size
    assert out.read_bytes()[:2] == b"\x01\x0a"
    xml = tmp_path / "deck.xml"
    done = wwanlab("wbxml", "decode", str(out), "-o", str(xml))
    assert done.returncode == 0, done.stderr
    source = parse_xml((CORPUS / "wml13_deck.wml").read_bytes())
    assert canonical_events(parse_xml(xml.read_bytes()).root) == canonical_events(source.root)


def test_public_id_by_name_number_or_fpi(tmp_path: Path) -> None:
    src = tmp_path / "card.xml"
    src.write_bytes(b"<wml><card/></wml>")
    out = tmp_path / "out.wbxml"
    for given, header in [("wml11", b"\x03\x04"), ("0x09", b"\x03\x09"),
                          ("-//WAPFORUM//DTD WML 1.3//EN", b"\x03\x0a")]:  # fmt: skip
        done = wwanlab("wbxml", "encode", str(src), "-o", str(out), "--publicid", given)
        assert done.returncode == 0, done.stderr
        assert out.read_bytes()[:2] == header
    assert decode(out.read_bytes()).root.elements()[0].tag == "card"


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    bad_xml = tmp_path / "bad.xml"
    bad_xml.write_bytes(b"<wml><card></wml>")
    bad_wbxml = tmp_path / "bad.wbxml"
    bad_wbxml.write_bytes(b"\x03\x01\x6a\x05\x01")
    out = str(tmp_path / "o")
    cases = [
        ("encode", str(tmp_path / "missing.xml"), "cannot read"),
        ("encode", str(bad_xml), "malformed XML"),
        ("decode", str(bad_wbxml), "runs past the end"),
        ("decode", str(tmp_path / "missing.wbxml"), "cannot read"),
    ]
    for command, path, message in cases:
        done = wwanlab("wbxml", command, path, "-o", out)
        assert done.returncode == 2
        assert message in done.stderr
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    done = wwanlab("wbxml", "encode", str(bad_xml), "-o", out, "--publicid", "nosuch")
    assert done.returncode == 2 and "unknown document type" in done.stderr
