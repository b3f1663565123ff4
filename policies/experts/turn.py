"""Scripted turn expert: a memoryless state-feedback turner (the DAgger teacher of turn).

Everything follows from the observation each step (no hidden phase). A push square to one
of the cube's faces, off its centre towards one end, turns the cube about its centre and
slides it along the push. The closed fingers are eight pad circles (two 2 x 2 grids along
the finger axis, read from the joint positions by forward kinematics); the expert:

- picks a face (:func:`choose_face`): the one at whose stand-off point the TCP is, until
  another face's push would bring the cube back towards its goal by ``SWITCH`` more, so
  strokes on opposite faces alternate and their slides cancel;
- places the TCP along the face so that the pads that meet it push ``LEVER`` from the
  face's centre, on the side that turns the cube the way still to go
  (:func:`face_frames`);
- approaches that face's stand-off point, around the cube at ``ORBIT_RADIUS`` where the
  straight path would touch it (:func:`orbit_waypoint`), over it only where the TCP comes
  down from above with its pads over the cube's footprint;
- pushes square to the face, re-aimed every step as the cube turns, at a speed
  proportional to the yaw still to turn (``TURN_SPEED`` per rad, within
  ``MIN_PUSH``-``MAX_PUSH``), so a step near the target turns the cube by part of what is
  left; once the pads touch, it slides along the face no faster than it presses (a
  pusher dragged along a face turns the cube by friction, either way).

Actions are displacements in units of ``cfg.cartesian_step_max``, capped at norm 1.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from policies.experts import observations, ramp
from policies.experts.push import GAIN, SAFE_Z
from sims.kernels.contact import PAD_ACROSS, PAD_FAR, PAD_NEAR, PAD_RADIUS
from sims.robots import panda
from sims.tasks.turn import CUBE_REST_Z, CUBE_SIZE, LAYOUT

HALF_EDGE = CUBE_SIZE / 2
"""Half the cube's nominal edge (m)."""
LEVER = 0.011
"""Where (m from the face's centre, along it) the pads that touch the face push it."""
TOUCH_BAND = 0.002
"""Pads within about this (m) of the one nearest a face touch it too (a soft weight)."""
STANDOFF = 0.012
"""Gap (m) between the pusher and the face at the approach's stand-off point."""
PUSH_Z = CUBE_REST_Z
"""TCP height (m) while pushing: the cube's centre (the fingertips are ~1 cm lower)."""
PUSH_Z_MAX = CUBE_SIZE + 0.005
"""Push phase: the TCP below this height (m)..."""
LAT_TOL = 0.012
"""... within this (m) of its place along the face..."""
FRONT_MIN = -0.012
"""... and at most this far (m) past the point where the pusher meets the face (a smaller
cube, or one already pressed)."""
SWITCH = 0.024
"""The expert leaves the face it pushes for one whose push brings the cube back this much
(m) more: the opposite face once the cube has slid half of it away."""
CLEAR_PATH = 0.06
"""A straight path to a stand-off point that keeps this far (m) from the cube's centre
clears it (the cube's corner, 3.2 cm out at the largest edge, plus the pusher's reach)."""
CLEAR_HALF_EDGE = HALF_EDGE + 0.003
"""Half edge (m) of the footprint the fingers keep clear of coming down (a larger cube)."""
CLEAR_GAP = 0.005
"""Fingers this far (m) beside the footprint may come down at full speed."""
PATH_DIP = 0.003
"""A path may dip this much (m) nearer the cube than its ends and still count as clear."""
ORBIT_RADIUS = 0.065
"""Radius (m) of the path around the cube between faces (plus the ``orbit_margin``
setting, :data:`SETTINGS`)."""
ORBIT_STEP = np.radians(40.0)
"""How far ahead (rad) of the TCP, around the cube, the path aims."""
ORBIT_OPPOSITE = np.radians(150.0)
"""A stand-off point more than this (rad) around the cube is reached the way the cube is
to turn."""
TURN_SPEED = 0.007
"""Push per step (m) per rad of yaw still to turn: a sticking push on the contact model's
most compliant limit surface turns the cube by at most ~0.3 of what is left."""
MIN_PUSH = 0.0015
"""Smallest push per step (m): the cube turns at all near its target."""
MAX_PUSH = 0.012
"""Largest push per step (m)."""
TOUCH_GAP = 0.005
"""Pads closer than this (m) to the face count as touching it (a ramp)."""
LAT_GAIN = 0.8
"""Fraction of the pusher's lateral error corrected per step while pushing."""
FOCUS_BEYOND = 0.01
""":func:`focus`: a TCP low within this (m) beyond the orbit (``ORBIT_RADIUS`` plus
``orbit_margin``), beside a face the expert does not push, is going around the cube, where
a student's action a little towards the cube slides it out."""
FOCUS_RADIUS = ORBIT_RADIUS + FOCUS_BEYOND
"""That radius (m) from the cube's centre with the default ``orbit_margin`` of 0."""
ORBIT_MARGIN = 0.0
"""The default ``orbit_margin`` setting (m): none."""
SETTINGS = {"orbit_margin": ORBIT_MARGIN}
"""The expert's settings (``imitation.expert_settings``, :func:`policies.experts.get_expert`)
and their defaults: ``orbit_margin`` (m) widens the path around the cube between faces
(:func:`orbit_waypoint`) and the :func:`focus` radius with it; 0: the ``ORBIT_RADIUS``
that every turn version so far was taught (docs/training.md, turn)."""


