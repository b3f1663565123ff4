"""Why the skill executor (:mod:`miles_ros.runtime.skills`) refuses a request before any
motion: one status ``failed`` whose reason starts with ``refused:``
(:data:`~miles_ros.interfaces.REFUSED_PREFIX`).

:func:`parse_request` reads a request's JSON, :func:`request_refusal` checks what needs no
scene (the skill, its params against the card's schema, the e-stop, the robot state), and
:func:`envelope_refusal` the resolved goal against the card's envelope (the region its
policy was trained for, checked against the live scene). Where an object's pose is
missing or stale, :func:`miles_ros.runtime.observation.pose_refusal` says why.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from miles_ros.interfaces import REFUSED_PREFIX
from miles_ros.runtime.goals import Goal
from miles_ros.runtime.library import RunnableSkill, SkillLibrary
from miles_ros.runtime.observation import ObjectPose


def parse_request(payload: str | Mapping) -> tuple[dict | None, str]:
    """(the request as a dict, "") or (None, why it is refused) for a payload that is not
    a JSON object."""
    try:
        request = json.loads(payload) if isinstance(payload, str) else dict(payload)
    except (json.JSONDecodeError, TypeError, ValueError) as exc:
        return None, f"{REFUSED_PREFIX} request is not JSON ({exc})"
    if not isinstance(request, dict):
        return None, f"{REFUSED_PREFIX} request must be a JSON object"
    return request, ""


def request_refusal(
    library: SkillLibrary, name, request: Mapping, *, estop: bool, has_state: bool
) -> str:
    """Why a request for skill ``name`` may not run ("" when it may; without the prefix):
    no or an unknown skill (or one that failed to load), params failing its card's schema,
    the e-stop latched (``estop``), no robot state yet (not ``has_state``)."""
    if not isinstance(name, str) or not name:
        return "request needs a skill name"
    if name not in library.skills:
        if name in library.errors:
            return f"skill {name!r} failed to load: {library.errors[name]}"
        return f"unknown skill {name!r}; available: {', '.join(library.names())}"
    params = request.get("params", {})
    if params is None:
        params = {}
    if not isinstance(params, dict):
        return "params must be a JSON object"
    errors = library.skills[name].param_errors(params)
    if errors:
        return f"invalid params for {name!r}: " + "; ".join(errors)
    if estop:
        return "e-stop latched; reset it first"
    if not has_state:
        return "no robot state yet (/joint_states)"
    return ""


def envelope_refusal(skill: RunnableSkill, goal: Goal, objects: Mapping[str, ObjectPose]) -> str:
    """``refused: precondition ...`` when the resolved goal (and the cube's live position in
    ``objects``) lies outside the card's envelope; "" inside it."""
    obj = None if goal.object_name is None else objects[goal.object_name].position
    violations = skill.card.envelope_violations(obj, goal.goal_pos, goal.turn_deg)
    if not violations:
        return ""
    return f"{REFUSED_PREFIX} precondition " + "; precondition ".join(violations)
