"""The content-keyed numba cache (:mod:`sims.numba_cache`): its key follows the numba
sources' contents, not the checkout's path or the files' mtimes; a repo kernel is cached in
the key's folder and a file outside the repo is left to numba, as everything is with
``MILES_NUMBA_CACHE=0`` or a folder that cannot be made; the oldest keys are pruned; a
second process in a copy of the checkout at another path loads the kernel (a closure over a
helper of this file) that the first compiled, ``import sims`` installing the locator before
numba loads."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import types
from pathlib import Path

from numba import njit
from numba.core import caching
from numba.core.serialize import dumps
from numba.extending import register_jitable

from sims import numba_cache
from sims.kernels.step import first_non_finite

REPO = Path(__file__).resolve().parents[2]


def tiny_kernel():
    """A cached kernel that closes over a helper defined here: its cache key pickles the
    helper with this file's path in it."""

    @register_jitable
    def plus_one(x):
        return x + 1.0

    @njit(cache=True)
    def doubled_plus_one(x):
        return plus_one(x) * 2.0

    return doubled_plus_one


def _tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_the_key_follows_the_sources_contents_not_their_place_or_mtime(tmp_path):
    files = {
        "sims/a.py": "from numba import njit\n",
        "policies/b.py": "from numba.extending import register_jitable\n",
        "miles_ros/c.py": "x = 1  # no kernel\n",
        "tests/d.py": "from numba import njit\n",
    }
    first, second = tmp_path / "first", tmp_path / "elsewhere" / "second"
    _tree(first, files)
    _tree(second, files)
    sources = numba_cache.numba_sources(first)
    assert [p.relative_to(first).as_posix() for p in sources] == ["sims/a.py", "policies/b.py"]
    key = numba_cache.sources_key(sources, first)
    assert numba_cache.sources_key(numba_cache.numba_sources(second), second) == key
    os.utime(first / "sims/a.py", (1, 1))
    assert numba_cache.sources_key(sources, first) == key
    (first / "policies/b.py").write_text("from numba.extending import register_jitable  #\n")
    assert numba_cache.sources_key(sources, first) != key
    (first / "policies/b.py").write_text(files["policies/b.py"])
    assert numba_cache.sources_key(sources, first) == key
    (first / "policies/b.py").rename(first / "policies/e.py")
    assert numba_cache.sources_key(numba_cache.numba_sources(first), first) != key


