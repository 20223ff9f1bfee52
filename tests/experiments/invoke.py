"""Run the ``wwanlab`` command in this process, as the console script would."""

import sys

import pytest

from wwanlab.cli import main


def wwanlab(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str
) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of ``wwanlab ARGS...``."""
    capsys.readouterr()
    monkeypatch.setattr(sys, "argv", ["wwanlab", *args])
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err
