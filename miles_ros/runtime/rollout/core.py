"""The executor's rollout: which version of a skill runs each request (canary), what runs
beside it (shadow), and the fallback of a candidate request to the active version.

:class:`Rollout` is what :class:`~miles_ros.runtime.skills.SkillExecutor` calls at its
seams: :meth:`Rollout.start` when a request is accepted (the version that runs it),
:meth:`Rollout.period` on each control period of a learned skill (the shadow),
:meth:`Rollout.over_bound` and :meth:`Rollout.fall_back` while a candidate runs, and
:meth:`Rollout.finish` for the final status's keys (:data:`~miles_ros.interfaces.SKILL_SHADOW`,
:data:`~miles_ros.interfaces.SKILL_CANARY`).

A candidate request never loses its goal: when it fails (timeout, stall: anything but a
lost robot state) or its supervisor interventions pass the canary's hard bound
(``abort_interventions``) mid-request, the executor switches the request to the active
version, which goes on from the current state (home first when the arm stands away from
its start states) with a fresh budget; the status says so (``canary.fallback``) and the
candidate's outcome is a failure.
"""

from __future__ import annotations

import functools
import json
import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import yaml

from miles_ros.interfaces import (
    FAILED,
    SKILL_CANARY,
    SKILL_DRIFT,
    SKILL_SHADOW,
    STATE_LOST,
    SUCCEEDED,
)
from miles_ros.runtime.command_path import SHAPE_COMMANDS, VELOCITY_SCALE
from miles_ros.runtime.library import RunnableSkill, SkillLibrary, load_skill
from miles_ros.runtime.rollout.canary import Canary, CanaryConfig, DecisionLog, card_success
from miles_ros.runtime.rollout.drift import Drift, DriftConfig
from miles_ros.runtime.rollout.shadow import ShadowEpisode
from miles_ros.safety.config import SafetyConfig
from policies.cards import SkillCardError
from sims.robots.actuator import ActuatorModel

logger = logging.getLogger(__name__)

SHADOW_HISTORY = 64
"""Shadow episode records kept in memory (:attr:`Rollout.shadow_history`)."""
CANDIDATE = "candidate"
ACTIVE = "active"
"""``version`` of a canary status: which version ran the request."""


@dataclass
class RequestRollout:
    """What the rollout keeps for one request (``Execution.rollout``)."""

    skill: str
    """The requested skill."""
    active: RunnableSkill
    """The library's (active) version: what a fallback runs."""
    canary: Canary | None = None
    """The skill's canary, when it has one."""
    candidate: bool = False
    """Whether the candidate runs this request now."""
    fallback: str = ""
    """Why the request fell back from the candidate to the active version ("" if not)."""
    interventions_at_start: int = 0
    """The supervisor's intervention count (``/miles/safety/state``) when it started."""
    shadow: ShadowEpisode | None = None
    """The candidate beside the active version, when the skill has a shadow."""
    decision: dict | None = None
    """The canary's decision record on this request's candidate outcome, once tested."""

    def canary_status(self) -> dict:
        """The ``canary`` key of this request's statuses."""
        out: dict = {"version": CANDIDATE if self.candidate else ACTIVE}
        if self.fallback:
            out["fallback"] = self.fallback
        if self.decision is not None:
            out["decision"] = self.decision
        return out


