#!/usr/bin/env bash
# The whole test suite: lint, format, types, import floors, then pytest (real-peer tests included).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/compile.sh  # a compiled module older than its source would hide a change
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
PYTHONPATH=src .venv/bin/lint-imports --no-logo  # the floors in pyproject.toml: no import runs back up
.venv/bin/pytest "$@"
# With the mypyc build in place (scripts/compile.sh), the tests of the compiled modules
# (or the tests named on the command line) again on the pure-Python modules: a copy of
# the package without the compiled ones, first on the path.
if compgen -G "src/*__mypyc.cpython-*.so" >/dev/null; then
    pure=$(mktemp -d)
    trap 'rm -rf "$pure"' EXIT
    cp -r src/wwanlab "$pure/"
    find "$pure" -name "*.so" -delete
    args=("$@")
    named=0
    for arg in "$@"; do [[ "$arg" == tests* ]] && named=1; done
    ((named)) || args+=(tests/sim tests/tcp tests/link tests/pep tests/wap/wbxml)
    echo "test: again on the pure-Python modules: ${args[*]}"
    PYTHONPATH="$pure" .venv/bin/pytest "${args[@]}"
fi
