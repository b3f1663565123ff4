"""Validation of a plan against the skill registry and the scene, before anything runs."""

from __future__ import annotations

import json

import jsonschema

from miles_ros.agent.grounding import (
    DONE,
    Step,
    goal_error,
    outside_envelope,
    stacking_error,
)
from miles_ros.agent.registry import SkillRegistry
from miles_ros.agent.world import World, in_workspace
from miles_ros.runtime.goals import GOAL_KEYWORDS, turn_place_error


class PlanError(ValueError):
    """A plan that must not run; ``errors`` lists every problem found."""

    def __init__(self, errors: list[str]):
        super().__init__("; ".join(errors))
        self.errors = errors


def parse_plan_json(text: str) -> list[Step]:
    """Steps from a JSON plan ``{"steps": [{"skill", "params"}, ...]}`` (PlanError if not)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PlanError([f"not JSON: {exc.msg} at {exc.pos}"]) from exc
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
        raise PlanError(['expected an object {"steps": [...]}'])
    steps = []
    for i, item in enumerate(data["steps"]):
        if not isinstance(item, dict) or "skill" not in item:
            raise PlanError([f'steps[{i}]: expected {{"skill", "params"}}'])
        steps.append(Step(str(item["skill"]), item.get("params") or {}))
    return steps


def validate_plan(
    steps: list[Step], registry: SkillRegistry, world: World, max_steps: int = 8
) -> list[str]:
    """Every problem with a plan (empty when it may run).

    Checks the registry's JSON schema (skill names, parameter names and types), then the
    scene: named things exist, an object is not moved onto itself, nor onto a cube that
    does not rest on the table then (held, or on another cube), a cube turned in place is
    neither covered nor off the table, points lie in the planning workspace, every step
    lies inside its card's envelope, and the goal resolver the skill node runs
    (:func:`~miles_ros.agent.grounding.goal_error`) accepts every step those checks pass
    (e.g. a turn by a multiple of 90 degrees, a push to something that is not a pad), each
    in the world the steps before it leave; and the plan is not empty or too long.
    """
    errors: list[str] = []
    flagged: set[int] = set()  # steps with an error already: the resolver would repeat it

    def report(i: int, message: str) -> None:
        errors.append(message)
        flagged.add(i)

    real = [s for s in steps if s.skill != DONE]
    if not real:
        errors.append("the plan has no steps")
    if len(real) > max_steps:
        errors.append(f"the plan has {len(real)} steps; at most {max_steps}")
    plan = {"steps": [s.to_dict() for s in real]}
    validator = jsonschema.Draft202012Validator(
        registry.plan_schema(max_steps=max(max_steps, len(real)))
    )
    for error in validator.iter_errors(plan):
        errors.append(_explain(error, registry, plan))
        path = list(error.absolute_path)
        if len(path) >= 2 and path[0] == "steps" and isinstance(path[1], int):
            flagged.add(path[1])
    for i, step in enumerate(real):
        if step.skill not in registry:
            continue
        for name, value in step.params.items():
            if isinstance(value, str) and value not in [*world.names, *GOAL_KEYWORDS]:
                report(
                    i,
                    f"steps[{i}] {step.skill}: {name}={value!r} is not in the scene "
                    f"({', '.join(world.names)})",
                )
            elif isinstance(value, list) and len(value) == 3 and not in_workspace(tuple(value)):
                report(
                    i, f"steps[{i}] {step.skill}: {name}={value} is outside the planning workspace"
                )
        obj, target = step.params.get("object"), step.params.get("target")
        if obj is not None and obj == target:
            report(i, f"steps[{i}] {step.skill}: object and target are both {obj!r}")
    work = world.copy()
    for i, step in enumerate(real):
        if step.skill not in registry:
            break
        outside = outside_envelope(step, registry, work)
        if outside:
            report(i, f"steps[{i}] {outside}")
        stacking = stacking_error(step.params, work)
        obj, target = step.params.get("object"), step.params.get("target")
        if stacking and obj != target:
            report(i, f"steps[{i}] {step.skill}: {stacking}")
        elif (
            obj in work.objects and target is None and (why := turn_place_error(obj, work.objects))
        ):
            report(i, f"steps[{i}] {step.skill}: {why}")  # said even beside an envelope's
        if i not in flagged and (why := goal_error(step, registry, work)):
            report(i, f"steps[{i}] {step.skill}: {why}")
        try:
            work.apply(registry[step.skill].effects_machine, step.params)
        except (KeyError, ValueError, TypeError):  # a bad name or point: reported above
            break
    return list(dict.fromkeys(errors))


def _explain(error: jsonschema.ValidationError, registry: SkillRegistry, plan: dict) -> str:
    path = list(error.absolute_path)
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path) or "plan"
    if len(path) >= 2 and path[0] == "steps" and error.validator == "oneOf":
        step = plan["steps"][path[1]]
        name = step.get("skill") if isinstance(step, dict) else None
        if name not in registry:
            return f"steps[{path[1]}]: unknown skill {name!r}; known: {', '.join(registry.names)}"
        problems = registry[name].validate(step.get("params") or {})
        if problems:
            return f"steps[{path[1]}] " + "; ".join(problems)
    return f"{where}: {error.message}"