class Rollout:
    """Shadows and canaries of a skill library (module docstring)."""

    def __init__(
        self,
        shadows: dict[str, RunnableSkill] | None = None,
        canaries: dict[str, tuple[Canary, RunnableSkill]] | None = None,
        shape_commands: bool = SHAPE_COMMANDS,
        velocity_scale: float = VELOCITY_SCALE,
        safety: SafetyConfig | None = None,
        promote: Callable[[str, RunnableSkill, dict], str] | None = None,
        drifts: dict[str, Drift] | None = None,
    ) -> None:
        """``promote(skill, candidate, record)``: carries out a canary's promotion (makes
        the candidate the active version) and says what it did (the record's ``applied``);
        None: a decision is only recorded. ``drifts``: skill name -> the drift monitor of
        its active version."""
        self.shadows = dict(shadows or {})
        """Skill name -> its shadow candidate."""
        self.canaries = dict(canaries or {})
        """Skill name -> (its canary, the candidate it routes to)."""
        self.shape_commands = shape_commands
        self.velocity_scale = velocity_scale
        self.safety = safety
        self.actuator = ActuatorModel.panda() if self.shadows else None
        """The shadows' command-path model, read once (config/safety.yaml)."""
        self.shadow_history: deque[dict] = deque(maxlen=SHADOW_HISTORY)
        """The latest shadow episode records, each with its request id and outcome."""
        self.drifts = dict(drifts or {})
        """Skill name -> the drift monitor of its active version."""
        if promote is not None:
            for skill, (canary, candidate) in self.canaries.items():
                canary.apply_promotion = functools.partial(promote, skill, candidate)

    def __bool__(self) -> bool:
        return bool(self.shadows or self.canaries or self.drifts)

    # --- the executor's seams ------------------------------------------------------------
    def start(
        self, name: str, active: RunnableSkill, interventions: int
    ) -> tuple[RunnableSkill, RequestRollout | None]:
        """The version that runs a request of skill ``name`` (the library's ``active`` or
        the canary's candidate) and the request's rollout record (None: nothing rolls out
        for this skill)."""
        if name not in self.shadows and name not in self.canaries and name not in self.drifts:
            return active, None
        req = RequestRollout(name, active, interventions_at_start=int(interventions))
        runs = active
        if name in self.canaries:
            canary, candidate = self.canaries[name]
            req.canary = canary
            if canary.draw():
                req.candidate, runs = True, candidate
        if name in self.shadows and not req.candidate:
            req.shadow = ShadowEpisode(
                self.shadows[name],
                self.shape_commands,
                self.velocity_scale,
                self.safety,
                self.actuator,
            )
        return runs, req

    def period(self, req: RequestRollout, *period) -> None:
        """One control period of the active version: ``period`` is
        :meth:`ShadowEpisode.period`'s arguments after ``active`` (its observation, action
        and unshaped targets, the joints, the command, the time); the shadow candidate acts
        on it, never sent."""
        if req.shadow is not None and not req.candidate:
            req.shadow.period(req.active, *period)

    def over_bound(self, req: RequestRollout, interventions: int) -> str:
        """Why a running candidate request must fall back now ("" while it may go on): its
        interventions so far passed the canary's hard bound (``abort_interventions``)."""
        if not req.candidate or req.canary is None:
            return ""
        caused = interventions - req.interventions_at_start
        bound = req.canary.intervention_bound()
        return (
            f"{caused} interventions > bound {bound}"
            if bound is not None and caused > bound
            else ""
        )

    def fall_back(
        self, req: RequestRollout, reason: str, interventions: int, request_id: str
    ) -> RunnableSkill | None:
        """The active version to go on with when a candidate request failed for
        ``reason`` (the candidate's outcome, a failure, is tested now); None when the
        request is not the candidate's or failed for a reason the active version shares
        (a lost robot state)."""
        if not req.candidate or req.canary is None or reason.startswith(STATE_LOST):
            return None
        caused = interventions - req.interventions_at_start
        req.decision = req.canary.candidate_outcome(request_id, False, caused)
        req.candidate, req.fallback = False, reason
        return req.active

    def finish(
        self,
        req: RequestRollout,
        state: str,
        interventions: int,
        request_id: str,
        measures: dict | None = None,
    ) -> dict:
        """The final status's rollout keys; records the outcome (a succeeded or failed
        request: aborted and e-stopped ones test nothing). ``measures``: the request's
        own (the executor's ``steps`` and ``return``) for the drift monitor's signal; the
        supervisor's ``interventions`` during it are added here."""
        out: dict = {}
        tested = state in (SUCCEEDED, FAILED)
        caused = interventions - req.interventions_at_start
        if req.canary is not None:
            if tested and req.candidate:
                succeeded = state == SUCCEEDED
                req.decision = req.canary.candidate_outcome(request_id, succeeded, caused)
            elif tested and not req.fallback:  # a fallback's outcome is not the baseline's
                req.canary.active_outcome(state == SUCCEEDED, caused)
            out[SKILL_CANARY] = req.canary_status()
        drift = self.drifts.get(req.skill)
        if drift is not None and tested and not req.candidate and not req.fallback:
            card = req.active.card
            drift.follow(card.version, card_success(card))
            measured = {**(measures or {}), "interventions": caused}
            out[SKILL_DRIFT] = drift.outcome(request_id, state == SUCCEEDED, measured)
        if req.shadow is not None and req.shadow.periods + bool(req.shadow.error):
            record = req.shadow.record()
            out[SKILL_SHADOW] = record
            self.shadow_history.append({"id": request_id, "state": state, **record})
        return out

    def decisions(self) -> list[dict]:
        """Every canary's decision records still in memory."""
        return [r for canary, _ in self.canaries.values() for r in canary.log.history]


