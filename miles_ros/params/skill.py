"""Parameters of ``skill_node`` (defaults mirrored in config/skills.yaml; names from
:mod:`miles_ros.interfaces`). ROS-free."""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import dataclass

from miles_ros import interfaces
from miles_ros.runtime.actions import TARGET_LEAD_MAX
from miles_ros.runtime.command_path import SHAPE_COMMANDS, VELOCITY_SCALE
from miles_ros.runtime.gripper_calibration import WAIT_TIMEOUT_S
from miles_ros.runtime.rollout import rollout_from_config
from miles_ros.runtime.skills import SkillExecutor, SkillLibrary
from sims.robots import panda
from sims.scene import Scene


@dataclass(frozen=True)
class SkillNodeParams:
    """Parameters of ``skill_node`` (the ONNX skill executor)."""

    skill_library: str = ""
    """Skill library, one folder per skill: a plain skill directory or versions with one
    active, swapped in between requests when another is promoted (docs/skills.md; '' = the
    shipped policies/skills)."""
    check_hashes: bool = True
    """Refuse skills whose ONNX files do not match the card's sha256."""
    measure_gripper: bool = True
    """A loaded card that has the cell measure its finger offset (calibration.finger_width.
    measure: closed_gripper) while the scene file has no gripper.calibration: before any
    request is accepted the node closes the empty gripper through its command path (behind
    the safety node), takes the settled reading as `miles calibrate gripper` does, opens it
    again and reads the card's finger width through that offset (calibration_topic says
    what it measured); a latched e-stop, an unsettled reading or a gripper that did not
    close refuses such cards with the reason. false: they are refused without a scene
    calibration."""
    measure_wait_s: float = WAIT_TIMEOUT_S
    """With measure_gripper: how long (s, from the node's first control period) the
    bring-up measurement waits for its first joint state and the safety state; with either
    still missing then, the cards waiting for it are refused naming what did not come."""
    scene_file: str = ""
    """Scene YAML for pad positions and names ('' = the default config/scene.yaml)."""
    arm: str = ""
    """The arm this node drives, by its name in the scene's ``arms:`` ('' = the single arm
    of a scene without them: base frame = world frame, names unchanged). Set: object poses
    and pads are seen in that arm's base frame (miles_ros.runtime.frames) and every topic
    of this node but objects_topic lives under /ARM (arm_scoped)."""
    loop_rate_hz: float = 0.0
    """Override of every skill's control rate (Hz); 0 = each card's own rate."""
    timeout_scale: float = 2.0
    """Multiplier on each card's timeout_s: behind the supervisor's acceleration limits a
    skill runs slower than in the training simulator."""
    home_speed: float = 0.8
    """Peak joint speed (rad/s) of the scripted home skill."""
    home_min_height: float = 0.05
    """The scripted home move keeps the TCP at least this high (m above the table top, or
    the start height when that is lower): it lifts first where the straight joint-space
    line to home would dip lower (miles_ros.runtime.homing)."""
    home_settle_speed: float = 0.05
    """home succeeds only once every joint is slower than this (rad/s) at the home pose."""
    start_from_home: bool = True
    """A learned skill asked for while the arm stands away from the states it was trained
    from (some joint further from home than its task's initial_joint_noise, or the fingers
    away from the width its episodes start with, e.g. after an earlier task) runs the
    scripted home move first (fingers to that width), then the skill with its whole time
    budget. false: the policy starts wherever the arm is."""
    stall_window_s: float = 2.0
    """A learned skill whose TCP has not moved and whose goal has come no nearer by
    stall_motion for this long (s) has settled where its policy was never trained to stop:
    it goes home and starts again (stall_restarts times), then fails "stalled: ..." before
    its timeout. 0: no watchdog (the skill runs until it succeeds or times out)."""
    stall_motion: float = 0.01
    """Least motion (m) of the TCP or of the goal distance that counts as progress."""
    stall_restarts: int = 1
    """Home-and-restart attempts of a stalled skill before it fails."""
    shape_commands: bool = SHAPE_COMMANDS
    """A learned skill's targets go through the arm's command-path model its policy was
    trained behind (the limits of config/safety.yaml at 250 Hz) before they are published,
    as trajectory points (position and velocity) that the safety node tracks in time
    (miles_ros.runtime.command_path). false: the policy's targets as they are, each one
    shaped by the safety node (an intervention where the arm cannot follow it)."""
    command_velocity_scale: float = VELOCITY_SCALE
    """With shape_commands: the fraction of the joint velocity limits the command path
    allows (at full speed the hand's braking distance reaches the base keep-out zone and
    the safety node slows the arm; miles_ros.runtime.command_path.VELOCITY_SCALE)."""
    target_lead_max: float = TARGET_LEAD_MAX
    """A learned skill's targets are stamped with the time they are for: one control
    period after the tick (the training simulators let the arm cover each step within
    the period), at most this far ahead (s). The safety node then approaches each target
    instead of extrapolating the stream past it (miles_ros.runtime.actions.target_lead).
    Keep it below safety_node's max_request_lead (0.05 s). 0: stamp every command with
    its publish time."""
    state_timeout: float = 0.5
    """A running skill fails when /joint_states is older than this (s)."""
    max_pose_age_s: float = 1.0
    """A request is refused when a cube it names has a pose older than this (s) at the
    request (the cube's own stamp, as a perception node sends it, else the message's) or
    is listed missing: no motion starts from a stale or missing pose. 0: no age bound."""
    shadow: str = ""
    """Shadow candidates, a YAML mapping {SKILL: CANDIDATE_SKILL_DIR} ('' = none): on every
    control period of a request of SKILL the candidate acts on the same observation and
    is never sent; the final status carries its record under "shadow" (action and target
    divergence, the interventions the supervisor would have made, the critic's values;
    miles_ros.runtime.rollout.shadow)."""
    canary: str = ""
    """Canary rollouts, a YAML mapping {SKILL: {candidate: DIR, share: 0.2, seed: 0, alpha:
    0.05, beta: 0.05, delta: 0.3, max_interventions: 20, intervention_ratio: 1.5,
    excess_rate: 0.1, excess_delta: 0.4, abort_interventions: 500}} ('' = none): that share
    of SKILL's requests runs the candidate behind the same supervisor; an SPRT on success
    and one on requests over the interventions reference (against the active version's
    own on the same stream) decide promote, rollback or continue; a failing candidate
    request, or one over abort_interventions, falls back to the active version
    (miles_ros.runtime.rollout.canary)."""
    rollout_log: str = ""
    """JSON-lines file of the canaries' decisions with their evidence ('' = none)."""
    drift: str = ""
    """Drift monitors of active versions, a YAML mapping {SKILL: {alpha: 0.01, beta: 0.05,
    delta: 0.3, signal: action, reference: 30, allowance: 0.5, threshold: 9.0}} ('' =
    none): an SPRT of SKILL's live success against its card's and a CUSUM of a per-request
    signal against the version's first requests, either raising the alarm; the final
    status carries its record under "drift" (miles_ros.runtime.rollout.drift)."""
    joint_names: tuple[str, ...] = panda.JOINT_NAMES
    """Arm joint names, in the robot model's order."""
    finger_joint_names: tuple[str, ...] = panda.FINGER_JOINT_NAMES
    """Finger joint names (commanded only by skills that use the gripper)."""
    joint_states_topic: str = interfaces.JOINT_STATES
    """sensor_msgs/JointState in (sensor QoS)."""
    objects_topic: str = interfaces.SCENE_OBJECTS
    """std_msgs/String JSON object poses in (from the sim node or a perception node)."""
    request_topic: str = interfaces.SKILL_REQUEST
    """std_msgs/String JSON requests in: {id, skill, params} or {id, cancel: true}."""
    status_topic: str = interfaces.SKILL_STATUS
    """std_msgs/String JSON status out: {id, skill, state, progress, reason}."""
    skill_command_topic: str = interfaces.SKILL_COMMAND
    """sensor_msgs/JointState out: requested joint targets, to the safety node (with the
    arm's velocities when they are trajectory points: home, shaped learned skills)."""
    joint_command_topic: str = interfaces.JOINT_COMMAND
    """sensor_msgs/JointState in: the safety node's commands to the robot (where a home
    move or a skill's command path starts from)."""
    safety_state_topic: str = interfaces.SAFETY_STATE
    """std_msgs/String JSON in: the supervisor's state (reliable, transient-local)."""
    skill_tags_topic: str = interfaces.SAFETY_SKILL_TAGS
    """std_msgs/String JSON out: {skill, tags} of the running skill, for the supervisor."""
    calibration_topic: str = interfaces.SKILL_CALIBRATION
    """std_msgs/String JSON out (transient-local): the finger offset the measuring cards read
    through, measured at bring-up or the scene's (only where a loaded card measures one)."""


def skill_executor(
    library: SkillLibrary, scene: Scene, params: SkillNodeParams | None = None
) -> SkillExecutor:
    """skill_node's executor: every argument that is a field of ``params`` (default: the
    node's defaults, config/skills.yaml's) from it."""
    params = SkillNodeParams() if params is None else params
    fields = {f.name for f in dataclasses.fields(params)}
    names = fields & inspect.signature(SkillExecutor).parameters.keys()
    rollout = rollout_from_config(
        library,
        params.shadow,
        params.canary,
        params.rollout_log,
        params.shape_commands,
        params.command_velocity_scale,
        params.check_hashes,
        drift=params.drift,
    )
    kwargs = {name: getattr(params, name) for name in names}
    return SkillExecutor(library, scene, rollout=rollout, **kwargs)
