"""numba's on-disk cache (``cache=True``) keyed by the contents of the repo's numba sources,
in the Miles cache directory: a fresh clone loads the kernels another checkout compiled.

numba keeps a kernel's cache beside its source (``__pycache__/*.nbi|*.nbc``) and checks
only that one file: a clone at another path starts empty, and an edit of a helper that a
kernel inlines from another file leaves the kernel stale. Here a kernel defined in the
repo (:data:`PACKAGES`) is cached under ``$MILES_CACHE_DIR/numba/<key>/<its folder>/``
(:func:`sims.user_cache.cache_dir`, default ``~/.cache/miles``), where ``<key>``
(:func:`cache_key`) hashes the contents of every numba source (:func:`numba_sources`:
the files of :data:`PACKAGES` but ``tests`` that mention ``njit``, ``register_jitable``
or ``cuda.jit``; their paths relative to the checkout, not the checkout's own path),
numba's and Python's versions and the CPU (numba's compiled code is per CPU name and
features). An edit of any of them gives a new, empty folder. A kernel in ``tests/`` (a
test's own ``njit`` wrapper) is cached there too: numba's own stamp, the content of its
file, covers that file, and the key what it inlines; a task's kernels hold
:func:`sims.kernels.cache_keys.task_stamp` (the task's files, a test's toy task too).
A file outside the repo falls through to numba's own locators.

numba also keys a closure's entry by its pickled cells, and a pickled function holds its
file's absolute path (a task kernel's helpers; numba's own, from the venv): for a repo
kernel they are pickled with those paths relative (:func:`relative_pickle`), so a clone at
another path, with its own venv, finds the entries.

The folders of the :data:`KEEP` most recently used keys are kept; an older one is removed
when a new key is first used, unless a process used it in the last :data:`GRACE_S`.
``MILES_NUMBA_CACHE=0`` turns this off (numba's own cache beside the sources).

:func:`install` puts the locator first in numba's list, once, when ``numba.core.caching``
is imported (``import numba`` does), or at once if it already is; ``sims``, ``policies``
and ``miles_ros`` call it from their ``__init__``, so it runs before any of their
``cache=True`` decorators, and importing this module costs no numba import. Subprocesses
(``miles up``, torchrun ranks) import the same packages and inherit ``MILES_CACHE_DIR``.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import io
import os
import re
import sys
import time
from collections.abc import Iterable
from pathlib import Path

from sims.user_cache import cache_dir

ROOT = Path(__file__).resolve().parents[1]
"""The checkout (or the folder the packages are installed in)."""
PACKAGES = ("sims", "policies", "miles_ros", "tests")
"""The folders under :data:`ROOT` whose kernels are cached here."""
KERNEL_PACKAGES = PACKAGES[:3]
"""The folders whose numba sources make the key."""
MARKERS = (b"njit", b"register_jitable", b"cuda.jit")
"""A file that mentions one of these is a numba source."""
KEEP = 8
"""Key folders kept (the most recently used)."""
GRACE_S = 3600.0
"""A key folder used this recently is never removed (a process may still run from it)."""
ENV_SWITCH = "MILES_NUMBA_CACHE"
"""``0`` (or ``off``, ``false``, ``no``) turns the content-keyed cache off."""


def enabled() -> bool:
    """Whether repo kernels go to the content-keyed cache (:data:`ENV_SWITCH`)."""
    return os.environ.get(ENV_SWITCH, "1").strip().lower() not in ("0", "off", "false", "no")


def numba_sources(root: Path = ROOT) -> list[Path]:
    """The ``.py`` files of :data:`KERNEL_PACKAGES` under ``root`` that mention numba's
    decorators (:data:`MARKERS`), sorted."""
    found = []
    for package in KERNEL_PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            data = path.read_bytes()
            if any(marker in data for marker in MARKERS):
                found.append(path)
    return found


def sources_key(files: Iterable[Path], root: Path) -> str:
    """A hash of ``files``' paths relative to ``root`` and of their contents (not their
    mtimes, not ``root``)."""
    h = hashlib.sha256()
    for path in sorted(Path(f) for f in files):
        h.update(path.relative_to(root).as_posix().encode() + b"\0")
        data = path.read_bytes()
        h.update(len(data).to_bytes(8, "little") + data)
    return h.hexdigest()


def _platform() -> str:
    """numba's and Python's versions and the CPU that numba compiles for."""
    import numba
    from llvmlite import binding
    from numba.core import config

    cpu = config.CPU_NAME or binding.get_host_cpu_name()
    features = config.CPU_FEATURES or binding.get_host_cpu_features().flatten()
    versions = f"numba {numba.__version__}\npython {sys.version}"
    return f"{versions}\n{os.uname().machine} {cpu} {features}"


_key: str | None = None


def cache_key() -> str:
    """This checkout's key (computed once per process): 16 hex digits of a hash of
    :func:`sources_key` over :func:`numba_sources` and :func:`_platform`."""
    global _key
    if _key is None:
        text = sources_key(numba_sources(), ROOT) + "\n" + _platform()
        _key = hashlib.sha256(text.encode()).hexdigest()[:16]
    return _key


def numba_dir() -> Path:
    """The folder of every key's folder."""
    return cache_dir() / "numba"


_used: set[Path] = set()