def _mapping(text: str, what: str) -> dict:
    data = yaml.safe_load(text) if text and text.strip() else {}
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ValueError(f"{what} must be a mapping of skill names, got {text!r}")
    return {str(k): v for k, v in data.items()}


def parse_shadow(text: str) -> dict[str, str]:
    """skill_node's ``shadow``: a YAML mapping ``{SKILL: CANDIDATE_DIR}`` ("" = none)."""
    return {k: str(v) for k, v in _mapping(text, "shadow").items()}


def parse_canary(text: str) -> dict[str, CanaryConfig]:
    """skill_node's ``canary``: a YAML mapping ``{SKILL: {candidate: DIR, share, seed,
    ...}}`` of :class:`CanaryConfig` fields ("" = none)."""
    out = {}
    for skill, spec in _mapping(text, "canary").items():
        if not isinstance(spec, dict):
            raise ValueError(f"canary {skill}: expected {{candidate: DIR, ...}}, got {spec!r}")
        try:
            out[skill] = CanaryConfig(**spec)
        except TypeError as exc:
            raise ValueError(f"canary {skill}: {exc}") from None
    return out


def parse_drift(text: str) -> dict[str, DriftConfig]:
    """skill_node's ``drift``: a YAML mapping ``{SKILL: {alpha, beta, delta, signal, ...}}``
    of :class:`DriftConfig` fields (``{}`` or null: the defaults; "" = none)."""
    out = {}
    for skill, spec in _mapping(text, "drift").items():
        if not isinstance(spec, dict | None):
            raise ValueError(f"drift {skill}: expected {{alpha, beta, delta, ...}}, got {spec!r}")
        try:
            out[skill] = DriftConfig(**(spec or {}))
        except TypeError as exc:
            raise ValueError(f"drift {skill}: {exc}") from None
    return out


def load_candidate(library: SkillLibrary, skill: str, path: str | Path, check_hashes=True):
    """A candidate version of the library's ``skill``: a version number of its folder
    (``versions/V``) or a skill directory. ValueError when the skill is not loaded or the
    candidate cannot stand in for it: what the version check refuses
    (:func:`policies.versions.check_card`: task, observation layout, action mapping,
    envelope, permissions, limits)."""
    from policies.library import version_dir

    active = library.skills.get(skill)
    if active is None or active.task is None:
        raise ValueError(f"no learned skill {skill!r} in the library to try a candidate for")
    if str(path).isdigit():
        folder = library.folders.get(skill)
        if folder is None:
            raise ValueError(f"skill {skill!r} has no library folder to find version {path} in")
        path = version_dir(folder, int(path))
    try:
        return load_skill(path, check_hashes, active.card, library.measured)
    except SkillCardError as exc:
        raise ValueError(f"candidate {path} for {skill!r}: {exc}") from None


def library_promoter(library: SkillLibrary) -> Callable[[str, RunnableSkill, dict], str]:
    """A :attr:`Rollout.promote` that makes a promoted candidate the active version of its
    skill's library folder (:func:`policies.versions.promote`, the decision as its reason),
    which the executor then loads between requests; a candidate that is not a version of
    that folder is left as it is, and the answer says how to add it."""
    from policies.library import VERSIONS_DIR
    from policies.versions import VersionError, promote

    def apply(skill: str, candidate: RunnableSkill, record: dict) -> str:
        folder = library.folders.get(skill)
        where = candidate.card.directory
        if folder is None or where is None or where.parent != folder / VERSIONS_DIR:
            return (
                f"not applied: {where} is not a version of {skill}'s library folder "
                f"(add it with `miles skills add {skill} DIR`, then promote it)"
            )
        reason = (
            f"canary request {record['request']}: {record['successes']} successes, "
            f"{record['failures']} failures, llr {record['llr']} >= {record['upper']}"
        )
        try:
            promote(folder, candidate.card.version, reason=reason)
        except VersionError as exc:
            logger.error("canary promotion of %s version %s refused: %s", skill, where.name, exc)
            return f"not applied: {exc}"
        logger.info("canary: %s version %s promoted (%s)", skill, where.name, reason)
        return f"promoted: {skill} version {where.name} is active"

    return apply


