"""The managers, without ROS: a goal in words -> a plan -> skill requests, to the end.

- :mod:`miles_ros.manager.core`: :class:`~miles_ros.manager.core.Manager`, one goal of a
  single arm (plan, dispatch, replan, reflect);
- :mod:`miles_ros.manager.glue`: :class:`~miles_ros.manager.glue.ManagerDriver`, what
  ``manager_node`` runs for a single arm (a worker thread around the manager);
- :mod:`miles_ros.manager.cell`: :class:`~miles_ros.manager.cell.CellDriver`, what it runs
  for a cell of several arms (planned steps run by contract net);
- :mod:`miles_ros.manager.build`: the planner, memory and world the parameters describe.

Their parameters are :mod:`miles_ros.params.manager`; the planner, memory and contract-net
logic they drive are in :mod:`miles_ros.agent`, which never imports this package.
"""
