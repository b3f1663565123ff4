"""The arm's command-path model (sims/robots/actuator.py, sims/kernels/actuator.py).

Held to the real thing: the numba model and the same model in PyBullet on the same
command streams, and the numba model against the real ``SafetySupervisor`` in front of
PyBullet's drives (as ``miles eval --supervised`` runs it); the command latency shifts a
response by whole periods; the shaped commands never exceed the limits (the supervisor's
own checker, over random streams); bad configurations fail before any work.
"""

from __future__ import annotations

import dataclasses
import textwrap

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from miles_ros.runtime.supervised import SupervisorFilter
from miles_ros.safety.checker import check_commands
from miles_ros.safety.config import SafetyConfig
from miles_ros.safety.limits import JointLimits
from sims import make_env
from sims.backends.pybullet.env import PyBulletEnv
from sims.backends.pybullet.rows import unpack_state_rows
from sims.backends.pybullet.spec import RESET_DIM, RESET_GOAL, RESET_JOINT_POS
from sims.kernels import actuator as ka
from sims.robots import panda
from sims.robots.actuator import (
    ActuatorModel,
    default_safety_params_path,
    read_safety_params,
    resolve_actuator,
)
from sims.tasks import reach
from sims.tasks.base import DomainRandomization
from tests.cudasim import run_script

