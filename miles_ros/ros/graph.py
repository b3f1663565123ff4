"""The one in-process graph builder: Miles nodes in this process, like a ROS 2 component
container, for ``miles up``, ``miles demo``, the benches and the tests.

:func:`node_factories` builds each part's node with its config/*.yaml (the same nodes and
parameter files as ``launch/bringup.launch.py``), then a params file, then overrides;
:func:`cell_factories` does the same for a scene of several arms (one sim, a safety and a
skill node per arm, under the arm's namespace); :class:`InProcessGraph` owns the rclpy
context (its own ROS domain), the nodes and one
single-threaded executor (:func:`graph_executor`), spun on a thread or by the caller,
and tears them down in order. The parts of :data:`PROCESS_PARTS` (perception) run beside
it, each in a process of its own on the same domain (:func:`start_processes`,
:mod:`miles_ros.ros.processes`), started and stopped with the graph.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import threading
from collections.abc import Callable

import rclpy
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.signals import SignalHandlerOptions

from miles_ros.params import config_dir
from miles_ros.ros.node_main import spin_until
from miles_ros.ros.processes import NodeProcess, ros_args, stop_all, wait_up
from miles_ros.runtime.realtime import realtime

PARTS: dict[str, tuple[str, str, str]] = {
    "sim": ("miles_ros.ros.sim_node", "SimNode", "sim.yaml"),
    "safety": ("miles_ros.ros.safety_node", "SafetyNode", "safety.yaml"),
    "skills": ("miles_ros.ros.skill_node", "SkillNode", "skills.yaml"),
    "manager": ("miles_ros.ros.manager_node", "ManagerNode", "manager.yaml"),
    "perception": ("miles_ros.ros.perception_node", "PerceptionNode", "perception.yaml"),
}
"""Part -> (module, Node class, parameter file in config/), in start order. ``perception``
runs only when asked for (:func:`with_perception`)."""

PROCESS_PARTS: frozenset[str] = frozenset({"perception"})
"""Parts that :meth:`InProcessGraph.of_parts` runs in a process of their own (as ``ros2
launch`` runs every node; :class:`~miles_ros.ros.processes.NodeProcess`), not on the graph's
executor: perception's frames (decoding, detection, tracking: tens of ms of numpy and OpenCV
each) would share one interpreter with the 250 Hz sim, safety and skill loops. Every other
part stays in the one process, as before."""

PERCEPTION_OVERRIDES: dict[str, dict] = {
    "sim": {"publish_camera": True, "publish_truth_only": True},
}
"""With perception: the sim publishes its camera, and its true object poses only on
/miles/scene/objects_truth (the perception node owns /miles/scene/objects)."""


def with_perception(
    parts: list[str], overrides: dict[str, dict] | None = None
) -> tuple[list[str], dict[str, dict]]:
    """``parts`` with the perception node (last, so the other parts keep their places; once
    for a whole cell) and ``overrides`` with :data:`PERCEPTION_OVERRIDES` under them (the
    caller's win)."""
    merged = {part: dict(values) for part, values in (overrides or {}).items()}
    for part, values in PERCEPTION_OVERRIDES.items():
        merged[part] = {**values, **merged.get(part, {})}
    return [p for p in parts if p != "perception"] + ["perception"], merged


IN_PROCESS_SIM_OVERRIDES: dict[str, dict] = {
    "safety": {"state_timeout": 2.0, "peer_max_age": 0.25},
    "skills": {"state_timeout": 2.0},
}
"""Applied when the PyBullet sim runs in the same Python process (and no params file is
given): a GIL stall on a busy machine (a model loading, a camera frame) can pause
/joint_states for longer than the 0.5 s that config/ keeps for a real robot, which
latched the e-stop with "robot state lost" in tests on 2 loaded cores. The same stalls
delay the arms' occupancy past the 0.05 s of ``peer_max_age`` (a controlled stop every
second or so on 2 loaded cores): in one process a peer counts as stale after 0.25 s.
Separation does not depend on it: a peer's envelope grows with its measured age."""

NodeFactory = Callable[[rclpy.Context], Node]
"""Builds one node in a context."""


def node_factories(
    parts: list[str],
    params_file: str | None = None,
    overrides: dict[str, dict] | None = None,
    namespace: str = "",
    in_process_sim: bool | None = None,
) -> list[tuple[str, NodeFactory]]:
    """``(part, factory(context) -> Node)`` for each part: the node class with its
    config/*.yaml, then ``params_file``, then ``overrides[part]`` (name -> value), in
    ``namespace`` (node names only: topics are absolute parameters). ``in_process_sim``
    (None: ``"sim" in parts``) applies :data:`IN_PROCESS_SIM_OVERRIDES` without a
    ``params_file``."""
    out = []
    if in_process_sim is None:
        in_process_sim = "sim" in parts
    defaults = IN_PROCESS_SIM_OVERRIDES if in_process_sim and not params_file else {}
    for part in parts:
        module_name, class_name, config = {**PARTS, **CELL_PARTS}[part]
        cls = getattr(importlib.import_module(module_name), class_name)
        args = ["--ros-args"]
        if (config_dir() / config).is_file():
            args += ["--params-file", str(config_dir() / config)]
        if params_file:
            args += ["--params-file", str(params_file)]
        values = {**defaults.get(part, {}), **((overrides or {}).get(part) or {})}
        extra = [Parameter(k, value=v) for k, v in values.items()]

        def make(context, cls=cls, args=args, extra=extra):
            kwargs = {"namespace": namespace} if namespace else {}
            return cls(context=context, cli_args=args, parameter_overrides=extra, **kwargs)

        out.append((part, make))
    return out


CELL_PARTS: dict[str, tuple[str, str, str]] = {
    "agents": ("miles_ros.ros.arm_agent_node", "ArmAgentNode", "arm_agent.yaml"),
}
"""Parts only a cell of several arms has (one per arm, with the manager): the arm
agents that bid for tasks in the manager's contract net."""


def cell_factories(
    scene_file: str,
    parts: list[str],
    params_file: str | None = None,
    overrides: dict[str, dict] | None = None,
) -> list[tuple[str, NodeFactory]]:
    """The graph of ``parts`` for the cell of ``scene_file``: ``sim`` once (every arm of
    the scene), ``safety`` and ``skills`` once per arm (``arm`` set, node namespace
    ``/ARM``, labels ``safety/ARM``, ``skills/ARM``), with ``manager`` an arm agent per
    arm (``agents/ARM``, :data:`CELL_PARTS`, where this checkout has arm_agent_node)
    and the manager once (``scene_file`` set: it runs the cell's goals by contract net
    and scopes each arm's topics itself). ``overrides[part]`` applies to every copy of a
    part. A scene without ``arms:`` gives :func:`node_factories` with ``scene_file`` set."""
    from sims.scene import load_scene

    scene = load_scene(scene_file)  # a clear error before any node is built
    in_process_sim = "sim" in parts
    overrides = overrides or {}

    def build(part: str, namespace: str = "", **more) -> tuple[str, NodeFactory]:
        values = {part: {"scene_file": str(scene_file), **more, **(overrides.get(part) or {})}}
        ((_, make),) = node_factories([part], params_file, values, namespace, in_process_sim)
        return (f"{part}/{namespace}" if namespace else part), make

    if not scene.multi_arm:
        return [build(part) for part in parts]
    arms = [mount.name for mount in scene.arms]
    per_arm = ["safety", "skills"]
    if "manager" in parts and importlib.util.find_spec(CELL_PARTS["agents"][0]) is not None:
        per_arm.append("agents")
        parts = [p for p in parts if p != "manager"] + ["agents", "manager"]
    out = []
    for part in parts:
        if part in per_arm:
            out += [build(part, arm, arm=arm) for arm in arms]
        elif part not in CELL_PARTS:
            out.append(build(part))
    return out


def warm_up_safety() -> None:
    """Load the safety supervisor's numba kernels into this process before the graph
    starts (:func:`miles_ros.safety.supervisor.warm_up`). Otherwise the first safety
    node's construction loads them (about a second with the GIL held) while nodes built
    before it already run, and a robot-state timeout can latch the e-stop with "robot
    state lost" on a slow machine."""
    from miles_ros.safety.supervisor import warm_up

    warm_up()


def graph_executor(context) -> SingleThreadedExecutor:
    """The executor for several nodes in one process (``miles up``, ``miles demo``,
    the tests' graphs): single-threaded. rclpy's MultiThreadedExecutor spends the GIL on
    its own bookkeeping: with sim_node (250 Hz), safety_node (250 Hz) and skill_node
    in one process on 2 cores it delivered joint states at ~45 Hz (the simulated arm ran
    at ~1/5 of real time and skill periods stretched to 110-350 ms); single-threaded,
    the same graph runs at ~240 Hz with skill periods within 2 ms of 40 ms. No callback
    may block: slow work (planning, camera frames) runs on threads."""
    return SingleThreadedExecutor(context=context)


def start_processes(
    parts: list[str],
    domain_id: int,
    params_file: str | None = None,
    overrides: dict[str, dict] | None = None,
    scene_file: str | None = None,
) -> list[NodeProcess]:
    """Each of ``parts`` (keys of :data:`PARTS`, once each, in the root namespace) as its
    node executable in a process of its own on ``domain_id``: its config/*.yaml, then
    ``params_file``, then ``overrides[part]`` (``scene_file`` set when given), as
    :func:`node_factories` builds an in-process node."""
    out: list[NodeProcess] = []
    try:
        for part in parts:
            module, _, config = PARTS[part]
            values = {"scene_file": str(scene_file)} if scene_file else {}
            values.update((overrides or {}).get(part) or {})
            args = ros_args(config_dir() / config, params_file, values)
            node_name = module.rsplit(".", 1)[1]  # each node executable is named after itself
            out.append(NodeProcess(part, module, node_name, args, domain_id))
    except BaseException:
        stop_all(out)
        raise
    return out


class InProcessGraph:
    """Nodes from ``factories`` in their own context and ROS domain, on one executor, and
    (:meth:`of_parts`) the :data:`PROCESS_PARTS` in processes of their own (``processes``).

    ``domain_id`` None: ``ROS_DOMAIN_ID`` (or 0). ``times[i]`` is how long the i-th node
    took to construct (s). :meth:`add` puts further nodes (a client, a recorder) on the
    executor; :meth:`spin_in_thread` spins it on a daemon thread; :meth:`close` (also on
    leaving a ``with`` block) stops the executor and destroys the nodes, last built
    first. A factory that raises closes what was built.
    """

    def __init__(
        self,
        factories: list[NodeFactory],
        domain_id: int | None = None,
        on_built: Callable[[int, float], None] | None = None,
    ) -> None:
        import time

        self.context = rclpy.Context()
        # rclpy's own SIGINT handler would shut the context down under a running callback
        # (a traceback from inside rclpy): Ctrl-C is the caller's, see spin().
        rclpy.init(
            context=self.context,
            domain_id=domain_id,
            signal_handler_options=SignalHandlerOptions.NO,
        )
        self.domain_id = self.context.get_domain_id()
        self.executor = graph_executor(self.context)
        self.nodes: list[Node] = []
        self.processes: list[NodeProcess] = []
        """Parts in processes of their own (:class:`~miles_ros.ros.processes.NodeProcess`),
        stopped by :meth:`close` before the nodes."""
        self.thread: threading.Thread | None = None
        self._closed = False
        try:
            for k, make in enumerate(factories):
                t0 = time.perf_counter()
                self.add(make(self.context))
                if on_built is not None:
                    on_built(k, time.perf_counter() - t0)
        except BaseException:
            self.close()
            raise

    @classmethod
    def of_parts(
        cls,
        parts: list[str],
        params_file: str | None = None,
        overrides: dict[str, dict] | None = None,
        domain_id: int | None = None,
        times: dict[str, float] | None = None,
        scene_file: str | None = None,
        processes: frozenset[str] | set[str] = PROCESS_PARTS,
    ) -> InProcessGraph:
        """The graph of ``parts`` (keys of :data:`PARTS`) as :func:`node_factories` builds
        them, or with ``scene_file`` for that scene's cell as :func:`cell_factories` does
        (labels such as ``safety/left_arm``); ``times[label]`` gets each node's
        construction time (s). The parts in ``processes`` (:data:`PROCESS_PARTS`; empty:
        everything in this process) run in processes of their own, started first (their
        start-up overlaps the nodes' construction) and waited for by discovery once the
        nodes are built (:func:`~miles_ros.ros.processes.wait_up`). The safety
        supervisor's kernels are warmed up first when ``safety`` is a part."""
        own = [p for p in parts if p in processes]
        here = [p for p in parts if p not in processes]
        if scene_file is None:
            named = node_factories(here, params_file, overrides, in_process_sim="sim" in parts)
        else:
            named = cell_factories(scene_file, here, params_file, overrides)
        if domain_id is None:
            domain_id = int(os.environ.get("ROS_DOMAIN_ID") or 0)
        children = start_processes(own, domain_id, params_file, overrides, scene_file)
        try:
            if "safety" in here:
                warm_up_safety()
            graph = cls.of_named(named, domain_id, times)
        except BaseException:
            stop_all(children)
            raise
        graph.processes = children
        try:
            wait_up(graph.context, children)
        except BaseException:
            graph.close()
            raise
        return graph

    @classmethod
    def of_named(
        cls,
        named: list[tuple[str, NodeFactory]],
        domain_id: int | None = None,
        times: dict[str, float] | None = None,
    ) -> InProcessGraph:
        """The graph of ``(label, factory)`` pairs; ``times[label]`` gets each node's
        construction time (s)."""

        def built(k: int, seconds: float) -> None:
            if times is not None:
                times[named[k][0]] = round(seconds, 2)

        return cls([make for _, make in named], domain_id, built)

    def add(self, node: Node) -> Node:
        """Spin ``node`` with the graph (destroyed by :meth:`close`)."""
        self.nodes.append(node)
        self.executor.add_node(node)
        return node

    def spin(
        self,
        duration: float = 0.0,
        stop: Callable[[], bool] | None = None,
        rt_priority: int = 0,
    ) -> None:
        """Spin in this thread for ``duration`` s (0: until shutdown) or until ``stop()``
        is true (:func:`~miles_ros.ros.node_main.spin_until`: a running callback always
        finishes; ``miles up`` passes its :class:`~miles_ros.ros.signals.StopSignals`).
        ``rt_priority`` > 0: this thread under SCHED_FIFO at that priority while it spins
        (:func:`~miles_ros.runtime.realtime.realtime`)."""
        with realtime(rt_priority):
            spin_until(self.executor, self.context, stop or (lambda: False), duration)

    def spin_in_thread(self, name: str = "miles_graph_spin", rt_priority: int = 0) -> None:
        """Spin on a daemon thread (under SCHED_FIFO at ``rt_priority`` when > 0; checked
        here, so a refusal is raised to the caller)."""
        with realtime(rt_priority):  # refused here rather than on the thread
            pass

        # close() completes this future: the spin returns on the thread itself, which is
        # joined before the executor is shut down (shutting it down under a spinning
        # thread races its wait on the executor's guard condition, ros2/rclpy#968).
        self._spin_stop = self.executor.create_future()

        def spin() -> None:
            with realtime(rt_priority):
                self.executor.spin_until_future_complete(self._spin_stop)

        self.thread = threading.Thread(target=spin, daemon=True, name=name)
        self.thread.start()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        stop_all(self.processes)
        if self.thread is not None:
            self._spin_stop.set_result(True)  # wakes the executor; the spin returns
            self.thread.join(timeout=10.0)
        self.executor.shutdown(timeout_sec=5.0)
        for node in reversed(self.nodes):
            self.executor.remove_node(node)
            node.destroy_node()
        rclpy.try_shutdown(context=self.context)

    def __enter__(self) -> InProcessGraph:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
