#!/usr/bin/env bash
# The main job: the link probe and every reproduction, ending in an HTML report under
# results/report/ (index.html lists every page the commands wrote there).
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/wwanlab probe --all --out results/report
.venv/bin/wwanlab reproduce all --out results/report
