"""A skill on perceived poses, without ROS: the cube a policy observes comes from the
perception core (:mod:`miles_ros.perception`) looking at the env's world through the
scene's simulated camera, not from the simulator's state (``miles eval SKILL --supervised
--perception``).

:class:`PerceivedObservation` is a PyBullet ``observation_filter``
(:attr:`sims.backends.host.HostPhysicsEnv.observation_filter`). Per env and episode it
runs a fresh :class:`~miles_ros.perception.Perception` that believes the camera stands
where the scene file says (``camera.believed_pose``, its calibration), while the frames
are rendered from where the simulated camera really is (``camera.mounted_pose`` drawn
from ``default_rng(camera_seed)``, as the sim node draws it):

- every control period it gets the arm's measured joints and finger width (``on_arm``);
- every camera period of sim time it renders an RGB-D frame of the world, applies the
  noise model (:func:`sims.camera.add_noise`), drops it with the model's
  ``drop_probability``, and hands it over ``latency_s`` of sim time after its exposure,
  stamped with the exposure (``on_frame``). Frames are exposed and delivered on control
  period boundaries (the env steps a whole period at a time): at the first boundary at
  or after the exposure time, and at the first at or after exposure + latency;
- at an episode's start it measures one frame of the resting scene before the policy's
  first action: the pose skill_node holds when the request arrives (it refuses a request
  without one); that frame is never dropped;
- with ``trace=True`` it keeps one record per control period (:meth:`PerceivedObservation.
  record`): the true and the published pose, the pose's state, age and std, the TCP and
  the fingers, to tell which state carries the error and when (``miles eval --perception
  --trace FILE``);
- the observation takes the payload's latest pose, what skill_node would have: push and
  pick_place, the cube's position and yaw; stacking episodes, the goal on top of the
  perceived target cube; reach, the goal relative to the perceived goal cube (a
  visual-only cube on the table under the goal, ``goal_cube``: the goal moves with the
  perceived cube's error, as skill_node's reach to a named cube hovers above the
  perceived pose).

Reward and success stay on the true state: the score is the honest one.

The detector knows the env world's own colours (:func:`camera_scene`): its task cube,
target cube and table, under the names :data:`CUBE` and :data:`TARGET_CUBE`; the goal
marker's colour is not among them, so its pixels belong to no cube. The detector's scene
is built from the world rather than the world given the scene file's colours: the env's
task cube is the task's one cube, placed per episode, not one of the scene's named cubes,
and sims/ stays unaware of what perception needs.
"""

from __future__ import annotations

import dataclasses
import time
import weakref
from collections import deque
from collections.abc import Callable

import numpy as np

from miles_ros.perception.images import FrameRefused
from miles_ros.perception.pipeline import Perception
from sims.camera import CAMERA_ARM_MESHES, CameraConfig, add_noise
from sims.scene import Scene, SceneObject
from sims.tasks import pick_place

CUBE = "cube"
"""The env's task cube (reach: its goal cube), as the detector names it."""
TARGET_CUBE = "target_cube"
"""The target cube of pick_place stacking episodes, as the detector names it."""
EXPOSURE_TOLERANCE_S = 1e-9
"""Sim-time comparisons of exposure and delivery times against the control clock."""


def camera_scene(scene: Scene, spec) -> Scene:
    """The scene the detector knows for an env world built from ``spec`` (a
    :class:`~sims.backends.pybullet.spec.WorldSpec`): the world's task cube (and target
    cube, where it holds one) in their colours, its table colour and cube size, no pads
    (the world has none); the arms and camera of ``scene``. Built from what the world
    draws, so the detector looks for exactly the bodies that are there."""
    objects = {CUBE: SceneObject(CUBE, (0.0, 0.0, spec.cube_size / 2), spec.cube_color)}
    if spec.target_cube:
        objects[TARGET_CUBE] = SceneObject(
            TARGET_CUBE, (0.0, 0.0, spec.cube_size / 2), spec.target_cube_color
        )
    table = dataclasses.replace(scene.table, color=spec.table_color)
    return dataclasses.replace(
        scene, objects=objects, places={}, table=table, cube_size=spec.cube_size
    )


def camera_of(scene: Scene) -> CameraConfig:
    """The scene's camera; ValueError saying so where the scene has none."""
    if scene.camera is None:
        raise ValueError(
            "the scene has no camera (no camera: section in its scene file): there is "
            "nothing to perceive the cubes with"
        )
    return scene.camera


@dataclasses.dataclass
class _Frame:
    exposure: float
    arrival: float
    rgb: np.ndarray
    depth: np.ndarray


