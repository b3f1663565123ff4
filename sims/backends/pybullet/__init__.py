"""PyBullet backend: the Panda URDF with real rigid-body physics, one world per env.

Modules, by concern:

- :mod:`~sims.backends.pybullet.urdf`: pybullet_data's Panda URDF with its fixed links
  merged.
- :mod:`~sims.backends.pybullet.spec`: :class:`WorldSpec` (what a world is built from)
  and the state/reset row layouts.
- :mod:`~sims.backends.pybullet.world`: :class:`BulletWorld` (one PyBullet client: Panda,
  table, cubes, goal marker).
- :mod:`~sims.backends.pybullet.workers`: where the worlds run (subprocess workers and
  their pipe protocol, or in process).
- :mod:`~sims.backends.pybullet.scene`: the scene (:mod:`sims.scene`) as a world spec, and
  the camera.
- :mod:`~sims.backends.pybullet.rows`: reset-row sampling and state-row unpacking.
- :mod:`~sims.backends.pybullet.env`: :class:`PyBulletEnv` and :func:`make_pybullet_env`,
  the batched env (``sims.make_env(task, "pybullet")``).

Nothing is imported here: a spawned worker imports ``urdf``, ``spec``, ``world`` and ``workers``
only (numpy and pybullet, no numba, no tasks).
"""
