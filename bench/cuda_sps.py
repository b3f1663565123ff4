"""GPU env throughput: env-steps/s of the numba backend's CUDA kernels, against the CPU
numba kernels in the same run.

    .venv/bin/python bench/cuda_sps.py --json [--num-envs 65536] [--steps 200] [--parity]

Prints one JSON object::

    {"device": name | null, "simulated": bool, "num_envs": n, "steps": s,
     "cuda": {task: sps | null}, "cpu_numba": {"num_envs": m, task: sps},
     "speedup": {task: cuda / cpu | null}, "parity": {task: {...}} (with --parity),
     "ptx": {kernel: "ok" | error} (with --ptx), "config": {...}}

- cuda: ``make_env(task, "numba", n, device="cuda")``, ``step_device`` on device actions
  (4 random batches, uploaded once), outputs into reused arrays (``out=``), no finite
  check; timed from a synchronized start to a synchronized end after warm-up steps (the
  kernel compiles on the first). null without a GPU: numba's CUDA simulator runs the
  kernels as Python and measures nothing of a GPU.
- cpu_numba: the CPU env of the same task with ``m`` envs and the host ``step``.
- parity (``--parity``): CPU and GPU envs from one seed with the same random actions over
  an episode and a few steps on: the largest difference of any state entry and of the
  positions (joints, TCP, cube), and how many envs differ by more than 1e-9 (the GPU's
  math library and fused multiply-adds round differently in the last bits; a contact or
  grasp threshold can amplify that). Runs under the simulator too (where it is 0).
- ptx (``--ptx``): every CUDA kernel compiled to PTX for compute capability 9.0 without
  a GPU (needs NVVM: ``CUDA_HOME`` pointing at a CUDA toolkit, or at the ``cuda_nvcc``
  folder of the ``nvidia-cuda-nvcc-cu12`` wheel).

:func:`measure` is the function ``bench/scale.py`` calls.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import types
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sims import TASKS, get_task, make_env  # noqa: E402
from sims.backends import numba_cuda  # noqa: E402
from sims.kernels import layout  # noqa: E402

WARMUP = 3
ACTION_BATCHES = 4


def gpu_present() -> bool:
    """True where a real CUDA device (not the simulator) can run the kernels."""
    return numba_cuda.cuda_available() and not numba_cuda.simulated()


def measure(task: str, num_envs: int, steps: int, device: str = "cuda") -> float | None:
    """Env-steps/s of ``task`` on the GPU (``num_envs`` envs, ``steps`` timed steps), or
    None without a GPU."""
    if not gpu_present():
        return None
    from numba import cuda

    env = make_env(task, "numba", num_envs, seed=0, device=device)
    rng = np.random.default_rng(0)
    batches = [
        cuda.to_device(rng.uniform(-1, 1, (num_envs, env.action_dim)))
        for _ in range(ACTION_BATCHES)
    ]
    out = env.output_arrays()
    for k in range(WARMUP):
        env.step_device(batches[k % ACTION_BATCHES], check=False, out=out)
    cuda.synchronize()
    start = time.perf_counter()
    for k in range(steps):
        env.step_device(batches[k % ACTION_BATCHES], check=False, out=out)
    cuda.synchronize()
    elapsed = time.perf_counter() - start
    env.close()
    return num_envs * steps / elapsed


def measure_cpu(task: str, num_envs: int, steps: int) -> float:
    """Env-steps/s of ``task`` on the CPU numba env (the peer)."""
    env = make_env(task, "numba", num_envs, seed=0)
    rng = np.random.default_rng(0)
    batches = [rng.uniform(-1, 1, (num_envs, env.action_dim)) for _ in range(ACTION_BATCHES)]
    for k in range(WARMUP):
        env.step(batches[k % ACTION_BATCHES])
    start = time.perf_counter()
    for k in range(steps):
        env.step(batches[k % ACTION_BATCHES])
    return num_envs * steps / (time.perf_counter() - start)


POSITIONS = np.r_[
    layout.S_Q : layout.S_Q + 7, layout.S_TCP : layout.S_TCP + 3, layout.S_OBJ : layout.S_OBJ + 3
]


def parity(task: str, num_envs: int, seed: int = 0) -> dict:
    """GPU against CPU over an episode and 3 steps on, from ``seed`` (see the docstring)."""
    cpu = make_env(task, "numba", num_envs, seed=seed)
    gpu = make_env(task, "numba", num_envs, seed=seed, device="cuda")
    rng = np.random.default_rng(seed)
    worst_state = worst_pos = 0.0
    apart = np.zeros(num_envs, dtype=bool)
    for _ in range(cpu.cfg.episode_steps + 3):
        actions = rng.uniform(-1.2, 1.2, (num_envs, cpu.action_dim))
        cpu.step(actions)
        gpu.step(actions)
        diff = np.abs(cpu._st - gpu.state())
        worst_state = max(worst_state, float(diff.max()))
        worst_pos = max(worst_pos, float(diff[:, POSITIONS].max()))
        apart |= diff[:, POSITIONS].max(axis=1) > 1e-9
    return {
        "num_envs": num_envs,
        "max_abs_state": worst_state,
        "max_abs_position": worst_pos,
        "envs_over_1e-9": int(apart.sum()),
    }


def ptx_check(cc=(9, 0), names=None, tasks=TASKS, out=None) -> dict[str, str]:
    """Compile the CUDA kernels ``names`` (None: all) of every task in ``tasks`` to PTX for
    ``cc`` without a GPU (NVVM needed); kernel name -> "ok" or the first error. ``out``, a
    dict: each name's PTX texts (one per task's kernel) go into it."""
    from numba import cuda
    from numba import types as nt
    from numba.cuda import dispatcher

    # numba asks the current device for its compute capability when it compiles device
    # functions (even for compile_ptx); without a driver, answer for it
    dispatcher.get_current_device = lambda: types.SimpleNamespace(compute_capability=cc)
    f1, i1, a2 = nt.float64[::1], nt.int64[::1], nt.float64[:, ::1]
    o2, st3 = nt.float32[:, ::1], nt.float64[:, :, ::1]
    step = (f1, i1, nt.uint64, a2, a2, nt.int64[:, ::1], st3, o2, o2, a2, nt.boolean[:, ::1])
    reset = (f1, i1, nt.uint64, nt.int64, a2, nt.int64[:, ::1], st3, o2)
    kernels = {"prepare_actions": [(numba_cuda.prepare_actions, (o2, a2, i1, nt.int64))]}
    for task in tasks:
        built = numba_cuda.task_cuda_kernels(get_task(task).KERNEL)
        kernels.setdefault("step_cuda", []).append((built.step_cuda, step))
        if built.step_cuda_joint is not None:
            kernels.setdefault("step_cuda_joint", []).append((built.step_cuda_joint, step))
        kernels.setdefault("reset_cuda", []).append((built.reset_cuda, reset))
    result = {}
    for name in names or list(kernels):
        try:
            texts = [
                cuda.compile_ptx(kernel.py_func, sig, cc=cc)[0] for kernel, sig in kernels[name]
            ]
            if out is not None:
                out[name] = texts
            result[name] = "ok"
        except Exception as err:  # noqa: BLE001 - reported in the JSON
            result[name] = f"{type(err).__name__}: {str(err)[:300]}"
    return result


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print the JSON object only")
    parser.add_argument("--tasks", nargs="+", default=list(TASKS), choices=TASKS)
    parser.add_argument("--num-envs", type=int, default=65536)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--cpu-envs", type=int, default=4096)
    parser.add_argument("--cpu-steps", type=int, default=50)
    parser.add_argument("--parity", action="store_true")
    parser.add_argument("--parity-envs", type=int, default=256)
    parser.add_argument("--ptx", action="store_true")
    args = parser.parse_args(argv)
    if args.num_envs < 1 or args.steps < 1 or args.cpu_envs < 1 or args.cpu_steps < 1:
        parser.error("--num-envs, --steps, --cpu-envs and --cpu-steps must be >= 1")
    name = None
    if gpu_present():
        from numba import cuda

        name = cuda.get_current_device().name
        name = name.decode() if isinstance(name, bytes) else str(name)
    report = {
        "device": name,
        "simulated": numba_cuda.simulated(),
        "num_envs": args.num_envs,
        "steps": args.steps,
        "cuda": {},
        "cpu_numba": {"num_envs": args.cpu_envs},
        "speedup": {},
        "config": vars(args),
    }
    for task in args.tasks:
        sps = measure(task, args.num_envs, args.steps)
        cpu = measure_cpu(task, args.cpu_envs, args.cpu_steps)
        report["cuda"][task] = sps
        report["cpu_numba"][task] = cpu
        report["speedup"][task] = None if sps is None else sps / cpu
    if args.parity:
        if numba_cuda.cuda_available():
            report["parity"] = {t: parity(t, args.parity_envs) for t in args.tasks}
        else:
            report["parity"] = None
    if args.ptx:
        report["ptx"] = None if numba_cuda.simulated() else ptx_check()
    print(json.dumps(report, indent=None if args.json else 2))
    return report


if __name__ == "__main__":
    main()
