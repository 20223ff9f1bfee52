#!/usr/bin/env bash
# The main job: every reproduction, ending in an HTML report under results/report/.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/wwanlab probe --all --out results/report
