"""Counter-based RNG: every draw is ``splitmix64`` of (seed, env index, episode counter,
draw counter), so rollouts are bit-identical for a seed whatever the number of threads,
the chunking or the device."""

from __future__ import annotations

import math

import numpy as np
from numba.extending import register_jitable

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)


@register_jitable
def mix64(z):
    """splitmix64's finalizer: a bijective avalanche hash of a uint64."""
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@register_jitable
def episode_key(seed, env, episode):
    """The key of one env's episode: hash of (seed, env index, episode counter)."""
    h = mix64(np.uint64(seed) + _GOLDEN)
    h = mix64(h ^ np.uint64(env))
    return mix64(h ^ np.uint64(episode))


@register_jitable
def uniform01(key, counter):
    """Uniform double in [0, 1) for draw ``counter`` under ``key``."""
    h = mix64(key + np.uint64(counter + 1) * _GOLDEN)
    return float(h >> _S11) * (1.0 / 9007199254740992.0)


@register_jitable
def uniform(key, counter, lo, hi):
    """Uniform double in [lo, hi) for draw ``counter`` under ``key``."""
    return lo + (hi - lo) * uniform01(key, counter)


@register_jitable
def normal01(key, counter):
    """Standard normal (Box-Muller) from draws ``2 counter`` and ``2 counter + 1``."""
    u1 = 1.0 - uniform01(key, 2 * counter)
    u2 = uniform01(key, 2 * counter + 1)
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)
