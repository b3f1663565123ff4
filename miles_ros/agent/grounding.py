"""Grounded candidates and their affordances.

Candidates are every registered skill with its parameters filled from the scene's named
objects and places (plus coordinate triples written in the goal, and the turn angles it
states: :func:`miles_ros.agent.turns.turn_angles`), and ``done``.

Affordance (SayCan's "can I do this here?"), in (0, 1]:

- a skill with an exported critic (``critic.onnx``): the critic's value on an
  observation of the planner's world for that call (:func:`build_observation`: a task
  state passed through the task's own ``observe``, goals from the one goal resolver
  :mod:`miles_ros.runtime.goals`), mapped through a
  logistic ``1 / (1 + exp(-(value - center) / scale))`` with ``center``/``scale`` from the
  card's optional ``affordance`` block (default: the card's evaluated ``mean_return`` and
  a quarter of its magnitude), times the precondition check below, then divided by the
  best such value among the same skill's candidates at that step (:meth:`Affordance.batch`);
- scripted skills and cards without a critic: a precondition check on the symbolic world:
  0 when the call cannot work (unknown name, an object moved onto itself, a cube stacked
  on a cube that does not rest on the table (held, or on another cube), a cube acted on
  in place (turned) that is covered or not on the table, a point outside the workspace,
  a push to a point in the air, a call the one goal resolver refuses, e.g. a push whose
  path passes another cube: :func:`~miles_ros.runtime.goals.push_path_error`, or one
  outside the card's envelope), :data:`REDUNDANT` when every declared
  effect already holds (the step would change nothing), 1 otherwise.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

import numpy as np

import sims
from miles_ros.agent.registry import Skill, SkillRegistry
from miles_ros.agent.turns import stated_values, turn_angles
from miles_ros.agent.world import ON_TABLE_MAX_Z, World, in_workspace
from miles_ros.runtime.goals import (
    Goal,
    GoalError,
    covered_error,
    goal_from_positions,
    stack_target_error,
    turn_place_error,
)
from sims.robots import panda
from sims.tasks.base import SimState

log = logging.getLogger(__name__)

DONE = "done"
"""The pseudo-skill that ends a plan (first: the goal asks for no motion)."""
REFUSE = "refuse"
"""The pseudo-skill that answers "this goal cannot be done" (first step only)."""
REDUNDANT = 0.2
"""Affordance of a step whose declared effects already hold."""
IMPOSSIBLE = 0.0
"""Affordance of a step whose preconditions fail (never chosen)."""

_NUMBER = r"[-+]?\d*\.?\d+"
_SEP = r"\s*(?:m\b)?\s*[,;]?\s*(?:and\s+)?"
_TRIPLE = re.compile(
    rf"(?:\bx\s*[=:]?\s*)?({_NUMBER}){_SEP}(?:\by\s*[=:]?\s*)?({_NUMBER}){_SEP}"
    rf"(?:\bz\s*[=:]?\s*)?({_NUMBER})",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Step:
    """One skill call: a skill name and its parameters (``done`` has none)."""

    skill: str
    """Skill name, or ``done``."""
    params: dict = field(default_factory=dict)
    """Parameters: names from the scene or 3-vectors (lists of floats)."""

    def to_dict(self) -> dict:
        """``{"skill", "params"}`` as in ``/miles/skill/request``."""
        return {"skill": self.skill, "params": dict(self.params)}

    def key(self) -> str:
        """A hashable identity."""
        return step_text(self)


def format_value(value) -> str:
    """A parameter value as plan text: a name or keyword, a number (``45``, ``-30``), or
    ``[x, y, z]`` with short floats."""
    if isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return f"{float(value):g}"
    return "[" + ", ".join(f"{float(v):g}" for v in value) + "]"


def step_text(step: Step, order: list[str] | None = None) -> str:
    """The plan-line text of a step, e.g. ``pick_place red_cube left_pad``."""
    names = order if order is not None else list(step.params)
    values = [format_value(step.params[n]) for n in names if n in step.params]
    return " ".join([step.skill, *values])


def goal_points(goal: str) -> list[tuple[float, float, float]]:
    """Coordinate triples written in a goal (metres, base frame), in order of appearance.

    Accepts ``0.4, 0.1, 0.3``, ``(0.4 0.1 0.3)``, ``x=0.4 y=0.1 z=0.3``, ``x 0.4, y 0.1 ...``
    and a ``cm`` suffix after the triple (divides by 100).
    """
    points = []
    for match in _TRIPLE.finditer(goal):
        values = [float(v) for v in match.groups()]
        tail = goal[match.end() : match.end() + 6].lstrip(" )]").lower()
        if tail.startswith("cm"):
            values = [v / 100.0 for v in values]
        points.append(tuple(round(v, 4) for v in values))
    return points


def _targets(world: World, points: list) -> list:
    return [*world.names, *[list(p) for p in points]]


def ground_candidates(registry: SkillRegistry, world: World, goal: str = "") -> list[Step]:
    """Every registered skill with parameters from the scene (and the goal's points and
    turn angles), valid against its schema, then ``done``."""
    points = goal_points(goal)
    angles = turn_angles(goal)
    out: list[Step] = []
    for skill in registry:
        combos: list[dict] = [{}]
        for name in skill.param_names:
            choices = _choices(skill, name, world, points, angles)
            combos = [{**c, name: v} for c in combos for v in choices]
        for params in combos:
            if not skill.validate(params):
                out.append(Step(skill.name, params))
    out.append(Step(DONE, {}))
    return out


def _choices(skill: Skill, param: str, world: World, points: list, angles: list) -> list:
    names, allows_array = skill.card.param_choices(param, world.names)
    spec = skill.parameters.get("properties", {}).get(param, {})
    stated = stated_values(spec, angles)
    return names + ([list(p) for p in points] if allows_array else []) + stated


class Affordance:
    """Affordance of a step in a world: critic value when available, else preconditions."""

    def __init__(self, registry: SkillRegistry):
        self.registry = registry
        self._sessions: dict[str, object] = {}

    def __call__(self, step: Step, world: World) -> float:
        if step.skill == DONE:
            return 1.0
        skill = self.registry[step.skill]
        check = self.precondition(skill, step.params, world)
        if check == IMPOSSIBLE or skill.critic is None:
            return check
        return check * self.critic_affordance(skill, step.params, world)

    def batch(self, steps: list[Step], world: World) -> np.ndarray:
        """Affordances of all candidates of one planning step. Critic-based values are
        divided by the best value of the same skill in this step, so a skill's most
        feasible call scores 1 like a scripted skill does (critics' scales differ and
        would otherwise bias the choice between skills or towards ``done``). Each critic
        runs once per step, on the observations of all its skill's candidates."""
        values = np.ones(len(steps), dtype=np.float64)
        rows: dict[str, list[tuple[int, np.ndarray]]] = {}
        for i, step in enumerate(steps):
            if step.skill == DONE:
                continue
            skill = self.registry[step.skill]
            values[i] = self.precondition(skill, step.params, world)
            if values[i] == IMPOSSIBLE or skill.critic is None:
                continue
            try:
                rows.setdefault(skill.name, []).append(
                    (i, build_observation(skill, step.params, world))
                )
            except GoalError as exc:
                log.debug("%s %s: %s", skill.name, step.params, exc)
                values[i] = IMPOSSIBLE
        for name, batch in rows.items():
            skill = self.registry[name]
            index = [i for i, _ in batch]
            values[index] *= self._squash(skill, self._critic(skill, [o for _, o in batch]))
            best = values[index].max()
            if best > 0:
                values[index] = values[index] / best
        return values

    def precondition(self, skill: Skill, params: dict, world: World) -> float:
        """The documented precondition check (see the module docstring)."""
        if skill.validate(params):
            return IMPOSSIBLE
        obj, target = params.get("object"), params.get("target")
        if obj is not None and obj not in world.objects:
            return IMPOSSIBLE
        if obj is not None and target is None and turn_place_error(obj, world.objects):
            return IMPOSSIBLE
        if target is not None:
            if isinstance(target, str):
                if target not in world.names or target == obj:
                    return IMPOSSIBLE
                if stacking_error(params, world):
                    return IMPOSSIBLE
            else:
                if not in_workspace(tuple(target)):
                    return IMPOSSIBLE
                pushes = "contact" in skill.permissions and "grasps" not in skill.permissions
                if obj is not None and pushes and target[2] > ON_TABLE_MAX_Z:
                    return IMPOSSIBLE
        if skill.card.task is not None:  # the resolver the skill node runs; the envelope:
            try:  # a hard mask, where its policy was trained
                _goal(world, str(skill.card.task), params)
                if envelope_violations(skill, params, world):
                    return IMPOSSIBLE
            except GoalError:
                return IMPOSSIBLE
        if world.holds(skill.effects_machine, params):
            return REDUNDANT
        return 1.0

    def critic_affordance(self, skill: Skill, params: dict, world: World) -> float:
        """The skill critic's value on the built observation, squashed into (0, 1); 0 when
        the executor could not resolve the call's goal."""
        try:
            obs = build_observation(skill, params, world)
        except GoalError as exc:
            log.debug("%s %s: %s", skill.name, params, exc)
            return IMPOSSIBLE
        return float(self._squash(skill, self._critic(skill, [obs]))[0])

    def _critic(self, skill: Skill, observations: list[np.ndarray]) -> np.ndarray:
        """The critic's values of a batch of observations (one session run)."""
        import onnxruntime as ort

        key = str(skill.critic)
        if key not in self._sessions:
            # one thread, no spinning: a critic is a small MLP, and onnxruntime's default
            # pool keeps threads spinning after each run, taking the cores the language
            # model's next pass needs
            options = ort.SessionOptions()
            options.intra_op_num_threads = options.inter_op_num_threads = 1
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            self._sessions[key] = ort.InferenceSession(
                key, options, providers=["CPUExecutionProvider"]
            )
        session = self._sessions[key]
        name = session.get_inputs()[0].name
        return np.ravel(session.run(None, {name: np.stack(observations)})[0]).astype(np.float64)

    @staticmethod
    def _squash(skill: Skill, values: np.ndarray) -> np.ndarray:
        """Critic values -> (0, 1) by the card's logistic (see the module docstring)."""
        settings = skill.card.affordance
        center = float(settings.get("center", skill.card.evaluation.get("mean_return") or 0.0))
        scale = float(settings.get("scale", max(abs(center) / 4.0, 1e-3)))
        with np.errstate(over="ignore"):  # far below the centre: 0
            return 1.0 / (1.0 + np.exp(-(values - center) / scale))


