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


SCENARIO = 'name = "t"\nkind = "{kind}"\n{body}\n'


@pytest.mark.parametrize(
    ("kind", "body", "message"),
    [
        (
            "probe",
            '[link]\npreset = "serial-9k6"\n[workload]\ncount = "abc"',
            "workload.count must be an integer, got 'abc'",
        ),
        (
            "probe",
            '[link]\npreset = "serial-9k6"\n[workload]\ncount = 10.5',
            "workload.count must be an integer, got 10.5",
        ),
        (
            "probe",
            '[link]\npreset = "serial-9k6"\n[workload]\ncount = true',
            "workload.count must be an integer, got True",
        ),
        (
            "probe",
            '[link]\npreset = "serial-9k6"\n[workload]\ncount = 1',
            "workload.count must be at least 2, got 1",
        ),
        ("probe", "[link]\npreset = 7", "link.preset must be a string, got 7"),
        (
            "probe",
            '[link]\npreset = "serial-9k6"\n[sweep]\n"link.overrides.loss" = [0.1, "x"]',
            "link.overrides.loss must be a number, got 'x'",
        ),
        (
            "probe",
            '[link]\npreset = "serial-9k6"\n[sweep]\n"link.overrides.loss" = [1.5]',
            "link.overrides.loss must be at most 1, got 1.5",
        ),
        (
            "probe",
            '[link]\npreset = "serial-9k6"\n[link.overrides]\nrate_bps = nan',
            "link.overrides.rate_bps must be finite, got nan",
        ),
        (
            "probe",
            '[link]\npreset = "serial-9k6"\nspeed = 1',
            "kind 'probe' has no parameter 'link.speed' (it reads: link.preset, "
            "link.overrides.loss, link.overrides.rate_bps, workload.count)",
        ),
        ("probe", "[workload]\ncount = 10", "kind 'probe' needs parameter 'link.preset'"),
        (
            "wap-vs-tcp",
            '[stack]\nprotocol = "wap"\n[workload]\nsize = "1k"',
            "workload.size must be an integer, got '1k'",
        ),
        (
            "wap-vs-tcp",
            '[stack]\nprotocol = "ftp"\n[workload]\nsize = 1000',
            "stack.protocol must be one of http-newreno, http-reno, http-sack, "
            "http-sack/2003-rto1, http-sack/2003-rto3, http-sack/win2000, "
            "http-sack/win2000-rto0.3, wap, wap/g16, wap/g8; got 'ftp'",
        ),
    ],
)
def test_scenario_values_of_the_wrong_type_are_refused_at_load_time(
    kind: str,
    body: str,
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = tmp_path / "s.toml"
    path.write_text(SCENARIO.format(kind=kind, body=body))
    db = tmp_path / "r.duckdb"
    args = ["run", str(path), "--out", str(tmp_path / "out"), "--db", str(db)]
    err = one_line_error(*wwanlab(capsys, monkeypatch, *args))
    assert err == f"wwanlab: error: {path}: {message}\n"
    assert not db.exists()  # refused before anything ran or was stored


def test_out_at_a_file_is_refused_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.toml"
    path.write_text(SCENARIO.format(kind="probe", body='[link]\npreset = "serial-9k6"'))
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    db = tmp_path / "r.duckdb"
    for args in (
        ["run", str(path), "--out", str(a_file), "--db", str(db)],
        ["probe", "--all", "--out", str(a_file)],
        ["reproduce", "all", "--quick", "--out", str(a_file), "--db", str(db)],
    ):
        err = one_line_error(*wwanlab(capsys, monkeypatch, *args))
        assert err == f"wwanlab: error: --out '{a_file}' is a file, not a folder\n"
    assert not db.exists()
    err = one_line_error(*wwanlab(capsys, monkeypatch, "run", str(path), "--db", str(tmp_path)))
    assert err.startswith(f"wwanlab: error: cannot open results database '{tmp_path}': ")


@pytest.mark.parametrize("command", [["run", "SCENARIO"], ["reproduce", "all", "--quick"]])
def test_a_malformed_scheduler_address_is_refused_at_once(
    command: list[str], tmp_path: Path
) -> None:
    """The real console script: once the Dask client was built from a bad address, its
    finaliser printed a traceback 20 s after the error line; now the address is parsed
    first and no client is made (the output is the one line, nothing follows it)."""
    path = tmp_path / "s.toml"
    path.write_text(SCENARIO.format(kind="probe", body='[link]\npreset = "serial-9k6"'))
    args = [str(path) if a == "SCENARIO" else a for a in command]
    proc = subprocess.run(
        [str(CONSOLE_SCRIPT), *args, "--scheduler", "garbage", "--db", "r.duckdb"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    err = one_line_error(proc.returncode, proc.stdout, proc.stderr)
    assert err == (
        "wwanlab: error: bad Dask scheduler address 'garbage': "
        "missing port number in address 'garbage'\n"
    )
    assert not (tmp_path / "r.duckdb").exists()


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("foo://host:8786", "unknown address scheme 'foo'"),
        ("tcp://host:99999", "want [tcp://]HOST:PORT"),
        ("tcp://host:port", "invalid literal for int()"),
    ],
)
def test_scheduler_addresses_are_parsed_before_any_work(
    address: str,
    reason: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    args = ["reproduce", "all", "--quick", "--scheduler", address]
    err = one_line_error(*wwanlab(capsys, monkeypatch, *args))
    assert err.startswith(f"wwanlab: error: bad Dask scheduler address {address!r}: ")
    assert reason in err
