"""Every rclpy import of Miles lives in this package (tests/test_layers.py checks it):

- the nodes, one per file, thin adapters over ROS-free code: :mod:`.sim_node`,
  :mod:`.skill_node`, :mod:`.safety_node`, :mod:`.manager_node`,
  :mod:`.command_adapter_node`, :mod:`.arm_agent_node` (console scripts of the same
  names);
- :mod:`.params`: the one parameter helper (declared from the typed dataclasses of
  :mod:`miles_ros.params`, one module per node); :mod:`.qos`: the QoS profiles;
  :mod:`.node_main`: each executable's ``main``;
- :mod:`.graph`: the one in-process graph builder (``miles up``, ``miles demo``,
  bench/ros.py, the tests);
- :mod:`.clients`: ``miles goal``, ``miles estop`` and the demo's probe;
- :mod:`.recording`: MCAP recording (``miles up --record``);
- :mod:`.launching`: the launch helper behind launch/*.launch.py (needs a ROS distro).

Everything outside this package imports and tests without ROS; code elsewhere reaches
ROS only through these modules, imported lazily where the import is heavy.
"""
