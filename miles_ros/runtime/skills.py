"""The executor behind ``/miles/skill/request`` (no ROS here).

:class:`SkillExecutor` is the state machine the skill node drives over a
:class:`~miles_ros.runtime.library.SkillLibrary` (the skill cards, their ONNX policies
and the scripted ``home``; imported here for the node). Requests (JSON
objects, see docs/interfaces.md)::

    {"id": "r1", "skill": "reach", "params": {"target": "red_cube"}}   run a skill
    {"id": "r1", "cancel": true}          abort skill r1 (an empty or missing id: any)
    {"id": "r1", "cancel": true, "reason": "estop"}   the e-stop latched: end r1 estopped

One skill runs at a time: a new accepted request aborts the running one ("preempted").
A request first swaps in its skill's newly promoted version, if any
(:meth:`SkillLibrary.refresh`); a request whose goal is on a cube runs the version its
skill's ``active.yaml`` routes such goals to, if any (:meth:`SkillLibrary.skill_for`); a
running request keeps the version it started with, which its final status names
(``version``).
A request that cannot run gets one status ``failed`` whose reason starts with
``refused:`` (unknown skill, params failing the card's schema, a name absent from the
scene, an object whose pose is missing or older than ``max_pose_age_s``, the e-stop
latched, no robot state), before any motion; so does a goal outside the
card's envelope (the region its policy was trained for, checked against the live scene):
``refused: precondition NAME: value not in [low, high]``. A running skill reports
``running`` with a progress in [0, 1] after each control period and ends ``succeeded``
(the task's own success predicate; a gripper skill whose goal is met with the cube still
gripped first holds the arm and opens the fingers, so it ends released and the next move
leaves the cube where it was placed), ``failed`` (timeout, lost robot state), ``aborted``
(cancelled or preempted) or ``estopped`` (the safety supervisor latched its e-stop).

With ``start_from_home`` (the default) a learned skill whose arm stands away from the
states it was trained from goes home first (:mod:`miles_ros.runtime.home_move`: the
scripted ``home`` skill's move, period by period). A policy can also settle where it was
never trained to stop (a fixed point of its actor, e.g. after the supervisor held the arm
for a while): with a ``stall_window_s``, a learned skill whose TCP has not moved and whose
goal has come no nearer by ``stall_motion`` for that long goes home and starts again (at
most ``stall_restarts`` times), and then fails early with ``stalled: ...`` rather than at
its timeout, so a manager can re-plan or re-announce the task sooner.

With ``measure_gripper`` and a loaded version whose card has the cell measure its finger
offset (``calibration.finger_width.measure: closed_gripper``) with no offset given (the
scene has no ``gripper.calibration``), the executor measures it at bring-up before it
accepts any request (:class:`~miles_ros.runtime.gripper_calibration.BringUpMeasurement`:
the empty gripper closed and opened again through the same targets a skill publishes,
behind the supervisor); those versions then read through the measured offset, or, refused,
are left out with the reason (a request for them is refused with it).

With a :class:`~miles_ros.runtime.rollout.Rollout` (skill_node's ``shadow`` and
``canary``), a request may run a candidate version of its skill (a canary's share), a
shadow candidate acts beside the active one on every control period and is never sent,
and a candidate request that fails falls back to the active version from where the arm
is (``running`` with ``"canary": {"fallback": ...}``) instead of failing.

What a request records and reports is :mod:`miles_ros.runtime.execution`'s, why one is
refused :mod:`miles_ros.runtime.refusals`'s, and what a rollout decides (which version
runs, the shadow, the canary's test) :mod:`miles_ros.runtime.rollout`'s, which the executor
only calls at its seams (and the bring-up gripper measurement :mod:`miles_ros.runtime.
gripper_calibration`'s). What is left here (about 570 lines) is the one state machine:
every method reads or ends the running request under the same robot state and e-stop, so
splitting it further would pass that state between modules instead of to the seams above.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Mapping

import numpy as np

from miles_ros.interfaces import (
    ABORTED,
    ESTOPPED,
    FAILED,
    REFUSED_PREFIX,
    RUNNING,
    SKILL_CANARY,
    SKILL_INPUTS,
    STALLED_PREFIX,
    STATE_LOST,
    SUCCEEDED,
)
from miles_ros.runtime.actions import JointTargets, action_to_targets, target_lead
from miles_ros.runtime.command_path import CommandPath, RobotCommand
from miles_ros.runtime.execution import Execution, TickResult, goal_distance, status
from miles_ros.runtime.goals import GoalError, resolve_goal, stack_state
from miles_ros.runtime.gripper_calibration import (
    WAIT_TIMEOUT_S,
    BringUpMeasurement,
    apply_measurement,
    close_period_s,
    unmeasured_versions,
)
from miles_ros.runtime.home_move import HomeMove, away_from_start
from miles_ros.runtime.library import RunnableSkill, SkillLibrary
from miles_ros.runtime.observation import (
    JointReading,
    ObjectPose,
    encode_inputs,
    pose_refusal,
    sim_state,
)
from miles_ros.runtime.refusals import envelope_refusal, parse_request, request_refusal
from miles_ros.runtime.rollout import Rollout
from miles_ros.runtime.warm_up import warm_up
from sims.control import FINGER_OPEN, LiftGate
from sims.robots.actuator import ActuatorModel
from sims.scene import Scene
from sims.tasks.pick_place import STACK_RELEASE_WIDTH as RELEASE_WIDTH

__all__ = ["SkillExecutor", "SkillLibrary", "TickResult", "status"]


logger = logging.getLogger(__name__)

MEASURE_SKILL = "measure_gripper"
"""The skill the supervisor is told runs while the gripper is measured at bring-up."""
MEASURE_TAGS = ("grasps",)
"""Its permission tags: it commands the fingers (a deployment that does not allow grasping
refuses its commands, and so the cards that wait for it)."""


class SkillExecutor:
    """Runs one skill at a time from requests, robot state and the safety state.

    Times (``now``) are seconds on any monotonic clock chosen by the caller.
    """

    def __init__(
        self,
        library: SkillLibrary,
        scene: Scene,
        *,
        home_speed: float,
        home_min_height: float,
        home_settle_speed: float,
        state_timeout: float,
        timeout_scale: float,
        start_from_home: bool,
        stall_window_s: float,
        stall_motion: float,
        stall_restarts: int,
        shape_commands: bool,
        command_velocity_scale: float,
        home_tolerance: float = 0.02,
        max_pose_age_s: float = 0.0,
        rollout: Rollout | None = None,
        measure_gripper: bool = False,
        measure_wait_s: float = WAIT_TIMEOUT_S,
    ):
        """Every argument but ``home_tolerance`` is the skill node's parameter of that name
        (``max_pose_age_s``: 0 here, no age bound, for callers that give no stamps;
        ``measure_gripper``: False here, a card that measures then refuses to act unmeasured)
        (:class:`~miles_ros.params.skill.SkillNodeParams`: its meaning, and its default,
        that of config/skills.yaml); :func:`miles_ros.params.skill.skill_executor` builds
        an executor from those parameters, defaults included. ``rollout``: the shadows and
        canaries of candidate versions (:mod:`miles_ros.runtime.rollout`), None: none."""
        self.library = library
        self.scene = scene
        self.home_speed = float(home_speed)
        self.home_tolerance = float(home_tolerance)
        """``home`` succeeds with every joint this near (rad) the home pose and slower than
        ``home_settle_speed``: settled, so its last targets leave no stream to extrapolate."""
        self.home_min_height = float(home_min_height)
        self.home_settle_speed = float(home_settle_speed)
        self.state_timeout = float(state_timeout)
        self.timeout_scale = float(timeout_scale)
        self.start_from_home = bool(start_from_home)
        self.stall_window_s = float(stall_window_s)
        self.stall_motion = float(stall_motion)
        self.stall_restarts = int(stall_restarts)
        self.shape_commands = bool(shape_commands)
        self.command_velocity_scale = float(command_velocity_scale)
        self.actuator = ActuatorModel.panda() if self.shape_commands else None
        """The command path's model (config/safety.yaml), read once, not per request."""
        if not 0.0 < self.command_velocity_scale <= 1.0:
            raise ValueError("command_velocity_scale must be in (0, 1]")
        if self.stall_window_s < 0 or self.stall_motion <= 0 or self.stall_restarts < 0:
            raise ValueError("need stall_window_s >= 0, stall_motion > 0, stall_restarts >= 0")
        self.active: Execution | None = None
        self.joints: JointReading | None = None
        self.joints_received: float | None = None
        self.command = RobotCommand()
        """The robot's latest command (:meth:`on_command`)."""
        self.objects: dict[str, ObjectPose] = {}
        self.max_pose_age_s = float(max_pose_age_s)
        self.pose_stamps: dict[str, float] = {}
        """When each object's pose was seen (s; :func:`parse_freshness`)."""
        self.missing: dict[str, str] = {}
        """Objects the pose source lists as missing, with why."""
        self.estop = False
        self.safety_reason = ""
        self.tags_changed = False
        """Set when the running skill (and so its permission tags) changed."""
        self.rollout = rollout
        self.safety_interventions = 0
        """The supervisor's intervention count (``/miles/safety/state``)."""
        self.safety_known = False
        """Whether a ``/miles/safety/state`` was heard."""
        self.measure_gripper = bool(measure_gripper)
        self.measure_wait_s = float(measure_wait_s)
        pending = unmeasured_versions(library, rollout) if self.measure_gripper else []
        self.gripper: BringUpMeasurement | None = None
        """The bring-up measurement of the finger offset (None: none needed)."""
        if pending:
            names = sorted({skill.name for skill in pending})
            self.gripper = BringUpMeasurement(names, close_period_s(), wait_s=self.measure_wait_s)

    @property
    def home(self) -> HomeMove:
        """The home moves' settings (the scripted ``home`` and a skill's lead-in)."""
        speeds = (self.home_speed, self.home_min_height, self.home_settle_speed)
        return HomeMove(*speeds, self.home_tolerance)

    def warm_up(self) -> None:
        """Run every skill once on the home pose, so the first real control period does not
        pay for JIT compiling (:func:`miles_ros.runtime.warm_up.warm_up`)."""
        scale = self.command_velocity_scale
        warm_up(self.library, self.home.speed, self.actuator, scale)

    # --- inputs -----------------------------------------------------------------------
    def on_joint_state(self, reading: JointReading, now: float) -> None:
        self.joints, self.joints_received = reading, now

    def on_command(self, arm: np.ndarray, now: float) -> None:
        """The command the robot last received (:class:`RobotCommand`): its 7 arm
        positions at ``now``."""
        self.command.update(arm, now)

    def on_objects(
        self,
        objects: Mapping[str, ObjectPose],
        stamps: Mapping[str, float] | None = None,
        missing: Mapping[str, str] | None = None,
    ) -> None:
        """The latest object poses, when each was seen (s, the clock of ``now``; none: not
        aged) and the objects the source lists as missing (with why)."""
        self.objects = dict(objects)
        self.pose_stamps = dict(stamps or {})
        self.missing = dict(missing or {})

    def on_safety_state(self, state: Mapping, now: float) -> list[dict]:
        """``/miles/safety/state``; returns the statuses to publish (estopped)."""
        self.estop = bool(state.get("estop", False))
        self.safety_known = True
        self.safety_reason = str(state.get("reason", ""))
        self.safety_interventions = int(state.get("interventions", 0) or 0)
        if self.estop and self.active is not None:
            reason = "e-stop latched" + (f": {self.safety_reason}" if self.safety_reason else "")
            return [self._finish(ESTOPPED, reason, now)]
        return []

    def on_request(self, payload: str | Mapping, now: float) -> list[dict]:
        """A request or a cancel; returns the statuses to publish."""
        request, refusal = parse_request(payload)
        if request is None:
            return [status("", "", FAILED, 0.0, refusal)]
        rid = request.get("id", "")
        rid = rid if isinstance(rid, str) else json.dumps(rid)
        if request.get("cancel"):
            return self.cancel(rid, now, estop=request.get("reason") == "estop")
        name = request.get("skill")
        if self.measuring:
            why = (
                f"{REFUSED_PREFIX} the gripper's finger offset is being measured at bring-up "
                f"(for {', '.join(self.gripper.skills)}; /miles/skill/calibration says when done)"
            )
            return [status(rid, str(name or ""), FAILED, 0.0, why)]
        if isinstance(name, str):  # between requests: a newly promoted version swaps in
            self.library.refresh(name)
        if not rid:
            why = f"{REFUSED_PREFIX} request needs an id"
            return [status("", str(name or ""), FAILED, 0.0, why)]
        has_state = self.joints is not None
        refusal = request_refusal(
            self.library, name, request, estop=self.estop, has_state=has_state
        )
        if refusal:
            return [status(rid, str(name or ""), FAILED, 0.0, f"{REFUSED_PREFIX} {refusal}")]
        skill = self.library.skills[name]
        params = request.get("params") or {}
        goal = None
        if skill.task is not None:
            refusal = self._pose_refusal(params, now)
            if refusal:
                return [status(rid, name, FAILED, 0.0, f"{REFUSED_PREFIX} {refusal}")]
            try:
                goal = resolve_goal(skill.task.CONFIG.name, params, self.scene, self.objects)
            except GoalError as exc:
                return [status(rid, name, FAILED, 0.0, f"{REFUSED_PREFIX} {exc}")]
            refusal = envelope_refusal(skill, goal, self.objects)
            if refusal:
                return [status(rid, name, FAILED, 0.0, refusal)]
            skill = self.library.skill_for(name, goal.route_target)  # the same contract
        out = []
        if self.active is not None:
            out.append(self._finish(ABORTED, f"preempted by request {rid!r}", now))
        rollout = None
        if self.rollout is not None and skill is self.library.skills[name]:
            # the version that runs it: the canary's seam (a routed request runs its route)
            skill, rollout = self.rollout.start(name, skill, self.safety_interventions)
        homing = skill.task is not None and self.start_from_home and self.away_from_start(skill)
        timeout = self._budget(skill, homing)
        self.active = Execution(
            rid, skill, dict(params), goal, now, timeout, homing=homing, rollout=rollout
        )
        self.tags_changed = True
        out.append(status(rid, name, RUNNING, 0.0, ""))
        if rollout is not None and rollout.canary is not None:
            out[-1][SKILL_CANARY] = rollout.canary_status()
        if homing:
            logger.info("skill %s (%s): homing first (the arm is away from its start)", name, rid)
        return out

    def away_from_start(self, skill: RunnableSkill) -> bool:
        """Whether the arm stands outside the start states ``skill`` was trained from
        (:func:`~miles_ros.runtime.home_move.away_from_start`)."""
        return away_from_start(skill, self.joints)

    def cancel(self, rid: str, now: float, estop: bool = False) -> list[dict]:
        """Abort the running skill if ``rid`` is its id (or empty). ``estop``: the canceller
        saw the e-stop latch (``"reason": "estop"``), which this node may not have heard
        yet on /miles/safety/state: the skill ends ``estopped``, not ``aborted``."""
        if self.active is None or (rid and rid != self.active.request_id):
            if not estop:
                logger.warning("cancel %r: no running skill with that id", rid)
            return []
        if estop:
            return [self._finish(ESTOPPED, "e-stop latched", now)]
        return [self._finish(ABORTED, "cancelled", now)]

    # --- the control period -----------------------------------------------------------
    @property
    def measuring(self) -> bool:
        """Whether the bring-up gripper measurement is under way (or waits to start)."""
        return self.gripper is not None and not self.gripper.finished

    @property
    def period(self) -> float | None:
        """Control period (s) of the running skill or of the gripper measurement, or None
        when idle."""
        if self.measuring:
            return self.gripper.period_s
        return None if self.active is None else 1.0 / self.active.skill.control_rate_hz

    def tick(self, now: float) -> TickResult:
        """One control period of the running skill."""
        if self.measuring:
            return self._tick_gripper(now)
        run = self.active
        if run is None:
            return TickResult()
        if self.estop:
            return TickResult(statuses=[self._finish(ESTOPPED, "e-stop latched", now)])
        received = -math.inf if self.joints_received is None else self.joints_received
        if self.joints is None or now - received > self.state_timeout:
            return TickResult(statuses=[self._finish(FAILED, STATE_LOST, now)])
        if now - run.started > run.timeout_s:
            return TickResult(
                statuses=[self._finish(FAILED, f"timeout after {run.timeout_s:.1f} s", now)]
            )
        if run.rollout is not None:
            why = self.rollout.over_bound(run.rollout, self.safety_interventions)
            if why:
                return TickResult(statuses=[self._finish(FAILED, why, now)])
        if run.skill.task is None:
            return self._tick_home(run, now)
        if run.homing:
            result = self._tick_home(run, now)
            if result.targets is not None:
                for out in result.statuses:
                    out["phase"] = "home"
                return result
            # home reached: the skill starts now, with its whole budget
            run.homing, run.path, run.steps, run.started = False, None, 0, now
            run.stall_ref = None
            run.timeout_s = run.skill.timeout_s * self.timeout_scale
            run.initial_distance, run.progress = None, 0.0
            logger.info(
                "skill %s (%s): home reached, the policy starts", run.skill.name, run.request_id
            )
        return self._tick_policy(run, now)

    def _tick_policy(self, run: Execution, now: float) -> TickResult:
        skill, cfg = run.skill, run.skill.cfg
        obj = None
        if run.goal.object_name is not None:
            obj = self.objects.get(run.goal.object_name)
            if obj is None:
                reason = f"no pose for {run.goal.object_name!r}"
                return TickResult(statuses=[self._finish(FAILED, reason, now)])
        state = sim_state(self.joints, run.goal.goal_pos, obj, run.goal.goal_yaw)
        if run.goal.stack_on is not None:  # stacking: on the target cube's live pose
            state = stack_state(state, self.objects.get(run.goal.stack_on))
        distance = goal_distance(cfg.name, state)
        if run.policy_acted:  # the reward the policy's last action earned
            run.episode_return = (run.episode_return or 0.0) + float(
                skill.task.reward(state, cfg)[0]
            )
        run.policy_acted = False
        if bool(skill.task.success(state, cfg)[0]):
            if not (cfg.has_gripper and self.joints.finger_width < RELEASE_WIDTH):
                return TickResult(statuses=[self._finish(SUCCEEDED, "", now, progress=1.0)])
            # placed but still gripped: hold the arm there and open the fingers first
            if run.release_q is None:
                run.release_q = self.joints.arm_pos.copy()
            targets = JointTargets(run.release_q.copy(), FINGER_OPEN)
            return TickResult(targets, [run.running_status(distance, now)])
        run.release_q = None  # the cube left the goal while released: the policy goes on
        stalled = self._stall_check(run, state.tcp_pos[0], distance, now)
        if stalled:
            return stalled
        obs = skill.task.observe(state)[0]
        action = skill.policy.act(obs)
        if cfg.lift_after_grip_threshold_m:  # the lift held until the fingers stop, as in sims
            if run.lift_gate is None:
                run.lift_gate = LiftGate.from_config(cfg, 1)
            row = np.asarray(action, dtype=np.float64).reshape(1, -1)
            action = run.lift_gate(row, np.array([self.joints.finger_width]))[0]
        targets = action_to_targets(cfg, self.joints.arm_pos, action)
        run.policy_periods += 1
        run.arm_step_sum += float(np.linalg.norm(targets.arm - self.joints.arm_pos))
        if run.rollout is not None:  # the shadow's seam: it reads, nothing flows back
            command = self._command_now(now)
            self.rollout.period(run.rollout, obs, action, targets, self.joints, command, now)
        if self.shape_commands:  # the trajectory the arm follows, as in training
            if run.command_path is None:
                run.command_path = CommandPath(
                    cfg.control_dt, self.actuator, velocity_scale=self.command_velocity_scale
                )
            run.command_path.follow(*self._command_now(now))
            arm, velocity = run.command_path.step(targets.arm)
            targets = JointTargets(arm, targets.finger, velocity)
        run.policy_acted = True
        if run.episode_return is None:
            run.episode_return = 0.0
        progress = run.running_status(distance, now)
        progress[SKILL_INPUTS] = self._inputs(run)
        return TickResult(targets, [progress], lead_s=target_lead(cfg))

    def _inputs(self, run: Execution) -> dict:
        """What this period's observation was built from (:data:`SKILL_INPUTS`)."""
        names = {"object": run.goal.object_name, "stack_on": run.goal.stack_on}
        poses = {role: self.objects.get(n) for role, n in names.items() if n is not None}
        return encode_inputs(self.joints, run.goal.goal_pos, poses, run.goal.goal_yaw)

    def _stall_check(self, run: Execution, tcp, distance: float, now: float):
        """None while the skill progresses; else the restart's first period (home) or the
        ``stalled`` failure."""
        if self.stall_window_s <= 0:
            return None
        if not run.stalled(tcp, distance, now, self.stall_window_s, self.stall_motion):
            return None
        why = (
            f"{STALLED_PREFIX} the TCP moved < {self.stall_motion * 100:.0f} cm and the goal "
            f"came no nearer for {self.stall_window_s:.1f} s"
        )
        if run.restarts >= self.stall_restarts:
            return TickResult(statuses=[self._finish(FAILED, why, now)])
        logger.warning(
            "skill %s (%s) %s: homing and starting it again", run.skill.name, run.request_id, why
        )
        run.restarts += 1
        run.homing, run.path, run.stall_ref, run.started = True, None, None, now
        run.timeout_s = self._home_timeout()
        result = self._tick_home(run, now)
        if not result.statuses:  # already at home: the policy starts again next period
            result.statuses.append(status(run.request_id, run.skill.name, RUNNING, 0.0, ""))
        for out in result.statuses:
            out["phase"] = "home"
        return result

    def _tick_home(self, run: Execution, now: float) -> TickResult:
        move = self.home.period(run, self.joints, self.command, now)
        if move is not None:
            targets, distance, lead = move
            return TickResult(targets, [run.running_status(distance, now)], lead_s=lead)
        if run.homing:  # at home: the skill goes on from here
            return TickResult()
        return TickResult(statuses=[self._finish(SUCCEEDED, "", now, progress=1.0)])

    def _tick_gripper(self, now: float) -> TickResult:
        """One period of the bring-up gripper measurement; at its end the versions that
        waited read through its offset, or are left out with its refusal."""
        gripper = self.gripper
        hold = None if self.joints is None else self._command_now(now)[0]
        estop = None
        if self.safety_known:
            estop = (self.safety_reason or "no reason given") if self.estop else ""
        holding = gripper.holds_arm
        targets = gripper.tick(self.joints, hold, estop, now)
        self.tags_changed |= gripper.holds_arm != holding
        if gripper.finished:
            apply_measurement(gripper, self.library, self.rollout)
        return TickResult(targets)

    # --- helpers ----------------------------------------------------------------------
    def _command_now(self, now: float) -> tuple[np.ndarray, np.ndarray]:
        """(q, velocity) of the robot's command at ``now`` (:meth:`RobotCommand.at`), or
        the measured joints when it is not fresh."""
        fresh = self.command.at(now)
        return fresh if fresh is not None else (self.joints.arm_pos, self.joints.arm_vel)

    def _pose_refusal(self, params: Mapping, now: float) -> str:
        """Why the objects ``params`` name may not be moved from their poses now: listed
        missing, or seen longer ago than ``max_pose_age_s`` (no motion from a stale or
        missing pose)."""
        known = {*self.objects, *self.missing, *self.scene.objects}
        names = [v for v in params.values() if isinstance(v, str) and v in known]
        return pose_refusal(names, self.pose_stamps, self.missing, now, self.max_pose_age_s)

    def _budget(self, skill: RunnableSkill, homing: bool) -> float:
        """A run's time budget (s): its skill's own, scaled, or when it has none or the
        arm goes home first, a home move's."""
        if skill.timeout_s and not homing:
            return skill.timeout_s * self.timeout_scale
        return self._home_timeout()

    def _home_timeout(self) -> float:
        return self.home.timeout(None if self.joints is None else self.joints.arm_pos)

    def _finish(self, state: str, reason: str, now: float, progress: float | None = None) -> dict:
        run = self.active
        assert run is not None
        if state == FAILED and run.rollout is not None:
            active = self.rollout.fall_back(
                run.rollout, reason, self.safety_interventions, run.request_id
            )
            if active is not None:
                return self._fall_back(run, active, reason, now)
        self.active = None
        self.tags_changed = True
        out = run.final_status(state, reason, now, progress)
        if run.rollout is not None:
            out.update(
                self.rollout.finish(
                    run.rollout,
                    state,
                    self.safety_interventions,
                    run.request_id,
                    run.measures(),
                )
            )
        log = logger.info if state == SUCCEEDED else logger.warning
        log(
            "skill %s (%s) %s%s",
            run.skill.name,
            run.request_id,
            state,
            f": {reason}" if reason else "",
        )
        return out

    def _fall_back(self, run: Execution, active: RunnableSkill, why: str, now: float) -> dict:
        """The candidate's request goes on with the ``active`` version from the current
        state (home first when the arm stands away from its start), with a fresh budget;
        returns its ``running`` status, which says it fell back."""
        logger.warning(
            "skill %s (%s): the candidate failed (%s); the active version goes on",
            run.skill.name,
            run.request_id,
            why,
        )
        homing = self.start_from_home and self.away_from_start(active)
        run.restart(active, homing, self._budget(active, homing), now)
        self.tags_changed = True
        out = status(run.request_id, active.name, RUNNING, 0.0, "")
        out[SKILL_CANARY] = run.rollout.canary_status()
        return out

    def active_tags(self) -> dict:
        """``{"skill", "tags"}`` of the running skill (empty when idle), for the safety
        node's ``/miles/safety/skill_tags``."""
        if self.gripper is not None and self.gripper.holds_arm:
            return {"skill": MEASURE_SKILL, "tags": list(MEASURE_TAGS)}
        if self.active is None:
            return {"skill": "", "tags": []}
        return {"skill": self.active.skill.name, "tags": list(self.active.skill.permissions)}
