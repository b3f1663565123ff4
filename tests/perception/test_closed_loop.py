"""A skill on perceived poses (no ROS): the pose the perception core reports, not the
simulator's, reaches the policy; frames arrive only after their latency; the goal marker
is never taken for a cube; `miles eval --perception` refuses what it cannot run."""

import dataclasses
import json

import numpy as np
import pytest

from miles_ros import cli
from miles_ros.perception import CubeDetector, Perception, PerceptionConfig
from miles_ros.perception.closed_loop import (
    CUBE,
    PerceivedObservation,
    camera_scene,
    perceived_options,
)
from miles_ros.runtime.supervised import supervised_env_kwargs
from policies.runtime import SkillPolicy
from sims.backends.pybullet.env import PyBulletEnv
from sims.camera import project
from sims.scene import load_scene
from sims.tasks import push, reach

OFFSET = np.array([0.05, 0.0, 0.0])
"""What the stand-in perception adds to every pose it reports (m)."""


class OffsetPerception(Perception):
    """The perception core, every reported position moved by :data:`OFFSET`."""

    def payload(self, now, frame_id):
        out = super().payload(now, frame_id)
        for body in out["objects"].values():
            body["position"] = list(np.asarray(body["position"]) + OFFSET)
        return out


class RecordingPerception(Perception):
    """The perception core, noting when (arm clock) each frame of which exposure arrived."""

    log: list = []

    def on_arm(self, arm, joint_positions, finger_width, stamp, finger_centre=0.0):
        self.now = stamp
        super().on_arm(arm, joint_positions, finger_width, stamp, finger_centre)

    def on_frame(self, rgb, depth_m, stamp):
        RecordingPerception.log.append((self.now, stamp))
        return super().on_frame(rgb, depth_m, stamp)


def run_reach(env_options: dict | None, periods: int = 100):
    """One supervised reach episode (time scale 2) from seed 3; the TCP and the true goal
    at its end."""
    kwargs = supervised_env_kwargs("reach", 1, 2.0)
    kwargs.update(env_options or {})
    env = PyBulletEnv(reach, 1, autoreset=False, **kwargs)
    policy = SkillPolicy("reach")
    try:
        obs, _ = env.reset(seed=3)
        for _ in range(periods):
            obs = env.step(policy.act(obs))[0]
        state = env.get_state()
    finally:
        env.close()
    return state.tcp_pos[0], state.goal_pos[0]


def test_the_policy_goes_where_perception_says_the_cube_is():
    scene = load_scene()
    exact, goal = run_reach(None)
    assert np.linalg.norm(exact - goal) < reach.CONFIG.success_threshold
    perceived = perceived_options("reach", scene, 1, rate_hz=5.0)
    seen, _ = run_reach(perceived)
    assert perceived["observation_filter"].summary()["frames_delivered"] >= 5
    # the real perception, calibrated camera: the arm ends where exact poses put it ...
    assert np.linalg.norm(seen - exact) < 0.01
    shifted = perceived_options(
        "reach", scene, 1, rate_hz=5.0, perception_factory=OffsetPerception
    )
    off, _ = run_reach(shifted)
    # ... a stand-in reporting the cube 5 cm further along x: the arm follows it there
    assert off[0] - exact[0] > 0.03


def test_frames_arrive_only_after_their_latency_and_some_are_dropped():
    scene = load_scene()
    noise = dataclasses.replace(scene.camera.noise, latency_s=0.1, drop_probability=0.0)
    scene = dataclasses.replace(scene, camera=dataclasses.replace(scene.camera, noise=noise))
    RecordingPerception.log = []
    options = perceived_options(
        "reach", scene, 1, rate_hz=5.0, perception_factory=RecordingPerception
    )
    run_reach(options, periods=30)  # 1.2 s of sim time
    log = RecordingPerception.log
    assert log[0] == (0.0, 0.0)  # the resting scene, before the policy's first action
    control_dt = reach.CONFIG.control_dt
    exposures = [stamp for _, stamp in log[1:]]
    assert exposures == pytest.approx([0.2 * k for k in range(1, len(log))], abs=control_dt)
    for arrival, stamp in log[1:]:
        assert stamp + 0.1 - 1e-9 <= arrival < stamp + 0.1 + control_dt
    assert len(log) == 1 + 5  # exposed at 0.2 ... 1.0 s, all arrived by 1.2 s

    noise = dataclasses.replace(noise, drop_probability=1.0)
    scene = dataclasses.replace(scene, camera=dataclasses.replace(scene.camera, noise=noise))
    RecordingPerception.log = []
    options = perceived_options(
        "reach", scene, 1, rate_hz=5.0, perception_factory=RecordingPerception
    )
    run_reach(options, periods=30)
    assert len(RecordingPerception.log) == 1  # every frame dropped but the start's
    assert options["observation_filter"].summary()["frames_dropped"] == 6


class IdlePerception:
    """A stand-in perception that does nothing (the noise streams are under test)."""

    def __init__(self, scene, camera_pose):
        pass

    def set_intrinsics(self, intrinsics):
        pass


