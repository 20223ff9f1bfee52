"""``wwanlab bench transports``: bad input in one line, a loopback trial end to end."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from wwanlab.experiments.store import ResultStore

WWANLAB = str(Path(sys.executable).parent / "wwanlab")


def bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [WWANLAB, "bench", "transports", *args], capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--link", "nope"], "unknown"),
        (["--link", "serial-9k6", "--loss", "1.5"], "--loss must be a probability"),
        (["--link", "serial-9k6", "--sizes", "4k"], "--sizes '4k' is not a comma-separated"),
        (["--link", "serial-9k6", "--sizes", "0"], "--sizes must list file sizes"),
        (["--link", "serial-9k6", "--reps", "0"], "--reps 0 must be at least 1"),
        (["--link", "serial-9k6", "--transports", "tcp-vegas"], "unknown transport"),
        (["--link", "serial-9k6", "--parallel", "0"], "--parallel 0 must be at least 1"),
        (["--link", "serial-9k6", "--reps", "10000000"], "is over 2,000 (each in real time"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, message):
    done = bench(*args)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr
    assert done.stderr.count("\n") == 1


def test_loopback_trial_prints_json_and_stores_rows(tmp_path):
    db = tmp_path / "r.duckdb"
    done = bench("--link", "serial-9k6", "--loss", "0.1", "--loopback", "--sizes", "4000",
                 "--reps", "2", "--transports", "tcp-cubic,quic-cubic", "--json",
                 "--db", str(db), "--csv", str(tmp_path / "csv"))  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["link"] == "loopback" and report["loss"] == pytest.approx(0.1)
    assert [(s["transport"], s["size"], s["runs"], s["failed"]) for s in report["summary"]] == [
        ("tcp-cubic", 4000, 2, 0),
        ("quic-cubic", 4000, 2, 0),
    ]
    assert report["table"] == "bench_transports_serial_9k6_10"
    with ResultStore(db) as store:
        rows = store.read("bench_transports_serial-9k6_10")  # the old name still reads
        # The table needs no quoting: the hyphens of the preset's name are gone.
        assert store.query(f"SELECT count(*) FROM {report['table']}") == [(4,)]
    assert len(rows) == 4 and all(r["complete"] for r in rows)
    csv = (tmp_path / "csv" / "bench_transports_serial_9k6_10.csv").read_text().splitlines()
    assert csv[0].startswith("link,loss,transport,family,ours,size,complete,error,")
    assert len(csv) == 5


def test_pages_work_bound_needs_force() -> None:
    done = subprocess.run(
        [WWANLAB, "bench", "pages", "--quick", "--reps", "1000"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and done.stderr == (
        "wwanlab: error: 6,000 runs of a browser is over 2,000 (each in real time on an "
        "emulated link): pass --force to run them\n"
    )
