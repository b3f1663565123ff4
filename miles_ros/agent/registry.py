"""Skill registry: RL skills from skill cards, scripted skills, and their JSON schemas.

Sources, in order of precedence:

1. skill cards ``DIR/NAME/skill.yaml`` under the given directories (default
   ``policies/skills``), with ``critic.onnx`` beside them when the skill was exported;
2. interface cards (``miles_ros/agent/cards/*.yaml``) for the skills declared in
   shared/INTERFACES.md (``reach``, ``push``, ``pick_place``) whose trained card does not
   exist yet: same parameters, no policy and no critic, so offline planning works
   before training; a real card with the same name replaces one;
3. scripted skills: ``home`` (move to the home pose, no parameters).
"""

from __future__ import annotations

import copy
import hashlib
import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

import jsonschema
import yaml

log = logging.getLogger(__name__)

INTERFACE_CARDS = Path(__file__).resolve().parent / "cards"
DEFAULT_SKILL_DIR = Path(__file__).resolve().parents[2] / "policies" / "skills"
REQUIRED_CARD_KEYS = ("name", "description", "parameters")


@dataclass
class Skill:
    """One skill the planner may call."""

    name: str
    """Name used in ``/miles/skill/request``."""
    description: str
    """One paragraph for the planner: what it does, when to use it."""
    parameters: dict
    """JSON schema of the request's ``params``."""
    permissions: list[str] = field(default_factory=list)
    """Permission tags (``moves_arm``, ``contact``, ``grasps``), checked at dispatch."""
    preconditions: list[str] = field(default_factory=list)
    """Preconditions in words."""
    effects: list[str] = field(default_factory=list)
    """Effects in words."""
    effects_machine: list[dict] = field(default_factory=list)
    """Effects the planner applies to its symbolic world (see :meth:`World.apply`)."""
    source: str = "card"
    """``card`` (a trained skill), ``interface`` (declared, not trained) or ``scripted``."""
    path: Path | None = None
    """The card file, when there is one."""
    critic: Path | None = None
    """The exported critic (``critic.onnx``) when present: the skill's affordance."""
    card: dict = field(default_factory=dict)
    """The whole card as loaded (observation layout, evaluation, ...)."""
    timeout_s: float = 10.0
    """Longest time one call may take before the manager counts it as failed."""

    @property
    def param_names(self) -> list[str]:
        """Parameter names in schema order (required ones first)."""
        props = list(self.parameters.get("properties", {}))
        required = [p for p in self.parameters.get("required", []) if p in props]
        return required + [p for p in props if p not in required]

    def validate(self, params: dict) -> list[str]:
        """Schema errors of ``params`` for this skill (empty when valid)."""
        validator = jsonschema.Draft202012Validator(self.parameters)
        return [f"{self.name}: {_where(e)}{e.message}" for e in validator.iter_errors(params)]


def _where(error: jsonschema.ValidationError) -> str:
    path = ".".join(str(p) for p in error.absolute_path)
    return f"params.{path}: " if path else ""


HOME = Skill(
    name="home",
    description="Moves the arm back to its home pose (scripted joint-space motion).",
    parameters={"type": "object", "properties": {}, "additionalProperties": False},
    permissions=["moves_arm"],
    preconditions=["none"],
    effects=["the arm is at the home pose"],
    effects_machine=[{"set": "arm_at", "target": "home"}],
    source="scripted",
    timeout_s=6.0,
)


def load_card(path: str | os.PathLike, source: str = "card") -> Skill:
    """A :class:`Skill` from a skill card YAML file (ValueError names what is wrong)."""
    path = Path(path)
    with open(path, encoding="utf-8") as stream:
        card = yaml.safe_load(stream)
    if not isinstance(card, dict):
        raise ValueError(f"{path}: a skill card is a mapping")
    missing = [k for k in REQUIRED_CARD_KEYS if k not in card]
    if missing:
        raise ValueError(f"{path}: missing keys {missing}")
    try:
        jsonschema.Draft202012Validator.check_schema(card["parameters"])
    except jsonschema.SchemaError as exc:
        raise ValueError(f"{path}: parameters is not a JSON schema: {exc.message}") from exc
    critic = None
    critic_name = (card.get("files") or {}).get("critic")
    if critic_name and (path.parent / critic_name).is_file():
        critic = path.parent / critic_name
    return Skill(
        name=str(card["name"]),
        description=" ".join(str(card["description"]).split()),
        parameters=card["parameters"],
        permissions=list(card.get("permissions") or []),
        preconditions=list(card.get("preconditions") or []),
        effects=list(card.get("effects") or []),
        effects_machine=list(card.get("effects_machine") or []),
        source=source,
        path=path,
        critic=critic,
        card=card,
        timeout_s=float(card.get("timeout_s", 10.0)),
    )


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
        dirs = [Path(d) for d in skill_dirs] if skill_dirs is not None else [DEFAULT_SKILL_DIR]
        skills: dict[str, Skill] = {}
        for directory in dirs:
            for card_path in sorted(directory.glob("*/skill.yaml")):
                skill = load_card(card_path)
                if skill.name in skills:
                    log.warning("skill %s defined twice; using %s", skill.name, card_path)
                skills[skill.name] = skill
        if interface_cards:
            for card_path in sorted(INTERFACE_CARDS.glob("*.yaml")):
                skill = load_card(card_path, source="interface")
                skills.setdefault(skill.name, skill)
        if scripted:
            skills.setdefault(HOME.name, copy.deepcopy(HOME))
        order = ["reach", "push", "pick_place", "home"]
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
