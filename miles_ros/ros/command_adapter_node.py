"""``command_adapter_node``: /miles/joint_command (sensor_msgs/JointState, by name) to a
ros2_control forward position controller's std_msgs/Float64MultiArray (by position).

Each safety-node command becomes one array in ``joint_names`` order. A command that
lacks one of those joints or has a non-finite value is dropped with a throttled log
line: the controller then keeps its last command (a forward controller holds it).
"""

from __future__ import annotations

import math

from rclpy.node import Node
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray

from miles_ros.params.command_adapter import CommandAdapterParams
from miles_ros.ros.node_main import run_node
from miles_ros.ros.params import declare_params
from miles_ros.ros.qos import COMMAND_QOS


class CommandAdapterNode(Node):
    def __init__(self, **kwargs):
        super().__init__("command_adapter_node", **kwargs)
        self.params = prm = declare_params(self, CommandAdapterParams)
        self.pub = self.create_publisher(Float64MultiArray, prm.output_topic, COMMAND_QOS)
        self.create_subscription(JointState, prm.input_topic, self.on_command, COMMAND_QOS)
        self.dropped = 0
        self.get_logger().info(
            f"{prm.input_topic} -> {prm.output_topic} as [{', '.join(prm.joint_names)}]"
        )

    def on_command(self, msg: JointState) -> None:
        index = {name: i for i, name in enumerate(msg.name)}
        missing = [n for n in self.params.joint_names if n not in index]
        if missing or len(msg.position) != len(msg.name):
            self.drop(f"command lacks {missing}" if missing else "names/positions differ")
            return
        values = [float(msg.position[index[n]]) for n in self.params.joint_names]
        if not all(math.isfinite(v) for v in values):
            self.drop("non-finite position")
            return
        self.pub.publish(Float64MultiArray(data=values))

    def drop(self, why: str) -> None:
        self.dropped += 1
        self.get_logger().warning(f"command dropped: {why}", throttle_duration_sec=1.0)


def main(args=None) -> None:
    run_node(CommandAdapterNode, args)


if __name__ == "__main__":
    main()
