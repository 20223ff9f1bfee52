#!/usr/bin/env bash
# The main job: the link probe, every reproduction, today's transports and a real
# browser's page loads (direct, kcptun, wwanlab tunnel) on the
# emulated links, ending in an HTML report under results/report/ (index.html lists
# every page the commands wrote there).
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/wwanlab probe --all --out results/report
.venv/bin/wwanlab reproduce all --out results/report
.venv/bin/wwanlab bench report --quick --out results/report
.venv/bin/wwanlab bench pages --quick --out results/report
