"""``manager_node``: a goal in words -> a plan -> skill requests, monitored to the end.

In: ``/miles/goal`` (String, natural language), ``/miles/skill/status`` (JSON),
``/miles/safety/state`` (JSON, transient-local), ``/miles/safety/events`` (JSON),
``/miles/scene/objects`` (JSON poses: the world the planner plans in; the scene file
until the first message). Out: ``/miles/plan`` and ``/miles/manager/status`` (JSON,
reliable + transient-local, so a late ``miles goal`` sees the latest),
``/miles/skill/request`` (``{"id", "skill", "params", "trace_id"}``, or
``{"id", "cancel": true}`` on a timeout or an e-stop). One goal at a time; a failed step
is replanned with the failure as feedback; a latched e-stop ends the goal ``estopped``
(the manager never resets it); every goal is reflected into memory. Planning runs on a
worker thread (:class:`miles_ros.manager.glue.ManagerDriver`), so statuses and
the e-stop keep flowing while the language model thinks; the model itself loads in the
constructor, before the node spins. Parameters: config/manager.yaml.

A scene with several arms (``scene_file`` listing ``arms:``) runs goals as a cell
(:class:`miles_ros.manager.cell.CellDriver`): the planned steps are announced on
``/miles/tasks/announce``, bids come on ``/miles/tasks/bid``, awards go on
``/miles/tasks/award`` and requests on ``/<arm>/miles/skill/request``; statuses come from
``/<arm>/miles/skill/status``.
"""

from __future__ import annotations

import json
import logging

from rclpy.node import Node
from std_msgs.msg import String

from miles_ros.interfaces import CELL_TOPICS, arm_scoped
from miles_ros.manager.build import build_planner
from miles_ros.manager.cell import CellDriver, cell_registry
from miles_ros.manager.glue import ManagerDriver
from miles_ros.params.manager import ManagerNodeParams, check_param
from miles_ros.ros.node_main import NodeLogHandler, run_node
from miles_ros.ros.params import declare_params
from miles_ros.ros.qos import COMMAND_QOS, LATCHED_QOS
from miles_ros.runtime.frames import arm_bodies
from sims.scene import load_scene


class ManagerNode(Node):
    def __init__(self, planner_factory=None, **kwargs) -> None:
        """``planner_factory(params) -> Planner`` replaces the planner the parameters
        describe (tests inject fakes through it). The model loads here, before spinning."""
        super().__init__("manager_node", **kwargs)
        self.params = prm = declare_params(self, ManagerNodeParams, check=check_param)
        self.log_handler = NodeLogHandler(self.get_logger())
        for name in ("miles_ros.manager", "miles_ros.agent"):
            logging.getLogger(name).addHandler(self.log_handler)
            logging.getLogger(name).setLevel(logging.INFO)
        self.pub_plan = self.create_publisher(String, prm.plan_topic, LATCHED_QOS)
        self.pub_status = self.create_publisher(String, prm.status_topic, LATCHED_QOS)
        self.scene = load_scene(prm.scene_file or None)
        if self.scene.multi_arm:  # a cell: contract net; a single arm never announces
            self._init_cell(planner_factory)
            return
        self.pub_request = self.create_publisher(String, prm.request_topic, COMMAND_QOS)
        self.driver = ManagerDriver(
            prm,
            self._sender(self.pub_plan),
            self._sender(self.pub_status),
            self._sender(self.pub_request),
            planner_factory,
        )
        self.create_subscription(String, prm.goal_topic, self.on_goal, COMMAND_QOS)
        self.create_subscription(
            String, prm.skill_status_topic, self._json(self.driver.on_skill_status), COMMAND_QOS
        )
        self.create_subscription(
            String, prm.safety_state_topic, self._json(self.driver.on_safety_state), LATCHED_QOS
        )
        self.create_subscription(
            String, prm.safety_events_topic, self._json(self.driver.on_safety_event), COMMAND_QOS
        )
        self.create_subscription(
            String, prm.objects_topic, self._json(self.driver.on_scene), COMMAND_QOS
        )
        self.create_timer(0.1, self.driver.tick)
        self.driver.start()
        self.get_logger().info(
            f"manager: goals on {prm.goal_topic}, {prm.mode} planning, up to "
            f"{prm.max_replans} replans{'' if self.driver.planner else '; NO PLANNER'}"
        )

    def _init_cell(self, planner_factory) -> None:
        """The dual-arm path: :class:`miles_ros.manager.cell.CellDriver`."""
        prm, scene = self.params, self.scene
        arms = [m.name for m in scene.arms]
        planner = (planner_factory or build_planner)(prm)
        planner.registry = cell_registry(planner.registry)
        pubs = {
            "announce": self.create_publisher(String, CELL_TOPICS["announce"], COMMAND_QOS),
            "award": self.create_publisher(String, CELL_TOPICS["award"], COMMAND_QOS),
        }
        requests = {
            arm: self.create_publisher(String, arm_scoped(arm, prm.request_topic), COMMAND_QOS)
            for arm in arms
        }

        def send(message) -> None:
            pub = requests[message.arm] if message.kind == "request" else pubs[message.kind]
            pub.publish(String(data=message.payload))

        self.driver = CellDriver(
            arms,
            tuple(scene.objects),
            planner,
            send,
            self._sender(self.pub_status),
            clock=lambda: self.get_clock().now().nanoseconds * 1e-9,  # the arms' clock
            where={k: v.position[:2] for k, v in {**scene.objects, **scene.places}.items()},
            clearance=prm.cell_clearance,
            bodies=arm_bodies(scene),
        )
        self.create_subscription(
            String, CELL_TOPICS["bid"], lambda m: self.driver.on_bid(m.data), COMMAND_QOS
        )
        for arm in arms:
            self.create_subscription(
                String,
                arm_scoped(arm, prm.skill_status_topic),
                self._json(lambda data, arm=arm: self.driver.on_skill_status(arm, data)),
                COMMAND_QOS,
            )
        self.create_subscription(String, prm.goal_topic, self.on_goal, COMMAND_QOS)
        self.create_timer(0.05, self.driver.tick)
        self.driver.start()  # the idle status, latched: `miles goal` sees the manager
        self.get_logger().info(f"manager: a cell of {', '.join(arms)}; tasks by contract net")

    @staticmethod
    def _sender(publisher):
        return lambda data: publisher.publish(String(data=json.dumps(data)))

    def _json(self, handler):
        def callback(msg: String) -> None:
            try:
                data = json.loads(msg.data)
                if not isinstance(data, dict):
                    raise ValueError("not a JSON object")
                handler(data)
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                self.get_logger().warning(
                    f"ignored a message for {handler.__name__}: {exc}", throttle_duration_sec=1.0
                )

        return callback

    def on_goal(self, msg: String) -> None:
        if isinstance(self.driver, CellDriver):
            self.driver.on_goal(msg.data)
            self.get_logger().info(f"goal for the cell: {msg.data!r}")
            return
        seq = self.driver.on_goal(msg.data)
        self.get_logger().info(f"goal {seq}: {msg.data!r}")

    def destroy_node(self):
        self.driver.close()
        for name in ("miles_ros.manager", "miles_ros.agent"):
            logging.getLogger(name).removeHandler(self.log_handler)
        return super().destroy_node()


def main(args=None) -> None:
    run_node(ManagerNode, args)  # planning runs on the driver's worker thread


if __name__ == "__main__":
    main()
