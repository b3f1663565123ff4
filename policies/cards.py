"""Skill cards: the ``skill.yaml`` beside ``actor.onnx`` and ``critic.onnx``, and
:class:`SkillCard`, the one model of a card that export writes and the runtime
(:class:`policies.runtime.SkillPolicy`), the skill node's library and the planner's
registry read.

A card is parsed and checked once (:meth:`SkillCard.from_dict`): its keys, the types of
its fields and its parameter JSON schema, which is compiled there and gives every
reader the same readable errors (:meth:`SkillCard.param_errors`). Checks against the
files beside it (sha256) and its task (observation layout, action size, control rate)
are :meth:`SkillCard.check_files` and :meth:`SkillCard.check_task`; :func:`validate_card`
runs all of them. The keys are a contract (docs/training.md, "Export and the skill card"):
:func:`policies.card_content.build_card` writes them from the task module, the robot
model and the scene file (one source of truth each). The optional ``envelope`` block
(:mod:`policies.envelope`) is the region the policy was trained for;
:meth:`SkillCard.envelope_violations` checks a call against it, for the skill executor
and the planner alike.

The skill library is found by :func:`skill_library` (default: the shipped
``policies/skills``; its layout, plain and versioned skills, is :mod:`policies.library`);
the scripted ``home`` skill's card is :data:`HOME_CARD`.

A little over 400 lines: the card model, its reading and its checks stay in one module,
so that there is one place that knows what a valid card is.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import yaml

import sims
from policies.calibration import calibration_refusal
from policies.envelope import Envelope, EnvelopeError
from policies.library import CARD_FILE, SkillCardError, active_skill_dir, library_skills
from sims import yaml_files

REQUIRED_KEYS = tuple(
    "name version description parameters task observation action control_rate_hz "
    "episode_steps timeout_s success_threshold_m limits permissions preconditions effects "
    "files sha256 provenance evaluation".split()
)
"""Keys every exported (trained) card has."""
INTERFACE_KEYS = ("name", "description", "parameters")
"""Keys the planner needs: all that an interface card (a declared, untrained skill) or a
scripted skill's card has."""
SHIPPED_LIBRARY = Path(__file__).resolve().parent / "skills"
"""The shipped skills (``policies/skills``)."""


CARD_SCALES = (
    ("control_dt_s", "control_dt"),
    ("joint_action_scale", "joint_action_scale"),
    ("cartesian_step_max_m", "cartesian_step_max"),
    ("ik_damping_m", "ik_damping"),
    ("ik_tilt_gain", "ik_tilt_gain"),
    ("ik_tilt_allowance_deg", "ik_tilt_allowance_deg"),
    ("tcp_z_min_m", "cartesian_z_min"),
    ("lift_after_grip_threshold_m", "lift_after_grip_threshold_m"),
    ("lift_after_grip_max_periods", "lift_after_grip_max_periods"),
)
"""``action.scale`` keys of a card and the TaskConfig fields they set."""


def skill_library(path: str | Path | None = None) -> Path:
    """The skill library folder (one folder per skill, :mod:`policies.library`): ``path``,
    else the shipped one."""
    return Path(path) if path else SHIPPED_LIBRARY


def library_skill_dirs(path: str | Path | None = None) -> list[Path]:
    """The skill folders of a skill library (``path``, else the shipped one), sorted by
    name; load each with :func:`load_card`, which reads its active version."""
    return library_skills(skill_library(path))


