"""Every script in ``examples/`` runs and prints exactly its recorded output.

The examples are a newcomer's first code, so they must keep working: each runs in a
fresh interpreter from an empty folder and its stdout is compared with
``examples/NAME.out``. Everything they print is deterministic (the simulator is
seeded) except what ``MASKS`` replaces, each for the reason given. After an intended
change, record again with ``WWANLAB_RECORD_EXAMPLES=1 .venv/bin/pytest tests/examples``.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import wwanlab

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SCRIPTS = sorted(EXAMPLES.glob("*.py"))
RECORD = os.environ.get("WWANLAB_RECORD_EXAMPLES") == "1"

MASKS = [
    # The gateway and the origin listen on ports the OS picks, free ones, each run.
    (re.compile(r"\b127\.0\.0\.1:\d+"), "127.0.0.1:PORT"),
]


def mask(text: str) -> str:
    for pattern, replacement in MASKS:
        text = pattern.sub(replacement, text)
    return text


def test_there_are_examples_and_each_has_a_recorded_output() -> None:
    assert len(SCRIPTS) >= 4
    assert {p.stem for p in EXAMPLES.glob("*.out")} == {p.stem for p in SCRIPTS}


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_example_prints_its_recorded_output(script: Path, tmp_path: Path) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(Path(wwanlab.__file__).resolve().parents[1])  # the code tested
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert list(tmp_path.iterdir()) == []  # an example leaves nothing behind
    recorded = script.with_suffix(".out")
    if RECORD:
        recorded.write_text(mask(done.stdout))
    assert mask(done.stdout) == recorded.read_text()
