"""The agent layer (skills, planner, memory, safety core, ROS-free node logic) and its ROS 2
nodes.

Layer rule: ``miles_ros -> policies -> sims``; ``miles_ros`` may import both, nothing
below imports it. rclpy (and every ROS message package) is imported in one subpackage
only, the ROS adapters; everything else here is plain Python, importable and testable
without ROS (``tests/test_layers.py`` checks both rules).
"""

from sims import numba_cache

numba_cache.install()  # before any cache=True kernel (sims does it too): the numba cache
