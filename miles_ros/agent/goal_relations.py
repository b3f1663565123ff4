"""The relations of the symbolic reading (:mod:`miles_ros.agent.reading`): a cube put on,
pushed against or touching another thing, refused when no skill's parameter schema takes
it, when the target cube does not rest on the table, or when the moved cube is covered."""

from __future__ import annotations

import re

from miles_ros.agent.goal_clauses import _TARGET_PREP, _Clause, _Vocabulary
from miles_ros.agent.goal_manners import _NO_GRASP, _NO_TOUCH, _rules_out_grasping
from miles_ros.agent.reading_order import stacking_after
from miles_ros.agent.vocabulary import RELATIONS
from miles_ros.agent.world import World
from miles_ros.runtime.goals import covered_error


def _takes_cube_target(skill, vocab: _Vocabulary) -> bool:
    if "target" not in skill.param_names:
        return False
    names, _ = skill.card.param_choices("target", sorted(vocab.objects))
    return bool(names) and "object" in skill.param_names


def _no_stack(registry, obj: str | None = None, target: str | None = None) -> str:
    movers = [s for s in registry if "object" in s.param_names and "target" in s.param_names]
    takes = (
        "; ".join(f"{s.name} takes target {_target_kinds(s)}" for s in movers)
        or "no skill moves a cube"
    )
    what = f"putting {obj} on {target}" if obj else "stacking"
    return f"no skill for {what} (a cube on a cube): {takes}"


def _no_push_to_cube(registry, obj: str, target: str, takers) -> str:
    """Why a cube cannot be pushed (moved without lifting) to another cube: the skills that
    take the cube as a target lift it; those that do not lift take no cube."""
    pushers = [
        s
        for s in registry
        if "object" in s.param_names
        and "target" in s.param_names
        and "grasps" not in s.permissions
    ]
    takes = "; ".join(f"{s.name} takes target {_target_kinds(s)}" for s in pushers)
    lifters = ", ".join(s.name for s in takers)
    return (
        f"no skill moves {obj} to {target} without lifting it (a cube to a cube): "
        f"{takes or 'no skill moves a cube without lifting it'}; {lifters} would lift it"
    )


def _target_kinds(skill) -> str:
    spec = skill.parameters.get("properties", {}).get("target", {})
    names: list[str] = []
    point = False
    for option in [spec, *spec.get("oneOf", []), *spec.get("anyOf", [])]:
        names += [e for e in option.get("enum", []) if e not in names]
        point |= option.get("type") == "array"
    return " or ".join(
        [*(["one of " + ", ".join(names)] if names else []), *(["a point"] if point else [])]
    )


_SENT_ONLY = re.compile(
    r"^(?:\w+ )*?\w+ ?: (?:first |then )?(?:the )?\w+(?: cube| block| one)? (?:to|onto|on)\b"
)
"""A cube sent to a place with its verb said once before a colon ("unstack the tower: green
to the left pad first"): moved by that clause, so a cube it covered is free after it."""


def _relation(
    text: str, clauses: list[_Clause], vocab: _Vocabulary, registry, world: World
) -> str | None:
    cube_target = [s.name for s in registry if _takes_cube_target(s, vocab)]
    if re.search(r"\b(?:stack|pile)\w*", text) and not cube_target:
        return _no_stack(registry)
    prev: str | None = None
    moved_before: set[str] = set()  # "unstack it: green to the left pad, then blue ..."
    # A clause that only says how ("could you, without lifting it,") qualifies the next
    # one; "don't lift it" alone speaks of the cube before it.
    manner = ""
    for clause in clauses:
        obj = clause.moved
        body = _NO_TOUCH.sub(" ", f"{manner} {clause.text}".strip())
        bare = obj is None and not clause.cubes and not clause.places
        fronted = re.search(r"\b(?:without|using|by|instead of|rather than)\b", clause.text)
        manner = clause.text if bare and fronted and _NO_GRASP.search(clause.text) else ""
        if obj is None and _SENT_ONLY.search(clause.text) and len(clause.cubes) == 1:
            moved_before.add(clause.cubes[0])  # "unstack it: green to the left pad first"
        if obj is not None:
            for rel in RELATIONS:
                if re.search(rf"\b{rel}\b", body):
                    return (
                        f"no skill places a cube {rel} another thing: skill targets are a "
                        "named pad or cube or a point"
                    )
            for m in _TARGET_PREP.finditer(body):
                first, second = m.group(1), m.group(2) or ""
                if first == "it":
                    target = prev if prev != obj else None
                else:
                    name = vocab.word_to_name.get(first)
                    target = name if name in vocab.objects else None
                    if target is not None and second in vocab.place_words:
                        target = None
                if target is None:
                    continue
                if target == obj:
                    return f"{obj} cannot be put on itself"
                stacking = stacking_after(obj, target, world, moved_before)
                if stacking:
                    return stacking
                params = {"object": obj, "target": target}
                takers = [s for s in registry if not s.validate(params)]
                if not takers:
                    return _no_stack(registry, obj, target)
                if _rules_out_grasping(body) and all("grasps" in s.permissions for s in takers):
                    return _no_push_to_cube(registry, obj, target, takers)
            # no skill takes a cube from under another, unless an earlier step took that off
            standing = {
                n: p for n, p in world.objects.items() if n == obj or n not in moved_before
            }
            if obj in world.objects and covered_error(obj, standing):
                return covered_error(obj, standing)
            moved_before.add(obj)
        prev = clause.cubes[-1] if clause.cubes else (obj or prev)
    return None