def build_observation(skill: Skill, params: dict, world: World) -> np.ndarray:
    """An observation for ``skill``'s critic from the planner's world: the one-env task
    state the skill would start from (home joint pose, zero velocities, the TCP at the
    home pose or where the last reach put it, the object and the goal where
    :func:`~miles_ros.runtime.goals.goal_from_positions` puts them, fingers open) through
    the skill's task's own ``observe``; the world has no yaws, so every cube stands at yaw
    0 and a turn's goal yaw is its angle. :class:`GoalError` when the goal cannot be
    resolved."""
    task = sims.get_task(str(skill.card.task))
    q = np.asarray(panda.home_joint_positions, dtype=np.float64)
    tcp = np.asarray(panda.fk_tcp(q), dtype=np.float64)
    if world.arm_at not in (None, "home"):
        tcp = _goal(world, "reach", {"target": world.arm_at}).goal_pos
    # the world has no yaws: each cube stands at yaw 0, so a turn's goal yaw is its angle
    flat = {name: 0.0 for name in world.objects}
    goal = goal_from_positions(task.CONFIG.name, params, world.objects, world.places, yaws=flat)
    obj = np.zeros(3) if goal.object_name is None else np.asarray(world.objects[goal.object_name])
    state = SimState(
        joint_pos=q[None, :],
        joint_vel=np.zeros((1, 7)),
        tcp_pos=np.asarray(tcp, dtype=np.float64).reshape(1, 3),
        finger_width=np.array([panda.gripper_width_max]),
        object_pos=np.asarray(obj, dtype=np.float64).reshape(1, 3),
        object_yaw=np.zeros(1),
        goal_pos=np.asarray(goal.goal_pos, dtype=np.float64).reshape(1, 3),
        goal_yaw=None if goal.goal_yaw is None else np.array([goal.goal_yaw]),
    )
    return task.observe(state)[0]


