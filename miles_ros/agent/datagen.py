"""Goal -> plan pairs generated from the skill registry and the scene (adapter training data).

Versioned (:data:`GENERATOR_VERSION`; bump it whenever templates change, the adapter card
records it). The generator draws 1-3 steps over the scene's cubes and pads, then words
them with many verbs and paraphrases per skill, synonyms for every object and pad,
connectors, politeness, capitalisation and punctuation noise, coordinates, and the
contrasts a small model otherwise misses:

- manner: "move X to Y by pushing it" / "without lifting it" (push) against
  "by picking it up" / "lift X over to Y" (pick_place); bare "move" means pick_place;
- a dropped verb in later clauses: "... and the blue cube to the left pad",
  "..., then the red one", "... and the right one too";
- order words: "first ..., then ...", "after ..., ...", "before ..., ...";
- negation and manner: "don't lift it" / "without grasping it" (push), "tap" / "poke"
  (reach);
- refusals (v5): infeasible goals whose plan is ``refuse``, goals that ask for no motion
  (empty plan), from :mod:`miles_ros.agent.datagen_infeasible`; with a registry, a drawn
  step its schemas reject (e.g. a cube on a cube when ``pick_place`` takes pads only)
  turns the example into a refusal;
- (v6) a drawn plan with a step the goal resolver refuses in the world the steps before it
  leave (:meth:`Generator.blocked`: a push through another cube, the push card's path
  rule; a covered cube moved) is a refusal: 503 of v5's 3,138 positive examples (seed 0,
  4,000 goals, the default scene), 413 of them pushes through a cube. The random draws
  are v5's, only those labels changed.

The hand-written evaluation set (``miles_ros/agent/eval_goals.yaml``) is written
separately and shares no templates with this file.

Why over 400 lines: most of it is word lists, and it is one :class:`Generator` drawing
from one random stream, where the order of draws is the data set that
:data:`GENERATOR_VERSION` names; splitting the templates across modules would scatter
that order without making any part reusable.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from miles_ros.agent.datagen_infeasible import infeasible_goal, nothing_goal
from miles_ros.agent.grounding import Step, goal_error
from miles_ros.agent.phrases import (
    COLOR_WORDS,
    CUBE_NOUNS,
    HOME_PHRASES,
    PAD_NOUNS,
    PICK_PLACE_TEMPLATES,
    PUSH_TEMPLATES,
    REACH_TEMPLATES,
    STACK_TEMPLATES,
)
from miles_ros.agent.world import World

GENERATOR_VERSION = 6
"""Version of the templates (:mod:`miles_ros.agent.phrases`; recorded in the adapter
card)."""


@dataclass
class Example:
    """One training pair."""

    goal: str
    """The goal in words."""
    steps: list[Step]
    """The expected plan (without ``done``)."""
    notes: list[str]
    """Distractor ``Note:`` lines (memories or feedback) the plan must not depend on."""
    json_format: bool
    """True: the target is the JSON plan (generate mode); False: plan lines."""
    refused: bool = False
    """True: the goal cannot be done; the target is the ``refuse`` line (never JSON)."""
    blocked: str = ""
    """Why the goal resolver refuses a step of the plan drawn for a refused goal (a push
    through another cube): words the symbolic reading cannot refuse, only the geometry."""


class Generator:
    """Draws examples for a world's cubes and pads."""

    def __init__(self, world: World, seed: int = 0, registry=None):
        self.world = world
        self.registry = registry
        self.rng = random.Random(seed)
        self.cubes = list(world.objects)
        self.pads = list(world.places)

    # -- words for things ---------------------------------------------------------------
    def cube(self, name: str, article: bool = True) -> str:
        r = self.rng
        color = name.split("_")[0]
        word = r.choice(COLOR_WORDS.get(color, [color])) if r.random() < 0.3 else color
        noun = r.choice(CUBE_NOUNS) if r.random() < 0.5 else "cube"
        phrase = r.choice(
            [f"{word} {noun}", f"{word} {noun}", f"{word} one", f"{name}"]
            if r.random() < 0.1
            else [f"{word} {noun}"]
        )
        if phrase == name:
            return phrase
        return (r.choice(["the ", "the ", "the ", "that ", "this "]) if article else "") + phrase

    def pad(self, name: str) -> str:
        r = self.rng
        side = name.split("_")[0]
        noun = r.choice(PAD_NOUNS) if r.random() < 0.5 else "pad"
        forms = [
            f"the {side} {noun}",
            f"the {side} {noun}",
            f"the {side}-hand {noun}",
            f"the {noun} on the {side}",
            f"the {side}most {noun}",
            f"the {side} one",
            name,
        ]
        return r.choice(forms) if r.random() < 0.4 else f"the {side} {noun}"

    def thing(self, name: str) -> str:
        return self.cube(name) if name in self.world.objects else self.pad(name)

    def point(self, in_air: bool) -> tuple[list[float], str]:
        r = self.rng
        x, y = round(r.uniform(0.35, 0.65), 2), round(r.uniform(-0.3, 0.3), 2)
        z = round(r.uniform(0.1, 0.4), 2) if in_air else 0.02
        p = [x, y, z]
        forms = [
            f"({x}, {y}, {z})",
            f"{x}, {y}, {z}",
            f"x={x}, y={y}, z={z}",
            f"x={x} y={y} z={z}",
            f"[{x}, {y}, {z}]",
            f"{x} {y} {z}",
            f"the point ({x}, {y}, {z})",
            f"position {x}, {y}, {z}",
            f"coordinates ({x}, {y}, {z})",
        ]
        return p, r.choice(forms)

    # -- clauses ------------------------------------------------------------------------
    def clause(self, step: Step) -> str:
        r = self.rng
        p = step.params
        if step.skill == "home":
            return r.choice(HOME_PHRASES)
        if step.skill == "reach":
            where = self._where(p["target"])
            return r.choice(REACH_TEMPLATES).format(where=where)
        obj, t = p["object"], p["target"]
        o, where = self.cube(obj), self._where(t)
        on = r.choice(["on", "onto", "on top of", "to"]) if isinstance(t, str) else "at"
        to = (
            r.choice(["to", "over to", "onto", "toward", "all the way to", "across to"])
            if isinstance(t, str)
            else r.choice(["to", "over to"])
        )
        words = {"o": o, "on": on, "to": to, "where": where}
        if step.skill == "push":
            return r.choice(PUSH_TEMPLATES).format(**words)
        stack = isinstance(t, str) and t in self.world.objects
        templates = PICK_PLACE_TEMPLATES + (STACK_TEMPLATES if stack else ())
        return r.choice(templates).format(**words)

    def _where(self, t) -> str:
        if isinstance(t, str):
            return self.thing(t)
        return self._point_text.pop(0)

    def elided(self, prev: Step, step: Step) -> str | None:
        """A later clause that drops the verb, when the steps allow it."""
        r = self.rng
        if (
            step.skill == "pick_place"
            and prev.skill in ("pick_place", "push")
            and step.params.get("target") == prev.params.get("object")
            and r.random() < 0.7
        ):
            pass  # a pronoun for the previous step's cube, below
        elif step.skill != prev.skill or step.skill == "home":
            return None
        if any(not isinstance(v, str) for v in [*step.params.values(), *prev.params.values()]):
            return None
        if step.skill == "reach":
            t = step.params["target"]
            kind = "cube" if t in self.world.objects else "pad"
            if (t in self.world.objects) == (prev.params["target"] in self.world.objects):
                word = t.split("_")[0]
                return r.choice([f"the {word} one", f"the {word} {kind}", f"the {word} one too"])
            return self.thing(t)
        obj, t = step.params["object"], step.params["target"]
        color = obj.split("_")[0]
        if t == prev.params.get("object"):  # "..., then put the red cube on it"
            verb = r.choice(
                ["put", "place", "stack", "set"]
                if step.skill == "pick_place"
                else ["push", "slide"]
            )
            return (
                f"{verb} {self.cube(obj)} {r.choice(['on', 'onto', 'to'])} it"
                if step.skill == "pick_place"
                else f"{verb} {self.cube(obj)} against it"
            )
        if t == prev.params["target"]:
            return r.choice(
                [
                    f"the {color} one",
                    f"the {color} one too",
                    f"the {color} cube too",
                    f"the {color} cube as well",
                    self.cube(obj),
                ]
            )
        on = r.choice(["on", "to", "onto"])
        return f"{self.cube(obj)} {on} {self.thing(t)}"

    # -- whole goals --------------------------------------------------------------------
    def steps(self) -> list[Step]:
        r = self.rng
        n = r.choices([1, 2, 3], weights=[0.35, 0.42, 0.23])[0]
        out: list[Step] = []
        self._point_text: list[str] = []
        for i in range(n):
            if out and r.random() < 0.35 and out[-1].skill in ("push", "pick_place", "reach"):
                skill = out[-1].skill  # same skill again: exercises dropped verbs
            else:
                skill = r.choices(
                    ["pick_place", "push", "reach", "home"], weights=[0.36, 0.3, 0.22, 0.12]
                )[0]
            if skill == "home" and (i == 0 and n == 1 or (out and out[-1].skill == "home")):
                skill = "home" if n == 1 and r.random() < 0.5 else "reach"
            out.append(self._step(skill, out))
        return out

    def _step(self, skill: str, previous: list[Step]) -> Step:
        r = self.rng
        if skill == "home":
            return Step("home", {})
        if skill == "reach":
            if r.random() < 0.12:
                p, text = self.point(in_air=True)
                self._point_text.append(text)
                return Step("reach", {"target": p})
            return Step("reach", {"target": r.choice(self.cubes + self.pads)})
        obj = r.choice(self.cubes)
        if r.random() < 0.1:
            p, text = self.point(in_air=(skill == "pick_place" and r.random() < 0.5))
            self._point_text.append(text)
            return Step(skill, {"object": obj, "target": p})
        targets = self.pads * 3 + [c for c in self.cubes if c != obj]
        last = previous[-1].params.get("object") if previous else None
        if last and last != obj and r.random() < 0.15:
            return Step(skill, {"object": obj, "target": last})
        return Step(skill, {"object": obj, "target": r.choice(targets)})

    def goal(self, steps: list[Step]) -> str:
        r = self.rng
        clauses = []  # clause() consumes the point texts of steps() in order
        for i, step in enumerate(steps):
            text = None
            if i > 0 and r.random() < 0.5:
                text = self.elided(steps[i - 1], step)
            clauses.append(text or self.clause(step))
        if len(clauses) == 1:
            body = clauses[0]
        else:
            body = self._join(clauses)
        return self._decorate(body)

    def _join(self, clauses: list[str]) -> str:
        r = self.rng
        if len(clauses) == 2 and r.random() < 0.15:
            a, b = clauses
            return r.choice(
                [
                    f"after you {a}, {b}",
                    f"once you {a}, {b}",
                    f"{b} after you {a}",
                    f"before you {b}, {a}",
                    f"{b}, but first {a}",
                    f"{b} once you {a}",
                ]
            )
        connectors = [
            ", then ",
            " and then ",
            ". Then ",
            " and ",
            ", and ",
            ", after that ",
            "; then ",
            ". After that, ",
            ", followed by: ",
            ". Next, ",
            " then ",
            ", next ",
            ". Afterwards ",
            ", and afterwards ",
        ]
        first = r.choice(["", "", "", "first ", "first, "])
        out = first + clauses[0]
        for c in clauses[1:]:
            joint = r.choice(connectors)
            if joint == " and " and len(clauses) > 2 and c is clauses[-1]:
                joint = r.choice([", and finally ", ", and lastly ", " and finally "])
            out += joint + c
        return out

    def _decorate(self, body: str) -> str:
        r = self.rng
        pre = r.choices(
            [
                "",
                "please ",
                "could you ",
                "can you ",
                "would you ",
                "I'd like you to ",
                "I need you to ",
                "robot, ",
                "hey, ",
                "go ahead and ",
                "now ",
                "ok, ",
                "kindly ",
                "your task: ",
                "would you kindly ",
                "let's ",
            ],
            weights=[10, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
        )[0]
        post = r.choices(
            ["", " please", ", thanks", " thank you", ".", "!", "?"], weights=[8, 2, 1, 1, 3, 1, 1]
        )[0]
        if pre in ("could you ", "can you ", "would you ") and post == ".":
            post = "?"
        text = pre + body + post
        if r.random() < 0.3:
            text = text[0].upper() + text[1:]
        if r.random() < 0.05:
            text = text.lower()
        if r.random() < 0.03:
            text = text.upper()
        return text

    def notes(self) -> list[str]:
        r = self.rng
        if r.random() > 0.1:
            return []
        c, pad = r.choice(self.cubes), r.choice(self.pads)
        pool = [
            f"{c} slipped once when pushed fast",
            f"last time {c} ended up on {pad}",
            f"push {c} {pad} failed: the cube stopped 0.07 m short",
            "the operator prefers the arm to finish at home",
            f"pick_place {c} {pad} succeeded in 6.1 s",
            f"{pad} is near the table edge",
        ]
        return r.sample(pool, r.randint(1, 2))

    def blocked(self, steps: list[Step]) -> str | None:
        """Why the goal resolver the skill node runs refuses a step in the world the steps
        before it leave (:func:`~miles_ros.agent.grounding.goal_error`: a push whose path
        passes another cube, a covered cube moved, ...), or None (no registry: None)."""
        if self.registry is None:
            return None
        work = self.world.copy()
        for s in steps:
            if why := goal_error(s, self.registry, work):
                return why
            work.apply(self.registry[s.skill].effects_machine, s.params)
        return None

    def example(self, json_fraction: float = 0.2, refusal_fraction: float = 0.0) -> Example:
        draw = self.rng.random()
        if draw < refusal_fraction:
            return Example(infeasible_goal(self), [], self.notes(), False, refused=True)
        if draw < refusal_fraction * 1.15:
            return Example(nothing_goal(self), [], self.notes(), False)
        while True:
            steps = self.steps()
            goal = self.goal(steps)
            if self.registry is None or not any(
                s.skill not in self.registry or self.registry[s.skill].validate(s.params)
                for s in steps
            ):
                notes, as_json = self.notes(), self.rng.random() < json_fraction
                why = self.blocked(steps)  # v6: the same draws as v5, another label
                if why:
                    return Example(goal, [], notes, False, refused=True, blocked=why)
                return Example(goal, steps, notes, as_json)
            if self.rng.random() < 0.3:  # keep some as refusals, draw again otherwise
                return Example(goal, [], self.notes(), False, refused=True)


def generate(
    world: World,
    n: int,
    seed: int = 0,
    json_fraction: float = 0.2,
    refusal_fraction: float = 0.0,
    registry=None,
) -> list[Example]:
    """``n`` examples, deterministic for a seed. ``refusal_fraction``: share of infeasible
    goals (plus 15 % of that of no-motion goals); ``registry``: a drawn example with a step
    its schemas reject becomes a refusal (30 %) or is drawn again; one the goal resolver
    refuses (:meth:`Generator.blocked`) is a refusal."""
    gen = Generator(world, seed, registry)
    return [gen.example(json_fraction, refusal_fraction) for _ in range(n)]
