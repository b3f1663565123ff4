"""What export writes into a skill card (:func:`build_card`): per task, the planner's
text, the parameter JSON schema (named from the default scene), the action's meaning and
scales (from the task's config and the robot model), the observation layout, timing, the
robot's limits and the envelope the policy was trained for (:func:`task_envelope`, from
the task module's sampling ranges and the training config's ``env.goal_distance``,
``env.object_region`` and ``env.goal_region``), each read from its one source.

:func:`refresh_envelope` rewrites only the ``envelope`` block of an exported card and its
preconditions in words (no retraining, the ONNX files and their sha256 untouched)::

    python -m policies.card_content refresh-envelope policies/skills/*/

The same way, :func:`refresh_robustness` writes the ``robustness: {axes: [...]}`` block (the
sweep axes of ``miles eval --sweep``, :mod:`policies.sweep`) and :func:`record_evidence` one
entry of the ``evidence`` block (``miles eval SKILL --record``: 200-episode success with its
95% CI, ``pybullet`` plain or ``supervised``).
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
from pathlib import Path
from typing import Any

import sims
from policies.cards import SkillCard, load_card, write_card
from policies.envelope import Envelope, Range, Region
from policies.sweep import task_axes
from sims.robots import panda
from sims.scene import load_scene
from sims.tasks import pick_place, push, reach, registry, turn

logger = logging.getLogger(__name__)

HOVER_HEIGHT = 0.10
"""Height (m) of a reach target above a named object or pad: the goal mapping every reach
card states, and the one number the goal resolver (:mod:`miles_ros.runtime.goals`) uses
for the executor and the planner."""


def scene_names(scene_file: str | None = None) -> tuple[list[str], list[str]]:
    """Object and place names of the scene (default: the project's scene)."""
    scene = load_scene(scene_file)
    return list(scene.objects), list(scene.places)


def _span(low: float, high: float) -> str:
    return f"{low:.2f}-{high:.2f}"


def _cube_area(region: push.XYRegion = push.OBJECT_XY_RANGE) -> str:
    lo, hi = region
    return f"x {_span(lo[0], hi[0])} m, y {_span(lo[1], hi[1])} m"


def _cm(metres: float) -> str:
    return f"{100 * metres:g}"


def _vector(n: int) -> dict:
    return {"type": "array", "items": {"type": "number"}, "minItems": n, "maxItems": n}


def _params(**properties: dict) -> dict:
    """The schema of a request's ``params``: exactly ``properties``, each required."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


TASK_TEXT: dict[str, dict[str, Any]] = {
    "reach": {
        "description": (
            "Moves the gripper's tool centre point to a target point in free space within "
            "about 2 s, without touching anything. Use it to approach, hover above or point "
            "at a scene object or pad (the target is a point above it), or to move to a "
            "given 3-D position in the robot base frame (m). Joint-space actions at 25 Hz; "
            "it succeeds when the tool centre point is within 5 cm of the target."
        ),
        "permissions": ["moves_arm"],
        "preconditions": [
            "the arm is idle and not e-stopped",
            "the target lies in the reach workspace ("
            + ", ".join(
                f"{axis} {_span(lo, hi)} m"
                for axis, lo, hi in zip("xyz", reach.GOAL_LOW, reach.GOAL_HIGH, strict=True)
            )
            + " above the table)",
            "the path to the target is free of obstacles",
        ],
        "effects": ["the tool centre point is within 5 cm of the target point"],
        "effects_machine": [{"set": "gripper_at", "place": "$target"}],
        "goal": f"named objects -> {HOVER_HEIGHT:.2f} m above the object; named pads -> "
        f"{HOVER_HEIGHT:.2f} m above the pad; a 3-vector -> that point (m, base frame)",
    },
    "push": {
        "description": (
            "Pushes a cube across the table with the closed fingers until it lies within "
            "5 cm of a target on the table. Use it to move a cube that does not need to be "
            "lifted, e.g. onto a pad next to it; it does not grasp. Cartesian end-effector "
            "actions at 25 Hz; the cube may turn while it slides."
        ),
        "permissions": ["moves_arm", "contact"],
        "preconditions": [
            "the arm is idle and not e-stopped",
            "the cube rests upright on the table within {cube_area}",
            "the target is on the table {distance} m from the cube",
            "nothing else lies on the path between the cube and the target: no other "
            f"cube's centre within {_cm(round(push.PATH_CLEARANCE, 3))} cm of it, from "
            f"{_cm(push.PATH_BEHIND)} cm behind the cube",
        ],
        "effects": ["the cube rests on the table within 5 cm (xy) of the target"],
        "effects_machine": [{"set": "object_at", "object": "$object", "place": "$target"}],
        "goal": "named pads -> the pad centre on the table; a 2- or 3-vector -> that table "
        "point (z ignored)",
    },
    "pick_place": {
        "description": (
            "Picks a cube up with the gripper and places it within 5 cm of a target point, "
            "on the table or up to 0.25 m in the air, or stacks it on another cube (the "
            "target is that cube: it is released resting on top of it). Use it to move a "
            "cube farther than a push can, onto a pad, onto another cube, or to hold it at a "
            "point; it grasps. Cartesian end-effector actions plus a gripper command at 25 Hz."
        ),
        "permissions": ["moves_arm", "contact", "grasps"],
        "preconditions": [
            "the arm is idle and not e-stopped, the gripper is empty",
            "the cube rests upright on the table within {cube_area}",
            "the target is {distance} m from the cube (xy), "
            f"z between {pick_place.GOAL_Z_RANGE[0]:.2f} and {pick_place.GOAL_Z_RANGE[1]:.2f} m",
        ],
        "effects": [
            "the cube's centre is within 5 cm of the target",
            "the cube is held in the gripper when the target is in the air",
            f"a cube target: the cube rests on it within {_cm(pick_place.STACK_XY_TOLERANCE)} "
            "cm (xy), released",
        ],
        "effects_machine": [{"set": "object_at", "object": "$object", "place": "$target"}],
        "goal": f"named pads -> resting on the pad (z {push.CUBE_REST_Z:.2f} m); a named cube "
        f"-> on top of it (its centre + {pick_place.CUBE_SIZE:.2f} m, variant stack); a "
        "3-vector -> that point",
    },
    "turn": {
        "description": (
            "Turns a cube in place on the table with the closed fingers, pushing its faces "
            "off centre, until its yaw is within "
            f"{turn.TURN_TOLERANCE_DEG:g} deg of a target (modulo 90 deg: a cube looks the "
            "same every quarter turn) and its centre within "
            f"{_cm(turn.TURN_XY_TOLERANCE)} cm of where it was. Use it to rotate a cube by a "
            "given angle or to square a face to the robot, without lifting it; it does not "
            "grasp. Cartesian end-effector actions at 25 Hz."
        ),
        "permissions": ["moves_arm", "contact"],
        "preconditions": [
            "the arm is idle and not e-stopped",
            "the cube rests upright on the table within {cube_area}",
            f"nothing else lies within {_cm(turn.TURN_CLEARANCE)} cm of the cube (the fingers "
            "go around it)",
        ],
        "effects": [
            f"the cube's yaw is within {turn.TURN_TOLERANCE_DEG:g} deg of the target "
            "(modulo 90 deg)",
            f"the cube's centre is within {_cm(turn.TURN_XY_TOLERANCE)} cm (xy) of where it was",
        ],
        # no place changes: an effect the planner's world model does not know would read as
        # already holding
        "effects_machine": [],
        "goal": "angle -> target yaw = the cube's yaw at the request + angle; face_robot -> "
        "the yaw whose face normal points at the base; goal position = the cube's centre at "
        "the request (in place)",
    },
}
"""Per task: the planner's description, permission tags, preconditions and effects (in
words and machine-readable) and the goal mapping in words."""

FACE_ROBOT = "face_robot"
"""turn's named angle: the yaw whose face normal points at the robot's base."""


def parameter_schema(task: str) -> dict:
    """JSON schema of the skill request's ``params`` for a task."""
    objects, places = scene_names()
    if task == "reach":
        return _params(
            target={"oneOf": [{"type": "string", "enum": objects + places}, _vector(3)]}
        )
    if task == "turn":
        angle = {
            "oneOf": [
                {
                    "type": "number",
                    "description": "deg, counter-clockwise seen from above, relative to the "
                    "cube's yaw when the request starts",
                },
                {
                    "type": "string",
                    "enum": [FACE_ROBOT],
                    "description": "turn so that a face normal points at the robot's base",
                },
            ]
        }
        return _params(object={"type": "string", "enum": objects}, angle=angle)
    if task == "pick_place":  # a pad, a cube to stack on (variant stack), or a point
        cube = {
            "type": "string",
            "enum": list(objects),
            "description": "stack on top of this cube",
        }
        target = {"oneOf": [{"type": "string", "enum": places}, cube, _vector(3)]}
    else:
        target = {
            "oneOf": [
                {"type": "string", "enum": places},
                {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 3},
            ]
        }
    return _params(object={"type": "string", "enum": objects}, target=target)


