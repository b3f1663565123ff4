"""Column layouts of the kernels' arrays: per-env state rows, parameter vectors, results
and scratch.

Each env's state is one float64 row (``S_*`` columns) plus int64 counters (``C_*``). A
task's numbers travel in a float64 parameter vector (``P_*`` indices) and an int64 one
(``I_*``), built by the backend from the task module; the task's own scalar functions (its
``KERNEL``, :mod:`sims.tasks.registry`) write its observation at its ``LAYOUT``'s offsets.
Nothing here names a task.
"""

from __future__ import annotations

# --- float parameter vector -------------------------------------------------------------
P_DT = 0
P_JOINT_SCALE = 1
P_CART_STEP = 2
P_IK_DAMPING = 3
P_GAIN = 4
P_SUCCESS = 5
P_JOINT_NOISE = 6
P_OBS_NOISE = 7
P_FRICTION_LO = 8
P_FRICTION_HI = 9
P_MASS_LO = 10
P_MASS_HI = 11
# 12: free (the reach weight of push and pick_place, now a reward-term weight)
P_CUBE_HALF = 13  # low end of the per-episode half-edge range (P_CUBE_HALF_HI: high)
P_INIT_WIDTH = 14
P_OBJ_X_LO = 15
P_OBJ_Y_LO = 16
P_OBJ_X_HI = 17
P_OBJ_Y_HI = 18
P_GOAL_X_LO = 19
P_GOAL_Y_LO = 20
P_GOAL_Z_LO = 21
P_GOAL_X_HI = 22
P_GOAL_Y_HI = 23
P_GOAL_Z_HI = 24
P_GOAL_D_LO = 25
P_GOAL_D_HI = 26
P_AIR_PROB = 27
P_MU_TABLE = 28
P_MU_FINGER = 29
P_KICK_LO = 30
P_KICK_HI = 31
P_Z_MIN = 32
P_MU_FINGER_HI = 33  # P_MU_FINGER is the low end of the finger friction range
P_LSR_LO = 34
P_LSR_HI = 35
P_ACT_H = 36  # command-path model: controller period (s)
P_ACT_ALPHA = 37  # command-path model: lag fraction closed per controller period
P_ACT_LIM = 38  # 6 x 7: velocity, acceleration, jerk limits, band low, high, band reach
P_CUBE_HALF_HI = 80
P_PAD_LO = 81  # per-episode finger pad range (m per finger: half finger_reading), low end
P_PAD_HI = 82
P_TILT_GAIN = 83  # Cartesian mode: gain of the IK's tool-levelling null-space step (0: none)
P_TILT_SIN_ALLOW = 84  # sine of the tool tilt the levelling leaves alone
P_PLAIN_PROB = 85  # command-path model: probability an episode runs on the plain tracking
P_REWARD_W = 86  # MAX_REWARD_TERMS: the weights of the task's reward terms, in its order
MAX_REWARD_TERMS = 8
P_POSE_BIAS_XY = P_REWARD_W + MAX_REWARD_TERMS  # cube-pose error model (CubePoseError):
P_POSE_BIAS_YAW = P_POSE_BIAS_XY + 1  # per-episode bias std (m, rad),
P_POSE_NOISE_XY = P_POSE_BIAS_XY + 2  # per-step noise std (m, rad),
P_POSE_NOISE_YAW = P_POSE_BIAS_XY + 3
P_POSE_HOLD = P_POSE_BIAS_XY + 4  # probability a step repeats the last observed pose
NUM_FLOAT_PARAMS = P_POSE_HOLD + 1

# --- int parameter vector ---------------------------------------------------------------
I_EPISODE_STEPS = 0
I_CARTESIAN = 1
I_HAS_GRIPPER = 2
I_GOAL_TRIES = 3
I_PAD_GRID = 4  # 1: fingers touch the cube as 2 x 2 circle grids; 0: as one cylinder each
I_ACT_SUBSTEPS = 5  # command-path model: controller periods per control period (0: off)
I_ACT_SCALE = 6  # command-path model: 1 scales the joint velocity vector, 0 clamps per joint
NUM_INT_PARAMS = 7

# --- per-env state: one float64 row per env ---------------------------------------------
S_Q = 0  # 7 joint positions (must stay at column 0: fk_row reads st[k, 0:7])
S_QD = 7  # 7 joint velocities
S_TCP = 14  # 3 TCP position
S_FAX = 17  # 3 finger axis (TCP y) in the base frame (reach steps leave it stale)
S_WIDTH = 20  # finger opening
S_GRASPED = 21  # 1.0 while the cube is held
S_OBJ = 22  # 3 cube centre
S_YAW = 25  # cube yaw
S_VEL = 26  # 3 cube velocity (sliding x, y; falling z)
S_GOF = 29  # 4 grasp offset: cube - TCP (3), cube yaw - hand yaw
S_GOAL = 33  # 3 goal
S_FRICTION = 36  # friction scale of this episode
S_MASS = 37  # mass scale of this episode
S_DELAY = 38  # action delay (steps) of this episode
S_RETURN = 39  # return so far
S_KICK = 40  # velocity gain of the cube after a push, this episode
S_MU_FINGER = 41  # finger-cube friction of this episode
S_LSR = 42  # limit-surface ratio of this episode
S_ACT_Q = 43  # 7 command-path model: shaped command positions
S_ACT_V = 50  # 7 its velocities
S_ACT_A = 57  # 7 its accelerations
S_CUBE_HALF = 64  # half edge of this episode's cube
S_PAD = 65  # this episode's pad per finger: a held cube reads its edge + 2 x this (< 0: squeezed)
S_PLAIN = 66  # 1.0: this episode bypasses the command-path model (the plain tracking)
S_GOAL_YAW = 67  # the cube's target yaw (rad; turn: tasks with a yaw goal)
S_SEEN = 68  # 3 the cube pose observed last (x, y, yaw; before the white obs noise)
NUM_STATE = 71

C_STEPS = 0  # steps in this episode
C_EPISODE = 1  # episode counter (keys the RNG)

R_REWARD = 0  # rows of the float results [R_TERMS + terms, N]
R_FINAL_RETURN = 1
R_FINAL_LENGTH = 2
R_TERMS = 3  # the task's reward terms, weighted, one row each
F_TERMINATED = 0  # rows of the bool results [4, N]
F_TRUNCATED = 1
F_SUCCESS = 2
F_FINAL = 3

# --- scratch ----------------------------------------------------------------------------
SCRATCH_SHAPE = (18, 7)
"""Per-chunk (CPU) or per-thread (GPU) scratch: rows 0-6 joint frames (z axis, origin),
rows 7-9 the Jacobian, row 10 the IK step, row 11 the arm's joint targets, row 12 the joint
positions before the step, rows 13-17 the command-path model's work rows. One C-contiguous
array type everywhere keeps the number of compiled specializations down."""
ROW_JAC = 7
ROW_DQ = 10
ROW_TARGET = 11
ROW_Q_OLD = 12
ROW_ACT = 13  # rows 13-17: see sims.kernels.actuator (W_*)

NOISE_COUNTER_BASE = 1 << 20
"""Draw counters below this are reset draws; observation noise uses counters above."""