def finger_axes(joint_pos: np.ndarray) -> np.ndarray:
    """The hand's finger axis in the base frame's xy [N, 2] (unit), from the joint
    positions (forward kinematics: the TCP frame's y axis)."""
    axes = np.empty((joint_pos.shape[0], 2))
    for i, q in enumerate(joint_pos):
        axes[i] = panda.fk_tcp_pose(q)[1][:2, 1]
    return axes / np.maximum(np.linalg.norm(axes, axis=1, keepdims=True), 1e-9)


def pad_offsets(axis: np.ndarray) -> np.ndarray:
    """The closed fingers' pad circles [N, 8, 2] (xy from the TCP): each finger a 2 x 2
    grid (:mod:`sims.kernels.contact`), along the finger ``axis`` [N, 2] and across it."""
    across = np.stack([-axis[:, 1], axis[:, 0]], axis=1)
    along = np.array([-PAD_FAR, -PAD_NEAR, PAD_NEAR, PAD_FAR])
    a = np.repeat(along, 2)[None, :, None] * axis[:, None, :]
    b = np.tile([-PAD_ACROSS, PAD_ACROSS], 4)[None, :, None] * across[:, None, :]
    return a + b


def pad_clearance(rel: np.ndarray, yaw: np.ndarray, pads: np.ndarray) -> np.ndarray:
    """[N] the least xy gap (m) between the pads (``pads`` [N, 8, 2] from the TCP; ``rel``:
    TCP - cube) and the cube's footprint (``CLEAR_HALF_EDGE``; negative: they overlap)."""
    p = rel[:, None, :] + pads
    c, s = np.cos(yaw)[:, None], np.sin(yaw)[:, None]
    lx = np.abs(c * p[..., 0] + s * p[..., 1]) - CLEAR_HALF_EDGE
    ly = np.abs(-s * p[..., 0] + c * p[..., 1]) - CLEAR_HALF_EDGE
    outside = np.hypot(np.maximum(lx, 0.0), np.maximum(ly, 0.0))
    inside = np.minimum(np.maximum(lx, ly), 0.0)
    return np.min(outside + inside, axis=1) - PAD_RADIUS


