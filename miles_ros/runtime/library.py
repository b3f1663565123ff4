"""The skill node's library: every skill card in a library folder, ready to run.

:class:`SkillLibrary` loads each skill folder of a library (:func:`policies.cards.
library_skill_dirs`; of a versioned skill, its active version: :mod:`policies.library`)
through :class:`policies.runtime.SkillPolicy`, which checks the
:class:`policies.cards.SkillCard` against its files (sha256) and its task, and adds the
scripted ``home`` skill (:data:`policies.cards.HOME_CARD`). A card that fails to load is
left out and its reason kept, so a request for it is refused with that reason. What is
specific to running a skill lives here: the ONNX policy and the task config with the
card's action scales.

A versioned skill's active version may change while the node runs (``miles skills
promote|rollback``): :meth:`SkillLibrary.refresh`, called when a request for it arrives,
loads the new active version, checks it against the one it replaces
(:func:`policies.versions.check_card`) and swaps it in; a refused version is logged with
its reason and the old one stays. A request already running keeps the
:class:`RunnableSkill` it started with, so a swap never changes a skill mid-run.

``active.yaml``'s routes (``miles skills route``) are loaded beside the active version,
each checked against it: :meth:`SkillLibrary.skill_for` gives a request whose goal is of a
routed kind (a goal on a cube) the routed version, every other request the active one. A
route that does not load is logged and its goals run the active version.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sims
from policies.cards import (
    HOME_CARD,
    SkillCard,
    SkillCardError,
    library_skill_dirs,
    skill_library,
)
from policies.library import ACTIVE_FILE, read_active, version_dir
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


def load_skill(
    skill_dir: str | Path,
    check_hashes: bool = True,
    replaces: SkillCard | None = None,
    measured: Mapping[str, float] | None = None,
) -> RunnableSkill:
    """A :class:`RunnableSkill` from a skill folder (a versioned skill's active version);
    :class:`SkillCardError` says why not. ``replaces``: the card of the version it would
    replace, which it must match (:func:`policies.versions.check_card`). ``measured``: the
    offsets (m) by observation field the cell was measured to have (the scene's
    ``gripper.calibration``: :func:`~miles_ros.runtime.gripper_calibration.
    scene_measurements`), which a card that has the cell measure one
    (``calibration.finger_width.measure: closed_gripper``) reads its observations
    through; such a card is refused when they lack its field. None: not checked (the
    policy then refuses to act until measured)."""
    from policies.runtime import SkillPolicy
    from policies.versions import check_card

    policy = SkillPolicy(skill_dir, check_hashes=check_hashes)  # validates the card
    check_card(policy.card, replaces)
    if measured is not None and policy.measures:
        missing = [f"{n} ({how})" for n, how in policy.measures.items() if n not in measured]
        if missing:
            raise SkillCardError(
                f"{policy.path}: its card measures the {', '.join(missing)} offset on the "
                "cell and the scene has no gripper.calibration: measure it with `miles "
                "calibrate gripper --scene FILE --out CALIBRATED` and run with that scene"
            )
        policy.use_measured(measured)
    task_module = sims.get_task(policy.card.task)
    cfg = card_config(task_module, policy.card)
    return RunnableSkill(policy.card, task_module, cfg, policy)


def home_skill() -> RunnableSkill:
    """The scripted ``home`` skill: a straight joint-space move to the home pose."""
    return RunnableSkill(HOME_CARD)


def active_stamp(skill_dir: Path) -> str:
    """What says which version of a skill folder is active: its ``active.yaml``'s text
    ("" for a plain skill directory, or when unreadable)."""
    try:
        return (skill_dir / ACTIVE_FILE).read_text(encoding="utf-8")
    except OSError:
        return ""


@dataclass
class SkillLibrary:
    """Skills by name, and the reasons the cards that failed to load were left out."""

    skills: dict[str, RunnableSkill]
    """Loaded skills (RL skills and ``home``)."""
    errors: dict[str, str]
    """Skill directory name -> why its card was refused."""
    folders: dict[str, Path] = field(default_factory=dict)
    """Skill name (the folder name of one that failed to load) -> its skill folder."""
    check_hashes: bool = True
    """Refuse versions whose ONNX files do not match their card's sha256."""
    stamps: dict[Path, str] = field(default_factory=dict)
    """Skill folder -> its :func:`active_stamp` when it was last read."""
    routes: dict[str, dict[str, RunnableSkill]] = field(default_factory=dict)
    """Skill name -> target kind -> the version its ``active.yaml`` routes those goals to
    (loaded and checked against the active version)."""
    measured: dict[str, float] | None = None
    """The cell's measured offsets (m) by observation field, that every version loaded
    (active, routed, swapped in, a candidate) whose card has the cell measure one reads
    through, or is refused without (:func:`load_skill`); None: not checked."""

    @classmethod
    def load(
        cls,
        path: str | Path | None = None,
        check_hashes: bool = True,
        with_home: bool = True,
        measured: Mapping[str, float] | None = None,
    ) -> SkillLibrary:
        """Every skill folder under ``path`` (default: the shipped skills); ``measured``:
        :attr:`measured`."""
        library = cls({"home": home_skill()} if with_home else {}, {}, check_hashes=check_hashes)
        library.measured = None if measured is None else dict(measured)
        root = skill_library(path)
        if not root.is_dir():
            logger.warning("skill library %s does not exist: only scripted skills", root)
        for folder in library_skill_dirs(path):
            library.stamps[folder] = active_stamp(folder)
            try:
                skill = load_skill(folder, check_hashes, measured=library.measured)
            except (SkillCardError, ValueError, KeyError, OSError) as exc:
                library.errors[folder.name] = str(exc)
                library.folders[folder.name] = folder
                logger.error("skill %s not loaded: %s", folder.name, exc)
                continue
            if skill.name in library.skills:
                library.errors[folder.name] = f"duplicate skill name {skill.name!r}"
                continue
            library.skills[skill.name] = skill
            library.folders[skill.name] = folder
            library._load_routes(skill.name, {})
        return library

    def names(self) -> list[str]:
        return list(self.skills)

    def skill_for(self, name: str, target: str | None = None) -> RunnableSkill:
        """The version of loaded skill ``name`` that runs a goal of kind ``target``
        (:data:`policies.library.ROUTE_TARGETS`; None: not a routed kind): the routed one
        where ``active.yaml`` routes that kind and it loaded, else the active one."""
        routed = self.routes.get(name, {}).get(target) if target is not None else None
        return self.skills[name] if routed is None else routed

    def _load_routes(self, name: str, loaded: dict[str, RunnableSkill]) -> None:
        """Load skill ``name``'s routed versions (its folder's ``active.yaml``), each
        checked against the loaded active version; one of ``loaded`` (checked against the
        same active version) is kept as it is, one refused is logged and left out (its goals
        run the active version)."""
        folder, active = self.folders[name], self.skills[name]
        try:
            wanted = dict(read_active(folder).routes) if (folder / ACTIVE_FILE).is_file() else {}
        except SkillCardError as exc:
            wanted = {}
            logger.error("skill %s: routes not read: %s", name, exc)
        routes = {}
        for target, version in wanted.items():
            kept = loaded.get(target)
            if kept is not None and kept.card.version == version:
                routes[target] = kept
                continue
            try:
                routes[target] = load_skill(
                    version_dir(folder, version),
                    self.check_hashes,
                    replaces=active.card,
                    measured=self.measured,
                )
            except (SkillCardError, ValueError, KeyError, OSError) as exc:
                logger.error(
                    "skill %s: version %s routed for %s goals refused: %s; they run version %s",
                    name, version, target, exc, active.card.version,
                )  # fmt: skip
                continue
            logger.info("skill %s: %s goals run version %s", name, target, version)
        self.routes[name] = routes

    def refresh(self, name: str) -> None:
        """Swap in skill ``name``'s active version when its ``active.yaml`` changed since
        it was last read: loaded and checked against the version it replaces (the same
        contract, its files as its card says). A refused version is logged with its reason
        and the loaded one stays; the refusal is not retried until ``active.yaml`` changes
        again."""
        folder = self.folders.get(name)
        if folder is None:
            return
        stamp = active_stamp(folder)
        if stamp == self.stamps.get(folder):
            return
        self.stamps[folder] = stamp
        current = self.skills.get(name)
        if current is not None and _active_version(folder) == current.card.version:
            self._load_routes(name, self.routes.get(name, {}))  # only the routes changed
            return
        replaces = None if current is None else current.card
        try:
            skill = load_skill(folder, self.check_hashes, replaces, self.measured)
        except (SkillCardError, ValueError, KeyError, OSError) as exc:
            kept = "" if current is None else f"; version {current.card.version} stays"
            logger.error("skill %s: active version refused: %s%s", name, exc, kept)
            return
        if current is None and skill.name in self.skills:
            logger.error("skill %s: duplicate skill name %r", name, skill.name)
            return
        self.skills[skill.name] = skill
        self.folders[skill.name] = folder
        self.errors.pop(folder.name, None)
        before = "none" if current is None else current.card.version
        logger.info("skill %s: version %s -> %s", skill.name, before, skill.card.version)
        self._load_routes(skill.name, {})  # checked against the new active version


def _active_version(folder: Path) -> int | None:
    """The version ``folder``'s ``active.yaml`` makes active (None: unreadable)."""
    try:
        return read_active(folder).active
    except SkillCardError:
        return None


FINGER_START_TOLERANCE = 0.01
"""How far (m) the finger width may be from the width a learned skill's episodes start
with (its task's ``INITIAL_FINGER_WIDTH``) for the skill to start without a lead-in."""


def start_width(skill: RunnableSkill) -> float | None:
    """The finger width (m, both fingers) ``skill``'s training episodes start with; None
    when its task does not say."""
    width = getattr(skill.task, "INITIAL_FINGER_WIDTH", None)
    return None if width is None else float(width)
