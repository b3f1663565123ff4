"""What one PyBullet world is built from and the rows it exchanges with the env: the
:class:`WorldSpec` (plain, picklable data a worker builds a
:class:`~sims.backends.pybullet.world.BulletWorld` from), the contact coefficients its
bodies are built with, and the state and reset row layouts.

A subprocess worker imports this, so it stays light: plain data only (no numba, no task
modules, not even pybullet).

State row layout (float64, ``STATE_DIM``): joint positions (7), joint velocities (7),
finger width (1), cube centre (3), cube yaw (1), target cube centre (3; zeros without one),
the fingers' centre (1: half the first finger's position less the second's, where between
them along the closing axis their midpoint is; the URDF's fingers move independently).
Reset row layout (float64, ``RESET_DIM``): joint positions (7), finger position per
finger (1), cube centre (3), cube yaw (1), goal (3), cube mass (1), table friction (1),
target cube centre (3: pick_place stacking episodes, the top of the stack; ``z < 0``:
parked below the table, static, with the cubes under it), cube edge (1: which of
``WorldSpec.cube_sizes`` to use; 0: the one cube), finger pads' friction coefficient
(1; 0: as built), cube contact stiffness (1, N/m; 0: rigid).
The ``STATE_*`` and ``RESET_*`` offsets below name these columns.
"""

from __future__ import annotations

from dataclasses import dataclass

# --- State row: written by BulletWorld.read_state (start offsets) ----------------------
STATE_JOINT_POS = 0
STATE_JOINT_VEL = 7
STATE_FINGER_WIDTH = 14
STATE_CUBE_POS = 15
STATE_CUBE_YAW = 18
STATE_TARGET_POS = 19
STATE_FINGER_CENTRE = 22
STATE_DIM = 23

# --- Reset row: read by BulletWorld.reset ----------------------------------------------
RESET_JOINT_POS = slice(0, 7)
RESET_FINGER = 7
RESET_CUBE_POS = slice(8, 11)
RESET_CUBE_YAW = 11
RESET_GOAL = slice(12, 15)
RESET_CUBE_MASS = 15
RESET_TABLE_FRICTION = 16
RESET_TARGET_POS = slice(17, 20)
RESET_CUBE_SIZE = 20
RESET_FINGER_FRICTION = 21
RESET_CONTACT_STIFFNESS = 22
RESET_DIM = 23

CUBE_LATERAL_FRICTION = 0.5
"""Cube's own friction coefficient; PyBullet multiplies the two bodies' coefficients."""
FINGER_LATERAL_FRICTION = 2.0
"""Finger pads' coefficient: finger-cube friction = 2.0 * 0.5 = 1.0, enough to lift."""
TABLE_LATERAL_FRICTION = 1.0
"""Nominal table coefficient; cube-table friction = this * cube's 0.5, times the
per-episode ``friction_scale`` draw."""


@dataclass(frozen=True)
class WorldSpec:
    """Everything a worker needs to build one world (plain, picklable data)."""

    has_object: bool
    """Load the task's cube."""
    has_gripper: bool
    """Movable fingers (pick_place); otherwise the fingers are welded closed."""
    physics_dt: float
    """Physics timestep (s)."""
    substeps: int
    """Physics steps per control period."""
    arm_forces: tuple[float, ...]
    """Motor force limits of the 7 arm joints (N m): the datasheet torque limits."""
    finger_force: float
    """Motor force limit of each finger (N)."""
    table_size: tuple[float, float, float]
    """Table extent x, y and thickness (m); its top is at z = 0."""
    table_center_xy: tuple[float, float]
    """Table centre (m)."""
    table_color: tuple[float, float, float, float]
    """Table RGBA."""
    cube_size: float
    """Cube edge (m)."""
    cube_mass: float
    """Nominal cube mass (kg)."""
    cube_sizes: tuple[float, ...] = ()
    """Task cube edges (m) an episode picks from (by its reset row's ``RESET_CUBE_SIZE``):
    one cube per edge, the unused ones parked below the table as static bodies; empty: the
    one cube of ``cube_size``."""
    robot_bases: tuple[tuple[tuple[float, float, float], float], ...] = (((0.0, 0.0, 0.0), 0.0),)
    """(position (m), yaw about z (rad)) of each Panda's base; the first is
    :attr:`~sims.backends.pybullet.world.BulletWorld.robot`, the env's arm, further ones (a
    multi-arm cell) are in :attr:`~sims.backends.pybullet.world.BulletWorld.robots`, with
    the same joint indices."""
    cube_color: tuple[float, float, float, float] = (0.85, 0.15, 0.15, 1.0)
    """Task cube RGBA."""
    goal_color: tuple[float, float, float, float] = (0.9, 0.2, 0.9, 0.7)
    """Goal marker RGBA."""
    decor_cubes: tuple[tuple[str, tuple[float, float, float], tuple[float, ...]], ...] = ()
    """Extra dynamic cubes (name, position, RGBA), e.g. the default scene's."""
    decor_tags: tuple[tuple[str, int, float], ...] = ()
    """AprilTags on decor cubes' top faces (cube name, tag36h11 id, tag edge m;
    :mod:`sims.tags`): drawn only, physics is the same."""
    decor_pads: tuple[
        tuple[str, tuple[float, float, float], tuple[float, float], tuple[float, ...]], ...
    ] = ()
    """Visual-only pads (name, position, size xy, RGBA) lying on the table."""
    target_cube: bool = False
    """Also load a second dynamic cube, the target of pick_place stacking episodes (off by
    default: worlds without stacking hold exactly the bodies they always held)."""
    target_cube_color: tuple[float, float, float, float] = (0.15, 0.30, 0.85, 1.0)
    """Target cube RGBA."""
    cubes_under_target: int = 0
    """With ``target_cube``: dynamic cubes stacked under the target cube (a tower, variant
    ``tower``: 1), each one cube edge below the one above, where the target's height leaves
    room (parked below the table, static, otherwise)."""
    under_cube_color: tuple[float, float, float, float] = (0.15, 0.70, 0.20, 1.0)
    """RGBA of the cubes under the target cube."""
    goal_cube: bool = False
    """Also show a visual-only cube (``cube_color``, ``cube_size``) resting on the table
    under the goal: a reach target a camera can see (skill_node's reach to a named cube
    hovers above it); it changes no physics."""
    arm_meshes: str = "visual"
    """What the arms look like to a camera (:data:`~sims.backends.pybullet.urdf.ARM_MESHES`):
    their detailed meshes, or their collision hulls for a camera that renders every frame
    (:func:`~sims.backends.pybullet.urdf.panda_urdf_path`); physics is the same."""