def face_frames(yaw: np.ndarray, axis: np.ndarray, turn_sign: np.ndarray):
    """Per face k (0-3, outward normal at ``yaw + k * 90 deg``): its normal and tangent
    [N, 4, 2] (normal x tangent = z), the TCP's distance [N, 4] from the cube's centre
    along the normal when the closed fingers (their ``axis`` [N, 2]) touch the face, and
    the TCP's place along the face [N, 4] that puts the pads that touch it ``LEVER`` from
    the face's centre, on the side that turns the cube the way of ``turn_sign`` (+1:
    counter-clockwise, the face's +t end)."""
    angles = yaw[:, None] + 0.5 * np.pi * np.arange(4)[None, :]
    normals = np.stack([np.cos(angles), np.sin(angles)], axis=2)
    tangents = np.stack([-normals[..., 1], normals[..., 0]], axis=2)
    pads = pad_offsets(axis)  # [N, 8, 2]
    depth = np.einsum("npd,nkd->nkp", pads, normals)  # [N, 4, 8]: along each normal
    lead = depth.min(axis=2)  # the pad nearest each face
    touch = np.exp(-(depth - lead[..., None]) / TOUCH_BAND)  # the pads that meet it
    place = np.einsum("npd,nkd->nkp", pads, tangents)
    centre = np.sum(touch * place, axis=2) / np.sum(touch, axis=2)
    contact = HALF_EDGE + PAD_RADIUS - lead
    lateral = turn_sign[:, None] * LEVER - centre
    return normals, tangents, contact, lateral


def nearest_normal(rel: np.ndarray, yaw: np.ndarray) -> np.ndarray:
    """[N, 2] the outward normal of the cube's face nearest the TCP (``rel``: TCP - cube,
    xy; ``yaw``: the cube's, modulo 90 deg)."""
    angles = yaw[:, None] + 0.5 * np.pi * np.arange(4)[None, :]
    normals = np.stack([np.cos(angles), np.sin(angles)], axis=2)
    nearest = np.argmax(np.einsum("nkd,nd->nk", normals, rel), axis=1)
    return normals[np.arange(len(nearest)), nearest]


def choose_face(rel: np.ndarray, drift: np.ndarray, frames) -> np.ndarray:
    """The face to push [N]: the face at whose stand-off point the TCP is (the nearest;
    ``rel``: TCP - cube, xy), unless another face's push would bring the cube back towards
    its goal (``drift``: cube - goal, xy) by ``SWITCH`` more than this one's (a push on a
    face moves the cube against its normal): strokes on opposite faces alternate, their
    slides cancel, and the cube stays within about ``SWITCH / 2`` of its goal."""
    normals, tangents, contact, lateral = frames
    station = (contact + STANDOFF)[..., None] * normals + lateral[..., None] * tangents
    at = np.argmin(np.linalg.norm(station - rel[:, None, :], axis=2), axis=1)
    gain = np.einsum("nkd,nd->nk", normals, drift)
    gain[np.arange(len(at)), at] += SWITCH
    return np.argmax(gain, axis=1)


def orbit_waypoint(tcp_xy, cube_xy, target_xy, turn_sign, margin: float = ORBIT_MARGIN):
    """Where the TCP heads for ``target_xy`` [N, 2]: straight there where the path keeps
    ``CLEAR_PATH`` from the cube's centre, else around the cube at ``ORBIT_RADIUS`` (both
    ``margin`` further out, :data:`SETTINGS`), up to ``ORBIT_STEP`` rad ahead of the TCP
    the shorter way (the way of ``turn_sign`` when the target is about opposite: a pusher
    that brushes a corner on the way then turns the cube the right way). A TCP inside
    ``ORBIT_RADIUS`` aims as far beyond the orbit as it is inside that radius, so a pusher
    that has drifted in (a student cutting the corner) is led back out rather than along a
    chord into the cube: a bias of 0.3 action units towards the cube while going around
    costs this expert 1% on the command-path model, the plain orbit 8% (the correction
    counted from the wider radius, ``margin`` 0.01, cost it 1.4% of 1000 episodes
    unbiased; from ``ORBIT_RADIUS``, none: docs/training.md, turn)."""
    radius = ORBIT_RADIUS + margin
    path = target_xy - tcp_xy
    path_len2 = np.maximum(np.sum(path * path, axis=1), 1e-12)
    u = np.clip(np.sum((cube_xy - tcp_xy) * path, axis=1) / path_len2, 0.0, 1.0)
    clearance = np.linalg.norm(tcp_xy + u[:, None] * path - cube_xy, axis=1)
    rel = tcp_xy - cube_xy
    to = target_xy - cube_xy
    here = np.arctan2(rel[:, 1], rel[:, 0])
    delta = np.arctan2(to[:, 1], to[:, 0]) - here
    delta = (delta + np.pi) % (2.0 * np.pi) - np.pi
    delta = np.where(np.abs(delta) > ORBIT_OPPOSITE, turn_sign * np.abs(delta), delta)
    ahead = here + np.clip(delta, -ORBIT_STEP, ORBIT_STEP)
    # inside ORBIT_RADIUS, aim as far beyond the orbit as the TCP is inside: the path climbs
    # back out instead of following a chord further in (towards the cube's corners)
    aim = radius + np.maximum(ORBIT_RADIUS - np.linalg.norm(rel, axis=1), 0.0)
    orbit = cube_xy + aim[:, None] * np.stack([np.cos(ahead), np.sin(ahead)], axis=1)
    # a path that comes no nearer the cube than its ends (a short step beside a face) is clear
    ends = np.minimum(np.linalg.norm(rel, axis=1), np.linalg.norm(to, axis=1)) - PATH_DIP
    clear = clearance >= np.minimum(CLEAR_PATH + margin, ends)
    return np.where(clear[:, None], target_xy, orbit)


