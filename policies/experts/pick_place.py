"""Scripted pick_place expert: a grasp-carry-place controller, memoryless but for the
grip (the teacher of an imitation stage; :mod:`policies.experts`).

The phase is read from the geometry of each observation alone (no memory; with one
exception, the grip, where the caller keeps a :class:`GripWatch`), in this order:

1. **placed** (release): the goal is a placement (its height at most
   :data:`PLACE_Z_MAX`: on the table, 0.02 m, on one cube, 0.06 m, on two, 0.10 m: the
   task's levels, :data:`sims.tasks.pick_place.TOWER_LEVELS`) and the cube sits at
   it (xy within :data:`RELEASE_XY`, z within :data:`RELEASE_Z`): open the fingers, hold
   still, and rise once they are open. Higher goals are held, never released. (A pads
   episode ends on success before this can fire: the release box lies inside the 5 cm
   success sphere, so a point goal in the air given inside the placement band is not
   dropped either.)
2. **grasped**: the fingers are closed on something and the cube is at the TCP (within
   :data:`HELD_TOL`). Closed on something: on a single state a reading between
   :data:`EMPTY_WIDTH` and :data:`HOLD_WIDTH`; with the reading's history
   (:class:`GripWatch`, a caller that runs the expert once per control period: an
   evaluation, a DAgger rollout under ``imitation.expert_memory``) the fingers stopped on
   something, at whatever width the gripper reads it (a shifted reading, issue 30):
   carry the cube to the goal. It lifts off gently, creeping while the cube lags below the
   TCP (a grip still firming up: behind the supervisor the fingers close at the gripper's
   speed), moves sideways once the cube is off the table (towards a placement on cubes
   only once it clears the goal's height, :data:`CLEAR_Z`), travels :data:`CLEARANCE`
   above placement goals while away from them in xy (over a target cube) and comes down
   onto them slowly. Near the goal it steers by the TCP while the cube hangs free (a cube held
   by friction swings about the finger axis; chasing it keeps it swinging), by the cube
   once it rests at the goal's height.
3. **around**: the TCP is at the cube's centre (within :data:`NEAR_XY`, :data:`NEAR_Z`)
   and the fingers are not closed on nothing: hold the TCP there and close them once the
   arm has settled (joint speed under :data:`SETTLED_QD`).
4. **approach** (everything else, also a cube knocked away or dropped, or a grasp that
   closed on nothing): open the fingers, go above the cube (:data:`APPROACH` over its
   centre; straight up first where the TCP is low and off to the side) and come down onto
   it through a funnel (the height over it falls with the xy distance, :data:`CONE`) once
   the fingers are open, slowly over the last centimetres (:data:`DOWN_MIN`).

Motions are proportional (:data:`GAIN` of the error per period, direction kept when
saturating at one ``cartesian_step_max``) with per-phase speed caps in action units, so
the commands shrink near every target and the rate-limited arm can follow them. Every
ramp between phases is linear where a sharp switch is not needed (an MLP fits it).

How well it does: docs/training.md, "pick_place".
"""

from __future__ import annotations

import numpy as np

from policies.experts import observations, ramp
from sims.robots import panda
from sims.tasks import pick_place
from sims.tasks.base import TaskConfig

EDGE = pick_place.CUBE_SIZE
REST_Z = pick_place.CUBE_REST_Z