def trained_goal_distance(task: str, goal_distance=None) -> tuple[float, float]:
    """The cube-goal distance range (m) a push or pick_place policy was trained on: the
    training config's ``env.goal_distance`` when it sets one, else the task's default
    (``CONFIG.goal_distance_range``). ValueError for a malformed range."""
    if not goal_distance:
        return tuple(sims.get_task(task).CONFIG.goal_distance_range)
    return push.check_distance_range(goal_distance)


def trained_regions(
    task: str, object_region=None, goal_region=None
) -> tuple[push.XYRegion, push.XYRegion]:
    """The cube area and the goal area (``((xlo, ylo), (xhi, yhi))`` m each) a policy of a
    task that places a cube was trained on: the training config's ``env.object_region`` and
    ``env.goal_region`` where it sets them, else the task's defaults (``CONFIG``'s
    ``object_xy_range`` / ``goal_xy_range``). ValueError for a malformed region or one the
    task does not draw (:func:`sims.tasks.registry.places_object`, ``places_goal``)."""
    module = sims.get_task(task)
    for name, region, applies, tasks in (
        ("object_region", object_region, registry.places_object, registry.object_task_names),
        ("goal_region", goal_region, registry.places_goal, registry.goal_task_names),
    ):
        if region and not applies(module):
            raise ValueError(f"{name} is a {tasks()} option, not {task}'s")
    cfg = module.CONFIG
    obj = push.check_xy_region(object_region, "object_region") if object_region else None
    goal = push.check_xy_region(goal_region, "goal_region") if goal_region else None
    return obj or cfg.object_xy_range, goal or cfg.goal_xy_range


