#!/usr/bin/env bash
# Compiles the simulator's and the WBXML codec's hot modules with mypyc, in place: each
# NAME.py gets a NAME.cpython-*.so beside it, which Python imports in its stead. Without a
# C compiler or Python's headers nothing is built and the pure-Python modules run, with
# the same results (tests/sim/test_golden_results.py holds on both).
#   scripts/compile.sh          build (skipped with a note when it cannot)
#   scripts/compile.sh --clean  remove what a build left, back to pure Python
set -euo pipefail
cd "$(dirname "$0")/../src"

MODULES=(
    wwanlab/sim/kernel.py wwanlab/sim/stats.py wwanlab/sim/ipv4.py
    wwanlab/sim/link.py wwanlab/sim/host.py wwanlab/sim/router.py
    wwanlab/link/base.py wwanlab/link/queue.py wwanlab/link/rate.py wwanlab/link/delay.py
    wwanlab/link/loss.py
    wwanlab/tcp/segment.py wwanlab/tcp/ranges.py wwanlab/tcp/rto.py wwanlab/tcp/state.py
    wwanlab/tcp/stats.py wwanlab/tcp/sendbuffer.py wwanlab/tcp/connection.py
    wwanlab/tcp/endpoint.py
    wwanlab/wap/wbxml/tokens.py wwanlab/wap/wbxml/tree.py wwanlab/wap/wbxml/xmlio.py
    wwanlab/wap/wbxml/encoder.py wwanlab/wap/wbxml/decoder.py
)

clean() {
    for module in "${MODULES[@]}"; do
        rm -f "${module%.py}".cpython-*.so
    done
    rm -f ./*__mypyc.cpython-*.so
    rm -rf build/
}

if [[ "${1:-}" == "--clean" ]]; then
    clean
    exit 0
fi
PYTHON=../.venv/bin/python
include=$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
if ! command -v "${CC:-cc}" >/dev/null || [[ ! -f "$include/Python.h" ]]; then
    echo "compile: no C compiler or no Python.h; the simulator runs as pure Python" >&2
    exit 0
fi
# Up to date: every module has a build newer than every source of the packages it is
# compiled with (mypyc inlines their Final constants) and than mypyc itself.
newest=$(ls -t wwanlab/sim/*.py wwanlab/link/*.py wwanlab/tcp/*.py wwanlab/wap/wbxml/*.py \
    ../.venv/bin/mypyc | head -1)
stale=0
for module in "${MODULES[@]}"; do
    built=$(compgen -G "${module%.py}.cpython-*.so" || true)
    if [[ -z "$built" || "$newest" -nt "$built" ]]; then
        stale=1
        break
    fi
done
if ((!stale)); then
    echo "compile: the ${#MODULES[@]} compiled modules are up to date"
    exit 0
fi
clean
if ! ../.venv/bin/mypyc "${MODULES[@]}" >build.log 2>&1; then
    echo "compile: mypyc failed (src/build.log); the simulator runs as pure Python" >&2
    clean
    exit 0
fi
rm -rf build/ build.log
echo "compile: ${#MODULES[@]} modules compiled with mypyc"