def sha256_file(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def format_schema_error(error: jsonschema.ValidationError) -> str:
    """``where: what`` for one schema violation of a skill's ``params``; for ``oneOf`` /
    ``anyOf`` it says what each alternative wanted."""
    where = "/".join(str(p) for p in error.path) or "params"
    message = error.message
    if error.context:
        alternatives = sorted({e.message for e in error.context})
        message = f"{error.instance!r} matches none of: " + " | ".join(alternatives)
    return f"{where}: {message}"


def _mapping(data: Mapping, key: str, where: str) -> dict:
    value = data.get(key)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise SkillCardError(f"{where}: {key} must be a mapping, got {type(value).__name__}")
    return dict(value)


def _items(data: Mapping, key: str, where: str) -> tuple:
    value = data.get(key)
    if value is None:
        return ()
    if not isinstance(value, list | tuple):
        raise SkillCardError(f"{where}: {key} must be a list, got {type(value).__name__}")
    return tuple(value)


def _number(data: Mapping, key: str, where: str, kind=float):
    value = data.get(key)
    if value is None:
        return None
    try:
        return kind(value)
    except (TypeError, ValueError) as exc:
        raise SkillCardError(f"{where}: {key} must be a number, got {value!r}") from exc


def _calibration(data: Mapping, where: str) -> dict:
    block = _mapping(data, "calibration", where)
    refusal = calibration_refusal(block, (data.get("observation") or {}).get("layout"))
    if block and refusal:
        raise SkillCardError(f"{where}: {refusal}")
    return block


def _envelope(data: Mapping, where: str) -> Envelope | None:
    if data.get("envelope") is None:
        return None
    try:
        return Envelope.from_dict(data["envelope"])
    except EnvelopeError as exc:
        raise SkillCardError(f"{where}: {exc}") from exc


@dataclass(frozen=True)
class SkillCard:
    """One skill card, parsed and checked (build it with :meth:`from_dict`). The mapping
    fields are the card's own data: read them, never change them."""

    name: str
    """Name used in ``/miles/skill/request``."""
    description: str
    """One paragraph for the planner: what it does, when to use it (whitespace collapsed)."""
    parameters: dict
    """JSON schema of the request's ``params`` (checked and compiled once)."""
    version: int = 0
    """Card version."""
    task: str | None = None
    """The sims task it was trained on (None for interface and scripted skills)."""
    goal_mapping: str = ""
    """How parameters become the task's goal, in words."""
    observation: dict = field(default_factory=dict)
    """``{"dim": D, "layout": [{"name", "start", "size", "meaning"}, ...]}``."""
    action: dict = field(default_factory=dict)
    """``{"dim", "mode", "meaning", "scale": {...}}``: the action it was trained with."""
    control_rate_hz: float | None = None
    """Closed-loop rate (Hz)."""
    episode_steps: int | None = None
    """Training episode length (control periods)."""
    timeout_s: float | None = None
    """Wall-clock budget of one call (s); None: the runner decides (scripted skills)."""
    success_threshold_m: float | None = None
    """The task's success distance (m) it was trained under."""
    limits: dict = field(default_factory=dict)
    """Joint limits it was trained under (``panda.limits_dict()``)."""
    permissions: tuple[str, ...] = ()
    """Permission tags (``moves_arm``, ``contact``, ``grasps``), checked at dispatch."""
    preconditions: tuple[str, ...] = ()
    """Preconditions in words."""
    envelope: Envelope | None = None
    """The region its policy was trained for, as machine-checkable preconditions (the
    ``envelope`` block, :mod:`policies.envelope`); None: no check (older cards)."""
    effects: tuple[str, ...] = ()
    """Effects in words."""
    effects_machine: tuple[dict, ...] = ()
    """Effects the planner applies to its symbolic world (``World.apply``)."""
    variants: tuple[str, ...] = ()
    """Episode variants of its task it takes (pick_place: ``pads``, ``stack``), the ones
    ``miles eval --variant`` accepts; empty: the task's default episodes only."""
    files: dict = field(default_factory=dict)
    """Role (``actor``, ``critic``) -> file name beside the card."""
    sha256: dict = field(default_factory=dict)
    """Role -> sha256 of that file at export."""
    provenance: dict = field(default_factory=dict)
    """Task, backend, seed, commit, commands of the run it came from."""
    evaluation: dict = field(default_factory=dict)
    """Physics evaluation of the exported actor (success rate, CI, mean return, ...)."""
    affordance: dict = field(default_factory=dict)
    """Optional ``center``/``scale`` of the planner's squashing of the critic's value."""
    calibration: dict = field(default_factory=dict)
    """Observation field -> the reading offset the version takes out before its networks
    see it (:mod:`policies.calibration`); empty: none (the observation as formed)."""
    path: Path | None = None
    """The card file (None for a card built in memory)."""
    data: dict = field(default_factory=dict, repr=False, compare=False)
    """The whole card as read or built, in file order (what :func:`write_card` writes)."""
    _validator: Any = field(default=None, init=False, repr=False, compare=False)

    @classmethod
    def from_dict(
        cls,
        data: Any,
        path: str | Path | None = None,
        required: tuple[str, ...] = REQUIRED_KEYS,
    ) -> SkillCard:
        """Parse and check a card's data (:class:`SkillCardError` names what is wrong)."""
        where = str(path) if path is not None else "skill card"
        if not isinstance(data, Mapping):
            raise SkillCardError(f"{where}: a skill card must be a mapping")
        missing = [k for k in required if k not in data]
        if missing:
            raise SkillCardError(f"{where}: missing keys {', '.join(missing)}")
        if not isinstance(data.get("name"), str) or not data["name"]:
            raise SkillCardError(f"{where}: name must be a non-empty string")
        return cls(
            name=data["name"],
            description=" ".join(str(data.get("description", "")).split()),
            parameters=_mapping(data, "parameters", where),
            version=_number(data, "version", where, int) or 0,
            task=None if data.get("task") is None else str(data["task"]),
            goal_mapping=str(data.get("goal_mapping", "")),
            observation=_mapping(data, "observation", where),
            action=_mapping(data, "action", where),
            control_rate_hz=_number(data, "control_rate_hz", where),
            episode_steps=_number(data, "episode_steps", where, int),
            timeout_s=_number(data, "timeout_s", where),
            success_threshold_m=_number(data, "success_threshold_m", where),
            limits=_mapping(data, "limits", where),
            permissions=tuple(str(t) for t in _items(data, "permissions", where)),
            preconditions=tuple(str(t) for t in _items(data, "preconditions", where)),
            envelope=_envelope(data, where),
            effects=tuple(str(t) for t in _items(data, "effects", where)),
            effects_machine=tuple(dict(e) for e in _items(data, "effects_machine", where)),
            variants=tuple(str(v) for v in _items(data, "variants", where)),
            files=_mapping(data, "files", where),
            sha256=_mapping(data, "sha256", where),
            provenance=_mapping(data, "provenance", where),
            evaluation=_mapping(data, "evaluation", where),
            affordance=_mapping(data, "affordance", where),
            calibration=_calibration(data, where),
            path=None if path is None else Path(path),
            data=dict(data),
        )

    def __post_init__(self) -> None:
        try:
            jsonschema.Draft202012Validator.check_schema(self.parameters)
        except jsonschema.SchemaError as exc:
            where = self.path or f"skill {self.name!r}"
            raise SkillCardError(
                f"{where}: parameters is not a JSON schema: {exc.message}"
            ) from exc
        object.__setattr__(self, "_validator", jsonschema.Draft202012Validator(self.parameters))

    def __getstate__(self) -> dict:
        """Pickled without the compiled validator (it holds local functions)."""
        return {**self.__dict__, "_validator": None}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        object.__setattr__(self, "_validator", jsonschema.Draft202012Validator(self.parameters))

    @property
    def directory(self) -> Path | None:
        """The skill directory (where the card and its files are)."""
        return None if self.path is None else self.path.parent

    @property
    def obs_dim(self) -> int:
        """Observation size the networks take (0 when the card names none)."""
        return int(self.observation.get("dim") or 0)

    @property
    def action_dim(self) -> int:
        """Action size the actor gives (0 when the card names none)."""
        return int(self.action.get("dim") or 0)

    @property
    def param_names(self) -> list[str]:
        """Parameter names in schema order (required ones first)."""
        props = list(self.parameters.get("properties", {}))
        required = [p for p in self.parameters.get("required", []) if p in props]
        return required + [p for p in props if p not in required]

    def param_errors(self, params: Any) -> list[str]:
        """Readable schema violations of ``params`` (empty when valid)."""
        errors = sorted(self._validator.iter_errors(params), key=lambda e: list(e.path))
        return [format_schema_error(e) for e in errors]

    def param_choices(self, param: str, names: list[str]) -> tuple[list[str], bool]:
        """The scene ``names`` a parameter may take (those its schema enumerates, directly
        or in its ``oneOf``/``anyOf`` options, in schema order; every name for a string
        without an enum) and whether it also takes an array (a point)."""
        spec = self.parameters.get("properties", {}).get(param, {})
        enums: list = []
        allows_array = False
        for option in [spec, *spec.get("oneOf", []), *spec.get("anyOf", [])]:
            enums += [e for e in option.get("enum", []) if e not in enums]
            allows_array |= option.get("type") == "array"
        if not enums and spec.get("type") == "string":
            enums = list(names)
        return [e for e in enums if e in names], allows_array

    def envelope_violations(
        self, object_pos: Any | None, target_pos: Any | None, turn_deg: float | None = None
    ) -> list[str]:
        """The card's envelope preconditions that a call violates, each as ``NAME: value
        not in [low, high]`` (empty when inside, or when the card has no envelope).
        ``object_pos``: the cube's centre (None for reach); ``target_pos``: the goal the
        call resolves to (:mod:`miles_ros.runtime.goals`), both m in the base frame;
        ``turn_deg``: a turn's angle as the skill makes it (the goal's ``turn_deg``)."""
        if self.envelope is None:
            return []
        return self.envelope.violations(object_pos, target_pos, turn_deg)

    def file_path(self, role: str) -> Path | None:
        """The file the card names for ``role`` (``actor``, ``critic``), beside the card."""
        name = self.files.get(role)
        return None if not name or self.directory is None else self.directory / str(name)

    def check_files(self, check_hashes: bool = True) -> None:
        """Both networks are there and (``check_hashes``) unchanged since export."""
        for role in ("actor", "critic"):
            path = self.file_path(role)
            if path is None:
                raise SkillCardError(f"{self.directory}: the card names no {role} file")
            if not path.exists():
                raise SkillCardError(f"{self.directory}: {role} file {path.name} is missing")
            if check_hashes:
                actual, expected = sha256_file(path), str(self.sha256.get(role, ""))
                if actual != expected:
                    raise SkillCardError(
                        f"{self.directory}: sha256 of {path.name} is {actual}, the card says "
                        f"{expected}; the file was changed or replaced after export"
                    )

    def check_task(self):
        """The card agrees with its task (observation size and layout, action size, control
        rate); returns the task module."""
        where = self.directory
        try:
            task_module = sims.get_task(str(self.task))
        except ValueError as exc:
            raise SkillCardError(f"{where}: {exc}") from exc
        layout, cfg = task_module.LAYOUT, task_module.CONFIG
        if self.obs_dim != layout.dim:
            raise SkillCardError(
                f"{where}: observation dim {self.obs_dim} != task {self.task}'s {layout.dim}"
            )
        if self.observation.get("layout") != layout.describe():
            raise SkillCardError(
                f"{where}: observation layout differs from task {self.task}'s layout"
            )
        if self.action_dim != cfg.action_dim:
            raise SkillCardError(
                f"{where}: action dim {self.action_dim} != task {self.task}'s {cfg.action_dim}"
            )
        dt = float((self.action.get("scale") or {}).get("control_dt_s", cfg.control_dt))
        if self.control_rate_hz is not None and abs(self.control_rate_hz * dt - 1.0) > 1e-6:
            raise SkillCardError(
                f"{where}: control_rate_hz {self.control_rate_hz} disagrees with control_dt {dt}"
            )
        return task_module

    def task_config(self, base=None):
        """``base`` (default: the card's task's TaskConfig) with the card's control period,
        action scales (the numbers the skill was trained under; a key the card lacks keeps
        the base's) and success threshold."""
        import dataclasses

        scale = self.action.get("scale") or {}
        updates: dict[str, Any] = {}
        for key, attr in CARD_SCALES:
            if key in scale:
                kind = int if attr == "lift_after_grip_max_periods" else float
                updates[attr] = kind(scale[key])
        if self.success_threshold_m is not None:
            updates["success_threshold"] = float(self.success_threshold_m)
        base = sims.get_task(self.task).CONFIG if base is None else base
        return dataclasses.replace(base, **updates)

    def to_dict(self) -> dict[str, Any]:
        """The card as plain data (a copy), keys in file order."""
        return copy.deepcopy(self.data)


HOME_CARD = SkillCard.from_dict(
    {
        "name": "home",
        "version": 1,
        "description": "Moves the arm back to its home pose (scripted joint-space motion).",
        "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
        "control_rate_hz": 25.0,
        "permissions": ["moves_arm"],
        "preconditions": ["none"],
        "effects": ["the arm is at the home pose"],
        "effects_machine": [{"set": "arm_at", "target": "home"}],
    },
    required=INTERFACE_KEYS,
)
"""The scripted ``home`` skill: no parameters, no task, no networks; its time budget is
the executor's (from the distance to travel)."""


def card_path(skill: str | Path, target: str | None = None) -> Path:
    """``skill.yaml`` of a skill given as a directory (plain, versioned: its active
    version, or the version routed for goals of kind ``target``, or one version's), a card
    file, or a shipped name (:func:`policies.library.active_skill_dir`)."""
    path = Path(skill)
    if path.is_dir():
        return active_skill_dir(path, target) / CARD_FILE
    if path.suffix in (".yaml", ".yml"):
        return path
    shipped = skill_library() / str(skill)
    if shipped.is_dir():
        return active_skill_dir(shipped, target) / CARD_FILE
    return path / CARD_FILE


def load_card(skill: str | Path, required: tuple[str, ...] = REQUIRED_KEYS) -> SkillCard:
    """The card of a skill (see :func:`card_path`); :class:`SkillCardError` when it is
    missing or malformed. ``required``: the keys it must have (default: an exported card's)."""
    path = card_path(skill)
    if not path.exists():
        raise SkillCardError(
            f"no skill card at {path} (expected {CARD_FILE} beside actor.onnx and critic.onnx)"
        )
    try:
        data = yaml_files.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise SkillCardError(f"{path}: not valid YAML ({exc})") from exc
    return SkillCard.from_dict(data, path, required)


def validate_card(skill: str | Path, check_hashes: bool = True) -> SkillCard:
    """Load a card and check it against its files (sha256) and its task (dimensions,
    layout, control rate). Raises :class:`SkillCardError` with the reason."""
    card = load_card(skill)
    card.check_files(check_hashes)
    card.check_task()
    return card


def write_card(card: SkillCard, skill_dir: str | Path) -> Path:
    """Write ``skill.yaml`` into ``skill_dir``; returns its path."""
    path = Path(skill_dir) / CARD_FILE
    with open(path, "w") as f:
        yaml.safe_dump(card.to_dict(), f, sort_keys=False, width=99, allow_unicode=True)
    return path