HOME = panda.home_joint_positions.copy()
LONG = dataclasses.replace(reach.CONFIG, episode_steps=1000)
"""Reach in joint mode with episodes longer than any stream here (no autoreset)."""
STREAM_RNG = np.random.default_rng(0)
STREAMS = {
    "constant then stop": [np.full(7, 0.8)] * 15 + [np.zeros(7)] * 10,
    "reversals at full speed": [np.full(7, 1.0 if (t // 5) % 2 == 0 else -1.0) for t in range(30)],
    "random": list(STREAM_RNG.uniform(-1.0, 1.0, (30, 7))),
    "smooth": [np.sin(0.3 * t + np.arange(7)) for t in range(40)],
}
"""Joint-mode action streams (the targets are measured positions plus the actions' steps)."""
PYBULLET_TOLERANCE = 2e-3
"""rad: the numba model against the same model in PyBullet (lag against PyBullet's drives)."""
SUPERVISOR_TOLERANCE = 0.05
"""rad: the numba model against the real supervisor + PyBullet. Measured 0.003-0.035 rad
over these streams; the rest is the supervisor's Cartesian checks (keep-out and workspace
braking), which the model leaves out."""


def rollout(env, actions) -> np.ndarray:
    """Joint positions [T, 7] of env 0 after each action [7] (every env gets it)."""
    out = []
    for a in actions:
        env.step(np.tile(a, (env.num_envs, 1)))
        out.append(env.get_state().joint_pos[0].copy())
    return np.array(out)


def start_pybullet(env, q) -> None:
    env.reset(seed=0)
    row = np.zeros(RESET_DIM)
    row[RESET_JOINT_POS] = q
    row[RESET_GOAL] = (0.5, 0.0, 0.3)
    ids = np.array([0])
    unpack_state_rows(env._worlds.reset(ids, row[None]), ids, False, env._state)
    if env.motor_filters is not None:
        env.motor_filters[0].reset(env._worlds.group.worlds[0].read_state())
    env._reset_commands(ids)


@pytest.fixture(scope="module")
def envs():
    nb = make_env("reach", "numba", 1, config=LONG, actuator="panda")
    pb = PyBulletEnv(reach, 1, LONG, num_workers=0, autoreset=False, actuator="panda")
    # The supervisor as skill_node + safety_node run it, except: targets stamped one
    # period ahead (approached, not extrapolated) and no TCP speed cap (the model has no
    # Cartesian limits).
    safety = SafetyConfig(tcp_speed_limit=100.0)
    lead = LONG.control_dt
    supervised = PyBulletEnv(
        reach,
        1,
        LONG,
        autoreset=False,
        motor_filters=[SupervisorFilter(pb.physics_dt, safety, lead, fingers=False)],
    )
    yield nb, pb, supervised
    pb.close()
    supervised.close()


# --- numbers -----------------------------------------------------------------------------
def test_the_panda_model_takes_its_numbers_from_the_robot_and_the_safety_file():
    model = ActuatorModel.panda()
    safety = SafetyConfig()
    params = read_safety_params()
    assert model.rate_hz == params["rate_hz"] == safety.rate_hz
    assert model.position_margin == params["position_margin"] == safety.position_margin
    assert model.limit_mode == params["limit_mode"] == safety.limit_mode
    limits = safety.limits
    np.testing.assert_array_equal(model.velocity_limits, limits.velocity)
    np.testing.assert_array_equal(model.acceleration_limits, limits.acceleration)
    np.testing.assert_array_equal(model.jerk_limits, limits.jerk)
    lo, hi = model.position_band()
    np.testing.assert_array_equal(lo, limits.lower)
    np.testing.assert_array_equal(hi, limits.upper)
    assert model.substeps(reach.CONFIG.control_dt) == 10


def test_a_deployment_that_scales_its_limits_down_trains_on_them(tmp_path):
    params = read_safety_params()
    params.update(velocity_scale=0.5, acceleration_scale=0.25, jerk_scale=0.5, rate_hz=500.0)
    path = tmp_path / "safety.yaml"
    path.write_text(yaml.safe_dump({"safety_node": {"ros__parameters": params}}))
    model = ActuatorModel.panda(path)
    np.testing.assert_allclose(model.velocity_limits, panda.joint_velocity_limits * 0.5)
    np.testing.assert_allclose(model.acceleration_limits, panda.joint_acceleration_limits / 4)
    np.testing.assert_allclose(model.jerk_limits, panda.joint_jerk_limits * 0.5)
    assert model.substeps(0.04) == 20
    assert default_safety_params_path().is_file()


# --- against PyBullet and the supervisor ---------------------------------------------------
@pytest.mark.parametrize("stream", sorted(STREAMS))
def test_numba_model_tracks_like_pybullet_and_the_supervisor(envs, stream):
    nb, pb, supervised = envs
    actions = STREAMS[stream]
    nb.reset(seed=0)
    nb.set_state(joint_pos=HOME[None])
    start_pybullet(pb, HOME)
    start_pybullet(supervised, HOME)
    q_nb = rollout(nb, actions)
    q_pb = rollout(pb, actions)
    q_sup = rollout(supervised, actions)
    assert np.abs(q_sup[-1] - HOME).max() > 0.1  # the arm did move
    assert np.abs(q_nb - q_pb).max() < PYBULLET_TOLERANCE
    assert np.abs(q_nb - q_sup).max() < SUPERVISOR_TOLERANCE


def test_the_model_is_the_arm_the_old_tracking_was_not(envs):
    """Without the model the numba arm covers 80% of every step at once: on reversals
    at full speed it is far from where the supervised PyBullet arm is."""
    nb, _, supervised = envs
    actions = STREAMS["reversals at full speed"]
    plain = make_env("reach", "numba", 1, config=LONG)
    plain.reset(seed=0)
    plain.set_state(joint_pos=HOME[None])
    start_pybullet(supervised, HOME)
    q_plain = rollout(plain, actions)
    q_sup = rollout(supervised, actions)
    assert np.abs(q_plain - q_sup).max() > 5 * SUPERVISOR_TOLERANCE


# --- latency -------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", ["numba", "pybullet"])
def test_a_latency_of_k_periods_shifts_the_response_by_k_periods(backend):
    k = 3
    rnd = DomainRandomization(initial_joint_noise=0.0)
    cfg = dataclasses.replace(LONG, randomization=rnd)
    n = 24 if backend == "numba" else 8
    options = {"num_workers": 0} if backend == "pybullet" else {}
    model = ActuatorModel.panda(latency_steps=k)
    env = make_env("reach", backend, n, seed=5, config=cfg, actuator=model, **options)
    delays = env.randomization_state()["action_delay"]
    assert set(delays.tolist()) <= set(range(k + 1)) and len(set(delays.tolist())) >= 3
    rng = np.random.default_rng(2)
    actions = rng.uniform(-1.0, 1.0, (12, 7))
    traj = []
    for a in actions:
        env.step(np.tile(a, (n, 1)))
        traj.append(env.get_state().joint_pos.copy())
    traj = np.array(traj)  # [T, N, 7]
    tol = 0.0 if backend == "numba" else 1e-4  # PyBullet's arm sags a little at rest
    base = traj[:, np.flatnonzero(delays == 0)[0]]
    for i in range(n):
        d = int(delays[i])
        np.testing.assert_allclose(traj[:d, i], np.tile(HOME, (d, 1)), rtol=0, atol=tol + 1e-12)
        np.testing.assert_allclose(traj[d:, i], base[: len(actions) - d], rtol=0, atol=tol)
    env.close()


def test_latency_draws_change_every_episode():
    model = ActuatorModel.panda(latency_steps=2)
    env = make_env("reach", "numba", 200, seed=0, actuator=model)
    first = env.randomization_state()["action_delay"]
    env.reset()
    second = env.randomization_state()["action_delay"]
    assert set(first.tolist()) == {0, 1, 2}
    assert np.mean(first != second) > 0.4


# --- limits (the supervisor's checker) -------------------------------------------------------
joint_targets = st.lists(
    st.lists(st.floats(-3.5, 3.5), min_size=7, max_size=7), min_size=1, max_size=12
)


@settings(max_examples=60, deadline=None)
@given(
    targets=joint_targets,
    start=st.lists(st.floats(-1.0, 1.0), min_size=7, max_size=7),
    periods=st.integers(1, 12),
    mode=st.sampled_from(["scale", "clamp"]),
    scale=st.sampled_from([1.0, 0.3]),
)
def test_shaped_commands_never_exceed_the_limits(targets, start, periods, mode, scale):
    """Random targets (inside and far outside the band), each held for a random number of
    controller periods: every command respects the position band and the velocity,
    acceleration and jerk limits, checked by the supervisor's own checker."""
    model = ActuatorModel.panda(limit_mode=mode)
    model = dataclasses.replace(
        model,
        velocity_limits=tuple(np.array(model.velocity_limits) * scale),
        acceleration_limits=tuple(np.array(model.acceleration_limits) * scale),
    )
    lo, hi = model.position_band()
    q0 = lo + (np.asarray(start) + 1.0) / 2.0 * (hi - lo)
    command = np.zeros((1, 21))
    command[0, ka.CMD_Q : ka.CMD_Q + 7] = q0
    limits = model.limit_arrays()
    h = 1.0 / model.rate_hz
    out = np.zeros((1, periods, 7))
    positions = []
    for target in targets:
        ka.shape_periods(command, np.array([target]), limits.reshape(-1), h, mode == "scale", out)
        positions.extend(out[0].copy())
    positions = np.array(positions)
    stamps = h * np.arange(1, len(positions) + 1)
    joint_limits = JointLimits(
        position_min=panda.joint_position_min,
        position_max=panda.joint_position_max,
        velocity=limits[ka.LIM_VEL],
        acceleration=limits[ka.LIM_ACC],
        jerk=limits[ka.LIM_JERK],
        margin=model.position_margin,
    )
    found = check_commands(stamps, positions, joint_limits, initial=(q0, 0.0))
    assert (found.position, found.velocity, found.acceleration, found.jerk) == (0, 0, 0, 0), (
        found.worst
    )


def test_a_held_target_is_reached_and_held():
    model = ActuatorModel.panda()
    command = np.zeros((1, 21))
    command[0, :7] = HOME
    target = HOME + np.array([0.3, -0.2, 0.1, 0.2, -0.3, 0.2, 0.1])
    out = np.zeros((1, 250, 7))
    ka.shape_periods(command, target[None], model.limit_arrays().reshape(-1), 0.004, True, out)
    np.testing.assert_allclose(out[0, -1], target, atol=1e-12)
    assert np.abs(out[0, 1] - HOME).max() < 0.01  # it does not jump there


# --- switching it on and off ------------------------------------------------------------------
def test_off_is_bit_identical_to_no_model():
    rng = np.random.default_rng(4)
    actions = rng.uniform(-1, 1, (60, 16, 7))
    runs = []
    for actuator in (None, "none", ActuatorModel(enabled=False)):
        env = make_env("reach", "numba", 16, seed=9, actuator=actuator)
        obs = [env.step(a)[0] for a in actions]
        runs.append(np.array(obs))
    np.testing.assert_array_equal(runs[0], runs[1])
    np.testing.assert_array_equal(runs[0], runs[2])
    on = make_env("reach", "numba", 16, seed=9, actuator="panda")
    assert not np.array_equal(np.array([on.step(a)[0] for a in actions]), runs[0])


# --- bad input ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"actuator": "franka"}, "unknown actuator"),
        ({"actuator": 3}, "a name or an ActuatorModel"),
        ({"actuator": ActuatorModel.panda(latency_steps=50)}, "not shorter than the episode"),
        ({"actuator": ActuatorModel.panda(rate_hz=333.0)}, "whole number"),
        ({"actuator": ActuatorModel.panda(lag_time_constant=-0.01)}, "lag_time_constant"),
        ({"actuator": ActuatorModel.panda(limit_mode="soft")}, "limit_mode"),
        ({"actuator": ActuatorModel.panda(velocity_limits=(1.0,) * 6)}, "velocity_limits"),
        ({"actuator": ActuatorModel.panda(jerk_limits=(0.0,) * 7)}, "jerk_limits"),
        ({"actuator": ActuatorModel.panda(position_margin=2.0)}, "closes a band"),
    ],
)
@pytest.mark.parametrize("backend", ["numba", "pybullet"])
def test_bad_models_fail_before_any_work(backend, kwargs, message):
    options = {"num_workers": 0} if backend == "pybullet" else {}
    with pytest.raises(ValueError, match=message):
        make_env("reach", backend, 1, **kwargs, **options)


@pytest.mark.parametrize("backend", ["numba", "pybullet"])
def test_a_latency_longer_than_the_episode_is_refused(backend):
    options = {"num_workers": 0} if backend == "pybullet" else {}
    short = dataclasses.replace(
        reach.CONFIG, episode_steps=4, randomization=DomainRandomization(action_latency_steps=4)
    )
    with pytest.raises(ValueError, match="not shorter than the episode"):
        make_env("reach", backend, 1, config=short, **options)
    both = dataclasses.replace(
        reach.CONFIG, randomization=DomainRandomization(action_latency_steps=1)
    )
    with pytest.raises(ValueError, match="same delay"):
        make_env("reach", backend, 1, config=both, actuator=ActuatorModel.panda(latency_steps=2))


def test_pybullet_refuses_a_model_and_a_motor_filter_at_once():
    with pytest.raises(ValueError, match="motor_filters"):
        PyBulletEnv(
            reach,
            1,
            actuator="panda",
            motor_filters=[SupervisorFilter(0.002, fingers=False)],
        )
    with pytest.raises(ValueError, match="divide"):
        PyBulletEnv(reach, 1, num_workers=0, actuator="panda", physics_dt=0.008, substeps=5)


def test_a_bad_safety_file_is_named(tmp_path):
    path = tmp_path / "safety.yaml"
    path.write_text("other_node: {}\n")
    with pytest.raises(ValueError, match="safety_node"):
        ActuatorModel.panda(path)
    path.write_text(yaml.safe_dump({"safety_node": {"ros__parameters": {"jerk_scale": 2.0}}}))
    with pytest.raises(ValueError, match="jerk_scale"):
        ActuatorModel.panda(path)
    assert resolve_actuator("none") is None


# --- the CUDA kernel ------------------------------------------------------------------------
SIMULATED_ROLLOUT = textwrap.dedent(
    """
    import warnings
    import numpy as np
    warnings.simplefilter("ignore")
    from numba import config
    assert config.ENABLE_CUDASIM
    from sims import make_env
    from sims.backends.numba_cuda import CudaReachStepper
    from sims.robots.actuator import ActuatorModel
    from tests.cudasim import assert_steps_alike

    cpu = make_env("reach", "numba", 3, seed=4, actuator=ActuatorModel.panda(latency_steps=1))
    gpu = CudaReachStepper.from_env(cpu)
    assert_steps_alike(cpu, gpu, 6, low=-1.2, high=1.2, atol=1e-12)
    print("CUDASIM_OK")
    """
)


def test_the_simulated_cuda_kernel_runs_the_model_like_the_cpu_kernel():
    proc = run_script(SIMULATED_ROLLOUT)
    assert "CUDASIM_OK" in proc.stdout


def test_a_training_config_switches_it_on():
    from policies.ppo.config import TrainConfig, default_train_config
    from policies.ppo.envs import make_env as run_env
    from policies.ppo.envs import training_task_config

    assert default_train_config("reach").env.actuator == "panda"  # reach trains on it
    cfg = default_train_config("push")
    assert cfg.env.actuator == "none"
    assert TrainConfig.from_dict(cfg.to_dict()).env.actuator == "none"
    cfg.env.actuator = "panda"
    cfg.env.action_latency_steps = 2
    env = run_env(cfg, "numba", 4, training_task_config(cfg))
    assert env.actuator == ActuatorModel.panda()
    assert set(env.randomization_state()["action_delay"].tolist()) <= {0, 1, 2}
    cfg.env.actuator = "franka"
    with pytest.raises(ValueError, match="unknown actuator"):
        run_env(cfg, "numba", 4, training_task_config(cfg))


def test_pybullet_workers_give_the_in_process_result():
    runs = []
    for workers in (0, 2):
        env = make_env("push", "pybullet", 3, seed=1, actuator="panda", num_workers=workers)
        rng = np.random.default_rng(0)
        runs.append(np.array([env.step(rng.uniform(-1, 1, (3, 3)))[0] for _ in range(8)]))
        env.close()
    np.testing.assert_array_equal(runs[0], runs[1])
