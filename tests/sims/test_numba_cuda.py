"""The numba CUDA backend: importable without a GPU, a clear error for device="cuda" where
there is none, and, under numba's CUDA simulator, the same rollouts as the CPU kernels for
reach, push and pick_place (run in a subprocess: NUMBA_ENABLE_CUDASIM must be set before
numba is imported)."""

import textwrap

import pytest

from tests.cudasim import run_script

SIMULATED = textwrap.dedent(
    """
    import dataclasses, warnings
    import numpy as np
    warnings.simplefilter("ignore")  # uint64 wrap-around warns in the simulator
    from numba import config, cuda
    assert config.ENABLE_CUDASIM
    import sims
    from sims import make_env
    from sims.backends.numba_cuda import CudaReachStepper, CudaStepper, NumbaCudaEnv
    from sims.tasks.base import DomainRandomization

    N = 5
    TOL = 1e-9  # the issue's bar for positions; every output and state entry is held to it
    rnd = DomainRandomization(action_latency_steps=2, observation_noise_std=0.01)
    cases = [
        ("reach", {}),
        ("reach", {"action_mode": "cartesian"}),
        ("push", {"randomization": rnd}),
        ("pick_place", {}),
    ]
    assert CudaReachStepper is CudaStepper
    for task, changes in cases:
        cfg = dataclasses.replace(sims.get_task(task).CONFIG, **changes)
        cpu = make_env(task, "numba", N, seed=21, config=cfg)
        gpu = make_env(task, "numba", N, seed=21, config=cfg, device="cuda")
        assert isinstance(gpu, NumbaCudaEnv) and gpu.device == "cuda:0"
        # the device reset kernel draws the CPU reset's episodes, seeded and not
        np.testing.assert_array_equal(gpu.state(), cpu._st)
        for seed in (7, None):
            a, _ = cpu.reset(seed=seed)
            b, _ = gpu.reset(seed=seed)
            np.testing.assert_array_equal(a, b)
            np.testing.assert_array_equal(gpu.state(), cpu._st)
        # a copy of a CPU env's state steps like it (the stepper alone)
        stepper = CudaStepper.from_env(cpu)
        reused = gpu.output_arrays()
        rng = np.random.default_rng(3)
        ended = 0
        for t in range(cfg.episode_steps + 3):  # a full episode, its autoreset, and on
            actions = rng.uniform(-1.3, 1.3, size=(N, cpu.action_dim))
            want = cpu.step(actions)
            if t % 2:
                got = gpu.step(actions)  # host API
            else:  # device API: device actions in, device arrays out
                dev = cuda.to_device(actions)
                out = gpu.step_device(dev, out=reused if t % 4 == 0 else None)
                assert all(hasattr(x, "copy_to_host") for x in out[:4])
                assert all(hasattr(x, "copy_to_host") for x in out[4].values())
                got = gpu._gpu.to_host(out)
            alone = stepper.step(actions)
            for other in (got, alone):
                for x, y in zip(want[:4], other[:4]):
                    assert x.dtype == y.dtype and x.shape == y.shape
                    np.testing.assert_allclose(x, y, rtol=0, atol=TOL)
                assert set(want[4]) == set(other[4])
                for key in want[4]:
                    np.testing.assert_allclose(want[4][key], other[4][key], rtol=0, atol=TOL)
            np.testing.assert_allclose(cpu._st, gpu.state(), rtol=0, atol=TOL)
            np.testing.assert_allclose(cpu._st, stepper.state(), rtol=0, atol=TOL)
            ended += int(want[4]["_final_obs"].sum())
        assert ended >= N, (task, ended)  # every env ended an episode: autoreset ran
        # the host views of the state read the device
        for name in ("joint_pos", "tcp_pos", "object_pos", "goal_pos"):
            np.testing.assert_array_equal(
                getattr(cpu.get_state(), name), getattr(gpu.get_state(), name)
            )
        np.testing.assert_array_equal(
            cpu.randomization_state()["action_delay"], gpu.randomization_state()["action_delay"]
        )
        a = cpu.set_state(joint_pos=cpu.get_state().joint_pos[::-1].copy())
        b = gpu.set_state(joint_pos=cpu.get_state().joint_pos)
        np.testing.assert_array_equal(a, b)
        actions = rng.uniform(-1, 1, size=(N, cpu.action_dim))
        np.testing.assert_allclose(cpu.step(actions)[0], gpu.step(actions)[0], rtol=0, atol=TOL)
        print(task, cfg.action_mode, "ended", ended)

    # device actions: float32 is read, bad input is refused before the step runs
    gpu = make_env("push", "numba", 3, seed=1, device="cuda")
    before = gpu.state()
    bad = np.zeros((3, 3), dtype=np.float32)
    bad[2, 1] = np.nan
    for actions, match in [
        (cuda.to_device(bad), "env 2, dim 1"),
        (bad, "env 2, dim 1"),
        (cuda.to_device(np.zeros((2, 3))), "shape"),
        (cuda.to_device(np.zeros((3, 3), dtype=np.int32)), "float32 or float64"),
    ]:
        try:
            gpu.step_device(actions)
        except ValueError as err:
            assert match in str(err), (match, err)
        else:
            raise AssertionError(f"no error for {match}")
    np.testing.assert_array_equal(gpu.state(), before)
    cpu = make_env("push", "numba", 3, seed=1)
    half = np.full((3, 3), 0.5, dtype=np.float32)
    np.testing.assert_array_equal(
        cpu.step(half.astype(np.float64))[0],
        gpu._gpu.to_host(gpu.step_device(cuda.to_device(half)))[0],
    )
    print("CUDASIM_OK")
    """
)