def preconditions(task: str, goal_distance=None, object_region=None) -> list[str]:
    """The card's preconditions in words, the distance range and the cube area the ones
    trained on."""
    text = TASK_TEXT[task]["preconditions"]
    module = sims.get_task(task)
    if not registry.places_object(module):
        return list(text)
    area = _cube_area(trained_regions(task, object_region)[0])
    if not registry.places_goal(module):
        return [line.replace("{cube_area}", area) for line in text]
    distance = _span(*trained_goal_distance(task, goal_distance))
    return [line.replace("{distance}", distance).replace("{cube_area}", area) for line in text]


def task_envelope(task: str, goal_distance=None, object_region=None, goal_region=None) -> dict:
    """The ``envelope`` block for a task: the regions its training episodes sample (goal
    box for reach; cube area, goal area and cube-goal distance for push and pick_place,
    whose air goals add the goal height range; turn: the cube area for both, the goal being
    the cube's own centre, and ``angle_deg``, the turn magnitudes its episodes sample,
    ``TURN_MIN_DEG`` to ``TURN_MAX_DEG``), read from the task module; the distance and the
    areas from the training config's ``env.goal_distance``, ``env.object_region`` and
    ``env.goal_region`` when given (:func:`trained_goal_distance`, :func:`trained_regions`)."""
    module = sims.get_task(task)
    if task == "reach":
        trained_regions(task, object_region, goal_region)  # ValueError for either
        return Envelope(target_region=Region(module.GOAL_LOW, module.GOAL_HIGH)).to_dict()
    if not registry.places_object(module):
        raise ValueError(f"no envelope for task {task!r}")
    (obj_low, obj_high), (low, high) = trained_regions(task, object_region, goal_region)
    if not registry.places_goal(module):  # in place: the goal is the cube's centre
        turns = registry.has_goal_yaw(module)
        return Envelope(
            target_region=Region(tuple(obj_low), tuple(obj_high)),
            object_region=Region(tuple(obj_low), tuple(obj_high)),
            angle_deg=Range(module.TURN_MIN_DEG, module.TURN_MAX_DEG) if turns else None,
        ).to_dict()
    if task == "pick_place":
        low, high = (*low, module.GOAL_Z_RANGE[0]), (*high, module.GOAL_Z_RANGE[1])
    return Envelope(
        target_region=Region(tuple(low), tuple(high)),
        object_region=Region(tuple(obj_low), tuple(obj_high)),
        object_target_distance_xy=Range(*trained_goal_distance(task, goal_distance)),
    ).to_dict()


