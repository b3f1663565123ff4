"""``miles train``'s config options: each one sets its key of the training config, an
unset one leaves the config as it was."""

from __future__ import annotations

import functools

from policies.commands.train_args import CONFIG_OPTIONS, apply_overrides, build_parser
from policies.ppo.config import default_train_config


def _value(cfg, key: str):
    return functools.reduce(getattr, key.split("."), cfg)


def test_every_config_option_sets_its_key():
    argv, expected = ["reach"], {}
    for k, (option, key, kwargs) in enumerate(CONFIG_OPTIONS):
        value = kwargs["choices"][-1] if "choices" in kwargs else kwargs.get("type", str)(k + 2)
        argv += [option, str(value)]
        expected[key] = value
    cfg = default_train_config("reach")
    assert all(_value(cfg, key) != value for key, value in expected.items())
    apply_overrides(cfg, build_parser().parse_args(argv))
    assert {key: _value(cfg, key) for key in expected} == expected


def test_unset_options_leave_the_config_as_it_was():
    cfg = default_train_config("reach")
    apply_overrides(cfg, build_parser().parse_args(["reach"]))
    assert cfg == default_train_config("reach")
