#!/usr/bin/env bash
# The whole test suite: lint, format, types, then pytest (real-peer tests included).
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/pytest "$@"