def rollout_from_config(
    library: SkillLibrary,
    shadow: str = "",
    canary: str = "",
    decision_log: str = "",
    shape_commands: bool = SHAPE_COMMANDS,
    velocity_scale: float = VELOCITY_SCALE,
    check_hashes: bool = True,
    safety: SafetyConfig | None = None,
    drift: str = "",
) -> Rollout | None:
    """The rollout skill_node's ``shadow``, ``canary`` and ``drift`` parameters describe
    (None when all are empty or nothing loads); ``decision_log``: the canaries' JSON-lines
    file ("" = none). A drift monitor needs the skill loaded and a success rate on its
    card; without either it is left out, the reason logged. Unreadable parameters raise
    ValueError; a candidate that does not load or cannot stand in for its skill is left
    out, its reason logged (the skill runs its active version alone)."""
    candidates = {("shadow", k): v for k, v in parse_shadow(shadow).items()}
    configs = parse_canary(canary)
    candidates |= {("canary", k): cfg.candidate for k, cfg in configs.items()}
    loaded = {}
    for (role, skill), path in candidates.items():
        try:
            loaded[role, skill] = load_candidate(library, skill, path, check_hashes)
        except (SkillCardError, ValueError, KeyError, OSError) as exc:
            logger.error("%s candidate for %s left out: %s", role, skill, exc)
    shadows = {skill: c for (role, skill), c in loaded.items() if role == "shadow"}
    log = DecisionLog(decision_log or None)
    canaries = {}
    for skill, cfg in configs.items():
        if ("canary", skill) in loaded:
            rate = card_success(library.skills[skill].card)
            canaries[skill] = (Canary(skill, cfg, rate, log), loaded["canary", skill])
    drifts = {}
    for skill, cfg in parse_drift(drift).items():
        loaded_skill = library.skills.get(skill)
        rate = None if loaded_skill is None else card_success(loaded_skill.card)
        if rate is None:
            logger.error("drift monitor for %s left out: no such skill or no card rate", skill)
            continue
        drifts[skill] = Drift(skill, rate, cfg, DecisionLog(decision_log or None, what="drift"))
    promote = library_promoter(library) if canaries else None
    rollout = Rollout(shadows, canaries, shape_commands, velocity_scale, safety, promote, drifts)
    return rollout if rollout else None


def rollout_params(
    shadow: list[str],
    canary: list[str],
    share: float,
    seed: int,
    decision_log: str | None,
    drift: list[str] = (),
) -> dict:
    """skill_node's ``shadow``, ``canary``, ``drift`` and ``rollout_log`` parameters from
    ``miles up``'s flags (``SKILL=DIR`` or ``SKILL=VERSION``, a version of the skill's
    library folder, each; one share and seed for every canary; ``drift``: skill names, each
    watched with :class:`DriftConfig`'s defaults); {} when none is given. ValueError for a
    flag that is neither."""

    def pairs(flags: list[str], what: str) -> dict[str, str]:
        out = {}
        for flag in flags:
            skill, sep, path = flag.partition("=")
            if not (sep and skill and path):
                raise ValueError(f"--{what} {flag!r}: expected SKILL=DIR or SKILL=VERSION")
            out[skill] = path if path.isdigit() else str(Path(path).expanduser().resolve())
        return out

    params: dict = {}
    if shadow:
        params["shadow"] = json.dumps(pairs(shadow, "shadow"))
    if canary:
        specs = {
            skill: {"candidate": path, "share": share, "seed": seed}
            for skill, path in pairs(canary, "canary").items()
        }
        params["canary"] = json.dumps(specs)
    if drift:
        params["drift"] = json.dumps(dict.fromkeys(drift, {}))
    if decision_log:
        params["rollout_log"] = str(Path(decision_log).expanduser().resolve())
    return params
