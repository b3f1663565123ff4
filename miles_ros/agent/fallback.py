"""The labelled rule-based fallback plan (``PlannerConfig.fallback``; off by default, and
a plan it produced is never counted as the model's)."""

from __future__ import annotations

import re

from miles_ros.agent.grounding import Step, goal_points
from miles_ros.agent.registry import SkillRegistry
from miles_ros.agent.world import World

_PUSH_WORDS = ("push", "slide", "shove", "nudge", "scoot", "drag", "without lifting")
_REACH_WORDS = ("reach", "hover", "point", "go to", "move to", "approach", "above", "over the")
_HOME_WORDS = ("home", "rest position", "park")


def rule_based_plan(goal: str, registry: SkillRegistry, world: World) -> list[Step]:
    """A keyword plan: one clause per connector, verb words pick the skill, colour and side
    words pick the things. Crude by design; used only when asked, and always labelled."""
    steps: list[Step] = []
    points = iter(goal_points(goal))
    for clause in re.split(r",? then |, and |\band then\b|;|\. ", goal.lower()):
        names = [
            n
            for n in sorted(world.names, key=lambda n: clause.find(n.split("_")[0]))
            if n.split("_")[0] in clause
        ]
        cubes = [n for n in names if n in world.objects]
        if any(w in clause for w in _HOME_WORDS) and "home" in registry:
            steps.append(Step("home"))
            continue
        target: object = next((n for n in names if n not in cubes[:1]), None)
        if target is None and re.search(r"\d", clause):
            target = list(next(points, ())) or None
        if cubes and target is not None:
            skill = "push" if any(w in clause for w in _PUSH_WORDS) else "pick_place"
            if skill in registry:
                steps.append(Step(skill, {"object": cubes[0], "target": target}))
        elif target is not None or names:
            if "reach" in registry and any(w in clause for w in _REACH_WORDS):
                steps.append(Step("reach", {"target": target or names[0]}))
    return steps
