"""The skill node's library: every skill card in a library folder, ready to run.

:class:`SkillLibrary` loads each ``DIR/NAME/skill.yaml`` (folder: :func:`policies.cards.
skill_library`) through :class:`policies.runtime.SkillPolicy`, which checks the
:class:`policies.cards.SkillCard` against its files (sha256) and its task, and adds the
scripted ``home`` skill (:data:`policies.cards.HOME_CARD`). A card that fails to load is
left out and its reason kept, so a request for it is refused with that reason. What is
specific to running a skill lives here: the ONNX policy and the task config with the
card's action scales.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sims
from policies.cards import HOME_CARD, SkillCard, SkillCardError, library_cards, skill_library
from sims.tasks.base import TaskConfig

logger = logging.getLogger(__name__)


@dataclass
class RunnableSkill:
    """One skill the executor can run: its card plus what running it needs."""

    card: SkillCard
    """The skill's card (name, parameter schema, control rate, time budget, tags)."""
    task: Any = None
    """The sims task module (None for scripted skills)."""
    cfg: TaskConfig | None = None
    """Task config with the card's action scales (None for scripted skills)."""
    policy: Any = None
    """:class:`policies.runtime.SkillPolicy` (None for scripted skills)."""

    @property
    def name(self) -> str:
        """Name used in requests."""
        return self.card.name

    @property
    def control_rate_hz(self) -> float:
        """Closed-loop rate (Hz) the skill was trained at."""
        if self.card.control_rate_hz:
            return float(self.card.control_rate_hz)
        return 1.0 / self.cfg.control_dt

    @property
    def timeout_s(self) -> float:
        """Wall-clock budget (s) before it fails with a timeout (0: computed per request)."""
        return float(self.card.timeout_s or 0.0)

    @property
    def permissions(self) -> list[str]:
        """Permission tags (``moves_arm``, ``contact``, ``grasps``) told to the supervisor."""
        return list(self.card.permissions)

    def param_errors(self, params: Any) -> list[str]:
        """Readable schema violations of ``params`` (empty when valid)."""
        return self.card.param_errors(params)


def card_config(task_module, card: SkillCard) -> TaskConfig:
    """The task's config with the card's control period and action scales (the numbers
    the skill was trained under: :meth:`SkillCard.task_config`)."""
    return card.task_config(task_module.CONFIG)


def load_skill(skill_dir: str | Path, check_hashes: bool = True) -> RunnableSkill:
    """A :class:`RunnableSkill` from a skill directory; :class:`SkillCardError` says why not."""
    from policies.runtime import SkillPolicy

    policy = SkillPolicy(skill_dir, check_hashes=check_hashes)  # validates the card
    task_module = sims.get_task(policy.card.task)
    cfg = card_config(task_module, policy.card)
    return RunnableSkill(policy.card, task_module, cfg, policy)


def home_skill() -> RunnableSkill:
    """The scripted ``home`` skill: a straight joint-space move to the home pose."""
    return RunnableSkill(HOME_CARD)


@dataclass
class SkillLibrary:
    """Skills by name, and the reasons the cards that failed to load were left out."""

    skills: dict[str, RunnableSkill]
    """Loaded skills (RL skills and ``home``)."""
    errors: dict[str, str]
    """Skill directory name -> why its card was refused."""

    @classmethod
    def load(
        cls, path: str | Path | None = None, check_hashes: bool = True, with_home: bool = True
    ) -> SkillLibrary:
        """Every ``NAME/skill.yaml`` under ``path`` (default: the shipped skills)."""
        root = skill_library(path)
        skills: dict[str, RunnableSkill] = {}
        errors: dict[str, str] = {}
        if with_home:
            skills["home"] = home_skill()
        if not root.is_dir():
            logger.warning("skill library %s does not exist: only scripted skills", root)
        for card in library_cards(root):
            try:
                skill = load_skill(card.parent, check_hashes=check_hashes)
            except (SkillCardError, ValueError, KeyError, OSError) as exc:
                errors[card.parent.name] = str(exc)
                logger.error("skill %s not loaded: %s", card.parent.name, exc)
                continue
            if skill.name in skills:
                errors[card.parent.name] = f"duplicate skill name {skill.name!r}"
                continue
            skills[skill.name] = skill
        return cls(skills, errors)

    def names(self) -> list[str]:
        return list(self.skills)


FINGER_START_TOLERANCE = 0.01
"""How far (m) the finger width may be from the width a learned skill's episodes start
with (its task's ``INITIAL_FINGER_WIDTH``) for the skill to start without a lead-in."""


def start_width(skill: RunnableSkill) -> float | None:
    """The finger width (m, both fingers) ``skill``'s training episodes start with; None
    when its task does not say."""
    width = getattr(skill.task, "INITIAL_FINGER_WIDTH", None)
    return None if width is None else float(width)
