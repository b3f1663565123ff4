"""Scripted push expert: a memoryless state-feedback pusher (the DAgger teacher of push).

Everything follows from the observation each step (no hidden phase). With ``c`` the cube's
xy, ``g`` the goal's xy, ``d = unit(g - c)`` the push direction and ``n`` its normal, the TCP
``p`` is read in the cube's push frame: ``along = (p - c) . d`` (negative: behind the cube)
and ``lat = (p - c) . n``.

- Push (TCP low, behind the cube, ``|lat| <= LAT_MAX``): move along ``d`` (re-aimed every
  step, so the cube is always pushed towards the goal) and steer ``lat`` to a small offset
  that turns the cube: the face in contact slides along its own normal, so the offset is
  proportional to the angle between ``d`` and the nearest face normal (from the cube's yaw
  in the observation), on the side whose push torque turns that normal onto ``d``. The
  forward speed drops with the lateral error (let the correction catch up) and near the
  goal. Success ends the episode, so the push need not stop the cube on the goal.
- Approach (otherwise): go to the standoff point ``b = c - STANDOFF * d`` at pushing height.
  Where the straight xy path from the TCP to ``b`` passes near the cube, the TCP first rises
  to a height where its fingertips clear the cube, and moves sideways only as far as its
  height allows; the height it asks for ramps with the path's clearance, so the action
  varies continuously with the observation except at the push/approach boundary. Once
  behind the cube on the push line (``DESCEND_BEHIND``) it descends to pushing height
  whatever the clearance: holding height there (backing up to the standoff point first)
  made the labels on either side of the boundary disagree, and students that blend them
  hovered behind the cube on PyBullet's quick arm.

Actions are displacements in units of ``cfg.cartesian_step_max``, proportional to the
remaining distance with a gain below 1 (a small step near targets, gentle on the
rate-limited arm), capped at norm 1.
"""

from __future__ import annotations

import numpy as np

from policies.experts import observations, ramp
from sims.tasks.push import CUBE_REST_Z, CUBE_SIZE, LAYOUT

HALF_EDGE = CUBE_SIZE / 2
"""Half the cube's edge (m)."""
STANDOFF = HALF_EDGE + 0.04
"""Distance (m) behind the cube's centre, along the push direction, of the approach point."""
PUSH_Z = CUBE_REST_Z
"""TCP height (m) while pushing: the cube's centre (the fingertips are ~1 cm lower)."""
SAFE_Z = CUBE_SIZE + 0.045
"""TCP height (m) at which the fingertips pass over the cube with a margin."""
CLEAR_IN = 0.045
"""xy clearance (m) from the cube's centre under which a path needs ``SAFE_Z``."""
CLEAR_OUT = 0.06
"""xy clearance (m) above which a path may stay at ``PUSH_Z`` (ramp in between)."""
BEHIND_MIN = HALF_EDGE + 0.004
"""Push phase: the TCP is at least this far (m) behind the cube's centre along ``d``..."""
LAT_MAX = 0.025
"""... at most this far (m) off the line through the cube to the goal..."""
PUSH_Z_MAX = CUBE_SIZE + 0.005
"""... and below this height (m)."""
DESCEND_BEHIND = HALF_EDGE + 0.01
"""Approach: at least this far (m) behind the cube's centre along ``d`` (and on the push
line) the TCP descends to pushing height whatever the clearance (full effect 1 cm
further back)."""
GAIN = 0.6
"""Fraction of the remaining distance commanded per step (approach, height)."""
LAT_SLOW = 0.015
"""Push speed falls linearly to 0 over the last this many m (lateral) before ``LAT_MAX``."""
LAT_GAIN = 1.0
"""Fraction of the lateral error corrected per step while pushing."""
TURN_GAIN = 0.03
"""Lateral push offset (m) per rad of misalignment between the push direction and the
normal of the cube's face in contact (turns the face towards the push direction)."""
TURN_LAT_MAX = 0.01
"""Largest lateral push offset (m) used for turning the cube."""
PUSH_SPEED = 1.0
"""Forward push speed (units of cartesian_step_max) far from the goal."""
SLOW_DISTANCE = 0.06
"""Cube-goal distance (m) under which the push speed ramps down."""
MIN_PUSH_SPEED = 0.3
"""Forward push speed near the goal (units of cartesian_step_max)."""