class Decision(NamedTuple):
    """What the expert does for a batch of observations, with the choices behind it."""

    action: np.ndarray
    """[N, 3] in the unit ball (:func:`act`)."""
    face: np.ndarray
    """[N] the face pushed or approached (0-3, :func:`choose_face`; counted from the
    cube's yaw modulo 90 deg, so the same face has another index after the yaw wraps)."""
    normal: np.ndarray
    """[N, 2] that face's outward normal (xy): the same face keeps it across a wrap."""
    side: np.ndarray
    """[N] +1 where the cube is turned counter-clockwise (the face's +t end), else -1."""
    pushing: np.ndarray
    """[N] True in the push phase (at the face), False while approaching it."""
    place_error: np.ndarray
    """[N] (m) the TCP's place along the face minus the expert's place for it, signed
    towards the end that turns the cube the way still to go (negative: nearer the face's
    middle, where a push slides the cube more than it turns it)."""
    at_face: np.ndarray
    """[N] the face nearest the TCP (:func:`nearest_normal`) is the one chosen: False
    where the TCP is beside another face (going around to the chosen one)."""
    gap: np.ndarray
    """[N] (m) how far the TCP is short of where the closed fingers' pads touch the chosen
    face, along its normal (0: touching or pressed in)."""


def act(obs: np.ndarray, cfg, orbit_margin: float = ORBIT_MARGIN) -> np.ndarray:
    """Actions [N, 3] in [-1, 1] for observations [N, 33] of turn (``cfg``: its TaskConfig;
    ``orbit_margin``: :data:`SETTINGS`)."""
    return decide(obs, cfg, orbit_margin).action