def test_module_imports_without_a_gpu():
    from sims.backends import numba_cuda

    assert isinstance(numba_cuda.cuda_available(), bool)
    assert numba_cuda.CudaReachStepper is numba_cuda.CudaStepper
    if not numba_cuda.cuda_available():
        from sims import make_env

        env = make_env("push", "numba", 2, seed=0)
        with pytest.raises(RuntimeError, match="no CUDA device"):
            numba_cuda.CudaStepper.from_env(env)


def test_device_cuda_without_a_gpu_is_a_clear_error_before_any_work(monkeypatch):
    from sims import make_env
    from sims.backends import numba_backend, numba_cuda

    if numba_cuda.cuda_available():
        pytest.skip("a CUDA device (or the simulator) is present: there is no error to see")

    def no_work(*args, **kwargs):
        raise AssertionError("an env was built before the device was checked")

    monkeypatch.setattr(numba_backend.NumbaEnv, "__init__", no_work)
    for device in ("cuda", "cuda:0", "CUDA:1"):
        with pytest.raises(RuntimeError, match=r"no CUDA device.*NUMBA_ENABLE_CUDASIM=1"):
            make_env("pick_place", "numba", 4, seed=0, device=device)


@pytest.mark.parametrize("device", ["gpu", "cuda:", "cuda:x", "tpu:0", ""])
def test_unknown_device_names_are_refused(device):
    from sims import make_env

    with pytest.raises(ValueError, match="device must be"):
        make_env("reach", "numba", 2, device=device)


def test_device_cpu_is_the_cpu_env():
    from sims import make_env
    from sims.backends.numba_backend import NumbaEnv
    from sims.backends.numba_cuda import NumbaCudaEnv

    for device in ("cpu", "CPU"):
        env = make_env("reach", "numba", 2, seed=0, device=device)
        assert type(env) is NumbaEnv and not isinstance(env, NumbaCudaEnv)
        assert env.device == "cpu"


def test_simulated_cuda_kernels_match_the_cpu_kernels():
    proc = run_script(SIMULATED)
    assert "CUDASIM_OK" in proc.stdout
    for task in ("reach joint", "reach cartesian", "push cartesian", "pick_place cartesian"):
        assert task in proc.stdout


PTX = "import sys; from tests import ptx_check; sys.exit(ptx_check.main())"


@pytest.mark.slow  # 20-50 s when it compiles; about 2 s after the warm-up compiled it
def test_kernels_compile_for_a_real_gpu():
    """The simulator runs the kernels as Python, so it cannot see what numba.cuda fails to
    compile (two-argument max/min did): compile them to PTX where NVVM is installed.

    They are compiled as a GPU machine compiles them: there numba-cuda is installed, so
    the helpers are device calls, not inlined at numba's IR level (``sims/kernels/jit.py``);
    a stand-in ``numba_cuda`` package selects that mode (``tests/ptx_check.py``, as in
    ``test_jit_inlining``). The IR-inlined form, which no GPU runs, retyped every helper at
    every call site: about 2.5x the CPU time. Without the max/min overloads this mode fails
    too ("Signature mismatch"). The PTX of sources compiled before under the same key (the
    numba sources, every file of ``sims/``, the check's own files, numba's and NVVM's
    versions), by the warm-up or an earlier run, is read from its record, not compiled
    again (``tests/ptx_check.py``)."""
    proc = run_script(PTX, cudasim=False, timeout=900)
    if "NO_NVVM" in proc.stdout:
        pytest.skip("no NVVM (CUDA toolkit) here to compile CUDA kernels: " + proc.stdout[-300:])
    assert "PTX_OK" in proc.stdout
    from tests.ptx_check import KERNELS

    for name in KERNELS:
        assert f"'{name}': 'ok'" in proc.stdout, proc.stdout[-2000:]


def test_a_ptx_record_is_read_only_whole_and_for_every_kernel(tmp_path):
    """What the PTX check keeps of a compile (``tests/ptx_check.py``): each kernel's PTX
    checked for its target and one entry, and a record missing a kernel, with another
    count or target, or unreadable, is compiled again (``load`` gives None)."""
    import json

    from tests import ptx_check

    want = ptx_check.expected_entries()
    target = ".target sm_{}{}".format(*ptx_check.CC)
    ptx = {
        name: [f"{target}\n.entry {name}_{k}(\n" for k in range(count)]
        for name, count in want.items()
    }
    path = tmp_path / "record.json"
    record = {"nvvm": [2, 0], "kernels": ptx_check.checked(ptx)}
    path.write_text(json.dumps(record))
    assert ptx_check.load(path) == record
    for change in ("kernels", "target", "missing"):
        stale = json.loads(path.read_text())
        if change == "missing":
            del stale["kernels"]["reset_cuda"]
        elif change == "kernels":
            stale["kernels"]["step_cuda"]["kernels"] += 1
        else:
            stale["kernels"]["prepare_actions"]["target"] = "sm_80"
        (tmp_path / "stale.json").write_text(json.dumps(stale))
        assert ptx_check.load(tmp_path / "stale.json") is None, change
    (tmp_path / "bad.json").write_text("{")
    assert ptx_check.load(tmp_path / "bad.json") is None
    assert ptx_check.load(tmp_path / "none.json") is None
    with pytest.raises(AssertionError):  # another target
        ptx_check.checked({**ptx, "prepare_actions": [".target sm_80\n.entry p(\n"]})
    with pytest.raises(AssertionError):  # a task's kernel missing
        ptx_check.checked({**ptx, "step_cuda": ptx["step_cuda"][1:]})
