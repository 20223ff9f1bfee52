"""The README's examples, run as typed.

A code block whose info string is ``sh example`` is one; ``sh example root`` needs root
and network namespaces (the emulator). Each runs in a fresh ``sh -e`` from an empty
folder, with the Python environment's ``bin`` first on ``PATH`` as its activation
puts it, and must exit 0 and print every line of the ``text output`` block after it.
"""

import contextlib
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import wwanlab

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCK = re.compile(r"^```(?P<info>[^\n]*)\n(?P<body>.*?)^```$", re.MULTILINE | re.DOTALL)


def examples(text: str) -> list[tuple[str, bool, list[str]]]:
    """``(script, needs root, expected lines)`` of each example block in ``text``."""
    blocks = [(m["info"].split(), m["body"]) for m in BLOCK.finditer(text)]
    found = []
    for i, (info, body) in enumerate(blocks):
        if info[:2] != ["sh", "example"]:
            continue
        after = blocks[i + 1] if i + 1 < len(blocks) else None
        expected = after[1].splitlines() if after and after[0] == ["text", "output"] else []
        found.append((body, "root" in info[2:], expected))
    return found


EXAMPLES = examples(README.read_text())


def test_the_readme_has_examples_with_expected_output() -> None:
    assert len(EXAMPLES) >= 2 and all(expected for _, _, expected in EXAMPLES)
    assert any(root for _, root, _ in EXAMPLES)


def test_blocks_are_found_with_their_output() -> None:
    text = "```sh example root\nfalse\n```\n\n```text output\nx\ny\n```\n```sh\nno\n```\n"
    assert examples(text) == [("false\n", True, ["x", "y"])]


@pytest.mark.parametrize(
    ("script", "root", "expected"),
    [pytest.param(*example, id=example[0].split("\n")[0]) for example in EXAMPLES],
)
def test_example_runs_as_typed(
    script: str, root: bool, expected: list[str], tmp_path: Path
) -> None:
    if root and (os.geteuid() != 0 or not Path("/dev/net/tun").exists()):
        pytest.skip("needs root and /dev/net/tun (the emulator)")
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(Path(wwanlab.__file__).resolve().parents[1])  # the code tested
    work, logs = tmp_path / "work", tmp_path / "logs"
    work.mkdir()
    logs.mkdir()
    # Files, not pipes: a background server the script leaves would hold a pipe open.
    with (logs / "out").open("w") as out, (logs / "err").open("w") as err:
        process = subprocess.Popen(
            ["sh", "-e", "-c", script],
            cwd=work,
            env=env,
            stdout=out,
            stderr=err,
            start_new_session=True,
        )
        try:
            process.wait(timeout=120)
        finally:
            # Whatever the script started and, failing, did not stop.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
    printed = (logs / "out").read_text()
    assert process.returncode == 0, (logs / "err").read_text()
    missing = [line for line in expected if line not in printed]
    assert not missing, printed