def focus(
    obs: np.ndarray, cfg, orbit_margin: float = ORBIT_MARGIN
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`act`'s actions and, per state [N], whether the TCP is low (below
    ``PUSH_Z_MAX``) within ``FOCUS_BEYOND`` beyond the orbit (``FOCUS_RADIUS`` with the
    default ``orbit_margin``) of the cube's centre beside a face other than
    the one chosen (``Decision.at_face`` False), not pushing: going around the cube to its
    face, where its students' slides start (docs/training.md, turn: their action points
    0.15-0.27 action units towards the cube where this one's points away) and an
    imitation stage may weigh the errors more (``imitation.focus_weight``)."""
    d = decide(obs, cfg, orbit_margin)
    obs = observations(obs, LAYOUT, "turn")
    s = LAYOUT.slices
    tcp, cube = obs[:, s["tcp_pos"]], obs[:, s["object_pos"]]
    near = np.linalg.norm(tcp[:, :2] - cube[:, :2], axis=1) <= FOCUS_RADIUS + orbit_margin
    return d.action, near & (tcp[:, 2] <= PUSH_Z_MAX) & ~d.at_face & ~d.pushing


def decide(obs: np.ndarray, cfg, orbit_margin: float = ORBIT_MARGIN) -> Decision:
    """:func:`act`'s actions with the face, side and phase that gave them (``cfg``: turn's
    TaskConfig; ``orbit_margin``: :data:`SETTINGS`)."""
    obs = observations(obs, LAYOUT, "turn")
    s = LAYOUT.slices
    tcp = obs[:, s["tcp_pos"]]
    cube = obs[:, s["object_pos"]]
    goal = obs[:, s["goal_pos"]]
    yaw_sc = obs[:, s["object_yaw_sincos"]]
    err_sc = obs[:, s["yaw_error_sincos"]]
    yaw = np.arctan2(yaw_sc[:, 0], yaw_sc[:, 1]) / 4.0  # the cube's yaw modulo 90 deg
    err = np.arctan2(err_sc[:, 0], err_sc[:, 1]) / 4.0  # yaw still to turn, +-45 deg
    step = float(cfg.cartesian_step_max)
    push_z = max(PUSH_Z, float(cfg.cartesian_z_min) + 0.004)

    rel = tcp[:, :2] - cube[:, :2]
    axis = finger_axes(obs[:, s["joint_pos"]])
    frames = face_frames(yaw, axis, np.where(err >= 0.0, 1.0, -1.0))
    face = choose_face(rel, cube[:, :2] - goal[:, :2], frames)
    rows = np.arange(len(face))
    n, t, contact, lateral = (a[rows, face] for a in frames)
    along = np.sum(rel * n, axis=1)
    lat = np.sum(rel * t, axis=1)
    z = tcp[:, 2]

    # Approach: to the stand-off point, around the cube where the straight path would
    # touch it; over it only where the TCP is above it (coming down from above).
    turn_sign = np.where(err >= 0.0, 1.0, -1.0)
    b = cube[:, :2] + (contact + STANDOFF)[:, None] * n + lateral[:, None] * t
    low = z < SAFE_Z
    orbit = orbit_waypoint(tcp[:, :2], cube[:, :2], b, turn_sign, orbit_margin)
    way = np.where(low[:, None], orbit, b)
    above = ramp(z, PUSH_Z_MAX, PUSH_Z_MAX + 0.01)  # the fingertips above the cube's top
    over = (1.0 - ramp(pad_clearance(rel, yaw, pad_offsets(axis)), 0.0, CLEAR_GAP)) * above
    z_req = push_z + (SAFE_Z - push_z) * over
    approach = np.empty_like(tcp)
    approach[:, :2] = GAIN * (way - tcp[:, :2]) / step
    approach[:, 2] = GAIN * (z_req - z) / step

    # Push: square to the face, fast until the pusher meets it, then by the yaw left.
    press = np.clip(TURN_SPEED * np.abs(err), MIN_PUSH, MAX_PUSH)
    gap = np.maximum(along - contact, 0.0)
    # Along the face: fully towards its place until the pads touch; in contact no faster
    # than the press (a pusher dragged along the face turns the cube by friction too).
    slide = LAT_GAIN * (lateral - lat)
    touching = 1.0 - ramp(gap, 0.0, TOUCH_GAP)
    bound = press + (1.0 - touching) * np.abs(slide)
    slide = np.clip(slide, -bound, bound)
    push = np.empty_like(tcp)
    push[:, :2] = (-(GAIN * gap + press) / step)[:, None] * n + (slide / step)[:, None] * t
    push[:, 2] = GAIN * (push_z - z) / step

    pushing = (
        (along >= contact + FRONT_MIN) & (np.abs(lat - lateral) <= LAT_TOL) & (z <= PUSH_Z_MAX)
    )
    action = np.where(pushing[:, None], push, approach)
    norm = np.linalg.norm(action, axis=1, keepdims=True)
    place_error = turn_sign * (lat - lateral)
    at_face = np.sum(nearest_normal(rel, yaw) * n, axis=1) > np.cos(np.pi / 4)
    action = action / np.maximum(norm, 1.0)
    return Decision(action, face, n, turn_sign, pushing, place_error, at_face, gap)