APPROACH = 0.06
"""Height (m) of the TCP above the cube's centre before coming down onto it."""
SPEED_MAX = 1.0
"""Largest commanded step (in units of ``cartesian_step_max``, per axis)."""
CONE = 2.0
"""Slope of the approach funnel: height (m) over the cube per m of xy distance from it."""
DOWN_MIN = 0.3
"""Slowest descent (in steps of ``cartesian_step_max``) at the bottom of a descent."""
SETTLED_QD = 0.6
"""The fingers close only while the joints move slower than this (norm, rad/s)."""
GAIN = 0.5
"""Fraction of the position error commanded per control period."""
NEAR_XY = 0.012
"""Around the cube: largest xy distance (m) of the TCP from the cube's centre to close."""
NEAR_Z = 0.012
"""Around the cube: largest height difference (m) of the TCP from the cube's centre."""
OPEN_WIDTH = panda.gripper_width_max - 0.005
"""Finger opening (m) from which the fingers count as open (coming down is allowed)."""
HOLD_WIDTH = 0.071
"""Without the reading's history (a single state, :func:`act` without a :class:`GripWatch`):
fingers narrower than this (m) hold the cube (between the cube's edge and open), the
release rises once they are wider. A held cube reads its edge plus the gripper's own
offset (PyBullet's Panda: 4.0-5.8 cm for a 4 cm cube; ``randomization.finger_reading``
shifts that by -5..+20 mm, to up to 7.8 cm), so no one width tells held from still closing
on every gripper: with the history the expert waits for the reading to stop instead."""
GRIP_PERIODS = 2
"""With the reading's history (:class:`GripWatch`): the fingers hold the cube once their
reading has not fallen by more than :data:`GRIP_STILL` per period over this many periods
(the fingers stopped on it), between :data:`EMPTY_WIDTH` and :data:`CLOSED_WIDTH`."""
GRIP_STILL = 0.0002
"""Largest fall (m) of the reading in one period of fingers stopped on the cube: closing
fingers fall ``panda.gripper_speed_max`` x the period (4 mm), or, on a gripper whose
reading is shifted +20 mm (the map fades the shift out towards the open reading,
:func:`sims.tasks.base.reported_finger_width`), 9% of that near open."""
CLOSED_WIDTH = panda.gripper_width_max - 0.001
"""With the history: readings from this (m) up are open fingers, never a grip."""
EMPTY_WIDTH = 0.5 * EDGE
"""Fingers narrower than this (m) closed on nothing."""
HELD_TOL = 0.03
"""Grasped: largest distance (m) of the cube's centre from the TCP, per axis."""
SLIP = (0.003, 0.009)
"""Grasped: how far (m) the cube lags below the TCP when the lift slows to a creep (a
linear ramp between the two), while the cube is still near the table."""
CREEP = 0.05
"""Slowest lift (in steps of ``cartesian_step_max``) of a cube that lags the TCP."""
CLEARANCE = 0.05
"""Height (m) the cube travels above the goal while away from it in xy."""
CLEAR_XY = (0.01, 0.03)
SETTLE_XY = (0.02, 0.05)
"""TCP-goal xy distance (m) over which the carry steers from the cube to the TCP."""
"""xy distance (m) to the goal over which the travel height ramps from 0 to CLEARANCE."""
CLEAR_Z = (0.01, 0.03)
"""Height (m) of the cube over a placement goal on cubes over which its sideways speed,
away from the goal, ramps from 0 to full."""
LIFT = 0.02
"""Height (m) the cube is lifted off the table before it moves sideways."""
PLACE_Z_MAX = pick_place.PLACE_Z_MAX
"""Goals at most this high (m) are placements (every level of a tower: the table 0.02, on
one cube 0.06, on two 0.10): the cube is released there. Higher goals (air goals, drawn
above every placement) are held."""
RELEASE_XY = 0.012
"""Release: largest xy distance (m) of the cube from a placement goal."""
RELEASE_Z = 0.008
"""Release: largest height difference (m) of the cube from a placement goal."""


def _command(
    delta: np.ndarray,
    step_max: float,
    scale: np.ndarray,
    xy_max: np.ndarray,
    up_max: np.ndarray,
    down_max: np.ndarray,
) -> np.ndarray:
    """Displacements [N, 3] (m) as actions in [-1, 1]: ``GAIN`` of them, direction kept when
    saturating at ``SPEED_MAX``, times ``scale`` [N]; then the xy part at most ``xy_max``
    [N] (direction kept), the upward part at most ``up_max`` and the downward part at most
    ``down_max`` [N] (action units)."""
    a = GAIN * delta / step_max
    a = a / np.maximum(np.abs(a).max(axis=1, keepdims=True) / SPEED_MAX, 1.0)
    a = a * scale[:, None]
    xy = np.abs(a[:, :2]).max(axis=1)
    a[:, :2] *= (np.minimum(xy, xy_max) / np.maximum(xy, 1e-12))[:, None]
    a[:, 2] = np.clip(a[:, 2], -down_max, up_max)
    return a


def stopped(readings: np.ndarray) -> np.ndarray:
    """Whether the fingers have stopped on something, per env [N], from their last
    ``GRIP_PERIODS + 1`` readings [K, N] (m, oldest first; an unknown one is ``inf``): the
    reading fell by at most :data:`GRIP_STILL` in each period and lies between
    :data:`EMPTY_WIDTH` (closed on nothing) and :data:`CLOSED_WIDTH` (open). No width in
    between is special, so a gripper that reads a held cube wider or narrower is held
    alike."""
    readings = np.asarray(readings, dtype=np.float64)
    with np.errstate(invalid="ignore"):  # inf - inf: unknown, not a stop
        fall = readings[:-1] - readings[1:]
    last = readings[-1]
    return np.all(fall <= GRIP_STILL, axis=0) & (last > EMPTY_WIDTH) & (last < CLOSED_WIDTH)


