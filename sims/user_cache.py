"""The Miles cache directory, shared by every layer: the converted language model
(:mod:`miles_ros.agent.models`), the numba kernels (:mod:`sims.numba_cache`), the Isaac
assets (:mod:`sims.backends.isaac.assets`)."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir(path: str | os.PathLike | None = None) -> Path:
    """The Miles cache directory: ``path``, else ``$MILES_CACHE_DIR``, else ``~/.cache/miles``."""
    if path is not None:
        return Path(path).expanduser()
    env = os.environ.get("MILES_CACHE_DIR")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "miles"
