"""``miles eval ... --perception`` with the tracking's settings changed: a variant of
:class:`~miles_ros.perception.PerceptionConfig` run on the same seeded episodes (and,
since each episode draws its camera noise from its own stream, the same camera noise up
to where the tracking first differs) as the shipped tracking, for a paired comparison.

    .venv/bin/python bench/perception_variant.py held_hidden_across_weight=0.43 \
        held_yaw_from_opening=true -- pick_place --supervised --perception \
        --variant stack --episodes 50 --seed 1000 --trace variant.jsonl
    .venv/bin/python bench/stack_failures.py variant.jsonl --against shipped.jsonl

Each ``NAME=VALUE`` sets one of the config's fields (``true``/``false``, ``none``, or a
number), ``detect.NAME=VALUE`` one of its detection's (:class:`DetectConfig`); the
arguments after ``--`` are ``miles eval``'s, ``--record`` refused (a variant never writes
a card's evidence).
"""

from __future__ import annotations

import dataclasses
import functools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from miles_ros.perception import DetectConfig, PerceptionConfig  # noqa: E402

PROG = "perception_variant"


def parse_settings(pairs: list[str]) -> dict:
    """``NAME=VALUE`` pairs as :class:`PerceptionConfig` keyword arguments, the
    ``detect.NAME=VALUE`` ones gathered into its ``detect`` (a :class:`DetectConfig`);
    ValueError for an unknown name or a value that is none of ``true``, ``false``,
    ``none``, a number."""
    fields = {f.name for f in dataclasses.fields(PerceptionConfig)} - {"detect"}
    fields |= {f"detect.{f.name}" for f in dataclasses.fields(DetectConfig)}
    words = {"true": True, "false": False, "none": None}
    out, detect = {}, {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or name not in fields:
            raise ValueError(f"{pair!r}: expected NAME=VALUE, NAME one of {sorted(fields)}")
        into, key = (detect, name[len("detect.") :]) if name.startswith("detect.") else (out, name)
        if value.lower() in words:
            into[key] = words[value.lower()]
            continue
        try:
            into[key] = float(value)
        except ValueError:
            message = f"{pair!r}: the value is none of true, false, none, a number"
            raise ValueError(message) from None
    if detect:
        out["detect"] = DetectConfig(**detect)
    return out


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--" not in argv:
        print(f"{PROG}: usage: NAME=VALUE ... -- SKILL [miles eval options]", file=sys.stderr)
        return 2
    cut = argv.index("--")
    eval_argv = argv[cut + 1 :]
    if "--record" in eval_argv:
        print(f"{PROG}: --record refused: a variant never writes the card", file=sys.stderr)
        return 2
    try:
        config = PerceptionConfig(**parse_settings(argv[:cut]))
    except (TypeError, ValueError) as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    from miles_ros.commands import evaluate

    print(f"{PROG}: {config}", file=sys.stderr)
    use_config(config)
    return evaluate.main(eval_argv, prog=f"{PROG} (miles eval)")


def use_config(config: PerceptionConfig) -> None:
    """Every episode's :class:`~miles_ros.perception.Perception` in the closed loop
    (:class:`~miles_ros.perception.closed_loop.PerceivedObservation`'s default factory)
    made with ``config``."""
    from miles_ros.perception import closed_loop, pipeline

    closed_loop.Perception = functools.partial(pipeline.Perception, config=config)


if __name__ == "__main__":
    sys.exit(main())