def action_description(task: str, levelling: dict | None = None) -> dict:
    """Action dimension, mode, meaning and scales, read from the task's config
    (``levelling``: the training config's tool levelling, as
    :func:`policies.ppo.env_options.levelling_fields` gives it)."""
    cfg = dataclasses.replace(sims.get_task(task).CONFIG, **(levelling or {}))
    if cfg.action_mode == "joint":
        per_step = cfg.joint_action_scale * panda.joint_velocity_limits * cfg.control_dt
        return {
            "dim": cfg.action_dim,
            "mode": "joint",
            "meaning": "joint position deltas in [-1, 1]: joint target = measured q + a * "
            "joint_action_scale * velocity_limit * control_dt, clipped to the "
            "position limits",
            "scale": {
                "joint_action_scale": cfg.joint_action_scale,
                "max_step_rad": [round(float(x), 6) for x in per_step],
                "control_dt_s": cfg.control_dt,
            },
        }
    meaning = (
        "TCP displacement in [-1, 1] x cartesian_step_max (m, base frame), turned "
        "into a joint target by one damped-least-squares IK step (never commanding the "
        "TCP below tcp_z_min), clipped to the position limits"
    )
    levelled = {}
    if cfg.ik_tilt_gain:
        meaning += (
            "; plus a step in that IK step's null space turning the tool axis towards "
            "straight down (gain ik_tilt_gain, on the tilt beyond ik_tilt_allowance_deg)"
        )
        levelled = {"ik_tilt_allowance_deg": cfg.ik_tilt_allowance_deg}
    if cfg.has_gripper:
        meaning += "; a[3] is the gripper: > 0 open (fingers at their maximum), <= 0 close"
    else:
        meaning += "; the fingers stay closed"
    return {
        "dim": cfg.action_dim,
        "mode": "cartesian",
        "meaning": meaning,
        "scale": {
            "cartesian_step_max_m": cfg.cartesian_step_max,
            "ik_damping_m": cfg.ik_damping,
            "ik_tilt_gain": cfg.ik_tilt_gain,
            **levelled,
            "tcp_z_min_m": cfg.cartesian_z_min,
            "control_dt_s": cfg.control_dt,
            "finger_position_max_m": panda.finger_position_max if cfg.has_gripper else 0.0,
        },
    }


def build_card(
    name: str,
    task: str,
    sha256: dict[str, str],
    provenance: dict[str, Any],
    evaluation: dict[str, Any],
    files: dict[str, str] | None = None,
    version: int = 1,
    affordance: dict[str, Any] | None = None,
    goal_distance=None,
    object_region=None,
    goal_region=None,
    levelling: dict | None = None,
    calibration: dict | None = None,
) -> SkillCard:
    """A complete skill card for a task's exported networks; ``calibration``: its
    observation calibration (:mod:`policies.calibration`; none: no block); ``goal_distance``,
    ``object_region``, ``goal_region``: the training config's ``env.goal_distance``,
    ``env.object_region``, ``env.goal_region`` (the envelope's cube-goal distances, cube
    area and goal area; empty: the task's defaults); ``levelling``: its tool levelling
    (:func:`policies.ppo.env_options.levelling_fields`; the action block records it)."""
    task_module = sims.get_task(task)
    cfg = task_module.CONFIG
    text = TASK_TEXT[task]
    data = {
        "name": name,
        "version": version,
        "description": text["description"],
        "parameters": parameter_schema(task),
        "task": task,
        "goal_mapping": text["goal"],
        "observation": {"dim": task_module.LAYOUT.dim, "layout": task_module.LAYOUT.describe()},
        "action": action_description(task, levelling),
        "control_rate_hz": round(1.0 / cfg.control_dt, 6),
        "episode_steps": cfg.episode_steps,
        "timeout_s": round(2.0 * cfg.episode_steps * cfg.control_dt, 3),
        "success_threshold_m": cfg.success_threshold,
        "limits": panda.limits_dict(),
        "permissions": list(text["permissions"]),
        "preconditions": preconditions(task, goal_distance, object_region),
        "envelope": task_envelope(task, goal_distance, object_region, goal_region),
        "effects": list(text["effects"]),
        "effects_machine": list(text["effects_machine"]),
        **({"variants": list(task_module.VARIANTS)} if hasattr(task_module, "VARIANTS") else {}),
        "files": dict(files or {"actor": "actor.onnx", "critic": "critic.onnx"}),
        "sha256": dict(sha256),
        "provenance": dict(provenance),
        "evaluation": dict(evaluation),
        "robustness": {"axes": task_axes(task)},
    }
    if affordance:
        data["affordance"] = dict(affordance)
    if calibration:
        data["calibration"] = dict(calibration)
    return SkillCard.from_dict(data)


