"""``arm_agent_node``: one arm's contract-net bidder in a cell of several arms.

In: ``/miles/tasks/announce`` and ``/miles/tasks/award`` (JSON, the manager's
dispatcher), ``/ARM/joint_states`` (the arm's TCP for the estimate),
``/miles/scene/objects`` (world-frame cube poses), ``/ARM/miles/skill/status`` (the arm's
skill node: a final state takes the oldest task off the queue). Out: ``/miles/tasks/bid``
(JSON :class:`miles_ros.agent.contract_net.Bid`: the estimated seconds until this arm
would have finished the task, its queue included, or a refusal with the reason, e.g. out
of the card's envelope in this arm's base frame). The logic is
:class:`miles_ros.agent.arm_agent.ArmAgent`; the awarded tasks themselves reach the skill
node from the dispatcher on ``/ARM/miles/skill/request``.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from rclpy.node import Node
from sensor_msgs.msg import JointState
from std_msgs.msg import String

from miles_ros.agent.arm_agent import ArmAgent, cards_from_registry
from miles_ros.agent.contract_net import to_json
from miles_ros.agent.registry import SkillRegistry
from miles_ros.interfaces import FINAL_SKILL_STATES, RUNNING, arm_scoped
from miles_ros.params.arm_agent import ArmAgentParams
from miles_ros.ros.node_main import NodeLogHandler, run_node
from miles_ros.ros.params import declare_params
from miles_ros.ros.qos import COMMAND_QOS, SENSOR_QOS
from sims.robots import panda
from sims.scene import load_scene


class ArmAgentNode(Node):
    def __init__(self, **kwargs) -> None:
        super().__init__("arm_agent", **kwargs)
        self.params = prm = declare_params(self, ArmAgentParams)
        scene = load_scene(prm.scene_file or None)
        if not prm.arm:
            raise ValueError("arm parameter: name one of the scene's arms")
        try:
            mount = scene.arm(prm.arm)
        except KeyError as exc:
            raise ValueError(f"arm parameter: {exc.args[0]}") from None
        dirs = [Path(prm.skill_library)] if prm.skill_library else None
        cards = cards_from_registry(SkillRegistry.load(dirs))
        places = {k: p.position for k, p in scene.places.items()}
        self.agent = ArmAgent(prm.arm, mount, cards, places)
        self.agent.on_objects({k: o.position for k, o in scene.objects.items()})
        self.log_handler = NodeLogHandler(self.get_logger())
        for name in ("miles_ros.agent.arm_agent", "miles_ros.agent.contract_net"):
            logging.getLogger(name).addHandler(self.log_handler)
        self.pub_bid = self.create_publisher(String, prm.bid_topic, COMMAND_QOS)
        sub = self.create_subscription
        sub(String, prm.announce_topic, self.on_announce, COMMAND_QOS)
        sub(String, prm.award_topic, self.on_award, COMMAND_QOS)
        sub(JointState, arm_scoped(prm.arm, prm.joint_states_topic), self.on_joints, SENSOR_QOS)
        sub(String, prm.objects_topic, self.on_objects, COMMAND_QOS)
        sub(String, arm_scoped(prm.arm, prm.skill_status_topic), self.on_status, COMMAND_QOS)
        self.get_logger().info(f"arm agent for {prm.arm}: bids on {prm.announce_topic}")

    def now(self) -> float:
        return self.get_clock().now().nanoseconds * 1e-9

    def on_announce(self, msg: String) -> None:
        bid = self.agent.on_announce(msg.data, self.now())
        if bid is not None:
            self.pub_bid.publish(String(data=to_json(bid)))

    def on_award(self, msg: String) -> None:
        award = self.agent.on_award(msg.data, self.now())
        if award is not None:
            self.get_logger().info(f"awarded {award.task_id} (cost {award.cost:.1f} s)")

    def on_joints(self, msg: JointState) -> None:
        index = {n: i for i, n in enumerate(msg.name)}
        try:
            q = [msg.position[index[n]] for n in panda.JOINT_NAMES]
        except (KeyError, IndexError):
            return
        self.agent.on_joints(q)

    def on_objects(self, msg: String) -> None:
        try:
            objects = json.loads(msg.data)["objects"]
            self.agent.on_objects({str(n): o["position"] for n, o in objects.items()})
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            self.get_logger().warning(f"object poses ignored: {exc}", throttle_duration_sec=1.0)

    def on_status(self, msg: String) -> None:
        try:
            status = json.loads(msg.data)
            state = status.get("state")
        except (ValueError, AttributeError):
            return
        queue = self.agent.queue
        if not queue:
            return
        if state == RUNNING and queue[0].started is None:
            self.agent.started(queue[0].task_id, self.now())
        elif state in FINAL_SKILL_STATES:
            self.agent.done(queue[0].task_id)

    def destroy_node(self):
        for name in ("miles_ros.agent.arm_agent", "miles_ros.agent.contract_net"):
            logging.getLogger(name).removeHandler(self.log_handler)
        return super().destroy_node()


def main(args=None) -> None:
    run_node(ArmAgentNode, args)


if __name__ == "__main__":
    main()
