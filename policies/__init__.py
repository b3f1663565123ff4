"""Skill training (PPO), physics evaluation, ONNX export and the onnxruntime runtime.

Layer rule: ``miles_ros -> policies -> sims``. This package imports ``sims`` and never
``miles_ros`` or rclpy (``tests/test_layers.py`` fails otherwise); whatever needs the
safety supervisor or the ROS nodes (e.g. training or evaluating behind the real
supervisor) is composed in ``miles_ros``, which passes narrow callables down.

numba's OpenMP workers busy-wait after each parallel kernel and starve
torch's update on small machines (measured: gradient steps 10x slower on 2 cores), so
ask OpenMP to sleep instead; this only takes effect when set before torch loads OpenMP,
which importing ``policies`` first guarantees for the ``miles`` commands.
"""

import os

from sims import numba_cache

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
numba_cache.install()  # before any cache=True kernel (sims does it too): the numba cache