def refresh_envelope(skill: str | Path) -> Path:
    """Rewrite only the ``envelope`` block of an exported card with :func:`task_envelope`
    of its task (placed after ``preconditions`` when the card has none yet), and the
    preconditions in words (:func:`preconditions`, which state the same ranges); every
    other key, the ONNX files and their sha256 stay as they are; the cube-goal distances
    and the cube and goal areas are the training config's (provenance ``training_noise``'s
    ``goal_distance``, ``object_region``, ``goal_region``) when it recorded them. Returns
    the card's path."""
    card = load_card(skill)
    env = (card.data.get("provenance") or {}).get("training_noise") or {}
    envelope = task_envelope(
        str(card.task), env.get("goal_distance"), env.get("object_region"), env.get("goal_region")
    )
    words = preconditions(str(card.task), env.get("goal_distance"), env.get("object_region"))
    data: dict[str, Any] = {}
    for key, value in card.data.items():
        if key != "envelope":
            data[key] = words if key == "preconditions" else value
        if key == "preconditions":
            data["envelope"] = envelope
    data.setdefault("envelope", envelope)
    return write_card(SkillCard.from_dict(data, card.path), card.path.parent)


def set_card_block(skill: str | Path, key: str, value: Any, after: str) -> Path:
    """Rewrite only the top-level ``key`` of an exported card (placed after ``after`` when
    the card has none yet); every other key, the ONNX files and their sha256 stay."""
    card = load_card(skill)
    data: dict[str, Any] = {}
    for k, v in card.data.items():
        if k != key:
            data[k] = v
        if k == after:
            data[key] = value
    data.setdefault(key, value)
    return write_card(SkillCard.from_dict(data, card.path), card.path.parent)


def refresh_robustness(skill: str | Path) -> Path:
    """Write the card's ``robustness.axes``: :func:`policies.sweep.task_axes` of its task."""
    card = load_card(skill)
    block = {**(card.data.get("robustness") or {}), "axes": task_axes(str(card.task))}
    return set_card_block(skill, "robustness", block, after="evaluation")


def record_evidence(skill: str | Path, kind: str, entry: dict[str, Any]) -> Path:
    """Set ``evidence.<kind>`` (``pybullet``, ``supervised``, ``perceived`` or ``isaac``, each
    possibly with ``_VARIANT`` for one episode variant, e.g. ``supervised_stack``) of an
    exported card."""
    evidence = dict(load_card(skill).data.get("evidence") or {})
    evidence[kind] = dict(entry)
    return set_card_block(skill, "evidence", evidence, after="evaluation")


def main(argv: list[str] | None = None) -> int:
    """``python -m policies.card_content refresh-envelope SKILL_DIR...``"""
    parser = argparse.ArgumentParser(prog="python -m policies.card_content")
    sub = parser.add_subparsers(dest="command", required=True)
    refresh = sub.add_parser(
        "refresh-envelope",
        help="rewrite the envelope block and the preconditions of exported cards from their "
        "task modules",
    )
    refresh.add_argument("skills", nargs="+", help="skill directories or skill.yaml files")
    robust = sub.add_parser(
        "refresh-robustness", help="write the robustness block (sweep axes) of exported cards"
    )
    robust.add_argument("skills", nargs="+", help="skill directories or skill.yaml files")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    refresh_block = refresh_envelope if args.command == "refresh-envelope" else refresh_robustness
    for skill in args.skills:
        logger.info("%s: %s", args.command, refresh_block(skill))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