class _EnvCamera:
    """One env's camera clock, frames in flight and perception."""

    def __init__(self, seeds: np.random.SeedSequence):
        self.seeds = seeds
        """Spawns each episode's stream of frame noise and drops (:meth:`PerceivedObservation.
        _start`)."""
        self.rng = np.random.default_rng(seeds)
        self.perception = None
        self.episode = -1
        self.step = 0
        self.clock = 0.0
        self.next_exposure = 0.0
        self.in_flight: deque[_Frame] = deque()


class PerceivedObservation:
    """The env's ``observation_filter``: the cube poses a policy observes from perception
    (see the module docstring)."""

    def __init__(
        self,
        scene: Scene,
        num_envs: int,
        camera_seed: int = 0,
        noise_seed: int = 0,
        rate_hz: float | None = None,
        perception_factory: Callable | None = None,
        trace: bool = False,
    ):
        """``scene``: the env's scene (its camera); ``camera_seed``: the mounted pose's
        draw (the scene file's calibration is camera seed 0's); ``noise_seed``: the
        frames' noise and drops (a stream per env and episode); ``rate_hz``: the camera
        rate (default the scene's); ``perception_factory(scene, believed_pose)``: a
        perception per episode (default :class:`~miles_ros.perception.Perception`; tests
        put a stand-in here); ``trace``: keep a record of every control period in
        :attr:`trace`."""
        self.camera = camera_of(scene)
        self.scene = scene
        self.period = 1.0 / float(rate_hz if rate_hz is not None else self.camera.rate_hz)
        if not self.period > 0:
            raise ValueError(f"camera rate must be > 0 Hz, got {rate_hz!r}")
        self.noise = self.camera.noise
        self.mounted = self.camera.mounted_pose(np.random.default_rng(camera_seed))
        self.believed = self.camera.believed_pose
        self.make_perception = perception_factory or Perception
        self.arm = scene.arms[0].name
        self.num_envs, self.noise_seed, self.tracing = num_envs, noise_seed, trace
        self.served: weakref.ref | None = None
        """The env this camera serves (the last one to call it)."""
        self.fresh()

    def fresh(self) -> None:
        """The camera as before its first period: each env's stream of frame noise from the
        noise seed again, no episode, no frame, no error and no trace counted. Called by
        the first period of each env it serves (:meth:`__call__`): a card that measures its
        gripper first (:func:`policies.evaluation.measured_on_twin`) has its measuring
        episode run on a twin of the env through this same filter, and that episode must
        neither take the scored episodes' noise streams nor enter their trace and counts."""
        streams = np.random.SeedSequence(self.noise_seed).spawn(self.num_envs)
        self.envs = [_EnvCamera(s) for s in streams]
        self.detector_scene: Scene | None = None
        self.stats = {
            "episodes_started": 0,
            "frames_rendered": 0,
            "frames_dropped": 0,
            "frames_delivered": 0,
            "episodes_never_seen": 0,
            "render_s": 0.0,
            "perception_s": 0.0,
        }
        self.errors: list[tuple[str, float]] = []
        """Per control period: the pose's state (seen, held, occluded; "missing") and
        |observed - true| of the perceived position (m)."""
        self.trace: list[dict] | None = [] if self.tracing else None
        """With ``trace``: one :meth:`record` per env and control period, in order."""

    def __call__(self, env, state, ids: np.ndarray, started: bool):
        if self.served is None or self.served() is not env:  # an env's first period
            self.fresh()
            self.served = weakref.ref(env)
        if self.detector_scene is None:
            self.detector_scene = camera_scene(self.scene, env.world_spec)
        cfg = env.cfg
        success = env.task.success(state, cfg) if self.trace is not None else None
        for k, i in enumerate(ids):
            cam = self.envs[int(i)]
            if started:
                self._start(cam, env, int(i))
            else:
                cam.clock += cfg.control_dt
            perception, now = cam.perception, cam.clock
            centre = 0.0 if state.finger_centre is None else float(state.finger_centre[k])
            perception.on_arm(
                self.arm,
                state.joint_pos[k],
                float(state.finger_width[k]),
                now,
                finger_centre=centre,
            )
            if started:  # the resting scene, seen before the request: never dropped
                self._deliver(cam, self._expose(cam, env, int(i), now))
            else:
                self._tick(cam, env, int(i), now)
            objects = perception.payload(now, self.camera.frame_id)["objects"]
            if self.trace is not None:
                self.trace.append(
                    self.record(cam, int(i), state, k, objects, cfg, bool(success[k]))
                )
            self._observe(cfg, state, k, objects, started)
            cam.step += 1
        return state

    def record(
        self, cam: _EnvCamera, index: int, state, k: int, objects: dict, cfg, success: bool
    ) -> dict:
        """One control period of env ``index`` (row ``k`` of ``state``, before the observation
        replaces its poses): the episode (counted per env from 0) and its step, the sim
        time, the TCP and the fingers as perception has them (scene frame; the hand's axes,
        ``hand_axes``: across the fingers, the closing axis, the approach, each a scene
        vector; the width and whether they grip or are closed on nothing), the true goal,
        ``success`` (the task's verdict on this period's state: an episode's last record
        says how it ended), and
        per cube the detector knows: its true position (and the task cube's yaw) and the
        published pose (position, yaw, state, age, std, confidence), or None where there
        is none.

        The target cube's true position is the body's: the env moves a stacking episode's
        goal onto the measured target cube every period, and the target is one cube edge
        below it (a tower episode's goal keeps the third level's height: there the z is
        where the target stands in a standing tower)."""
        arm = cam.perception.arms.get(self.arm)
        cubes = {}
        size = self.detector_scene.cube_size
        if cfg.has_object:
            truth = {CUBE: state.object_pos[k]}
        else:  # reach: the goal cube on the table under the goal
            truth = {CUBE: np.array([*state.goal_pos[k, :2], size / 2])}
        if state.stack is not None and state.stack[k]:  # the goal is on the target cube
            truth[TARGET_CUBE] = state.goal_pos[k] - np.array([0.0, 0.0, size])
        for name in self.detector_scene.objects:
            body = objects.get(name)
            cubes[name] = {
                "true": [float(v) for v in truth[name]] if name in truth else None,
                "true_yaw": float(state.object_yaw[k])
                if name == CUBE and cfg.has_object
                else None,
                "published": None
                if body is None
                else {
                    key: body[key]
                    for key in ("position", "yaw", "state", "age", "std", "confidence")
                },
            }
        return {
            "env": index,
            "episode": cam.episode,
            "step": cam.step,
            "time": cam.clock,
            "success": success,
            "goal": [float(v) for v in state.goal_pos[k]],
            "tcp": None if arm is None else [float(v) for v in arm.tcp],
            "fingers": None if arm is None else [float(v) for v in arm.fingers],
            "hand_axes": None
            if arm is None
            else [[float(v) for v in row] for row in arm.rotation.T],
            "finger_width": float(state.finger_width[k]),
            "gripping": None if arm is None else bool(arm.gripping),
            "closed_empty": None if arm is None else bool(arm.empty),
            "cubes": cubes,
        }

    def _start(self, cam: _EnvCamera, env, index: int) -> None:
        # each episode's frames draw their noise and drops from a stream of its own (the
        # env's n-th episode, the n-th child of the env's seed), not from where the episodes
        # before left one stream: two runs of the same seed, whose code changes how long
        # an episode runs, still see the same camera noise in every episode
        cam.rng = np.random.default_rng(cam.seeds.spawn(1)[0])
        cam.perception = self.make_perception(self.detector_scene, self.believed)
        cam.perception.set_intrinsics(self.camera.intrinsics)
        cam.clock, cam.next_exposure = 0.0, self.period
        cam.episode, cam.step = cam.episode + 1, 0
        cam.in_flight.clear()
        self.stats["episodes_started"] += 1

    def _tick(self, cam: _EnvCamera, env, index: int, now: float) -> None:
        if now >= cam.next_exposure - EXPOSURE_TOLERANCE_S:
            while cam.next_exposure <= now + EXPOSURE_TOLERANCE_S:
                cam.next_exposure += self.period
            if cam.rng.random() < self.noise.drop_probability:
                self.stats["frames_dropped"] += 1
            else:
                cam.in_flight.append(self._expose(cam, env, index, now))
        while cam.in_flight and cam.in_flight[0].arrival <= now + EXPOSURE_TOLERANCE_S:
            self._deliver(cam, cam.in_flight.popleft())

    def _expose(self, cam: _EnvCamera, env, index: int, now: float) -> _Frame:
        start = time.perf_counter()
        rgb, depth = env.render_rgbd(index, self.camera.intrinsics, self.mounted)
        rgb, depth = add_noise(rgb, depth, self.noise, cam.rng)
        self.stats["render_s"] += time.perf_counter() - start
        self.stats["frames_rendered"] += 1
        return _Frame(now, now + self.noise.latency_s, rgb, depth)

    def _deliver(self, cam: _EnvCamera, frame: _Frame) -> None:
        start = time.perf_counter()
        try:
            cam.perception.on_frame(frame.rgb, frame.depth, frame.exposure)
            self.stats["frames_delivered"] += 1
        except FrameRefused:
            pass
        self.stats["perception_s"] += time.perf_counter() - start

    def _observe(self, cfg, state, k: int, objects: dict, started: bool) -> None:
        """Row ``k`` of ``state`` as the policy sees it given the perceived ``objects``."""
        cube = objects.get(CUBE)
        if cube is None:
            # skill_node would refuse the request; here the episode runs on the origin's
            # pose (the policy cannot do its job) and the count says how often
            if started:
                self.stats["episodes_never_seen"] += 1
            seen = np.zeros(3)
        else:
            seen = np.asarray(cube["position"], dtype=np.float64)
        how = cube["state"] if cube is not None else "missing"
        if cfg.has_object:
            self.errors.append((how, float(np.linalg.norm(seen - state.object_pos[k]))))
            state.object_pos[k] = seen
            state.object_yaw[k] = float(cube["yaw"]) if cube is not None else 0.0
            if state.stack is not None and state.stack[k]:
                target = objects.get(TARGET_CUBE)
                if target is not None:
                    position = np.asarray(target["position"], dtype=np.float64)
                    state.goal_pos[k] = pick_place.stack_goal(position[None])[0]
        else:  # reach: the goal stands where it does above the goal cube, as perceived
            true_cube = np.array([*state.goal_pos[k, :2], self.detector_scene.cube_size / 2])
            self.errors.append((how, float(np.linalg.norm(seen - true_cube))))
            state.goal_pos[k] = state.goal_pos[k] + (seen - true_cube)

    def summary(self) -> dict:
        """What the camera did over the run: frame counts, time spent rendering and
        perceiving per episode started (s; the last autoreset starts one more than the run
        counts), and the perceived position's error (m, per control period: the cube's, or
        reach's goal cube's; all, and by the pose's state with its share of the periods)."""
        s = dict(self.stats)
        episodes = max(1, s["episodes_started"])
        errors = np.asarray([e for _, e in self.errors] or [0.0])
        states = np.asarray([how for how, _ in self.errors] or ["missing"])
        by_state = {}
        for how in dict.fromkeys(states.tolist()):
            e = errors[states == how]
            by_state[how] = {
                "share": round(len(e) / len(errors), 3),
                "p50": round(float(np.percentile(e, 50)), 4),
                "p95": round(float(np.percentile(e, 95)), 4),
            }
        return {
            "episodes_started": s["episodes_started"],
            "frames_rendered": s["frames_rendered"],
            "frames_dropped": s["frames_dropped"],
            "frames_delivered": s["frames_delivered"],
            "episodes_never_seen": s["episodes_never_seen"],
            "render_s_per_episode": round(s["render_s"] / episodes, 3),
            "perception_s_per_episode": round(s["perception_s"] / episodes, 3),
            "position_error_m_p50": round(float(np.percentile(errors, 50)), 4),
            "position_error_m_p95": round(float(np.percentile(errors, 95)), 4),
            "position_error_m_by_state": by_state,
        }


