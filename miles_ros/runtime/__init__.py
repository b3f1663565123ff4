"""ROS-free pieces of the ROS 2 runtime, used by the thin nodes in ``miles_ros/ros``.

- :mod:`miles_ros.runtime.scene_world`: the scene in one PyBullet world (the sim node's
  robot, one Panda per arm): every cube and pad, motors driven by joint position targets;
- :mod:`miles_ros.runtime.frames`: world frame <-> an arm's base frame (a cell of several
  arms: object poses, pads and the table as each arm sees them);
- :mod:`miles_ros.runtime.observation`: a :class:`sims.tasks.base.SimState` from joint
  states and object poses, so a skill sees the observation it was trained on;
- :mod:`miles_ros.runtime.goals`: the one goal resolver, skill parameters (names or
  coordinates) to the task's object and goal position (the planner uses it too);
- :mod:`miles_ros.runtime.actions`: policy actions to joint position targets, exactly as
  the PyBullet backend maps them;
- :mod:`miles_ros.runtime.library`: the skill library (skill cards with their ONNX
  policies and task configs, plus the scripted ``home``);
- :mod:`miles_ros.runtime.skills`: the executor state machine behind ``/miles/skill/request`` and
  ``/miles/skill/status`` (:mod:`miles_ros.runtime.execution`: its per-request records;
  :mod:`miles_ros.runtime.refusals`: why a request is refused;
  :mod:`miles_ros.runtime.home_move`: its home moves, the scripted ``home`` and a skill's
  lead-in; :mod:`miles_ros.runtime.warm_up`: every skill run once before the graph runs);
- :mod:`miles_ros.runtime.rollout`: candidate versions beside the active skill (shadow)
  and for a share of its requests (canary, decided by a sequential test).

Node parameters are in :mod:`miles_ros.params`, the managers in :mod:`miles_ros.manager`.
"""
