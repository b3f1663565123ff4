"""sims.yaml_files: libyaml's parser where PyYAML has it, and the same objects as
``yaml.safe_load`` for every YAML file the repository ships (cards, scenes, configs)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from sims import yaml_files

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted(
    p
    for folder in ("config", "policies/skills", "sims", "miles_ros")
    for p in (ROOT / folder).rglob("*.yaml")
)


def test_libyaml_parses_where_pyyaml_was_built_with_it():
    assert SHIPPED, "no YAML files found"
    if yaml.__with_libyaml__:
        assert yaml_files.SAFE_LOADER is yaml.CSafeLoader
    else:
        assert yaml_files.SAFE_LOADER is yaml.SafeLoader


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_shipped_file_parses_to_what_safe_load_gives(path):
    text = path.read_text(encoding="utf-8")
    expected = yaml.safe_load(text)  # PyYAML's pure-Python parse: most of the test's time
    assert yaml_files.safe_load(text) == expected
    with open(path, encoding="utf-8") as stream:
        assert yaml_files.safe_load(stream) == expected


@pytest.mark.parametrize("text", ["a: [1, 2", "a: b: c", "\tkey: 1"])
def test_malformed_yaml_raises_yaml_error_as_safe_load_does(text):
    with pytest.raises(yaml.YAMLError):
        yaml.safe_load(text)
    with pytest.raises(yaml.YAMLError):
        yaml_files.safe_load(text)


def test_unsafe_tags_are_refused():
    with pytest.raises(yaml.YAMLError):
        yaml_files.safe_load("!!python/object/apply:os.system ['true']")
