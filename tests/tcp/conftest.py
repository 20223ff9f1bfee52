"""Make ``tests.tcp.tcp_harness`` (helpers shared by these tests) importable."""

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[2])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
