"""The operator console: a small web app served by the project (ROS-free: its bridge to
the graph is miles_ros/ros/console_node.py)."""
