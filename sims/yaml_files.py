"""Parsing the YAML files Miles reads again and again (skill cards, scenes, the actuator
and safety parameters): with libyaml's parser when PyYAML was built with it
(``yaml.CSafeLoader``: the same resolver and constructor as ``yaml.safe_load``, so the
same objects, about 7x faster on the shipped files), else PyYAML's own. A test suite run
parsed the cards alone hundreds of times (docs/testing.md)."""

from __future__ import annotations

import yaml

SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader where available, else PyYAML's pure-Python one."""


def safe_load(stream):
    """``yaml.safe_load(stream)`` (a string or an open file), parsed by :data:`SAFE_LOADER`;
    raises ``yaml.YAMLError`` as it does."""
    return yaml.load(stream, Loader=SAFE_LOADER)
