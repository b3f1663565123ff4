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
(:meth:`SkillLibrary.refresh`); a running request keeps the version it started with, which
its final status names (``version``).
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

A learned skill was trained from the home pose (every joint within its task's
``initial_joint_noise``, the fingers at its ``INITIAL_FINGER_WIDTH``); where the arm stands
further away (after an earlier task), it is outside every state the policy saw and the
policy may hover until its timeout. With ``start_from_home`` (the default) the scripted
home move runs first, setting the fingers to that width (``running`` statuses with
``"phase": "home"``, within the home move's own time budget), then the skill, with its
whole budget from there. A policy can also settle where it was never trained to stop
(a fixed point of its actor, e.g. after the supervisor held the arm for a while): with a
``stall_window_s``, a learned skill whose TCP has not moved and whose goal has come no
nearer by ``stall_motion`` for that long goes home and starts again (at most
``stall_restarts`` times), and then fails early with ``stalled: ...`` rather than at
its timeout, so a manager can re-plan or re-announce the task sooner.

With a :class:`~miles_ros.runtime.rollout.Rollout` (skill_node's ``shadow`` and
``canary``), a request may run a candidate version of its skill (a canary's share), a
shadow candidate acts beside the active one on every control period and is never sent,
and a candidate request that fails falls back to the active version from where the arm
is (``running`` with ``"canary": {"fallback": ...}``) instead of failing.

Over 500 lines: one state machine, :class:`SkillExecutor`, whose transitions (request,
tick, home lead-in, stall restart, a candidate's fallback, cancel, finish) all read and
write the same running execution; what a rollout decides (which version runs, the
shadow, the canary's test) lives in :mod:`miles_ros.runtime.rollout`, which the executor
only calls at its seams; this docstring, the contract the node and the tests hold it to,
is a sixth of it.
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
    SKILL_RETURN,
    SKILL_VERSION,
    STALLED_PREFIX,
    STATE_LOST,
    SUCCEEDED,
)
from miles_ros.runtime.actions import (
    JointTargets,
    action_to_targets,
    target_lead,
)
from miles_ros.runtime.command_path import CommandPath, RobotCommand
from miles_ros.runtime.execution import (
    Execution,
    TickResult,
    goal_distance,
    status,
)
from miles_ros.runtime.goals import Goal, GoalError, resolve_goal, stack_state
from miles_ros.runtime.homing import (
    home_path,
    home_point,
    path_duration,
    path_target,
    plan_home,
)
from miles_ros.runtime.library import (
    FINGER_START_TOLERANCE,
    RunnableSkill,
    SkillLibrary,
    start_width,
)
from miles_ros.runtime.observation import (
    JointReading,
    ObjectPose,
    encode_inputs,
    pose_refusal,
    sim_state,
)
from miles_ros.runtime.rollout import Rollout
from sims.control import FINGER_OPEN
from sims.robots import panda
from sims.robots.actuator import ActuatorModel
from sims.scene import Scene
from sims.tasks.pick_place import STACK_RELEASE_WIDTH as RELEASE_WIDTH

__all__ = ["SkillExecutor", "SkillLibrary", "TickResult", "status"]


logger = logging.getLogger(__name__)

HOME_REPLAN_TOLERANCE = 0.05
"""rad: a home move whose command has fallen this far from it (the safety node stopped or
held the arm, or this node got no CPU for a while) is planned again from the command. Less
and a supervisor that merely slows the arm (near a zone) would restart it over and over."""


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
    ):
        """Every argument but ``home_tolerance`` is the skill node's parameter of that name
        (``max_pose_age_s``: 0 here, no age bound, for callers that give no stamps)
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

    def warm_up(self) -> None:
        """Run every skill's observation, actor, action mapping and command path once on the
        home pose, so the first real control period does not pay for JIT compiling (seconds
        in a fresh clone: a single-threaded graph would stop publishing joint states) and
        session setup."""
        q = panda.home_joint_positions.copy()
        reading = JointReading(q, np.zeros(7), 0.0, 0.0)
        for skill in self.library.skills.values():
            if skill.task is None:
                path_target(home_path(q), self.home_speed, 0.04)
                continue
            state = sim_state(reading, panda.fk_tcp(q), ObjectPose(np.array([0.5, 0, 0.02]), 0.0))
            skill.task.success(state, skill.cfg)
            action = skill.policy.act(skill.task.observe(state)[0])
            targets = action_to_targets(skill.cfg, q, action)
            if self.shape_commands:  # its numba kernel compiles here, not mid-graph
                scale = self.command_velocity_scale
                path = CommandPath(skill.cfg.control_dt, self.actuator, velocity_scale=scale)
                path.sync(q, np.zeros(7))
                path.step(targets.arm)

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
        self.safety_reason = str(state.get("reason", ""))
        self.safety_interventions = int(state.get("interventions", 0) or 0)
        if self.estop and self.active is not None:
            reason = "e-stop latched" + (f": {self.safety_reason}" if self.safety_reason else "")
            return [self._finish(ESTOPPED, reason, now)]
        return []

    def on_request(self, payload: str | Mapping, now: float) -> list[dict]:
        """A request or a cancel; returns the statuses to publish."""
        try:
            request = json.loads(payload) if isinstance(payload, str) else dict(payload)
        except (json.JSONDecodeError, TypeError, ValueError) as exc:
            return [status("", "", FAILED, 0.0, f"{REFUSED_PREFIX} request is not JSON ({exc})")]
        if not isinstance(request, dict):
            return [status("", "", FAILED, 0.0, f"{REFUSED_PREFIX} request must be a JSON object")]
        rid = request.get("id", "")
        rid = rid if isinstance(rid, str) else json.dumps(rid)
        if request.get("cancel"):
            return self.cancel(rid, now, estop=request.get("reason") == "estop")
        name = request.get("skill")
        if isinstance(name, str):  # between requests: a newly promoted version swaps in
            self.library.refresh(name)
        if not rid:
            why = f"{REFUSED_PREFIX} request needs an id"
            return [status("", str(name or ""), FAILED, 0.0, why)]
        refusal = self._refusal(name, request)
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
            refusal = self._envelope_refusal(skill, goal)
            if refusal:
                return [status(rid, name, FAILED, 0.0, refusal)]
        out = []
        if self.active is not None:
            out.append(self._finish(ABORTED, f"preempted by request {rid!r}", now))
        rollout = None
        if self.rollout is not None:  # the version that runs it: the canary's seam
            skill, rollout = self.rollout.start(name, skill, self.safety_interventions)
        homing = skill.task is not None and self.start_from_home and self.away_from_start(skill)
        if skill.timeout_s and not homing:
            timeout = skill.timeout_s * self.timeout_scale
        else:
            timeout = self._home_timeout()
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
        """Whether the arm stands outside the start states ``skill`` was trained from: some
        joint further from home than the task's ``initial_joint_noise`` (rad), or the
        fingers further than :data:`FINGER_START_TOLERANCE` from the width its episodes
        start with (push: closed, pick_place: open)."""
        if self.joints is None or skill.cfg is None:
            return False
        noise = skill.cfg.randomization.initial_joint_noise
        if np.max(np.abs(self.joints.arm_pos - panda.home_joint_positions)) > noise:
            return True
        width = start_width(skill)
        return width is not None and abs(self.joints.finger_width - width) > FINGER_START_TOLERANCE

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
    def period(self) -> float | None:
        """Control period (s) of the running skill, or None when idle."""
        return None if self.active is None else 1.0 / self.active.skill.control_rate_hz

    def tick(self, now: float) -> TickResult:
        """One control period of the running skill."""
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
            return TickResult(targets, [self._progress(run, distance, now)])
        run.release_q = None  # the cube left the goal while released: the policy goes on
        stalled = self._stall_check(run, state.tcp_pos[0], distance, now)
        if stalled:
            return stalled
        obs = skill.task.observe(state)[0]
        action = skill.policy.act(obs)
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
        progress = self._progress(run, distance, now)
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
        ref = run.stall_ref
        if (
            ref is None
            or float(np.linalg.norm(tcp - ref[1])) > self.stall_motion
            or ref[2] - distance > self.stall_motion
        ):
            run.stall_ref = (now, np.array(tcp, dtype=np.float64), distance)
            return None
        if now - ref[0] < self.stall_window_s:
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
        q = self.joints.arm_pos
        distance = float(np.max(np.abs(panda.home_joint_positions - q)))
        speed = float(np.max(np.abs(self.joints.arm_vel)))
        finger, fingers_ready = None, True
        if run.homing:  # a learned skill's lead-in: its fingers go to their start width too
            width = start_width(run.skill)
            if width is not None:
                finger = width / 2.0
                fingers_ready = abs(self.joints.finger_width - width) <= FINGER_START_TOLERANCE
        if distance < self.home_tolerance and speed < self.home_settle_speed and fingers_ready:
            if run.homing:  # the skill goes on from here
                return TickResult()
            return TickResult(statuses=[self._finish(SUCCEEDED, "", now, progress=1.0)])
        if run.path is None or self._home_parted(run):
            moving = self.command.moving(now, self.home_settle_speed)
            run.brake, run.path = plan_home(q, moving, self.home_min_height)
            run.path_started = now
        # Where the move is one period ahead of the clock (so the first target already
        # moves), stamped for that time.
        lead = 1.0 / run.skill.control_rate_hz
        elapsed = now - run.path_started + lead
        target, velocity = home_point(run.brake, run.path, self.home_speed, elapsed)
        progress = [self._progress(run, distance, now)]
        return TickResult(JointTargets(target, finger, velocity), progress, lead_s=lead)

    # --- helpers ----------------------------------------------------------------------
    def _command_now(self, now: float) -> tuple[np.ndarray, np.ndarray]:
        """(q, velocity) of the robot's command at ``now`` (:meth:`RobotCommand.at`), or
        the measured joints when it is not fresh."""
        fresh = self.command.at(now)
        return fresh if fresh is not None else (self.joints.arm_pos, self.joints.arm_vel)

    def _home_parted(self, run: Execution) -> bool:
        """Whether the robot's latest command is further than :data:`HOME_REPLAN_TOLERANCE`
        from the home move at that command's time: the move is then planned again from the
        command."""
        cmd = self.command
        if cmd.q is None or cmd.time < run.path_started:
            return False
        planned, _ = home_point(run.brake, run.path, self.home_speed, cmd.time - run.path_started)
        return float(np.max(np.abs(planned - cmd.q))) > HOME_REPLAN_TOLERANCE

    def _refusal(self, name, request: Mapping) -> str:
        if not isinstance(name, str) or not name:
            return "request needs a skill name"
        if name not in self.library.skills:
            if name in self.library.errors:
                return f"skill {name!r} failed to load: {self.library.errors[name]}"
            return f"unknown skill {name!r}; available: {', '.join(self.library.names())}"
        params = request.get("params", {})
        if params is None:
            params = {}
        if not isinstance(params, dict):
            return "params must be a JSON object"
        errors = self.library.skills[name].param_errors(params)
        if errors:
            return f"invalid params for {name!r}: " + "; ".join(errors)
        if self.estop:
            return "e-stop latched; reset it first"
        if self.joints is None:
            return "no robot state yet (/joint_states)"
        return ""

    def _pose_refusal(self, params: Mapping, now: float) -> str:
        """Why the objects ``params`` name may not be moved from their poses now: listed
        missing, or seen longer ago than ``max_pose_age_s`` (no motion from a stale or
        missing pose)."""
        known = {*self.objects, *self.missing, *self.scene.objects}
        names = [v for v in params.values() if isinstance(v, str) and v in known]
        return pose_refusal(names, self.pose_stamps, self.missing, now, self.max_pose_age_s)

    def _envelope_refusal(self, skill: RunnableSkill, goal: Goal) -> str:
        """``refused: precondition ...`` when the resolved goal (and the cube's live
        position) lies outside the card's envelope; "" inside it."""
        obj = None if goal.object_name is None else self.objects[goal.object_name].position
        violations = skill.card.envelope_violations(obj, goal.goal_pos, goal.turn_deg)
        if not violations:
            return ""
        return f"{REFUSED_PREFIX} precondition " + "; precondition ".join(violations)

    def _home_timeout(self) -> float:
        q = self.joints.arm_pos if self.joints is not None else panda.home_joint_positions
        path = home_path(q, min_height=self.home_min_height)
        return 1.5 * path_duration(path, self.home_speed) + 3.0

    def _progress(self, run: Execution, distance: float, now: float) -> dict:
        run.steps += 1
        if not run.homing:
            run.skill_periods += 1
        if run.initial_distance is None:
            run.initial_distance = max(distance, 1e-9)
        run.progress = float(np.clip(1.0 - distance / run.initial_distance, 0.0, 1.0))
        out = status(run.request_id, run.skill.name, RUNNING, run.progress, "")
        out.update(
            step=run.steps, elapsed_s=round(now - run.started, 4), distance=round(distance, 5)
        )
        return out

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
        out = status(
            run.request_id,
            run.skill.name,
            state,
            run.progress if progress is None else progress,
            reason,
        )
        out.update(step=run.steps, elapsed_s=round(now - run.started, 4))
        if run.episode_return is not None:
            out[SKILL_RETURN] = round(run.episode_return, 6)
        if run.skill.task is not None:
            out[SKILL_VERSION] = run.skill.card.version
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
        run.skill = active
        run.homing = self.start_from_home and self.away_from_start(active)
        run.timeout_s = (
            active.timeout_s * self.timeout_scale
            if active.timeout_s and not run.homing
            else self._home_timeout()
        )
        run.started, run.restarts, run.progress, run.initial_distance = now, 0, 0.0, None
        run.path = run.command_path = run.release_q = run.stall_ref = None
        run.episode_return, run.policy_acted = None, False
        self.tags_changed = True
        out = status(run.request_id, active.name, RUNNING, 0.0, "")
        out[SKILL_CANARY] = run.rollout.canary_status()
        return out

    def active_tags(self) -> dict:
        """``{"skill", "tags"}`` of the running skill (empty when idle), for the safety
        node's ``/miles/safety/skill_tags``."""
        if self.active is None:
            return {"skill": "", "tags": []}
        return {"skill": self.active.skill.name, "tags": list(self.active.skill.permissions)}
