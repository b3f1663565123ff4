"""Numba kernels of the numba backend, written once for the CPU and the GPU.

Every per-env function here is a plain Python function registered with
:func:`numba.extending.register_jitable` (numba's "generic" target): the ``@njit`` CPU
kernels of :mod:`sims.kernels.step` and the ``@cuda.jit`` kernel of
:mod:`sims.backends.numba_cuda` both compile it, and numba's CUDA simulator
(``NUMBA_ENABLE_CUDASIM=1``) runs it as Python. None of them allocates: scratch arrays
are passed in (``np.empty`` per chunk on the CPU, ``cuda.local.array`` on the GPU).

Modules, by concern:

- :mod:`~sims.kernels.layout`: the per-env state columns (``S_*``), the parameter vectors
  (``P_*``, ``I_*``) and result rows (no task: a task's offsets are its own ``LAYOUT``'s);
- :mod:`~sims.kernels.rng`: the counter-based RNG (splitmix64);
- :mod:`~sims.kernels.kinematics`: forward kinematics and the damped-least-squares step;
- :mod:`~sims.kernels.contact`: fingers, table, grasp and the sliding cube;
- :mod:`~sims.kernels.observe`: the building blocks of the tasks' scalar terms
  (observation fields with their noise, distances);
- :mod:`~sims.kernels.step`: reset and step of one env, and the batched ``@njit`` kernels,
  built per task around the task's scalar terms (its ``KERNEL``,
  :mod:`sims.tasks.registry`): the kernels import no task; :mod:`~sims.kernels.episode`:
  the task-independent parts of an episode they call (the arm's reset draws, the noise
  key, the action ring); :mod:`~sims.kernels.cache_keys`: how numba's cache keys them;
- :mod:`~sims.kernels.stopping`, :mod:`~sims.kernels.scaling`: the jerk-limited shaping of
  one joint and the scale mode over the arm, shared with the safety supervisor;
  :mod:`~sims.kernels.actuator`: the arm's command-path model built on them.

The action -> joint target mapping is :mod:`sims.control`, shared with every backend.
"""