class GripWatch:
    """The expert's memory of the finger reading, for a caller that runs it once per
    control period on every env's observation (an evaluation, a DAgger rollout): pass it
    to :func:`act` or :func:`focus` as ``watch``. An env holds (:attr:`gripped`) from the
    period its fingers have :func:`stopped` on something until they read open
    (:data:`CLOSED_WIDTH`) or closed on nothing (:data:`EMPTY_WIDTH`); a new episode starts
    with the fingers open, which ends the last one's grip. A batch of another size starts
    it afresh."""

    def __init__(self):
        self.readings: np.ndarray | None = None  # [GRIP_PERIODS + 1, N], oldest first
        self.gripped: np.ndarray | None = None  # [N] bool

    def update(self, width: np.ndarray) -> np.ndarray:
        """This period's readings [N] (m) in; whether each env holds [N] out."""
        width = np.asarray(width, dtype=np.float64)
        if self.readings is None or self.readings.shape[1] != len(width):
            self.readings = np.full((GRIP_PERIODS + 1, len(width)), np.inf)
            self.gripped = np.zeros(len(width), dtype=bool)
        self.readings = np.vstack([self.readings[1:], width[None]])
        closed = (width > EMPTY_WIDTH) & (width < CLOSED_WIDTH)
        self.gripped = (self.gripped | stopped(self.readings)) & closed
        return self.gripped.copy()


Memory = GripWatch
"""The memory a rollout keeps for this expert (:func:`policies.experts.get_rollout_labeller`)."""


def act(
    obs: np.ndarray, cfg: TaskConfig = pick_place.CONFIG, watch: GripWatch | None = None
) -> np.ndarray:
    """Actions [N, 4] (TCP displacement in units of ``cfg.cartesian_step_max``, gripper:
    > 0 open) for observations [N, 32] in pick_place's layout. ``watch``: the reading's
    memory (:class:`GripWatch`, updated here): the grip is the fingers stopped on the cube,
    not a width; without it (a single state) the grip is a reading under
    :data:`HOLD_WIDTH`."""
    return _decide(obs, cfg, watch)[0]


