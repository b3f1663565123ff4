"""The live 3D view of a cell with Rerun (ROS-free: the node that feeds it is
miles_ros/ros/view_node.py)."""