def key_dir() -> Path:
    """This key's folder; created, marked used (its mtime) and the old ones pruned the
    first time a process asks."""
    folder = numba_dir() / cache_key()
    if folder not in _used:
        created = not folder.is_dir()
        folder.mkdir(parents=True, exist_ok=True)
        os.utime(folder)
        _used.add(folder)
        if created:
            prune(numba_dir())
    return folder


def prune(
    parent: Path, keep: int = KEEP, grace_s: float = GRACE_S, now: float | None = None
) -> list[Path]:
    """Remove the key folders in ``parent`` but the ``keep`` most recently used, and those
    used in the ``grace_s`` seconds before ``now`` (default: the time); the removed ones."""
    import shutil

    folders = []
    for child in parent.iterdir():
        try:
            if child.is_dir():
                folders.append((child.stat().st_mtime, child))
        except OSError:
            continue
    folders.sort(reverse=True)
    now = time.time() if now is None else now
    removed = []
    for mtime, folder in folders[keep:]:
        if now - mtime > grace_s:
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def repo_relative(py_file: str) -> Path | None:
    """``py_file`` relative to :data:`ROOT` if it is in one of :data:`PACKAGES`, else None."""
    try:
        rel = Path(py_file).resolve().relative_to(ROOT)
    except (OSError, ValueError):
        return None
    return rel if len(rel.parts) > 1 and rel.parts[0] in PACKAGES else None


_locator = None


def locator_class():
    """The numba cache locator (built on first use: it subclasses numba's classes)."""
    global _locator
    if _locator is None:
        from numba.core import caching

        class ContentKeyedLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
            """A repo kernel's cache folder: ``<key folder>/<its folder in the repo>``;
            its stamp and disambiguator are numba's (its file's content, its line)."""

            def __init__(self, py_func, py_file):
                self._py_file = py_file
                self._lineno = py_func.__code__.co_firstlineno
                self._cache_path = str(key_dir() / repo_relative(py_file).parent)

            def get_cache_path(self):
                return self._cache_path

            @classmethod
            def from_function(cls, py_func, py_file):
                if not enabled() or repo_relative(py_file) is None:
                    return None
                try:
                    return super().from_function(py_func, py_file)
                except OSError:  # the key's folder cannot be made: numba's own locators
                    return None

        _locator = ContentKeyedLocator
    return _locator


def _path_prefixes() -> list[str]:
    """The folders whose absolute paths a pickled function holds and that differ between
    checkouts: the checkout's and numba's install folder (a venv in the checkout), as
    given and resolved, longest first."""
    import numba

    paths = {str(ROOT), os.path.dirname(os.path.dirname(numba.__file__))}
    paths |= {os.path.realpath(p) for p in paths}
    return sorted((p.rstrip(os.sep) + os.sep for p in paths), key=len, reverse=True)


def relative_pickle(obj) -> bytes:
    """``obj`` pickled by numba's pickler, unframed (protocol 3), with each string that
    starts with one of :func:`_path_prefixes` (a code object's file, a function's
    ``__file__``) cut to the rest: no longer a pickle (those lengths are dropped), but as
    good for a hash."""
    from numba.core.serialize import NumbaPickler

    with io.BytesIO() as buf:
        NumbaPickler(buf, protocol=3).dump(obj)
        data = buf.getvalue()
    for prefix in _path_prefixes():  # BINUNICODE: "X", a 4-byte length, the UTF-8 text
        data = re.sub(rb"X[\x00-\xff]{4}" + re.escape(prefix.encode()), b"X<path>/", data)
    return data


def _index_key(numba_index_key):
    """numba's ``Cache._index_key``, but for a repo kernel the hash of its closure's
    pickled cells taken by :func:`relative_pickle`."""

    def index_key(self, sig, codegen):
        key = numba_index_key(self, sig, codegen)
        closure = self._py_func.__closure__
        if closure is None or not isinstance(self._impl.locator, locator_class()):
            return key
        cells = relative_pickle(tuple(cell.cell_contents for cell in closure))
        signature, magic, (code, _) = key
        return signature, magic, (code, hashlib.sha256(cells).hexdigest())

    index_key.numba_index_key = numba_index_key
    return index_key


def _patch(caching) -> None:
    """Put the locator first in numba's list and wrap its index key (once)."""
    cls = locator_class()
    if cls not in caching.CacheImpl._locator_classes:
        caching.CacheImpl._locator_classes.insert(0, cls)
    if not hasattr(caching.Cache._index_key, "numba_index_key"):
        caching.Cache._index_key = _index_key(caching.Cache._index_key)


class _Loader:
    """``numba.core.caching``'s own loader, then :func:`_patch` (an import loader by its
    methods: ``importlib.abc`` costs 10 ms to import)."""

    def __init__(self, loader):
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        _patch(module)

    def __getattr__(self, name):  # get_source, get_code, ... (inspect, linecache)
        return getattr(self.loader, name)


class _Finder:
    """Finds ``numba.core.caching`` as the path finder does, with :class:`_Loader`; then
    leaves ``sys.meta_path``."""

    def find_spec(self, name, path, target=None):
        if name != "numba.core.caching":
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is not None and spec.loader is not None:
            spec.loader = _Loader(spec.loader)
        return spec


def install() -> None:
    """Install the locator now if numba's caching is imported, else when it is."""
    caching = sys.modules.get("numba.core.caching")
    if caching is not None:
        _patch(caching)
    elif not any(isinstance(finder, _Finder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