def focus(
    obs: np.ndarray, cfg: TaskConfig = pick_place.CONFIG, watch: GripWatch | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`act`'s actions and, per state [N], whether it is a release step: the cube at
    a placement goal (the release box, :data:`RELEASE_XY`, :data:`RELEASE_Z`) with the
    fingers not yet open (narrower than :data:`OPEN_WIDTH`), where the expert opens them
    and holds still. There its students stall with the cube held and the gripper command
    just below zero (docs/stacking.md, "Towers", part 7); an imitation stage may weigh
    those errors more (``imitation.focus_weight``)."""
    return _decide(obs, cfg, watch)


def _decide(
    obs: np.ndarray, cfg: TaskConfig, watch: GripWatch | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`act`'s actions [N, 4] and [N] bool: :func:`focus`'s release steps."""
    obs = observations(obs, pick_place.LAYOUT, "pick_place")
    sl = pick_place.LAYOUT.slices
    tcp = obs[:, sl["tcp_pos"]]
    width = obs[:, sl["finger_width"]][:, 0]
    cube = obs[:, sl["object_pos"]]
    rel = obs[:, sl["object_rel_tcp"]]  # cube - tcp
    goal = obs[:, sl["goal_pos"]]
    to_goal = obs[:, sl["goal_rel_object"]]  # goal - cube
    step_max = cfg.cartesian_step_max

    rel_xy = np.linalg.norm(rel[:, :2], axis=1)
    goal_xy = np.linalg.norm(to_goal[:, :2], axis=1)

    # 1. placed at a placement goal: release, then rise
    placement = goal[:, 2] <= PLACE_Z_MAX
    placed = placement & (goal_xy < RELEASE_XY) & (np.abs(to_goal[:, 2]) < RELEASE_Z)
    if watch is None:  # a single state: a width tells the grip
        gripped = (width < HOLD_WIDTH) & (width > EMPTY_WIDTH)
        grip_firm = ramp(HOLD_WIDTH - width, 0.0, 0.008)
    else:  # the fingers stopped on the cube, at whatever width the gripper reads it
        gripped = watch.update(width)
        grip_firm = gripped.astype(np.float64)
    # rise once the fingers are open (with the history: once they no longer hold)
    released = ramp(width, HOLD_WIDTH, OPEN_WIDTH) * ~gripped
    place_move = np.zeros_like(tcp)
    place_move[:, 2] = released * (cube[:, 2] + APPROACH - tcp[:, 2])

    # 2. grasped: carry the cube to the goal (the cube moves with the TCP)
    held = gripped & (rel_xy < HELD_TOL) & (np.abs(rel[:, 2]) < HELD_TOL)
    # near the goal, steer by the TCP while the cube hangs free (a cube held by friction
    # swings about the finger axis; chasing it keeps it swinging), by the cube itself once
    # it rests on the goal's height
    tcp_goal_xy = np.linalg.norm(goal[:, :2] - tcp[:, :2], axis=1)
    settle = (1.0 - ramp(tcp_goal_xy, *SETTLE_XY)) * ramp(-to_goal[:, 2], 0.005, 0.015)
    steer = cube[:, :2] + settle[:, None] * (tcp[:, :2] - cube[:, :2])
    carry = goal - np.column_stack([steer, cube[:, 2]])
    carry_xy = np.linalg.norm(carry[:, :2], axis=1)
    away = ramp(carry_xy, *CLEAR_XY)
    # travel above a goal at a target cube's height (the stacking band), else straight
    band = ramp(goal[:, 2], REST_Z + 0.25 * EDGE, REST_Z + 0.5 * EDGE)
    band *= 1.0 - ramp(goal[:, 2], PLACE_Z_MAX, PLACE_Z_MAX + 0.25 * EDGE)
    over = band * away
    carry_z = np.maximum(goal[:, 2] + CLEARANCE * over, REST_Z + LIFT * away)
    carry[:, 2] = carry_z - cube[:, 2]
    # move only with a firm grip; lift off gently, and creep while the cube lags below the
    # TCP near the table (a grip still firming up: behind the supervisor the fingers close
    # at the gripper's speed); sideways once the cube is off the table
    height = cube[:, 2] - REST_Z
    firm = np.maximum(1.0 - ramp(-rel[:, 2], *SLIP), ramp(height, 0.25 * LIFT, 0.5 * LIFT))
    lifted = np.maximum(ramp(height, 0.2 * LIFT, 0.5 * LIFT), 1.0 - away)
    # towards a placement on cubes only once the cube clears the goal's height: a cube
    # swept across lower would hit the target cube's top edge (a tower's top sits 0.08 m
    # high, where the lift is still climbing)
    clear = np.maximum(1.0 - over, ramp(cube[:, 2] - goal[:, 2], *CLEAR_Z))
    carry_xy_max = firm * lifted * clear
    carry_up = CREEP + (1.0 - CREEP) * firm * (0.3 + 0.7 * ramp(height, 0.0, 0.03))

    # 3. TCP around the cube: close, holding still at the cube's centre
    settled = np.linalg.norm(obs[:, sl["joint_vel"]], axis=1) < SETTLED_QD
    around = (rel_xy < NEAR_XY) & (np.abs(rel[:, 2]) < NEAR_Z) & (width > EMPTY_WIDTH)
    closing = around & settled
    hold = rel.copy()

    # 4. approach: above the cube, then down onto it once over it with the fingers open
    # a funnel: the height over the cube falls with the xy distance to it
    funnel = np.clip(CONE * (rel_xy - 0.004), 0.0, APPROACH)
    hover = np.maximum(funnel, APPROACH * ramp(OPEN_WIDTH - width, 0.0, 0.01))
    target = cube.copy()
    target[:, 2] += hover
    reach = target - tcp
    low = tcp[:, 2] - cube[:, 2]
    # low and off to the side (a knocked cube): up first, then across
    sideways = np.maximum(ramp(low, 0.02, 0.05), 1.0 - ramp(rel_xy, 0.015, 0.03))

    one = np.ones(len(obs))
    phase = [placed, held, around]
    delta = np.select([p[:, None] for p in phase], [place_move, carry, hold], reach)
    scale = np.select(phase, [one, grip_firm, one], one)
    xy_max = np.select(phase, [one, carry_xy_max, one], sideways)
    up_max = np.select(phase, [one, carry_up, one], one)
    # come down slowly over the last centimetres (onto the cube, onto the goal)
    above = np.where(held, cube[:, 2] - goal[:, 2], tcp[:, 2] - cube[:, 2])
    down_max = DOWN_MIN + (1.0 - DOWN_MIN) * ramp(above, 0.01, 0.05)
    grip = np.where(placed | ~(held | closing), 1.0, -1.0)
    actions = np.column_stack([_command(delta, step_max, scale, xy_max, up_max, down_max), grip])
    return actions, placed & (width < OPEN_WIDTH)
