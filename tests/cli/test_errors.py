"""Bad input on the command line: one line naming the problem, exit code 2, no traceback."""

import subprocess
import sys
from pathlib import Path

import pytest
from tests.experiments.invoke import wwanlab

CONSOLE_SCRIPT = Path(sys.executable).parent / "wwanlab"


def one_line_error(code: int, out: str, err: str) -> str:
    assert code == 2, err
    assert out == ""
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert "Traceback" not in err
    assert err.startswith("wwanlab: error: ")
    return err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--link", "no-such-link"], "unknown link preset 'no-such-link' (known: "),
        (
            ["--link", "serial-9k6", "--loss", "1.5"],
            "loss must be a probability in [0, 1], got 1.5",
        ),
        (["--link", "serial-9k6", "--loss", "-0.1"], "loss must be a probability in [0, 1]"),
        (["--link", "serial-9k6", "--rate", "-5"], "rate must be a finite number > 0, got -5.0"),
        (["--link", "serial-9k6", "--count", "1"], "count must be an integer >= 2, got 1"),
        (["--link", "serial-9k6", "--trace", "/nonexistent/t.trace"], "cannot read trace file"),
        ([], "name a preset with --link PRESET"),
    ],
)
def test_probe_bad_input(
    args: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    err = one_line_error(*wwanlab(capsys, monkeypatch, "probe", *args))
    assert message in err


def test_pcap_into_missing_folder(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["probe", "--link", "serial-9k6", "--pcap", "/nonexistent/dir/p.pcap"]
    err = one_line_error(*wwanlab(capsys, monkeypatch, *args))
    assert "cannot write pcap file '/nonexistent/dir/p.pcap'" in err


def test_malformed_and_missing_scenario_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\nkind = "probe"\n[link\n')
    err = one_line_error(*wwanlab(capsys, monkeypatch, "run", str(bad)))
    assert f"malformed scenario file '{bad}'" in err
    err = one_line_error(*wwanlab(capsys, monkeypatch, "run", str(tmp_path / "none.toml")))
    assert "cannot read scenario file" in err
    unknown = tmp_path / "unknown.toml"
    unknown.write_text('name = "x"\nkind = "probe"\n[link]\npreset = "nope"\n')
    err = one_line_error(*wwanlab(capsys, monkeypatch, "run", str(unknown), "--jobs", "1"))
    assert "link.preset must be one of " in err and err.endswith("got 'nope'\n")


def test_real_console_script(tmp_path: Path) -> None:
    for args, message in [
        (["probe", "--link", "no-such-link"], "unknown link preset 'no-such-link'"),
        (["reproduce", "no-such-paper"], "unknown reproduction 'no-such-paper'"),
    ]:
        proc = subprocess.run(
            [str(CONSOLE_SCRIPT), *args], capture_output=True, text=True, timeout=60, cwd=tmp_path
        )
        err = one_line_error(proc.returncode, proc.stdout, proc.stderr)
        assert message in err