def perceived_options(task: str, scene: Scene, num_envs: int, *args, **kwargs) -> dict:
    """``sims.make_env(task, "pybullet", ...)`` keyword arguments that give the skill the
    perceived poses (:class:`PerceivedObservation` under ``observation_filter``; reach: its
    goal cube), the arms drawn as the live camera draws them
    (:data:`sims.camera.CAMERA_ARM_MESHES`); ValueError where the scene has no camera.
    ``args``, ``kwargs``: the observer's arguments after ``scene, num_envs`` (camera and
    noise seeds, rate, perception factory, ``trace``: :class:`PerceivedObservation`)."""
    camera_of(scene)
    from sims import get_task

    cfg = get_task(task).CONFIG
    observer = PerceivedObservation(scene, num_envs, *args, **kwargs)
    options = {"scene": scene, "observation_filter": observer, "arm_meshes": CAMERA_ARM_MESHES}
    if not cfg.has_object:
        options["goal_cube"] = True
    return options


def write_trace(records: list[dict], path) -> int:
    """``records`` (:attr:`PerceivedObservation.trace`) as JSON lines, one per control
    period, into ``path``; the number written."""
    import json
    from pathlib import Path

    with Path(path).open("w") as out:
        for rec in records:
            out.write(json.dumps(rec) + "\n")
    return len(records)
