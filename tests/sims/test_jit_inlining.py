"""The kernels' IR inlining goes through one switch (:mod:`sims.kernels.jit`): numba-cuda
cannot type functions that numba core inlines, so no kernel module may ask numba for
``inline="always"`` itself, and the switch turns the inlining off where numba-cuda is
installed (checked with a stand-in ``numba_cuda`` package in a fresh interpreter)."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ASKS_INLINE = re.compile(r"""inline\s*=\s*["']always["']""")


def test_no_kernel_asks_numba_for_inlining_itself():
    offenders = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "sims").rglob("*.py")
        if path.name != "jit.py"
        for line in path.read_text().splitlines()
        if line.lstrip().startswith("@") and ASKS_INLINE.search(line)
    ]
    assert offenders == [], f"use sims.kernels.jit.inlined instead: {offenders}"


def _inline_mode(extra_path: Path | None) -> str:
    code = "from sims.kernels import jit; print(jit.INLINE)"
    path = [str(ROOT)] + ([str(extra_path)] if extra_path else [])
    env = {"PYTHONPATH": ":".join(path), "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def test_inlining_is_off_where_numba_cuda_is_installed(tmp_path):
    try:
        import numba_cuda  # noqa: F401
    except ImportError:
        assert _inline_mode(None) == "always"
    (tmp_path / "numba_cuda").mkdir()
    (tmp_path / "numba_cuda" / "__init__.py").write_text("")
    assert _inline_mode(tmp_path) == "never"