def stacking_error(params: dict, world: World) -> str | None:
    """Why a call moving its ``object`` cannot run in ``world`` because of a stack: a
    cube lies on the object, or the cube named by ``target`` cannot take it (on itself;
    on a cube that is not resting; above a tower's third level), or None."""
    obj, target = params.get("object"), params.get("target")
    if obj is None or obj not in world.objects:
        return None
    why = None
    if isinstance(target, str) and target in world.objects:
        why = stack_target_error(obj, target, world.objects)
    if why is None and target != obj:
        why = covered_error(obj, world.objects)
    return why


OUTSIDE_ENVELOPE = "is outside the skill's trained envelope"
"""The words of every plan error and refusal about a call outside its card's envelope."""


def envelope_violations(skill: Skill, params: dict, world: World) -> list[str]:
    """The envelope preconditions of the skill's card that a call breaks in ``world`` (the
    executor's check, on the planner's world): [] inside the envelope or without one.
    Raises GoalError when the call's goal cannot be resolved."""
    if skill.card.envelope is None:
        return []
    goal = _goal(world, str(skill.card.task), params)
    start = world.objects.get(goal.object_name) if goal.object_name else None
    return skill.card.envelope_violations(start, goal.goal_pos, goal.turn_deg)


def goal_error(step: Step, registry: SkillRegistry, world: World) -> str | None:
    """Why the one goal resolver (:func:`~miles_ros.runtime.goals.goal_from_positions`,
    which the skill node runs on every request) refuses ``step`` in ``world``, or None: it
    resolves, or it is not a registered skill with a task (scripted and interface skills
    have no goal to resolve)."""
    task = registry[step.skill].card.task if step.skill in registry else None
    if task is None:
        return None
    try:
        _goal(world, str(task), step.params)
    except GoalError as exc:
        return str(exc)
    return None


def outside_envelope(step: Step, registry: SkillRegistry, world: World) -> str | None:
    """Why ``step`` lies outside the region its skill was trained for (None: inside, not a
    registered skill, or a goal that does not resolve: :func:`goal_error` says why)."""
    if step.skill not in registry:
        return None
    try:
        violations = envelope_violations(registry[step.skill], step.params, world)
    except GoalError:
        return None
    if not violations:
        return None
    return f"{step_text(step)} {OUTSIDE_ENVELOPE}: " + "; ".join(violations)


def _goal(world: World, task: str, params: dict) -> Goal:
    return goal_from_positions(task, params, world.objects, world.places)
