"""Monitoring numbers of a running cell on a Prometheus endpoint (ROS-free: the node that
feeds it is miles_ros/ros/monitor_node.py)."""
