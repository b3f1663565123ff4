"""Isaac backend tests: run in .venv-isaac by `make test-isaac`, never by `make test`
(pytest's testpaths is tests/). Envs are module-scoped: each build costs seconds."""

import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

pytest.importorskip("newton", reason="the Isaac tests need .venv-isaac (make isaac)")