def test_an_episodes_camera_noise_does_not_depend_on_the_episodes_before():
    """Two runs of one seed whose first episodes draw different numbers of frames (a code
    change made one run longer) draw the same noise in every later episode: a paired
    comparison pairs the camera as well as the episode. Episodes and envs differ."""

    def draws(before: int) -> list[np.ndarray]:
        obs = PerceivedObservation(
            load_scene(), 2, noise_seed=7, perception_factory=IdlePerception
        )
        out = []
        for episode in range(3):
            for env in (0, 1):
                cam = obs.envs[env]
                obs._start(cam, None, env)
                out.append(cam.rng.random(4))
                cam.rng.random(before * (episode + 1))  # the episode's frames
        return out

    short, long = draws(5), draws(300)
    assert all(np.array_equal(a, b) for a, b in zip(short, long, strict=True))
    assert len({tuple(a) for a in short}) == len(short)  # every (episode, env) its own


def test_the_goal_marker_is_not_taken_for_a_cube():
    scene = load_scene()
    env = PyBulletEnv(push, 1, num_workers=0, autoreset=False, scene=scene)
    try:
        env.reset(seed=5)
        cube = env.get_state().object_pos[0]
        goal = cube + np.array([0.0, 0.12 if cube[1] < 0 else -0.12, 0.0])
        env.set_goal(goal)  # the translucent marker on the table, in full view
        camera = scene.camera
        rgb, depth = env.render_rgbd(0, camera.intrinsics, camera.pose)
        detector = CubeDetector(camera_scene(scene, env.world_spec), camera.pose)
    finally:
        env.close()
    found, _ = detector.detect(rgb, depth, camera.intrinsics)
    assert set(found) == {CUBE}
    assert np.linalg.norm(found[CUBE].position[:2] - cube[:2]) < 0.005
    uv, _ = project(goal[None], camera.intrinsics, camera.pose)
    u, v = (int(round(c)) for c in uv[0])
    patch = (slice(v - 3, v + 4), slice(u - 3, u + 4))
    table = np.asarray(scene.table.color[:3]) * 255
    assert np.abs(rgb[patch].mean(axis=(0, 1)) - table).max() > 40  # the marker is drawn
    assert not np.any(detector.labels(rgb)[patch] == detector.cube_names.index(CUBE))


def test_miles_eval_perception_reports_the_camera(capsys):
    args = ["eval", "reach", "--supervised", "--perception", "--episodes", "2"]
    code = cli.main([*args, "--time-scale", "1", "--camera-rate", "2", "--json"])
    out = capsys.readouterr().out
    assert code == 0, out
    result = json.loads(out.strip().splitlines()[-1])
    assert result["supervised"] is True and result["camera_seed"] == 0
    assert result["episodes"] == 2 and 0.0 <= result["success"] <= 1.0
    camera = result["perception"]
    assert camera["frames_delivered"] >= 2 and camera["episodes_never_seen"] == 0
    shares = camera["position_error_m_by_state"]
    assert set(shares) <= {"seen", "held", "occluded", "missing"}
    assert sum(v["share"] for v in shares.values()) == pytest.approx(1.0, abs=0.01)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--perception"], "--perception needs --supervised"),
        (["--camera-rate", "2"], "--camera-rate needs --perception"),
        (["--camera-seed", "1"], "--camera-seed needs --perception"),
        (["--trace", "t.jsonl"], "--trace needs --perception"),
        (["--supervised", "--perception", "--sweep"], "--perception does not go with --sweep"),
        (["--supervised", "--perception", "--camera-rate", "0"], "must be > 0"),
        (["--supervised", "--perception", "--video", "x.gif"], "does not go with"),
    ],
)
def test_miles_eval_perception_refuses_bad_options(args, message, capsys):
    assert cli.main(["eval", "reach", "--episodes", "1", *args]) == 2
    assert message in capsys.readouterr().err


def test_a_perceived_evaluation_records_its_own_evidence_entry(tmp_path, capsys):
    """``--supervised --perception --record`` (>= 200 episodes) fills the card's
    ``evidence.perceived`` with the camera's summary, never ``evidence.supervised``."""
    import shutil
    from types import SimpleNamespace

    from miles_ros.commands.evaluate import _record
    from policies.cards import SHIPPED_LIBRARY, load_card
    from policies.library import active_skill_dir

    args = ["eval", "reach", "--supervised", "--perception", "--record", "--episodes", "20"]
    assert cli.main(args) == 2  # refused for the episode count, not for --perception
    assert "--record needs --episodes >= 200" in capsys.readouterr().err
    skill = tmp_path / "reach"
    shutil.copytree(active_skill_dir(SHIPPED_LIBRARY / "reach"), skill)
    before = load_card(skill).data["evidence"]
    summary = {"frames_delivered": 4000, "episodes_never_seen": 0}
    camera = SimpleNamespace(summary=lambda: summary)
    result = SimpleNamespace(
        backend="pybullet",
        episodes=200,
        success=0.99,
        ci95=(0.96, 1.0),
        successes=198,
        mean_return=-5.0,
        mean_length=21.0,
        grasp=None,
    )
    flags = {"backend": "pybullet", "supervised": True, "perception": True, "variant": None}
    evaluation = SimpleNamespace(skill=str(skill), seed=1000, num_envs=1, **flags)
    _record(evaluation, "reach", result, {"perception": camera, "camera_seed": 0})
    evidence = load_card(skill).data["evidence"]
    assert evidence["perceived"]["perception"] == summary
    assert evidence["perceived"]["successes"] == 198
    assert evidence["supervised"] == before["supervised"]


