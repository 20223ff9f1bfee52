"""The floors written in pyproject.toml (``[tool.importlinter]``) hold on the package,
and the contracts fail when an import runs back up or closes a cycle."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = str(Path(sys.executable).parent / "lint-imports")


def lint_imports(src: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` on the ``wwanlab`` under ``src``, with the project's contracts."""
    return subprocess.run(
        [LINT_IMPORTS, "--no-cache", "--no-logo", str(ROOT / "pyproject.toml")],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(src)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_floors_hold(tmp_path: Path) -> None:
    run = lint_imports(ROOT / "src", tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


@pytest.mark.parametrize(
    ("module", "line", "broken"),
    [
        # an upward edge: the link models may import only core
        ("link/base.py", "from wwanlab.sim import kernel", "wwanlab.link is not allowed"),
        # a protocol importing a driver that is above it too
        ("wap/wtp/pdu.py", "from wwanlab.aio import udp", "wwanlab.wap is not allowed"),
        # a proxy reaching into the simulator: pep is above sim, but a protocol
        ("pep/snoop.py", "from wwanlab.sim import kernel", "wwanlab.pep is not allowed"),
        # a cycle inside one floor: the kernel is below the hosts
        ("sim/kernel.py", "from wwanlab.sim import host", "No cycles are allowed in wwanlab.sim"),
    ],
)
def test_an_import_that_runs_back_up_breaks_a_contract(
    tmp_path: Path, module: str, line: str, broken: str
) -> None:
    src = tmp_path / "src"
    shutil.copytree(
        ROOT / "src" / "wwanlab",
        src / "wwanlab",
        ignore=shutil.ignore_patterns("__pycache__", "*.so"),
    )
    path = src / "wwanlab" / module
    path.write_text(path.read_text(encoding="utf-8") + f"\n{line}\n", encoding="utf-8")
    run = lint_imports(src, tmp_path)
    assert run.returncode != 0
    assert broken in run.stdout, run.stdout
