"""The public contract of Miles in one place: every default topic and service name, the
skill states, the goal outcomes, the public JSON keys and the exit codes of ``miles goal``
and ``miles plan``.

Users, launch files and outside clients depend on these. Every other module imports them
instead of retyping them; ``docs/interfaces.md`` documents them, and
``tests/test_interfaces_doc.py`` holds the document and this module to each other. Every
name is also a node parameter (its default comes from here); a cell's per-arm names are
these under ``/ARM`` (:func:`arm_scoped`). Pure Python: no ROS here.
"""

from __future__ import annotations

NAMESPACE = "/miles"
"""The default namespace of every name of the graph but the robot's own topics."""

# -- the robot ---------------------------------------------------------------------------
JOINT_STATES = "/joint_states"
"""sensor_msgs/JointState, robot -> all: measured joint positions and velocities."""
CLOCK = "/clock"
"""rosgraph_msgs/Clock, sim_node -> all: simulated time (sim_node with real_time false)."""
FORWARD_POSITION_COMMANDS = "/forward_position_controller/commands"
"""std_msgs/Float64MultiArray, command_adapter_node -> a ros2_control forward position
controller."""

# -- the command path: skill_node -> safety_node -> robot --------------------------------
SKILL_COMMAND = "/miles/skill_command"
"""sensor_msgs/JointState, skill_node -> safety_node: requested joint targets."""
JOINT_COMMAND = "/miles/joint_command"
"""sensor_msgs/JointState, safety_node -> robot: the only commands a robot receives."""

# -- the safety supervisor ---------------------------------------------------------------
ESTOP = "/miles/estop"
"""std_msgs/Bool, anyone -> safety_node: an e-stop input (true latches)."""
SAFETY_STATE = "/miles/safety/state"
"""std_msgs/String JSON, safety_node -> all (reliable, transient-local)."""
SAFETY_EVENTS = "/miles/safety/events"
"""std_msgs/String JSON, safety_node -> all: one object per intervention."""
SAFETY_SKILL_TAGS = "/miles/safety/skill_tags"
"""std_msgs/String JSON, skill_node -> safety_node: the running skill's permission tags."""
SAFETY_OCCUPANCY = "/miles/safety/occupancy"
"""std_msgs/String JSON, safety_node -> the other arms' safety nodes (shared by a cell)."""
TRIGGER_ESTOP = "/miles/safety/trigger_estop"
"""std_srvs/Trigger service: latch the e-stop."""
RESET_ESTOP = "/miles/safety/reset_estop"
"""std_srvs/Trigger service: reset it when the arm is still and no input is pressed."""

# -- skills ------------------------------------------------------------------------------
SKILL_REQUEST = "/miles/skill/request"
"""std_msgs/String JSON, manager -> skill_node: :data:`SKILL_REQUEST_KEYS`."""
SKILL_STATUS = "/miles/skill/status"
"""std_msgs/String JSON, skill_node -> manager: :data:`SKILL_STATUS_KEYS`."""
SKILL_CALIBRATION = "/miles/skill/calibration"
"""std_msgs/String JSON, skill_node -> all (reliable, transient-local): the finger offset
its measuring cards read through, :data:`SKILL_CALIBRATION_KEYS`, state one of
:data:`CALIBRATION_STATES`; published only where a loaded card measures one."""

# -- the manager -------------------------------------------------------------------------
GOAL = "/miles/goal"
"""std_msgs/String, operator -> manager: a goal in natural language."""
PLAN = "/miles/plan"
"""std_msgs/String JSON, manager -> all: the current plan with its trace id."""
MANAGER_STATUS = "/miles/manager/status"
"""std_msgs/String JSON, manager -> all: :data:`MANAGER_STATUS_KEYS`."""

# -- the scene and the simulator ---------------------------------------------------------
SCENE_OBJECTS = "/miles/scene/objects"
"""std_msgs/String JSON, sim_node (or perception) -> all: object and pad poses."""
SIM_RESET = "/miles/sim/reset"
"""std_srvs/Trigger service of sim_node: arm to its initial pose, cubes to the scene's."""
SIM_CAPTURE = "/miles/sim/capture"
"""std_srvs/Trigger service of sim_node: render one camera frame."""
CAMERA_IMAGE = "/miles/camera/image_raw"
"""sensor_msgs/Image, sim_node -> all: one rgb8 frame per capture request."""
SCENE_OBJECTS_TRUTH = "/miles/scene/objects_truth"
"""std_msgs/String JSON, sim_node -> evaluation: the simulator's true object poses, in
the schema of :data:`SCENE_OBJECTS`, published instead of it when perception is on (for
measuring perception only; nothing that moves the arm reads it)."""

