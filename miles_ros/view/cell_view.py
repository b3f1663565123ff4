"""The live 3D view of a cell: :class:`CellView` logs what the graph says to a Rerun
recording stream of its own (never Rerun's global one), fed with decoded messages.

What it logs (entity paths under ``cell/``, the world frame, z up; an arm's entities
under ``cell/ARM`` (``cell/arm`` for the single arm of a scene without ``arms:``), which
carries the arm's mount pose, so everything below it is in that arm's base frame):

* ``cell/ARM/links/LINK``: each URDF link's pose from :func:`sims.robots.panda.fk_frames`
  of the measured joint positions, its mesh at ``.../mesh`` (:mod:`.arm_model`);
* ``cell/ARM/tcp/measured`` and ``cell/ARM/tcp/commanded``: the TCP frame of the
  measured joint states and of the safety node's joint command;
* ``cell/ARM/safety/workspace``, ``.../zones``, ``.../spheres``: the supervisor's TCP
  workspace box, its keep-out and permission zones and the 30 link spheres, a sphere red
  for :data:`BOUND_HOLD_S` after an event names its link as the bound;
* ``cell/table``, ``cell/pads``, ``cell/objects/truth`` and ``cell/objects/perceived``
  (objects whose message or entry says ``"source": "camera"``), side by side;
* ``camera/image``; ``timeline/...``: plan, manager, skills and safety events as text
  logs; e-stop, interventions, skill progress and the period of the joint states
  (mean and max per view tick: the control loop's jitter as the view receives it).

Every callback only decodes and keeps the newest state; the arms (30 meshes and spheres
per arm) are logged by :meth:`CellView.tick`, called at :attr:`CellView.rate_hz`
(30 Hz by default), so a 250 Hz control loop does not pay for the view on every state.
Time: every log carries the ``ros_time`` timeline, a timestamp (the ROS time handed in
with the message, in seconds).

The recording's entity paths, timeline and colours are defined in one place,
:mod:`.entities` (the tests read recordings back by these paths); the static cell is drawn
by :mod:`.cell_geometry`, what is kept of each arm between ticks is :mod:`.arm_state`, the
arm's geometry :mod:`.arm_model`, the outputs :mod:`.sinks`, the process around it
:mod:`.process`.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import rerun as rr

from miles_ros.safety.config import SafetyConfig
from miles_ros.view.arm_model import link_poses
from miles_ros.view.arm_state import STILL_M, ArmState, joints_by_name, same_pose, still
from miles_ros.view.cell_geometry import (
    log_arms,
    log_pads,
    log_series_names,
    log_table,
    safety_config,
)
from miles_ros.view.entities import (
    APPLICATION_ID,
    BOUND_COLOR,
    ROOT,
    SINGLE_ARM_PATH,
    SPHERE_COLOR,
    TIMELINE,
    arm_path,
    rgba,
    transform3d,
)
from miles_ros.view.options import DEFAULT_RATE_HZ
from sims.robots import panda_spheres
from sims.scene import Scene, load_scene

BOUND_HOLD_S = 1.0
"""A link named as the bound of a safety event stays red this long (s)."""
PERCEIVED_SOURCE = "camera"
"""``source`` of an object pose that comes from perception, not the simulator."""

_BOUNDARY = re.compile(r"nearest boundary: (\S+) at ")
"""The body a Cartesian event names (:func:`miles_ros.safety.explain.nearest_boundary`)."""


class CellView:
    """A Rerun recording of one cell, written to ``sinks`` (:mod:`miles_ros.view.sinks`).

    ``scene``: the cell (None: config/scene.yaml); ``safety``: the supervisor's config
    whose zones are drawn (None: config/safety.yaml). The static scene (meshes, table,
    zones) is logged here, so every sink gets it first.
    """

    def __init__(
        self,
        sinks: Sequence = (),
        scene: Scene | str | Path | None = None,
        safety: SafetyConfig | None = None,
        rate_hz: float = DEFAULT_RATE_HZ,
        recording_id: str | None = None,
    ) -> None:
        if not rate_hz > 0:
            raise ValueError(f"rate_hz must be positive, got {rate_hz}")
        self.scene = scene if isinstance(scene, Scene) else load_scene(scene)
        self.safety = safety or safety_config()
        self.rate_hz = float(rate_hz)
        self.arms: dict[str, ArmState] = {m.name: ArmState() for m in self.scene.arms}
        self.rec = rr.RecordingStream(
            APPLICATION_ID,
            recording_id=recording_id or str(uuid.uuid4()),
            make_default=False,
            make_thread_default=False,
        )
        if sinks:
            self.rec.set_sinks(*sinks)
        self._objects_drawn: dict[str, tuple[list[str], np.ndarray]] = {}
        """Per group (truth, perceived): the cube names and centres last drawn."""
        self._pads: list = []
        """The pads last logged (name, position, size)."""
        self._skill_keys: dict[str, tuple] = {}
        """Arm -> (id, state) of its last skill status logged as a line."""
        self._closed = False
        self._log_static()

    # -- the static cell ----------------------------------------------------------------

    def _log_static(self) -> None:
        log_table(self.rec, self.scene)
        self._cube_colors = {n: rgba(o.color) for n, o in self.scene.objects.items()}
        self._log_pads(
            {n: {"position": p.position, "size": p.size} for n, p in self.scene.places.items()}
        )
        self._moving_links = log_arms(self.rec, self.scene, self.safety)
        """The links logged every tick: those with a mesh, but the base, which is static."""
        log_series_names(self.rec, self.scene)

    def _log_pads(self, places: Mapping[str, Mapping]) -> None:
        """The pads, when they differ from the last ones logged."""
        self._pads = log_pads(self.rec, self.scene, places, self._pads)

    # -- decoded messages ---------------------------------------------------------------

    def _arm(self, arm: str) -> ArmState:
        try:
            return self.arms[arm]
        except KeyError:
            raise KeyError(
                f"no arm {arm!r} in the view's scene; arms: {list(self.arms)}"
            ) from None

    def joint_state(
        self,
        arm: str,
        names: Sequence[str],
        positions: Sequence[float],
        t: float,
        periods: Sequence[float] = (),
    ) -> None:
        """The newest measured state of ``arm`` at ``t`` (s), logged at the next
        :meth:`tick`, with the periods (s) between the joint states that arrived since the
        last one (their mean and max are logged: the loop's jitter as the view sees it).
        A state without every arm joint is ignored."""
        state = self._arm(arm)
        state.periods.extend(float(p) for p in periods)
        q, fingers = joints_by_name(names, positions)
        if q is None:
            return
        state.q, state.t, state.fresh = q, t, True
        if fingers is not None:
            state.fingers = fingers

    def joint_command(
        self, arm: str, names: Sequence[str], positions: Sequence[float], t: float
    ) -> None:
        """The safety node's command to ``arm``: the commanded TCP at the next tick."""
        q, _ = joints_by_name(names, positions)
        if q is not None:
            state = self._arm(arm)
            state.command, state.command_t, state.command_fresh = q, t, True

    def tick(self) -> None:
        """Log each arm's newest state and command and the period statistics of its joint
        states. An arm (or a command) that has not moved by
        :data:`~miles_ros.view.arm_state.STILL_RAD` on any joint since it was last drawn,
        with the same links bound, is not drawn again: a cell that waits costs next to
        nothing."""
        for arm, state in self.arms.items():
            base = arm_path(arm)
            name = arm or SINGLE_ARM_PATH
            if state.fresh:
                state.fresh = False
                bound = frozenset(link for link, until in state.bound.items() if until >= state.t)
                if not same_pose(state.drawn, state.q, state.fingers, bound):
                    state.drawn = (state.q, state.fingers, bound)
                    self._log_arm(base, state, bound)
                if state.periods:
                    ms = np.array(state.periods) * 1e3
                    state.periods.clear()
                    self._at(state.t)
                    self.rec.log(
                        f"timeline/{name}/joint_states_period_ms",
                        rr.Scalars([float(ms.mean()), float(ms.max())]),
                    )
            if state.command_fresh:
                state.command_fresh = False
                if still(state.drawn_command, state.command):
                    continue
                state.drawn_command = state.command
                self._at(state.command_t)
                _, tcp = link_poses(state.command)
                self.rec.log(f"{base}/tcp/commanded", transform3d(tcp))

    def _log_arm(self, base: str, state: ArmState, bound: frozenset[str]) -> None:
        self._at(state.t)
        log = self.rec.log
        poses, tcp = link_poses(state.q, state.fingers)
        for link in self._moving_links:
            log(f"{base}/links/{link}", transform3d(poses[link]))
        log(f"{base}/tcp/measured", transform3d(tcp))
        log(f"timeline/{base.rsplit('/', 1)[-1]}/joints", rr.Scalars(state.q))
        centres = panda_spheres.sphere_centers(state.q)
        colors = np.tile(np.array(SPHERE_COLOR, dtype=np.uint8), (len(centres), 1))
        if bound:
            mask = panda_spheres.link_mask([b for b in bound if b in panda_spheres.LINK_NAMES])
            colors[mask] = BOUND_COLOR
        log(
            f"{base}/safety/spheres",
            rr.Ellipsoids3D(
                centers=centres,
                half_sizes=np.repeat(panda_spheres.sphere_radii[:, None], 3, axis=1),
                colors=colors,
                fill_mode="solid",
            ),
        )

    def objects(self, payload: Mapping, t: float) -> None:
        """A ``/miles/scene/objects`` message: the cubes (ground truth, and perceived ones
        beside them; drawn when one moved by :data:`STILL_M`) and the pads."""
        self._at(t)
        source = payload.get("source")
        groups: dict[str, list[tuple[str, Mapping]]] = {"truth": [], "perceived": []}
        for name, pose in (payload.get("objects") or {}).items():
            perceived = (pose.get("source") or source) == PERCEIVED_SOURCE
            groups["perceived" if perceived else "truth"].append((name, pose))
        edge = self.scene.cube_size
        for group, items in groups.items():
            centers = np.array([p["position"] for _, p in items], dtype=np.float64)
            drawn = self._objects_drawn.get(group)
            if not items or (
                drawn is not None
                and drawn[0] == [n for n, _ in items]
                and float(np.max(np.abs(drawn[1] - centers))) < STILL_M
            ):
                continue  # nothing there, or nothing moved
            self._objects_drawn[group] = ([n for n, _ in items], centers)
            grey = (160, 160, 160, 255)
            self.rec.log(
                f"{ROOT}/objects/{group}",
                rr.Boxes3D(
                    centers=centers,
                    sizes=[[edge] * 3] * len(items),
                    quaternions=[p.get("orientation") or (0.0, 0.0, 0.0, 1.0) for _, p in items],
                    colors=[self._cube_colors.get(n, grey) for n, _ in items],
                    labels=[n for n, _ in items],
                    fill_mode="solid" if group == "truth" else "majorwireframe",
                ),
            )
        if payload.get("places"):
            self._log_pads(payload["places"])

    def safety_state(self, arm: str, state: Mapping, t: float) -> None:
        """A ``/miles/safety/state`` message: the e-stop (0/1) and the intervention count."""
        self._at(t)
        name = arm or SINGLE_ARM_PATH
        estop = bool(state.get("estop"))
        self.rec.log(f"timeline/{name}/estop", rr.Scalars(float(estop)))
        self.rec.log(
            f"timeline/{name}/interventions", rr.Scalars(float(state.get("interventions", 0)))
        )
        arm_state = self._arm(arm)
        if estop != arm_state.estop:
            arm_state.estop = estop
            level = rr.TextLogLevel.ERROR if estop else rr.TextLogLevel.INFO
            text = f"{name}: e-stop {'latched' if estop else 'clear'} ({state.get('mode')})"
            if state.get("reason"):
                text += f": {state['reason']}"
            self.rec.log("timeline/safety", rr.TextLog(text, level=level))

    def safety_event(self, arm: str, event: Mapping, t: float) -> None:
        """A ``/miles/safety/events`` message: a text log line, and the link (or TCP) it
        names as the bound drawn red for :data:`BOUND_HOLD_S`."""
        self._at(t)
        name = arm or SINGLE_ARM_PATH
        kind, detail = event.get("kind", "?"), event.get("detail") or ""
        joint = f" {event['joint']}" if event.get("joint") else ""
        more = f" (+{event['suppressed']} suppressed)" if event.get("suppressed") else ""
        level = rr.TextLogLevel.ERROR if kind == "estop" else rr.TextLogLevel.WARN
        self.rec.log(
            "timeline/safety", rr.TextLog(f"{name}: {kind}{joint}: {detail}{more}", level=level)
        )
        match = _BOUNDARY.search(detail)
        if match:
            self._arm(arm).bound[match.group(1)] = t + BOUND_HOLD_S

    def skill_status(self, arm: str, status: Mapping, t: float) -> None:
        """A ``/miles/skill/status`` message: a line when its state changes, the progress."""
        self._at(t)
        name = arm or SINGLE_ARM_PATH
        progress = status.get("progress")
        if isinstance(progress, int | float):
            self.rec.log(f"timeline/{name}/skill_progress", rr.Scalars(float(progress)))
        key = (status.get("id"), status.get("state"))
        if self._skill_keys.get(arm) != key:
            self._skill_keys[arm] = key
            reason = f": {status['reason']}" if status.get("reason") else ""
            text = (
                f"{name}: {status.get('skill')} [{status.get('id')}] {status.get('state')}{reason}"
            )
            self.rec.log("timeline/skills", rr.TextLog(text))

    def plan(self, plan: Mapping, t: float) -> None:
        """A ``/miles/plan`` message: the goal and its steps (or the refusal)."""
        self._at(t)
        if plan.get("refused"):
            text = f"plan refused for {plan.get('goal')!r}: {plan.get('reason')}"
        else:
            steps = "; ".join(
                f"{k + 1}. {_call(step)}" for k, step in enumerate(plan.get("steps") or [])
            )
            text = f"plan for {plan.get('goal')!r}: {steps}"
        self.rec.log("timeline/plan", rr.TextLog(text))

    def manager_status(self, status: Mapping, t: float) -> None:
        """A ``/miles/manager/status`` message: goal, outcome and event as one line."""
        self._at(t)
        parts = [f"goal {status.get('goal_seq')}: {status.get('outcome')}"]
        parts += [
            f"{k} {status[k]}" for k in ("event", "step", "reason") if status.get(k) is not None
        ]
        self.rec.log("timeline/manager", rr.TextLog(", ".join(parts)))

    def image(self, width: int, height: int, encoding: str, data: bytes, t: float) -> None:
        """A camera frame (rgb8 or bgr8; other encodings are noted, not drawn)."""
        self._at(t)
        if encoding not in ("rgb8", "bgr8") or len(data) != width * height * 3:
            self.rec.log("timeline/camera", rr.TextLog(f"camera frame in {encoding!r} not shown"))
            return
        pixels = np.frombuffer(data, dtype=np.uint8).reshape(height, width, 3)
        self.rec.log("camera/image", rr.Image(pixels, color_model=encoding[:3].upper()))

    def _at(self, t: float) -> None:
        self.rec.set_time(TIMELINE, timestamp=float(t))

    def close(self) -> None:
        """Log what is pending, flush every sink and end the recording; idempotent."""
        if self._closed:
            return
        self._closed = True
        self.tick()
        self.rec.flush()
        self.rec.disconnect()


def _call(step: Mapping) -> str:
    """A plan step as ``skill(name=value, ...)``."""
    params = ", ".join(f"{k}={v}" for k, v in (step.get("params") or {}).items())
    return f"{step.get('skill')}({params})"
