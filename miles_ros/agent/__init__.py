"""The planning core of Miles (no ROS): skill registry, grounded planner, memory, manager.

Entry points: :class:`miles_ros.agent.planner.Planner` (goal -> validated plan),
:class:`miles_ros.manager.core.Manager` (plan, dispatch, replan, reflect),
:class:`miles_ros.agent.memory.Memory` (episodic + semantic SQLite memory).
"""
