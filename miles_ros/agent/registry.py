"""Skill registry: the skills the planner may call, their plan schemas and descriptions.

Every skill is a :class:`policies.cards.SkillCard` (read and checked by
:func:`policies.cards.load_card`, with only the planner's keys required). Sources, in
order of precedence:

1. skill cards of the skill folders under the given directories (default
   :func:`policies.cards.skill_library`; a versioned skill's active version,
   :mod:`policies.library`), with ``critic.onnx`` beside them when the skill was exported;
2. interface cards (``miles_ros/agent/cards/*.yaml``) for the skills declared in
   docs/interfaces.md (``reach``, ``push``, ``pick_place``, ``turn``) whose trained card
   does not exist yet: same parameters, no policy and no critic, so offline planning
   works before training; a real card with the same name replaces one;
3. scripted skills: ``home`` (:data:`policies.cards.HOME_CARD`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

from policies.cards import (
    HOME_CARD,
    INTERFACE_KEYS,
    SkillCard,
    SkillCardError,
    library_skill_dirs,
    load_card,
    skill_library,
)

log = logging.getLogger(__name__)

INTERFACE_CARDS = Path(__file__).resolve().parent / "cards"


@dataclass(frozen=True)
class Skill:
    """One skill the planner may call: its card, where the card came from, and its critic."""

    card: SkillCard
    """The skill's card (an interface card has only the planner's keys)."""
    source: str = "card"
    """``card`` (a trained skill), ``interface`` (declared, not trained) or ``scripted``."""
    critic: Path | None = None
    """The exported critic (``critic.onnx``) when present: the skill's affordance."""
    _errors: dict = field(default_factory=dict, init=False, repr=False, compare=False)
    """:meth:`validate`'s answers by parameters (planning asks the same few hundred)."""

    @classmethod
    def from_card(cls, card: SkillCard, source: str = "card") -> Skill:
        """A skill from its card, with the critic beside it when that file exists and the
        card agrees with its task (else the planner uses preconditions only, and says so)."""
        critic = card.file_path("critic")
        if critic is None or not critic.is_file():
            return cls(card, source)
        try:
            card.check_task()
        except SkillCardError as exc:
            log.warning("skill %s: critic not used (%s)", card.name, exc)
            return cls(card, source)
        return cls(card, source, critic)

    @property
    def name(self) -> str:
        """Name used in ``/miles/skill/request``."""
        return self.card.name

    @property
    def description(self) -> str:
        """One paragraph for the planner: what it does, when to use it."""
        return self.card.description

    @property
    def parameters(self) -> dict:
        """JSON schema of the request's ``params``."""
        return self.card.parameters

    @property
    def permissions(self) -> tuple[str, ...]:
        """Permission tags (``moves_arm``, ``contact``, ``grasps``)."""
        return self.card.permissions

    @property
    def effects_machine(self) -> tuple[dict, ...]:
        """Effects the planner applies to its symbolic world (see :meth:`World.apply`)."""
        return self.card.effects_machine

    @property
    def path(self) -> Path | None:
        """The card file, when there is one."""
        return self.card.path

    @property
    def param_names(self) -> list[str]:
        """Parameter names in schema order (required ones first)."""
        return self.card.param_names

    def validate(self, params: dict) -> list[str]:
        """Schema errors of ``params`` for this skill (empty when valid). Remembered per
        parameters: a card's schema does not change, and grounding validates every
        candidate at every step."""
        key = json.dumps(params, sort_keys=True, default=str)
        if key not in self._errors:
            self._errors[key] = [f"{self.name}: {e}" for e in self.card.param_errors(params)]
        return list(self._errors[key])


HOME = Skill(HOME_CARD, source="scripted")
"""The scripted ``home`` skill (card: :data:`policies.cards.HOME_CARD`)."""


class SkillRegistry:
    """The skills the planner may use, by name, in a stable order."""

    def __init__(self, skills: list[Skill]):
        self.skills: dict[str, Skill] = {}
        for skill in skills:
            self.skills[skill.name] = skill
        self._signature: str | None = None

    @classmethod
    def load(
        cls,
        skill_dirs: list[str | os.PathLike] | None = None,
        interface_cards: bool = True,
        scripted: bool = True,
    ) -> SkillRegistry:
        """Cards under ``skill_dirs`` (default policies/skills), then interface cards for
        declared skills without a card, then scripted skills."""
        dirs = [Path(d) for d in skill_dirs] if skill_dirs is not None else [skill_library()]
        skills: dict[str, Skill] = {}
        for directory in dirs:
            for skill_dir in library_skill_dirs(directory):
                skill = Skill.from_card(load_card(skill_dir, required=INTERFACE_KEYS))
                if skill.name in skills:
                    log.warning("skill %s defined twice; using %s", skill.name, skill_dir)
                skills[skill.name] = skill
        if interface_cards:
            for card_path in sorted(INTERFACE_CARDS.glob("*.yaml")):
                card = load_card(card_path, required=INTERFACE_KEYS)
                skills.setdefault(card.name, Skill.from_card(card, source="interface"))
        if scripted:
            skills.setdefault(HOME.name, HOME)
        order = ["reach", "push", "pick_place", "turn", "home"]
        ranked = sorted(
            skills.values(), key=lambda s: (order.index(s.name) if s.name in order else 99, s.name)
        )
        return cls(ranked)

    def __contains__(self, name: str) -> bool:
        return name in self.skills

    def __getitem__(self, name: str) -> Skill:
        if name not in self.skills:
            raise KeyError(f"unknown skill {name!r}; known: {', '.join(self.skills)}")
        return self.skills[name]

    def __iter__(self):
        return iter(self.skills.values())

    @property
    def names(self) -> list[str]:
        """Skill names in registry order."""
        return list(self.skills)

    def signature(self) -> str:
        """A short hash of the names, schemas and sources (part of the plan cache key)."""
        if self._signature is None:
            blob = json.dumps(
                [[s.name, s.parameters, s.source, str(s.critic)] for s in self], sort_keys=True
            ).encode()
            self._signature = hashlib.sha256(blob).hexdigest()[:16]
        return self._signature

    def step_schema(self) -> dict:
        """JSON schema of one plan step: ``{"skill": NAME, "params": {...}}``."""
        return {
            "oneOf": [
                {
                    "type": "object",
                    "properties": {"skill": {"const": s.name}, "params": s.parameters},
                    "required": ["skill", "params"],
                    "additionalProperties": False,
                }
                for s in self
            ]
        }

    def plan_schema(self, max_steps: int = 8) -> dict:
        """JSON schema of a whole plan: ``{"steps": [step, ...]}``."""
        return {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "steps": {
                    "type": "array",
                    "items": self.step_schema(),
                    "minItems": 1,
                    "maxItems": max_steps,
                },
            },
            "required": ["steps"],
            "additionalProperties": False,
        }

    def describe(self) -> str:
        """One line per skill, for prompts and ``miles plan --help``."""
        return "\n".join(f"{s.name}({', '.join(s.param_names)}): {s.description}" for s in self)
