"""Seeds and provenance: one place that seeds every RNG and describes where a run came from."""

from __future__ import annotations

import random
import shlex
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

REPO_ROOT = Path(__file__).resolve().parents[1]


@njit(cache=True)
def _seed_numba(seed):
    np.random.seed(seed)


def seed_everything(seed: int) -> None:
    """Seed Python, numpy, torch and numba's own generator (backends get ``reset(seed)``)."""
    import torch  # here: what else this module gives (the run's provenance) needs no torch

    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)
    _seed_numba(seed % 2**32)


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=REPO_ROOT, capture_output=True, text=True, timeout=10, check=True
    ).stdout.strip()


def git_commit() -> str:
    """The checkout's HEAD commit, with ``-dirty`` when tracked files changed; ``unknown``
    outside a git checkout."""
    try:
        head = _git("rev-parse", "HEAD")
        dirty = _git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return head + ("-dirty" if dirty else "")


def miles_version() -> str:
    try:
        from importlib.metadata import version

        return version("miles_ros")
    except Exception:  # noqa: BLE001 - not installed: fall back to the source version
        return "0.1.0"


def command_line(argv: list[str] | None, prog: str) -> str:
    """The exact command as a user would type it (``miles train reach --seed 1``)."""
    args = sys.argv[1:] if argv is None else argv
    return " ".join([prog] + [shlex.quote(a) for a in args])


def new_run_meta(command: str, **extra) -> dict:
    """A new run's ``meta.yaml``: the command, git commit, version and start time, then
    ``extra`` keys."""
    return {
        "command": command,
        "git_commit": git_commit(),
        "miles_version": miles_version(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%S"),
        **extra,
    }


def add_resume(meta: dict, command: str) -> dict:
    """``meta`` with this resume (command, git commit, time) appended to its ``resumed``."""
    meta.setdefault("resumed", []).append(
        {
            "command": command,
            "git_commit": git_commit(),
            "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
        }
    )
    return meta
