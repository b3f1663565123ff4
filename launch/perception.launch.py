"""Object poses from an RGB-D camera: the scene's cubes on /miles/scene/objects.

`ros2 launch miles_ros perception.launch.py [params_file:=FILE] [namespace:=NS]`: runs
`perception_node` with config/perception.yaml (installed under share/miles_ros/config),
then `params_file` on top when given (keys under `perception_node:`). The camera topics
are relative: with a RealSense driver in another namespace, remap them or set the
`color_topic`, `depth_topic` and `camera_info_topic` parameters.
"""

from miles_ros.ros.launching import node_launch_description


def generate_launch_description():
    return node_launch_description("perception_node")
