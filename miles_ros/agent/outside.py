"""Why the grounded search refuses rather than takes the step its model ranks first: the
step lies outside its skill's trained envelope, cannot run on the stack it finds, does what
the goal forbids, or is a push through another cube (:func:`asked_outside`, called by
:class:`miles_ros.agent.planner.Planner` at each step)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from miles_ros.agent.grounding import Step, outside_envelope
from miles_ros.agent.reading import GoalReading
from miles_ros.agent.registry import SkillRegistry
from miles_ros.agent.world import World
from miles_ros.runtime.goals import (
    ON_TABLE_TASKS,
    covered_error,
    off_table_error,
    push_path_error,
)


def _covered(step: Step, world: World) -> str | None:
    """Why ``step`` cannot move its cube: another cube lies on it (an earlier step put it
    there, or a tower stands)."""
    obj = step.params.get("object")
    if not isinstance(obj, str) or obj not in world.objects or step.params.get("target") == obj:
        return None
    return covered_error(obj, world.objects)


def _off_table(step: Step, registry: SkillRegistry, world: World) -> str | None:
    """Why ``step``, a skill whose task starts with the cube on the table (a push, a turn),
    cannot take its cube: it stands on another cube (a tower) or is held
    (:func:`~miles_ros.runtime.goals.off_table_error`, the resolver's rule), or None."""
    task = str(registry[step.skill].card.task) if step.skill in registry else ""
    obj = step.params.get("object")
    if task not in ON_TABLE_TASKS or not isinstance(obj, str) or obj not in world.objects:
        return None
    return off_table_error(obj, world.objects, task)


def _through(step: Step, registry: SkillRegistry, world: World) -> str | None:
    """Why ``step``, a move without grasping (a push), passes another cube on its way to
    its target (:func:`~miles_ros.runtime.goals.push_path_error`, the resolver's rule), or
    None: not a push, or a clear path."""
    skill = registry[step.skill] if step.skill in registry else None
    obj, target = step.params.get("object"), step.params.get("target")
    if skill is None or "grasps" in skill.permissions or obj not in world.objects:
        return None
    if target is None or (isinstance(target, str) and target not in world.places):
        return None  # a push to a cube: the schema's and the reading's to refuse
    if covered_error(obj, world.objects) or off_table_error(obj, world.objects, "push"):
        return None  # refused first for that: not a path to check (a cube on a stack)
    return push_path_error(obj, world.position_of(target), world.objects)


@dataclass(frozen=True)
class Outside:
    """The grounded search's answer when the step the goal asks for lies outside its
    skill's trained envelope: the plan is refused with ``reason``."""

    reason: str


def asked_outside(
    cands, lm_scores, affordances, rejected, world, reading: GoalReading, registry: SkillRegistry
) -> str | None:
    """Why the step the model ranks first lies outside its skill's trained envelope
    or cannot run on the stack it finds (a cube put on the cube it is to move: "put
    the red cube on the blue cube, then put the blue cube on the left pad"; a push or a turn
    of a cube standing on another: :func:`_off_table`), or does
    what the goal forbids on a cube its positive part names ("don't touch the
    blue cube, put the red cube on it"), or is a push the goal resolver refuses (through
    another cube: :func:`_through`; a goal that says "put" or "move" has its pushes
    masked by the reading, and lifts the cube over), or None. The planner then refuses
    the goal
    (naming the step) instead of doing the next best thing: the goal asks for a call
    the skill was never trained for, or one it rules out itself, and a robot that does
    something else is worse than one that says no."""
    order = np.argsort(-np.asarray(lm_scores, dtype=np.float64))
    for i in order:
        cand = cands[i]
        if affordances[i] > 0:
            return None  # the model's first choice (among those allowed) can run
        forbidden = reading.prohibited(cand, registry)
        named = {v for v in cand.params.values() if isinstance(v, str)} & set(reading.names)
        if forbidden and any(r.cube in named for r in reading.prohibitions):
            return f"{cand.key()}: {forbidden}"
        if rejected[i]:
            continue  # banned, failed before or against the goal's wording: not asked
        why = (
            outside_envelope(cand, registry, world)
            or _covered(cand, world)
            or _off_table(cand, registry, world)
        )
        if why:
            return why
        blocked = _through(cand, registry, world)
        return f"{cand.key()}: {blocked}" if blocked else None
    return None
