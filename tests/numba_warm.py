"""Fill the numba kernels' on-disk caches (``cache=True``) before the test workers start:
``python -m tests.numba_warm`` (``make test`` runs it first). The caches are the
content-keyed folder of :mod:`sims.numba_cache` (``$MILES_CACHE_DIR/numba/<key>``): a
clone whose numba sources another checkout compiled only loads them.
``python -m tests.numba_warm --sources`` lists those sources (the Makefile's
prerequisites of the warm-up).

From cold, a task's CPU step kernel compiles in 25-35 CPU s and the safety supervisor's
kernels in ~15 s. Until the first process that compiled a kernel has written its cache,
every other process that needs it compiles it too: both pytest-xdist workers, and each
``miles up``, ``miles train`` or torchrun rank that a test starts. Here each kernel is
compiled once, the jobs spread over the cores. With warm caches each job only loads them
(1-3 s). Beside the jobs, a process of its own compiles the CUDA kernels to PTX and
records it for ``test_kernels_compile_for_a_real_gpu`` (:mod:`tests.ptx_check`: about 31 CPU
s from cold, NVVM most of it; 0.7 when recorded already).

The helpers a kernel inlines (the arm's shaping, FK, the cube's observation and contact)
are compiled once per process, not cached on disk: a task compiled after another in the
same process costs about half as much (cold, one process: push 26.4 CPU s, then
pick_place 13.6, turn 14.5, reach 13.0; each alone 18-25). So on 2 cores the tasks with a
cube run in one process and the rest in the other (:func:`groups`).
"""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SAFETY = "safety supervisor"
"""The job that runs the supervisor (shaping, Cartesian filter, links, zones, separation)."""
TRAINING = "training"
"""The job that runs PPO's numba parts (seeding, advantages)."""
HOST = "host paths"
"""The job that runs the numba functions of the host-state paths (a skill's command path,
the action mapping, the FK)."""
TOY = "toy task"
"""The job that compiles the kernels of ``tests/sims/test_task_registry.py``'s toy task."""


def _warm_task(task: str) -> None:
    """A task's numba env: its reset, step and refresh kernels (``set_state``), and for a
    task with a cube the observation with its true pose (what an expert labels from)."""
    import numpy as np

    from sims import get_task, make_env

    env = make_env(task, "numba", 2, seed=0)
    env.reset(seed=0)
    env.step(np.zeros((env.num_envs, env.action_dim)))
    env.set_state(joint_pos=env.get_state().joint_pos)
    if get_task(task).CONFIG.has_object:  # privileged_observation, whatever its error model
        obs = np.empty((env.num_envs, env.obs_dim), dtype=np.float32)
        env._kernels.true_pose_observe_kernel(env._fp, env._seed, env._st, env._cnt, obs)


def _warm_safety() -> None:
    """Two supervisors facing each other: every kernel of a period that shapes a request,
    and the peer occupancy's reach."""
    import math

    import numpy as np

    from miles_ros.safety import JointRequest, SafetyConfig, SafetySupervisor
    from miles_ros.safety.separation import SeparationConfig
    from sims.robots import panda

    names, home = panda.JOINT_NAMES, panda.home_joint_positions.copy()
    left = SafetySupervisor(
        SafetyConfig(),
        separation=SeparationConfig("left", ("right",), (0.0, 0.55, 0.0), -math.pi / 2),
    )
    right = SafetySupervisor(
        SafetyConfig(),
        separation=SeparationConfig("right", ("left",), (0.0, -0.55, 0.0), math.pi / 2),
    )
    pairs = ((left, right), (right, left))
    for t in (0.004, 0.008, 0.012, 0.016):
        for sup, _ in pairs:
            sup.update_robot_state(names, home, np.zeros(7), t)
        for sup, peer in pairs:
            occupancy = peer.occupancy(t)
            if occupancy is not None:
                sup.update_peer_occupancy(occupancy.to_json(), t)
            sup.submit(JointRequest(names, list(home + 0.3), t), t)
            sup.step(t)


def _warm_training() -> None:
    """The seeding and the advantages of every ``miles train`` (each torchrun rank too):
    numba's seeding alone, as :func:`policies.provenance.seed_everything` calls it, without
    the torch import (1.7 CPU s) that seeding torch needs."""
    import numpy as np

    from policies.ppo.gae import compute_gae
    from policies.provenance import _seed_numba

    _seed_numba(0)
    steps = np.zeros((4, 2), dtype=np.float32)
    compute_gae(steps, steps, steps, steps[0], 0.99, 0.95)


