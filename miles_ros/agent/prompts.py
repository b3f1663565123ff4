"""The text the language model sees: one format shared by planning and adapter training.

Grounded scoring (one short line per step; ``done`` ends the plan)::

    Note: <a retrieved memory or replanning feedback, zero or more lines>
    Goal: put the red cube on the left pad, then go home
    Plan:
    pick red left
    home
    done

A goal that cannot be done has the single plan line ``refuse``; one that asks for no
motion has ``done`` first.

Plan lines name skills and scene things by short aliases (the first word of each name,
``pick_place`` -> ``pick``, ``red_cube`` -> ``red``) whenever those are unique, so that
every choice is one token and a step costs few model passes; full names are used where
aliases would collide. Constrained generation (``--mode generate``) instead writes the
canonical JSON plan with full names after ``JSON:``.

Prompt and plan lines are tokenized as separate segments (see :meth:`PlanText.segments`),
the same way in training and planning, so token boundaries never differ between the two.
"""

from __future__ import annotations

import json

from miles_ros.agent.grounding import DONE, REFUSE, Step, format_value
from miles_ros.agent.registry import SkillRegistry

PLAN_TAG = "Plan:\n"
JSON_TAG = "JSON:"

FEW_SHOT_GOALS = [
    (
        "slide the green cube over to the right pad",
        [Step("push", {"object": "green_cube", "target": "right_pad"})],
    ),
    (
        "pick up the blue cube and put it on the left pad, then go back home",
        [Step("pick_place", {"object": "blue_cube", "target": "left_pad"}), Step("home")],
    ),
    ("move your hand over the red cube", [Step("reach", {"target": "red_cube"})]),
]
"""Examples put before the prompt when no adapter is loaded (the base model needs them)."""


def _aliases(names: list[str]) -> dict[str, str]:
    first = {n: n.split("_")[0] for n in names}
    counts: dict[str, int] = {}
    for a in first.values():
        counts[a] = counts.get(a, 0) + 1
    return {n: (a if counts[a] == 1 and a else n) for n, a in first.items()}


class PlanText:
    """Formats goals and steps for one registry and scene."""

    def __init__(self, registry: SkillRegistry, names: list[str]):
        self.registry = registry
        self.names = list(names)
        self.skill_alias = _aliases([*registry.names, DONE, REFUSE])
        self.name_alias = _aliases(self.names)

    def line(self, step: Step) -> str:
        """One plan line, newline included: ``pick red left\\n``."""
        if step.skill in (DONE, REFUSE):
            return self.skill_alias[step.skill] + "\n"
        order = self.registry[step.skill].param_names
        values = []
        for name in order:
            if name in step.params:
                v = step.params[name]
                values.append(self.name_alias.get(v, v) if isinstance(v, str) else format_value(v))
        return " ".join([self.skill_alias[step.skill], *values]) + "\n"

    @staticmethod
    def header(goal: str, notes: list[str] | None = None) -> str:
        """The prompt up to the plan tag."""
        lines = [f"Note: {' '.join(n.split())}" for n in notes or []]
        lines.append("Goal: " + " ".join(goal.split()))
        return "\n".join(lines) + "\n"

    def few_shot(self) -> str:
        """Worked examples for a model without the adapter."""
        out = []
        for goal, steps in FEW_SHOT_GOALS:
            lines = "".join(self.line(s) for s in [*steps, Step(DONE)])
            out.append(self.header(goal) + PLAN_TAG + lines + "\n")
        return "".join(out)

    def segments(
        self, goal: str, steps: list[Step], notes: list[str] | None = None, few_shot: bool = False
    ) -> list[str]:
        """Prompt segments for grounded scoring: header + tag, then one per step so far."""
        first = (self.few_shot() if few_shot else "") + self.header(goal, notes) + PLAN_TAG
        return [first, *[self.line(s) for s in steps]]

    def json_prompt(
        self, goal: str, notes: list[str] | None = None, few_shot: bool = False
    ) -> str:
        """The prompt for constrained JSON generation (the plan follows after a space)."""
        shots = ""
        if few_shot:
            shots = "".join(
                self.header(g) + JSON_TAG + " " + self.json_plan(s) + "\n\n"
                for g, s in FEW_SHOT_GOALS
            )
        return shots + self.header(goal, notes) + JSON_TAG

    def json_plan(self, steps: list[Step]) -> str:
        """A plan as canonical JSON (keys: skill, params; params in schema order)."""
        items = []
        for step in steps:
            if step.skill == DONE:
                continue
            order = self.registry[step.skill].param_names
            items.append(
                {
                    "skill": step.skill,
                    "params": {k: step.params[k] for k in order if k in step.params},
                }
            )
        return json.dumps({"steps": items})
