"""PyBullet as a robot: /joint_states, object poses, camera, reset.

`ros2 launch miles_ros sim.launch.py [params_file:=FILE] [namespace:=NS]`: runs
`sim_node` with config/sim.yaml (installed under share/miles_ros/config), then
`params_file` on top when given (a ROS parameter file; keys under `sim_node:`).
"""

from miles_ros.ros.launching import node_launch_description


def generate_launch_description():
    return node_launch_description("sim_node")
