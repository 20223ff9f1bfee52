"""``wwanlab wbxml encode|decode``: files both ways, --json, and exit 2 on bad input."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from wwanlab.cli import app
from wwanlab.core.errors import UsageError
from wwanlab.wap.wbxml import decode, parse_xml
from wwanlab.wap.wbxml.tree import canonical_events

CORPUS = Path(__file__).parents[1] / "wap" / "wbxml" / "corpus"
runner = CliRunner()


def wwanlab(*args: str) -> subprocess.CompletedProcess[str]:
    """The real command line, so exit codes and stderr are the ones users see."""
    code = "from wwanlab.cli import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=60
    )


def test_encode_then_decode_round_trips(tmp_path: Path) -> None:
    out = tmp_path / "deck.wbxml"
    source = CORPUS / "wml13_deck.wml"
    done = runner.invoke(
        app, ["wbxml", "encode", str(source), "-o", str(out), "--version", "1.1", "--json"]
    )
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert report["wbxml_bytes"] == out.stat().st_size
    assert out.read_bytes()[:2] == b"\x01\x0a"
    xml = tmp_path / "deck.xml"
    done = runner.invoke(app, ["wbxml", "decode", str(out), "-o", str(xml)])
    assert done.exit_code == 0, done.output
    expected = canonical_events(parse_xml(source.read_bytes()).root)
    assert canonical_events(parse_xml(xml.read_bytes()).root) == expected


def test_public_id_by_name_number_or_fpi(tmp_path: Path) -> None:
    src = tmp_path / "card.xml"
    src.write_bytes(b"<wml><card/></wml>")
    out = tmp_path / "out.wbxml"
    for given, header in [("wml11", b"\x03\x04"), ("0x09", b"\x03\x09"),
                          ("-//WAPFORUM//DTD WML 1.3//EN", b"\x03\x0a")]:  # fmt: skip
        done = runner.invoke(
            app, ["wbxml", "encode", str(src), "-o", str(out), "--publicid", given]
        )
        assert done.exit_code == 0, done.output
        assert out.read_bytes()[:2] == header
    assert decode(out.read_bytes()).root.elements()[0].tag == "card"
    done = runner.invoke(app, ["wbxml", "encode", str(src), "-o", str(out), "--publicid", "no"])
    assert isinstance(done.exception, UsageError)
    assert "unknown document type" in str(done.exception)


@pytest.mark.parametrize(
    ("command", "name", "content", "message"),
    [
        ("encode", "missing.xml", None, "cannot read"),
        ("encode", "bad.xml", b"<wml><card></wml>", "malformed XML"),
        ("decode", "bad.wbxml", b"\x03\x01\x6a\x05\x01", "runs past the end"),
        (
            "encode",
            "ext.xml",
            b'<!DOCTYPE r [<!ENTITY e SYSTEM "/etc/passwd">]><r>&e;</r>',
            "refused",
        ),
        ("decode", "name.wbxml", b"\x03\x01\x6a\x04a b\x00\x04\x00", "not an XML name"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, command: str, name: str, content: bytes | None, message: str
) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    done = wwanlab("wbxml", command, str(path), "-o", str(tmp_path / "out"))
    assert done.returncode == 2
    assert message in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def wwanlab_bytes(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    code = "from wwanlab.cli import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args], input=stdin, capture_output=True, timeout=60
    )


def test_dash_is_stdin_and_stdout_binary_safe(tmp_path: Path) -> None:
    source = CORPUS / "si.xml"
    to_file = tmp_path / "si.wbxml"
    assert wwanlab("wbxml", "encode", str(source), "-o", str(to_file)).returncode == 0
    done = wwanlab_bytes("wbxml", "encode", "-", "-o", "-", stdin=source.read_bytes())
    assert done.returncode == 0, done.stderr
    assert done.stdout == to_file.read_bytes()  # WBXML bytes, nothing else on stdout
    assert b"bytes WBXML" in done.stderr  # the summary moves to stderr
    back = wwanlab_bytes("wbxml", "decode", "-", "-o", "-", stdin=done.stdout)
    assert back.returncode == 0, back.stderr
    expected = canonical_events(parse_xml(source.read_bytes()).root)
    assert canonical_events(parse_xml(back.stdout).root) == expected
    assert not (Path.cwd() / "-").exists()


def test_json_and_stdout_output_conflict_is_refused(tmp_path: Path) -> None:
    done = wwanlab("wbxml", "encode", str(CORPUS / "si.xml"), "-o", "-", "--json")
    assert done.returncode == 2
    assert "--json" in done.stderr and done.stderr.count("\n") == 1


def test_whitespace_option(tmp_path: Path) -> None:
    source = CORPUS / "wml13_deck.wml"
    sizes = {}
    for mode in ("auto", "collapse", "preserve"):
        out = tmp_path / f"{mode}.wbxml"
        done = wwanlab("wbxml", "encode", str(source), "-o", str(out), "--whitespace", mode)
        assert done.returncode == 0, done.stderr
        sizes[mode] = out.stat().st_size
    assert sizes["auto"] == sizes["collapse"] < sizes["preserve"]
    done = wwanlab("wbxml", "encode", str(source), "-o", "x", "--whitespace", "squash")
    assert done.returncode == 2 and "--whitespace must be one of" in done.stderr


def test_decode_ceilings_are_options(tmp_path: Path) -> None:
    data = tmp_path / "many.wbxml"
    data.write_bytes(bytes.fromhex("03016a0045") + b"\x05" * 100 + b"\x01")
    out = tmp_path / "many.xml"
    done = wwanlab("wbxml", "decode", str(data), "-o", str(out), "--max-elements", "50")
    assert done.returncode == 2 and "more than 50 elements" in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert wwanlab("wbxml", "decode", str(data), "-o", str(out)).returncode == 0
    assert out.read_bytes().count(b"<unknown_00_05/>") == 100


KANNEL_TESTCASE = Path("/usr/lib/kannel/test/testcase.wml")  # kannel-extras


@pytest.mark.skipif(not KANNEL_TESTCASE.exists(), reason="Kannel's test documents missing")
def test_dropping_whitespace_never_encodes_kannels_testcase_larger(tmp_path: Path) -> None:
    """It did: ignorable 469 octets, preserve 386, because only preserve's blank text
    nodes brought the indentation runs into the string table's candidates."""
    sizes: dict[str, int] = {}
    for mode in ("preserve", "ignorable", "trim", "collapse"):
        out = tmp_path / f"{mode}.wbxml"
        args = ["wbxml", "encode", str(KANNEL_TESTCASE), "-o", str(out), "--whitespace", mode]
        done = runner.invoke(app, [*args, "--json"])
        assert done.exit_code == 0, done.output
        sizes[mode] = json.loads(done.stdout)["wbxml_bytes"]
        if mode in ("preserve", "ignorable"):  # the bytes decode to what the mode keeps
            source = parse_xml(KANNEL_TESTCASE.read_bytes(), whitespace=mode)
            expected = canonical_events(source.root)
            assert canonical_events(decode(out.read_bytes()).root) == expected
    assert sizes == {"preserve": 386, "ignorable": 333, "trim": 247, "collapse": 247}