def test_a_repo_kernel_is_cached_in_the_keys_folder_and_another_file_is_left_to_numba(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("MILES_CACHE_DIR", str(tmp_path / "cache"))
    locator_class = numba_cache.locator_class()
    assert caching.CacheImpl._locator_classes[0] is locator_class
    assert caching.Cache._index_key.numba_index_key  # wrapped once
    assert isinstance(first_non_finite._cache._impl.locator, locator_class)
    step_py = first_non_finite.py_func.__code__.co_filename
    locator = locator_class.from_function(first_non_finite.py_func, step_py)
    key_dir = tmp_path / "cache" / "numba" / numba_cache.cache_key()
    assert Path(locator.get_cache_path()) == key_dir / "sims" / "kernels"

    outside = tmp_path / "outside.py"
    outside.write_text("from numba import njit\n\n@njit(cache=True)\ndef f(x):\n    return x\n")
    spec = importlib.util.spec_from_file_location("outside_kernel", outside)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # decorating makes the cache, compiling nothing
    assert not isinstance(module.f._cache._impl.locator, locator_class)
    assert numba_cache.repo_relative(str(outside)) is None


def test_every_cached_kernel_of_the_repo_is_in_a_package_that_installs_the_locator():
    cached = [
        path
        for folder in REPO.iterdir()
        if folder.is_dir() and not folder.name.startswith(".")
        for path in folder.rglob("*.py")
        if "cache=True" in path.read_text(encoding="utf-8")
    ]
    assert any(p.parts[-3:] == ("sims", "kernels", "step.py") for p in cached)
    assert [p for p in cached if numba_cache.repo_relative(str(p)) is None] == []
    for package in numba_cache.KERNEL_PACKAGES:
        assert "numba_cache.install()" in (REPO / package / "__init__.py").read_text()


def test_the_off_switch_leaves_repo_kernels_to_numbas_own_cache(monkeypatch):
    step_py = first_non_finite.py_func.__code__.co_filename
    monkeypatch.setenv("MILES_NUMBA_CACHE", "0")
    assert not numba_cache.enabled()
    assert numba_cache.locator_class().from_function(first_non_finite.py_func, step_py) is None
    kernel = njit(cache=True)(first_non_finite.py_func)
    assert type(kernel._cache._impl.locator) is caching.InTreeCacheLocator


def _placed(helper, root: Path):
    """``helper`` as if its file were in a checkout at ``root`` (its code's file and its
    globals' ``__file__``, made alike for both places)."""
    path = str(root / Path(helper.__code__.co_filename).relative_to(REPO))
    code = helper.__code__.replace(co_filename=path)
    return types.FunctionType(code, dict(helper.__globals__, __file__=path), helper.__name__)


def test_a_cache_folder_that_cannot_be_made_leaves_the_kernel_to_numba(tmp_path, monkeypatch):
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("MILES_CACHE_DIR", str(tmp_path / "file"))
    step_py = first_non_finite.py_func.__code__.co_filename
    assert numba_cache.locator_class().from_function(first_non_finite.py_func, step_py) is None


def test_a_pickled_helper_hashes_the_same_from_a_checkout_at_another_path(monkeypatch):
    helper = tiny_kernel().py_func.__closure__[0].cell_contents
    assert str(REPO) in dumps(helper).decode("latin-1")
    assert str(REPO).encode() not in numba_cache.relative_pickle(helper)
    here = numba_cache.relative_pickle(_placed(helper, REPO))
    elsewhere = Path("/elsewhere/clone")
    moved = _placed(helper, elsewhere)
    assert numba_cache.relative_pickle(moved) != here  # this checkout's path is cut, not that
    monkeypatch.setattr(numba_cache, "ROOT", elsewhere)
    assert numba_cache.relative_pickle(moved) == here


LOAD = """
import json, sys
import sims  # installs the locator when numba's caching loads, without loading it
assert "numba" not in sys.modules
import numpy as np
sys.path.insert(0, "tests/sims")
import test_numba_cache as t
kernel = t.tiny_kernel()
assert kernel(np.float64(1.0)) == 4.0
print(json.dumps({"hits": sum(kernel.stats.cache_hits.values()),
                  "misses": sum(kernel.stats.cache_misses.values()),
                  "folder": kernel._cache.cache_path}))
"""


def _load(checkout: Path, cache: Path) -> dict:
    """Run :data:`LOAD` in a fresh process in ``checkout`` with the cache ``cache``."""
    env = dict(os.environ, MILES_CACHE_DIR=str(cache), PYTHONPATH=str(checkout))
    env.pop("MILES_NUMBA_CACHE", None)
    proc = subprocess.run(
        [sys.executable, "-c", LOAD], cwd=checkout, env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_clone_at_another_path_loads_what_the_first_compiled(tmp_path):
    clone = tmp_path / "clone"
    for package in numba_cache.KERNEL_PACKAGES:  # the sources, new mtimes
        shutil.copytree(
            REPO / package,
            clone / package,
            copy_function=shutil.copy,
            ignore=lambda folder, names: (
                [n for n in names if not n.endswith(".py") and not (Path(folder) / n).is_dir()]
                + ["__pycache__"]
            ),
        )
    (clone / "tests" / "sims").mkdir(parents=True)
    shutil.copy(__file__, clone / "tests" / "sims")
    first = _load(REPO, tmp_path / "cache")
    second = _load(clone, tmp_path / "cache")
    assert (first["hits"], first["misses"]) == (0, 1)
    assert (second["hits"], second["misses"]) == (1, 0)
    assert first["folder"] == second["folder"]
    assert Path(first["folder"]).is_relative_to(tmp_path / "cache" / "numba")


def test_the_most_recently_used_keys_are_kept(tmp_path):
    now = 1_000_000_000.0
    for age in range(10):  # key k0 used now, k9 ten hours ago
        (tmp_path / f"k{age}").mkdir()
        os.utime(tmp_path / f"k{age}", (now - age * 3600, now - age * 3600))
    removed = numba_cache.prune(tmp_path, keep=3, grace_s=4.5 * 3600, now=now)
    assert sorted(p.name for p in removed) == ["k5", "k6", "k7", "k8", "k9"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k0", "k1", "k2", "k3", "k4"]
