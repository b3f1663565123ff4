"""The safety supervisor: the only publisher of /miles/joint_command.

`ros2 launch miles_ros safety.launch.py [params_file:=FILE] [namespace:=NS]`: runs
`safety_node` with config/safety.yaml (installed under share/miles_ros/config), then
`params_file` on top when given (a ROS parameter file; keys under `safety_node:`).
"""

from miles_ros.ros.launching import node_launch_description


def generate_launch_description():
    return node_launch_description("safety_node")
