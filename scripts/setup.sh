#!/usr/bin/env bash
# Installs everything wwanlab needs on a fresh Debian machine, as root:
# the real peers from Debian (tshark, Kannel, libwbxml) and the Python package in .venv.
set -euo pipefail
cd "$(dirname "$0")/.."

DEBIAN_PACKAGES=(tshark kannel kannel-extras libwbxml2-utils nftables iproute2 kcptun chromium microsocks)

missing=()
for pkg in "${DEBIAN_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
    export DEBIAN_FRONTEND=noninteractive
    # tshark asks whether non-root users may capture; answer no without a prompt.
    echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
    apt-get update
    apt-get install -y "${missing[@]}"
fi

PYTHON=${PYTHON:-python3}
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
    || { echo "setup: wwanlab needs Python >= 3.11, $PYTHON is older" >&2; exit 1; }
[[ -x .venv/bin/python ]] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[dev]'
bash scripts/compile.sh  # the simulator's hot modules with mypyc, when a compiler is here
echo "setup: done ($(.venv/bin/wwanlab version))"