def test_a_scene_without_a_camera_is_refused(tmp_path, capsys):
    from sims.scene import default_scene_path

    text = default_scene_path().read_text()
    blind = tmp_path / "blind.yaml"
    blind.write_text(text[: text.index("\ncamera:")] + "\n")
    assert load_scene(blind).camera is None
    args = ["eval", "reach", "--supervised", "--perception", "--scene", str(blind)]
    assert cli.main([*args, "--episodes", "1"]) == 2
    assert "the scene has no camera" in capsys.readouterr().err


def test_a_trace_records_each_period_the_true_and_the_published_pose(tmp_path):
    """``trace=True``: one record per control period, in step order, whose true and
    published positions give the error the summary counts, with the pose's state, age
    and std, the arm's TCP, the true goal and the period's success; written as JSON
    lines."""
    from miles_ros.perception.closed_loop import write_trace

    scene = load_scene()
    cube_size = scene.cube_size
    options = perceived_options("reach", scene, 1, rate_hz=5.0, trace=True)
    observer = options["observation_filter"]
    run_reach(options, periods=20)
    trace = observer.trace
    assert len(trace) == len(observer.errors) == 21  # the reset's period and 20 steps
    successes = []
    assert [r["step"] for r in trace] == list(range(21))
    assert {r["episode"] for r in trace} == {0} and {r["env"] for r in trace} == {0}
    for rec, (how, error) in zip(trace, observer.errors, strict=True):
        cube = rec["cubes"][CUBE]
        published = cube["published"]
        assert published["state"] == how
        assert published["age"] >= 0.0 and published["std"] > 0.0
        gap = np.asarray(published["position"]) - np.asarray(cube["true"])
        assert np.linalg.norm(gap) == pytest.approx(error)
        assert len(rec["tcp"]) == 3
        axes = np.asarray(rec["hand_axes"])  # rows: across, closing, approach
        assert axes @ axes.T == pytest.approx(np.eye(3), abs=1e-9)
        assert axes[2, 2] < -0.9  # reach's hand points down
        # reach's goal cube stands on the table under the goal; success: the TCP at it
        assert rec["goal"][:2] == cube["true"][:2]
        reached = np.linalg.norm(np.asarray(rec["tcp"]) - rec["goal"])
        successes.append((rec["success"], reached))
        closed = rec["finger_width"] < cube_size - PerceptionConfig().grip_margin_m
        assert rec["closed_empty"] is closed
    threshold = reach.CONFIG.success_threshold
    assert [ok for ok, _ in successes] == [bool(d < threshold) for _, d in successes]
    assert not successes[0][0] and successes[-1][0]  # it reaches the goal in 20 periods
    assert trace[0]["time"] == 0.0 and trace[-1]["time"] == pytest.approx(
        20 * reach.CONFIG.control_dt
    )
    assert np.linalg.norm(np.asarray(trace[-1]["tcp"]) - trace[0]["tcp"]) > 0.01  # it moved
    path = tmp_path / "trace.jsonl"
    assert write_trace(trace, path) == 21
    lines = path.read_text().splitlines()
    assert json.loads(lines[5]) == json.loads(json.dumps(trace[5]))


def test_a_twin_run_first_leaves_nothing_in_the_scored_envs_trace():
    """A card that measures its gripper runs the measuring episode on a twin of the env
    through the same observer (``policies.evaluation.measured_on_twin``): the scored env's
    first period starts the camera afresh, so its trace, errors and counts, and the noise
    its frames draw, are those of an observer that never saw the twin."""
    scene = load_scene()
    alone = perceived_options("reach", scene, 1, rate_hz=5.0, trace=True)
    run_reach(alone, periods=20)
    shared = perceived_options("reach", scene, 1, rate_hz=5.0, trace=True)
    run_reach(shared, periods=7)  # the twin's episode, on an env of its own
    assert len(shared["observation_filter"].trace) == 8
    run_reach(shared, periods=20)
    first, second = alone["observation_filter"], shared["observation_filter"]
    assert len(second.trace) == 21 and {r["episode"] for r in second.trace} == {0}
    assert json.dumps(second.trace) == json.dumps(first.trace)
    assert second.errors == first.errors
    timing = {"render_s", "perception_s"}
    assert {k: v for k, v in second.stats.items() if k not in timing} == {
        k: v for k, v in first.stats.items() if k not in timing
    }
