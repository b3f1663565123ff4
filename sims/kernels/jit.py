"""How the kernels' small scalar functions are inlined: :func:`inlined`.

The scalar functions of ``sims/kernels/`` are compiled into the CPU kernels (``@njit``),
the safety supervisor's kernels and the CUDA kernels. The hot ones are inlined at numba's
IR level (``register_jitable(inline="always")``): on the CPU the step kernel is ~20% slower
without it (reach 115 -> 138 ns per env-step, ``bench/step_kernel.py``).

On a GPU machine numba's CUDA target is the ``numba-cuda`` package (numba's own is
deprecated). numba-cuda (0.30) cannot type a function that numba core inlines at the IR
level: the inlined body's arguments reach it as ``omitted`` ("No implementation of function
add(omitted, omitted)"), and it takes numba core's overloads whatever target they name.
Where numba-cuda is installed, these functions are therefore plain device calls on every
target (NVVM's own inliner still inlines them on the GPU); the CPU kernels of such a
machine run without the IR inlining.
"""

from __future__ import annotations

import importlib.util

from numba.extending import register_jitable

NUMBA_CUDA = importlib.util.find_spec("numba_cuda") is not None
INLINE = "never" if NUMBA_CUDA else "always"


def inlined(fn):
    """``register_jitable`` with numba's IR inlining where the CUDA target can type it."""
    return register_jitable(inline=INLINE)(fn)
