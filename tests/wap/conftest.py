"""Make ``tests.wap.harness`` (helpers shared by the WTP and WSP tests) importable."""

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[2])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