def _wrap(angle: np.ndarray) -> np.ndarray:
    """``angle`` wrapped into [-pi, pi)."""
    return (angle + np.pi) % (2.0 * np.pi) - np.pi


def act(obs: np.ndarray, cfg) -> np.ndarray:
    """Actions [N, 3] in [-1, 1] for observations [N, 31] of push (``cfg``: its TaskConfig)."""
    obs = observations(obs, LAYOUT, "push")
    s = LAYOUT.slices
    tcp = obs[:, s["tcp_pos"]]
    cube = obs[:, s["object_pos"]]
    goal = obs[:, s["goal_pos"]]
    step = float(cfg.cartesian_step_max)
    push_z = max(PUSH_Z, float(cfg.cartesian_z_min) + 0.004)

    to_goal = goal[:, :2] - cube[:, :2]
    dist = np.linalg.norm(to_goal, axis=1)
    d = to_goal / np.maximum(dist, 1e-6)[:, None]
    n = np.stack([-d[:, 1], d[:, 0]], axis=1)
    rel = tcp[:, :2] - cube[:, :2]
    along = np.sum(rel * d, axis=1)
    lat = np.sum(rel * n, axis=1)
    z = tcp[:, 2]

    # Approach: towards the standoff point, over the cube where the path passes near it.
    b = cube[:, :2] - STANDOFF * d
    path = b - tcp[:, :2]
    path_len2 = np.maximum(np.sum(path * path, axis=1), 1e-12)
    t = np.clip(np.sum((cube[:, :2] - tcp[:, :2]) * path, axis=1) / path_len2, 0.0, 1.0)
    closest = tcp[:, :2] + t[:, None] * path - cube[:, :2]
    clearance = np.linalg.norm(closest, axis=1)
    need = 1.0 - ramp(clearance, CLEAR_IN, CLEAR_OUT)  # 1: the path crosses the cube
    # Already behind the cube on the push line: nothing to cross, go down to push (no
    # hovering behind it, where a student's blend of approach and push labels stalls).
    behind = ramp(-along, DESCEND_BEHIND, DESCEND_BEHIND + 0.01)
    need = need * (1.0 - behind * ramp(LAT_MAX - np.abs(lat), 0.0, 0.01))
    z_req = push_z + (SAFE_Z - push_z) * need
    # Sideways only as far as the height allows: full speed once within 1 cm of z_req.
    lateral_ok = ramp(z - z_req, -0.03, -0.01)
    approach = np.empty_like(tcp)
    approach[:, :2] = GAIN * path * lateral_ok[:, None] / step
    approach[:, 2] = GAIN * (z_req - z) / step

    # Steer by turning the cube: a push off the centre turns the face in contact towards
    # the push direction (the cube slides along that face's normal).
    yaw4 = np.arctan2(obs[:, s["object_yaw_sincos"]][:, 0], obs[:, s["object_yaw_sincos"]][:, 1])
    misalign = _wrap(4.0 * np.arctan2(d[:, 1], d[:, 0]) - yaw4) / 4.0
    lat_target = np.clip(-TURN_GAIN * misalign, -TURN_LAT_MAX, TURN_LAT_MAX)
    # Push: along d, back onto the line, at pushing height.
    aligned = ramp(LAT_MAX - np.abs(lat), 0.0, LAT_SLOW)
    speed = MIN_PUSH_SPEED + (PUSH_SPEED - MIN_PUSH_SPEED) * ramp(dist, 0.0, SLOW_DISTANCE)
    fwd = speed * aligned
    push = np.empty_like(tcp)
    push[:, :2] = fwd[:, None] * d + (LAT_GAIN * (lat_target - lat) / step)[:, None] * n
    push[:, 2] = GAIN * (push_z - z) / step

    pushing = (along <= -BEHIND_MIN) & (np.abs(lat) <= LAT_MAX) & (z <= PUSH_Z_MAX)
    action = np.where(pushing[:, None], push, approach)
    norm = np.linalg.norm(action, axis=1, keepdims=True)
    return action / np.maximum(norm, 1.0)
