"""The scripted turn expert (policies.experts.turn): it turns cubes to their target yaw in
place on the numba backend with the arm's command-path model, it is a pure function of the
observation, and its pieces do what they say (the face it pushes, the side of the face
that turns the cube the right way, the way around the cube)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policies.evaluation import run_episodes
from policies.experts import expert_settings, get_expert, get_labeller
from policies.experts import turn as expert
from sims.robots import panda
from sims.tasks import turn as task
from tests.policies.expert_envs import assert_memoryless, command_path_env

CFG = task.CONFIG
S = task.LAYOUT.slices
Y_AXIS = np.array([[0.0, 1.0]])


def _model_env(num_envs: int):
    """The numba env of config/train/turn.yaml's first stage: the command-path model, with
    cube edges 3.5-4.5 cm and finger friction x0.7-1.3."""
    return command_path_env(
        "turn", num_envs, cube_size=[0.035, 0.045], finger_friction_scale=[0.7, 1.3]
    )


def test_registry_returns_the_turn_expert():
    assert get_expert("turn") is expert.act


def test_its_labeller_marks_the_states_going_around_the_cube_low_and_close():
    """Low within FOCUS_RADIUS of the cube beside a face it does not push."""
    assert get_labeller("turn") is expert.focus
    env, task_cfg = _model_env(16)
    obs, _ = env.reset(seed=3)
    marked = []
    for _ in range(60):
        actions, focus = expert.focus(obs, task_cfg)
        np.testing.assert_array_equal(actions, expert.act(obs, task_cfg))
        d = expert.decide(obs, task_cfg)
        tcp, cube = obs[:, S["tcp_pos"]], obs[:, S["object_pos"]]
        near = np.linalg.norm(tcp[:, :2] - cube[:, :2], axis=1) <= expert.FOCUS_RADIUS
        want = near & (tcp[:, 2] <= expert.PUSH_Z_MAX) & ~d.at_face & ~d.pushing
        np.testing.assert_array_equal(focus, want)
        marked.append(focus)
        obs, *_ = env.step(actions.astype(np.float32))
    share = np.mean(marked)
    assert 0.0 < share < 0.5, share  # some of the approach, never most of an episode


def test_experts_without_a_focus_mark_no_state():
    env, task_cfg = command_path_env("reach", 4)
    obs, _ = env.reset(seed=0)
    actions, focus = get_labeller("reach")(obs, task_cfg)
    np.testing.assert_array_equal(actions, get_expert("reach")(obs, task_cfg))
    assert focus.shape == (4,) and not focus.any()


def test_turns_cubes_in_place_on_the_command_path_model():
    env, task_cfg = _model_env(64)
    res = run_episodes(env, lambda o: expert.act(o, task_cfg), episodes=64, seed=11)
    # Measured 99.1% on 1000 episodes (seed 1000); a bound well under it.
    assert res.success >= 0.85, res


def test_memoryless_same_observation_same_action():
    env, task_cfg = _model_env(16)
    assert_memoryless(expert.act, env, task_cfg, periods=60)  # approach and strokes


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(-1.0, 1.0), min_size=task.LAYOUT.dim, max_size=task.LAYOUT.dim))
def test_actions_are_finite_and_inside_the_unit_ball(values):
    a = expert.act(np.asarray(values, dtype=np.float32)[None, :], CFG)
    assert a.shape == (1, 3) and np.all(np.isfinite(a))
    assert np.linalg.norm(a) <= 1.0 + 1e-9


@settings(max_examples=100, deadline=None)
@given(yaw=st.floats(-math.pi / 4, math.pi / 4), sign=st.sampled_from([-1.0, 1.0]))
def test_the_pads_that_meet_a_face_push_it_on_the_side_that_turns_the_cube(yaw, sign):
    normals, tangents, contact, lateral = expert.face_frames(
        np.array([yaw]), Y_AXIS, np.array([sign])
    )
    pads = expert.pad_offsets(Y_AXIS)[0]
    for k in range(4):
        n, t = normals[0, k], tangents[0, k]
        tcp = contact[0, k] * n + lateral[0, k] * t  # touching the face, at its place
        gap = (tcp + pads) @ n - expert.PAD_RADIUS - expert.HALF_EDGE
        assert gap.min() == pytest.approx(0.0, abs=1e-12)  # the nearest pad just touches
        touching = (tcp + pads)[gap < 1e-3]
        # z of r x F for a push along -n, summed over the pads that meet the face
        torque = np.sum(touching[:, 0] * -n[1] - touching[:, 1] * -n[0])
        assert np.sign(torque) == sign, (k, touching, torque)


@pytest.mark.parametrize("short", [0.004, -0.002])
def test_gap_is_how_far_the_pads_are_short_of_the_chosen_face(short):
    """``Decision.gap``: the TCP ``short`` (m) before the point where the pads touch face 1
    (beyond it: pressed in, 0)."""
    env, task_cfg = _model_env(1)
    obs, _ = env.reset(seed=3)
    obs = np.array(obs, dtype=np.float64)
    cube = obs[0, S["object_pos"]]
    obs[0, S["goal_pos"]] = cube  # no slide to bring back: the face the TCP is at
    yaw = np.arctan2(*obs[0, S["object_yaw_sincos"]]) / 4.0
    sign = 1.0 if np.arctan2(*obs[0, S["yaw_error_sincos"]]) >= 0.0 else -1.0
    axis = expert.finger_axes(obs[:, S["joint_pos"]])
    n, t, contact, lateral = expert.face_frames(np.array([yaw]), axis, np.array([sign]))
    xy = cube[:2] + (contact[0, 1] + short) * n[0, 1] + lateral[0, 1] * t[0, 1]
    obs[0, S["tcp_pos"]] = [xy[0], xy[1], expert.PUSH_Z]
    d = expert.decide(obs, task_cfg)
    assert d.face[0] == 1 and d.pushing[0]
    assert d.gap[0] == pytest.approx(max(short, 0.0), abs=1e-9)


def test_it_stays_at_its_face_until_the_cube_has_slid_away():
    frames = expert.face_frames(np.array([0.0]), Y_AXIS, np.array([1.0]))
    normals, tangents, contact, lateral = frames
    at_face_0 = (contact[0, 0] + expert.STANDOFF) * normals[0, 0] + lateral[0, 0] * tangents[0, 0]
    rel = at_face_0[None, :]
    # a push on face 0 (normal +x) slides the cube towards -x
    slid = np.array([[-0.4 * expert.SWITCH, 0.0]])
    assert expert.choose_face(rel, slid, frames)[0] == 0
    slid_far = np.array([[-0.6 * expert.SWITCH, 0.0]])
    assert expert.choose_face(rel, slid_far, frames)[0] == 2  # the opposite face


def test_around_the_cube_not_through_it():
    cube = np.array([[0.5, 0.0]])
    tcp = np.array([[0.56, 0.0]])
    target = np.array([[0.44, 0.0]])  # the other side
    way = expert.orbit_waypoint(tcp, cube, target, np.array([1.0]))
    # 6 cm out, inside the orbit: it aims as far outside the orbit, back out to it
    inside = expert.ORBIT_RADIUS - 0.06
    assert np.linalg.norm(way - cube) == pytest.approx(expert.ORBIT_RADIUS + inside)
    assert way[0, 1] > 0.0  # counter-clockwise, the way the cube is to turn
    on_orbit = cube + [[expert.ORBIT_RADIUS, 0.0]]
    way_on = expert.orbit_waypoint(on_orbit, cube, target, np.array([1.0]))
    assert np.linalg.norm(way_on - cube) == pytest.approx(expert.ORBIT_RADIUS)
    way = expert.orbit_waypoint(tcp, cube, target, np.array([-1.0]))
    assert way[0, 1] < 0.0
    clear = np.array([[0.56, 0.08]])
    np.testing.assert_array_equal(expert.orbit_waypoint(tcp, cube, clear, np.array([1.0])), clear)


def test_orbit_margin_widens_the_way_around():
    """``orbit_margin`` (:data:`expert.SETTINGS`) moves the orbit and the straight path's
    clearance out by itself; a TCP inside ``ORBIT_RADIUS`` aims as far beyond the wider
    orbit as it is inside."""
    cube, target, ccw = np.array([[0.5, 0.0]]), np.array([[0.44, 0.0]]), np.array([1.0])
    margin = 0.01
    tcp = np.array([[0.56, 0.0]])  # 6 cm out: 5 mm inside ORBIT_RADIUS
    way = expert.orbit_waypoint(tcp, cube, target, ccw, margin)
    inside = expert.ORBIT_RADIUS - 0.06
    assert np.linalg.norm(way - cube) == pytest.approx(expert.ORBIT_RADIUS + margin + inside)
    on_orbit = cube + [[expert.ORBIT_RADIUS + margin, 0.0]]
    way_on = expert.orbit_waypoint(on_orbit, cube, target, ccw, margin)
    assert np.linalg.norm(way_on - cube) == pytest.approx(expert.ORBIT_RADIUS + margin)
    # a chord 7 cm from the cube's centre clears CLEAR_PATH (6 cm), not CLEAR_PATH + 1.5 cm
    start, end = np.array([[0.57, -0.04]]), np.array([[0.57, 0.04]])
    np.testing.assert_array_equal(expert.orbit_waypoint(start, cube, end, ccw), end)
    wide = expert.orbit_waypoint(start, cube, end, ccw, 0.015)
    assert not np.allclose(wide, end)
    assert np.linalg.norm(wide - cube) == pytest.approx(expert.ORBIT_RADIUS + 0.015)


def test_expert_settings_bind_to_the_expert_and_its_labeller():
    env, task_cfg = _model_env(8)
    obs, _ = env.reset(seed=5)
    for _ in range(30):  # into the approach, some states going around
        obs, *_ = env.step(expert.act(obs, task_cfg).astype(np.float32))
    wide = {"orbit_margin": 0.02}
    np.testing.assert_array_equal(
        get_expert("turn", wide)(obs, task_cfg), expert.act(obs, task_cfg, orbit_margin=0.02)
    )
    actions, focus = get_labeller("turn", wide)(obs, task_cfg)
    want_actions, want_focus = expert.focus(obs, task_cfg, orbit_margin=0.02)
    np.testing.assert_array_equal(actions, want_actions)
    np.testing.assert_array_equal(focus, want_focus)
    assert get_expert("turn", {}) is expert.act  # no settings: the defaults, the function
    assert expert_settings("turn", {"orbit_margin": "0.01"}) == {"orbit_margin": 0.01}
    with pytest.raises(ValueError, match="no setting 'orbit_radius'.*orbit_margin"):
        get_expert("turn", {"orbit_radius": 0.075})
    with pytest.raises(ValueError, match="a number"):
        get_labeller("turn", {"orbit_margin": "wide"})
    with pytest.raises(ValueError, match="its settings: none"):
        get_expert("reach", {"orbit_margin": 0.01})


def test_finger_axis_at_home_is_the_base_y_axis():
    axis = expert.finger_axes(panda.home_joint_positions[None, :])
    assert abs(axis[0, 1]) == pytest.approx(1.0, abs=1e-9)


def test_wrong_observation_size_is_refused():
    with pytest.raises(ValueError, match="33"):
        expert.act(np.zeros((2, 31)), CFG)
