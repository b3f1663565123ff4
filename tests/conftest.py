"""Shared test setup: repository root on sys.path (for runs without `pip install -e`)."""

import os
import sys
from pathlib import Path

# Before anything loads OpenMP: numba's workers must sleep, not spin, or they starve
# torch on 2 cores (see policies/__init__.py).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