def _warm_host() -> None:
    """What every ``miles up`` (skill_node), PyBullet env and evaluation compiles besides
    the task kernels: the command-path model of a running skill, the action to joint
    targets mapping, the FK of one and of many configurations, the home move's clearance
    checks (the supervisor's boundaries, :mod:`miles_ros.runtime.homing`) and its lift off
    the floor (the IK step, the limits' clip), the perception process's TCP pose and the
    supervisor's schedule test's stop travel, and a PyBullet env's state rows (one world in
    this process: the workers' rows take the same path). Without the last four, a fresh
    clone's tests compiled them (about 6.2 CPU s, in one process) in whichever process met
    them first, and in any that started before the first had written its cache."""
    import numpy as np

    from miles_ros.runtime.command_path import CommandPath
    from miles_ros.runtime.homing import _lift, home_path
    from miles_ros.safety.stopping import stop_travel_forward
    from sims import get_task, make_env
    from sims.control import joint_targets
    from sims.robots import panda

    home = panda.home_joint_positions.copy()
    path = CommandPath(0.04)
    path.sync(home, np.zeros(7))
    path.step(home)
    cfg = get_task("push").CONFIG
    joint_targets(cfg, home[None], np.zeros((1, cfg.action_dim)))
    panda.fk_tcp(home)
    panda.fk_tcp_batch(np.ascontiguousarray(home[None]))
    home_path(home + 0.1)
    _lift(home, float(panda.fk_tcp(home)[2]) + 0.01)
    panda.fk_tcp_pose(np.ascontiguousarray(home))
    stop_travel_forward(0.1, 0.0, 5.0, 50.0)
    env = make_env("push", "pybullet", 1, num_workers=0)
    try:
        env.reset(seed=0)
        env.step(np.zeros((1, env.action_dim)))
    finally:
        env.close()


def _warm_toy() -> None:
    """The registry test's toy task (``toy_hover``) in the numba CPU kernels: its reset and
    step kernels (their key holds the task's stamp: its file's content). Its test and the
    CUDA simulator test's CPU twin load them; the kernels inline the arm's helpers, so
    after reach in the same process they cost about half of a cold compile of their own
    (22 CPU s in the test)."""
    import numpy as np

    from sims import make_env
    from sims.tasks import registry

    sys.path.insert(0, str(ROOT / "tests" / "sims"))  # imported as pytest imports it
    import test_task_registry as toy

    registry.register(toy.TOY)
    try:
        env = make_env(toy.CONFIG.name, "numba", 8)
        env.reset(seed=0)
        env.step(np.zeros((env.num_envs, env.action_dim)))
    finally:
        registry.unregister(toy.CONFIG.name)


def _job(name: str) -> tuple[str, float]:
    """Run the job ``name`` (a task, :data:`TOY`, :data:`SAFETY`, :data:`TRAINING` or
    :data:`HOST`); (name, its CPU seconds)."""
    sys.path.insert(0, str(ROOT))
    start = time.process_time()
    if name == SAFETY:
        _warm_safety()
    elif name == TRAINING:
        _warm_training()
    elif name == HOST:
        _warm_host()
    elif name == TOY:
        _warm_toy()
    else:
        _warm_task(name)
    return name, time.process_time() - start


def _jobs(names: list[str]) -> list[tuple[str, float]]:
    """Run the jobs ``names`` one after another in this process; (name, CPU s) each."""
    return [_job(name) for name in names]


def groups(cores: int) -> list[list[str]]:
    """The jobs as lists, each run one after another in a process of its own: on 2 cores
    the tasks with a cube together (they share the most helpers) and the rest together;
    on one core all in one; on more, one job a process, the tasks' first."""
    from sims import get_task
    from sims.tasks.registry import BUILTIN_TASKS

    jobs = [*BUILTIN_TASKS, TOY, SAFETY, HOST, TRAINING]  # the tasks' kernels take the longest
    if cores <= 1:
        return [jobs]
    if cores == 2:
        cube = [task for task in BUILTIN_TASKS if get_task(task).CONFIG.has_object]
        return [cube, [job for job in jobs if job not in cube]]
    return [[job] for job in jobs]


def main(argv: list[str] | None = None) -> int:
    from sims import numba_cache

    if (sys.argv[1:] if argv is None else argv) == ["--sources"]:
        print(" ".join(str(path.relative_to(ROOT)) for path in numba_cache.numba_sources()))
        return 0
    work = groups(os.cpu_count() or 1)
    start = time.monotonic()
    ptx = start_ptx()
    # spawn: a fork of this process would share numba's threading layer state
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(min(len(work), os.cpu_count() or 1), mp_context=context) as pool:
        done = [job for group in pool.map(_jobs, work) for job in group]
    cpu = ", ".join(f"{name} {seconds:.1f}" for name, seconds in done)
    where = numba_cache.key_dir() if numba_cache.enabled() else "beside the sources"
    print(f"numba caches warm in {time.monotonic() - start:.1f} s (CPU s: {cpu}), {where}")
    print(f"the PTX check: {finish_ptx(ptx)} ({time.monotonic() - start:.1f} s)")
    return 0


def start_ptx() -> subprocess.Popen:
    """The CUDA kernels' PTX check (:mod:`tests.ptx_check`) started in a process of its own
    (it needs the stand-in ``numba_cuda`` before ``sims`` is imported, and no CUDA
    simulator), beside the jobs: it records the compile for the test
    (``test_kernels_compile_for_a_real_gpu``), which then reads it; where it is recorded
    already it only reads it (about 0.7 CPU s)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    return subprocess.Popen(
        [sys.executable, "-m", "tests.ptx_check"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def finish_ptx(proc: subprocess.Popen) -> str:
    """What the PTX check said, in a few words; a failed compile is left to its test (it
    compiles again there and fails with the error), so the warm-up does not fail."""
    out, _ = proc.communicate()
    lines = out.strip().splitlines() or ["no output"]
    if proc.returncode == 0:
        return "no NVVM here" if lines[-1].startswith("NO_NVVM") else lines[-1]
    return f"failed (exit {proc.returncode}; its test compiles again): {lines[-1][:200]}"


if __name__ == "__main__":
    sys.exit(main())