# -- the RGB-D camera (relative names: a RealSense driver's, under its namespace) ---------
CAMERA_COLOR = "camera/color/image_raw"
"""sensor_msgs/Image, camera -> perception_node: colour (rgb8 or bgr8)."""
CAMERA_DEPTH = "camera/aligned_depth_to_color/image_raw"
"""sensor_msgs/Image, camera -> perception_node: depth aligned to the colour image (16UC1
in mm, or 32FC1 in m), on the colour frame's stamp."""
CAMERA_INFO = "camera/color/camera_info"
"""sensor_msgs/CameraInfo, camera -> perception_node: the colour (and aligned depth)
image's intrinsics."""
CAMERA_TOPICS = (CAMERA_COLOR, CAMERA_DEPTH, CAMERA_INFO)
"""The camera's topics, relative: they resolve under the node's namespace (``/camera/...``
at the root), so a RealSense driver launched with ``camera_namespace:=/`` and
``camera_name:=camera`` (or a remap) feeds perception_node unchanged."""
PERCEPTION_COLOUR = "colour"
"""perception_node's ``mode``: cubes found by their colour and depth."""
PERCEPTION_APRILTAG = "apriltag"
"""perception_node's ``mode``: cubes found by the AprilTags on their top faces (the scene
file's ``tag:``)."""
PERCEPTION_MODES = (PERCEPTION_COLOUR, PERCEPTION_APRILTAG)
"""The values of perception_node's ``mode``."""

# -- a cell of several arms --------------------------------------------------------------
TASKS_ANNOUNCE = "/miles/tasks/announce"
"""std_msgs/String JSON, manager -> arm agents: a task of the contract net."""
TASKS_BID = "/miles/tasks/bid"
"""std_msgs/String JSON, arm agents -> manager: a bid (cost) or a refusal with its reason."""
TASKS_AWARD = "/miles/tasks/award"
"""std_msgs/String JSON, manager -> arm agents: the award of a task."""
CELL_TOPICS = {"announce": TASKS_ANNOUNCE, "bid": TASKS_BID, "award": TASKS_AWARD}
"""The contract net's topics by kind (:mod:`miles_ros.agent.contract_net`)."""
BLACKBOARD = "/miles/blackboard"
"""Reserved: the cell's blackboard (facts with a version and a time to live, claims on
objects). It lives inside the cell manager today and is not published yet."""

TOPICS = (
    JOINT_STATES,
    CLOCK,
    FORWARD_POSITION_COMMANDS,
    SKILL_COMMAND,
    JOINT_COMMAND,
    ESTOP,
    SAFETY_STATE,
    SAFETY_EVENTS,
    SAFETY_SKILL_TAGS,
    SAFETY_OCCUPANCY,
    SKILL_REQUEST,
    SKILL_STATUS,
    SKILL_CALIBRATION,
    GOAL,
    PLAN,
    MANAGER_STATUS,
    SCENE_OBJECTS,
    SCENE_OBJECTS_TRUTH,
    CAMERA_IMAGE,
    CAMERA_COLOR,
    CAMERA_DEPTH,
    CAMERA_INFO,
    TASKS_ANNOUNCE,
    TASKS_BID,
    TASKS_AWARD,
    BLACKBOARD,
)
"""Every default topic name."""
SERVICES = (TRIGGER_ESTOP, RESET_ESTOP, SIM_RESET, SIM_CAPTURE)
"""Every default service name."""


def under_namespace(namespace: str, name: str) -> str:
    """``/miles/x`` under another namespace: ``/NS/x`` (names outside /miles unchanged)."""
    if namespace.rstrip("/") in ("", NAMESPACE) or not name.startswith(NAMESPACE + "/"):
        return name
    return "/" + namespace.strip("/") + name[len(NAMESPACE) :]


def arm_scoped(arm: str, name: str) -> str:
    """``name`` under an arm's namespace: ``/ARM/joint_states``, ``/ARM/miles/x``; unchanged
    for arm "" (the single arm) and for a name already under ``/ARM/``."""
    if not arm:
        return name
    prefix = "/" + arm.strip("/")
    if name == prefix or name.startswith(prefix + "/"):
        return name
    return prefix + "/" + name.lstrip("/")


# -- states and outcomes -----------------------------------------------------------------
RUNNING = "running"
SUCCEEDED = "succeeded"
FAILED = "failed"
ABORTED = "aborted"
ESTOPPED = "estopped"
IDLE = "idle"
PLANNING = "planning"
REFUSED = "refused"
NEEDS_CLARIFICATION = "needs_clarification"

SKILL_STATES = (RUNNING, SUCCEEDED, FAILED, ABORTED, ESTOPPED)
"""``state`` of a ``/miles/skill/status`` message."""
FINAL_SKILL_STATES = (SUCCEEDED, FAILED, ABORTED, ESTOPPED)
"""Skill states that end a request."""
GOAL_OUTCOMES = (
    IDLE,
    PLANNING,
    RUNNING,
    SUCCEEDED,
    FAILED,
    ESTOPPED,
    REFUSED,
    NEEDS_CLARIFICATION,
)
"""``outcome`` of a ``/miles/manager/status`` message."""
FINAL_GOAL_OUTCOMES = (SUCCEEDED, FAILED, ESTOPPED, REFUSED, NEEDS_CLARIFICATION)
"""Goal outcomes that end a goal (``needs_clarification``: nothing moved; the manager's
next goal may answer the question)."""

# -- public JSON keys --------------------------------------------------------------------
SKILL_REQUEST_KEYS = ("id", "skill", "params", "trace_id")
"""A ``/miles/skill/request`` message; a cancel is ``{"id", "cancel": true}``."""
SKILL_STATUS_KEYS = ("id", "skill", "state", "progress", "reason")
"""Every ``/miles/skill/status`` message carries these (and may carry more: ``step``,
``elapsed_s``, ``distance``, ``phase``, and on the final status of a learned skill whose
policy ran, ``return``: :data:`SKILL_RETURN`; with a shadow or a canary,
:data:`SKILL_SHADOW` and :data:`SKILL_CANARY`; on the final status of a learned skill,
``version``: :data:`SKILL_VERSION`)."""
SKILL_CALIBRATION_KEYS = (
    "state",
    "field",
    "measure",
    "skills",
    "reading_m",
    "offset_m",
    "periods",
    "reason",
)
"""A ``/miles/skill/calibration`` message (``reading_m`` only where measured at bring-up;
``reading_m``, ``offset_m`` and ``periods`` absent before and where refused)."""
CALIBRATION_WAITING = "waiting"
CALIBRATION_MEASURING = "measuring"
CALIBRATION_OPENING = "opening"
CALIBRATION_MEASURED = "measured"
CALIBRATION_REFUSED = "refused"
CALIBRATION_SCENE = "scene"
CALIBRATION_STATES = (
    CALIBRATION_WAITING,
    CALIBRATION_MEASURING,
    CALIBRATION_OPENING,
    CALIBRATION_MEASURED,
    CALIBRATION_REFUSED,
    CALIBRATION_SCENE,
)
"""``state`` of ``/miles/skill/calibration``: waiting for the robot and safety state, the
empty gripper closed, opened again, the offset measured, the measuring cards refused (with
``reason``); ``scene``: the scene file's ``gripper.calibration`` gives the offset."""
SKILL_RETURN = "return"
"""Key of a final ``/miles/skill/status``: the episode return, the task's dense reward
summed over the control periods the policy ran (a scripted skill has none)."""
SKILL_VERSION = "version"
"""Key of the final ``/miles/skill/status`` of a learned skill: the version of the skill
that ran (its card's ``version``; a request keeps the version it started with)."""
SKILL_SHADOW = "shadow"
"""Key of a final ``/miles/skill/status`` of a skill with a shadow candidate: the episode's
record of the candidate, computed on the same observations and never sent (action and
joint-target divergence, the interventions the supervisor would have made, the critic's
values at the start; :mod:`miles_ros.runtime.rollout.shadow`)."""
SKILL_CANARY = "canary"
"""Key of a ``/miles/skill/status`` of a skill under a canary rollout: which version ran
(``version``: ``candidate`` or ``active``), a fallback to the active version mid-request
(``fallback``: why) and, when the request's outcome was tested, the ``decision`` with its
evidence (:mod:`miles_ros.runtime.rollout.canary`)."""
CANARY_PROMOTE = "promote"
"""Canary decision: the candidate is not worse than the active version (promote it)."""
CANARY_ROLLBACK = "rollback"
"""Canary decision: the candidate is worse (it fails, or passes the interventions reference,
more often than the active version); no request goes to it any more."""
CANARY_CONTINUE = "continue"
"""Canary decision: not enough evidence yet; the rollout goes on."""
CANARY_DECISIONS = (CANARY_PROMOTE, CANARY_ROLLBACK, CANARY_CONTINUE)
"""``decision`` of a canary's decision record (status key :data:`SKILL_CANARY`)."""
SKILL_DRIFT = "drift"
"""Key of a final ``/miles/skill/status`` of a skill whose active version is watched for
drift: the monitor's decision record on this request's outcome
(:mod:`miles_ros.runtime.rollout.drift`)."""
DRIFT_DETECTED = "drift"
"""Drift decision: the active version succeeds less often than its card says (the
sequential test rejected the card's rate), or its requests' signal moved away from its
reference (the record's ``fired`` says which); the monitor stays latched until reset."""
DRIFT_STEADY = "steady"
"""Drift decision: the stream agrees with the card's rate; a fresh success test starts."""
DRIFT_DECISIONS = (DRIFT_DETECTED, DRIFT_STEADY, CANARY_CONTINUE)
"""``decision`` of a drift record (``continue``: not enough evidence yet)."""
SKILL_INPUTS = "inputs"
"""Key of a ``running`` ``/miles/skill/status`` of a period its policy ran: what that
period's observation was built from, ``{"stamp", "q", "dq", "finger_width", "goal"}``
(the ``/joint_states`` reading: its stamp in s, the 7 arm joints in rad and rad/s, the
finger opening in m; the resolved goal position [3] in m), for turn ``"goal_yaw"`` (the
cube's target yaw, rad) and, for a skill on cubes,
``"object"`` (and, stacking, ``"stack_on"``): ``[x, y, z, yaw]`` of that cube's pose. A
recording then rebuilds the observation the policy saw exactly
(:mod:`miles_ros.runtime.logs`); the recorded ``/joint_states`` alone cannot (its
best-effort recording misses messages the skill node used)."""
SKILL_COMMAND_STAMP = "command_stamp"
"""Key of a ``running`` ``/miles/skill/status`` of a period that sent arm targets: the
header stamp (s) of that period's ``/miles/skill_command``, so that a recording pairs each
period with its command exactly, whatever delays its recorder met
(:mod:`miles_ros.runtime.logs`)."""
REFUSED_PREFIX = "refused:"
"""A skill status ``reason`` that starts with this: the request was refused before any
motion (unknown skill, bad params, outside the envelope, e-stop latched, no robot state)."""
STALLED_PREFIX = "stalled:"
"""A skill status ``reason`` that starts with this: the stall watchdog ended the skill."""
STATE_LOST = "robot state lost"
"""A reason (skill status, safety state) that starts with this: ``/joint_states`` went
stale."""
SAFETY_STATE_KEYS = ("estop", "mode", "interventions", "reason")
"""Every ``/miles/safety/state`` message carries these."""
MANAGER_STATUS_KEYS = ("goal", "goal_seq", "goals_received", "outcome")
"""Every ``/miles/manager/status`` message carries these (single-arm and cell manager);
most also carry ``trace_id``, ``event``, ``reason``, ``step``, ``replans``."""
PLAN_KEYS = ("goal", "steps", "trace_id", "latency_s")
"""Every ``/miles/plan`` message carries these; ``latency_s`` is how long the planner took
to decide (s), one message per decision (the first plan and each replan)."""
PLAN_REFUSAL_KEYS = ("refused", "reason")
"""A refused plan (``/miles/plan``, ``miles plan --json``): ``"refused": true`` and why."""
PLAN_CLARIFY_KEYS = ("clarify", "options")
"""A plan that asks back (``/miles/plan``, ``miles plan --json``, the manager status's
``plan_info``): the question, and the names it offers; no steps."""

# -- exit codes --------------------------------------------------------------------------
EXIT_OK = 0
"""``miles goal``: the goal succeeded; ``miles plan``: every plan is valid; ``miles
skills``: done."""
EXIT_FAILED = 1
"""``miles goal``: failed, refused by the manager or ended by the e-stop; ``miles plan``:
a plan has errors; ``miles skills``: a version refused (the reason on stderr)."""
EXIT_USAGE = 2
"""``miles plan``: usage error or missing model; ``miles skills``: no such skill or
version."""
EXIT_NO_MANAGER = 2
"""``miles goal``: no manager answers."""
EXIT_REFUSED = 3
"""``miles goal`` and ``miles plan``: the planner refused the goal (nothing moved)."""
EXIT_CLARIFY = 4
"""``miles goal`` and ``miles plan``: the planner asks back which thing the goal means
(nothing moved)."""
EXIT_TIMED_OUT = 124
"""``miles goal``: the goal did not end within ``--timeout`` (the manager keeps going)."""
EXIT_INTERRUPTED = 130
"""``miles goal``: interrupted (ctrl-C)."""
