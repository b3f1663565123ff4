"""Small helpers shared by the nodes: QoS profiles, parameters declared from a typed
dataclass (one per field: typed default, the field's docstring as description,
read-only unless listed as dynamic, validated by an on-set callback), and a bridge from
Python ``logging`` to the node's logger, and the entry point every node executable runs."""

from __future__ import annotations

import ast
import functools
import inspect
import logging
from collections.abc import Callable, Collection
from dataclasses import MISSING, fields
from typing import Any, get_args, get_type_hints

import rclpy
from rcl_interfaces.msg import ParameterDescriptor, SetParametersResult
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy

SENSOR_QOS = QoSProfile(
    history=HistoryPolicy.KEEP_LAST,
    depth=5,
    reliability=ReliabilityPolicy.BEST_EFFORT,
    durability=DurabilityPolicy.VOLATILE,
)
"""Sensor streams: best effort, small depth (a reliable publisher still connects)."""
COMMAND_QOS = QoSProfile(
    history=HistoryPolicy.KEEP_LAST,
    depth=10,
    reliability=ReliabilityPolicy.RELIABLE,
    durability=DurabilityPolicy.VOLATILE,
)
"""Commands and events: reliable."""
LATCHED_QOS = QoSProfile(
    history=HistoryPolicy.KEEP_LAST,
    depth=1,
    reliability=ReliabilityPolicy.RELIABLE,
    durability=DurabilityPolicy.TRANSIENT_LOCAL,
)
"""State that late joiners must see (e-stop state): reliable + transient-local."""

_SCALARS = {
    bool: Parameter.Type.BOOL,
    int: Parameter.Type.INTEGER,
    float: Parameter.Type.DOUBLE,
    str: Parameter.Type.STRING,
}
_ARRAYS = {
    bool: Parameter.Type.BOOL_ARRAY,
    int: Parameter.Type.INTEGER_ARRAY,
    float: Parameter.Type.DOUBLE_ARRAY,
    str: Parameter.Type.STRING_ARRAY,
}


@functools.cache
def field_docs(cls: type) -> dict[str, str]:
    """The docstring under each field of a dataclass, read from its source."""
    body = ast.parse(inspect.getsource(cls)).body[0].body  # type: ignore[attr-defined]
    docs: dict[str, str] = {}
    for node, nxt in zip(body, body[1:], strict=False):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(nxt, ast.Expr)
            and isinstance(nxt.value, ast.Constant)
            and isinstance(nxt.value.value, str)
        ):
            docs[node.target.id] = " ".join(nxt.value.value.split())
    return docs


def _param_type(hint: Any) -> Parameter.Type:
    args = get_args(hint)
    if args:  # tuple[X, ...]
        return _ARRAYS[args[0]]
    return _SCALARS[hint]


def declare_dataclass(node: Node, cls: type, dynamic: Collection[str] = ()) -> Any:
    """Declare one parameter per field of dataclass ``cls`` and return ``cls`` built from
    their values (arrays as tuples). Fields not in ``dynamic`` are read-only."""
    hints = get_type_hints(cls)
    docs = field_docs(cls)
    values = {}
    for f in fields(cls):
        default = f.default if f.default is not MISSING else f.default_factory()  # type: ignore[misc]
        ptype = _param_type(hints[f.name])
        descriptor = ParameterDescriptor(
            name=f.name,
            type=int(ptype),
            description=docs.get(f.name, ""),
            read_only=f.name not in dynamic,
        )
        initial = list(default) if isinstance(default, tuple) else default
        param = node.declare_parameter(f.name, initial if initial != [] else ptype, descriptor)
        value = param.value
        if value is None:
            value = default
        values[f.name] = tuple(value) if isinstance(value, list | tuple) else value
    return cls(**values)


def validating_callback(
    check: Callable[[str, Any], str | None],
) -> Callable[[list[Parameter]], SetParametersResult]:
    """An on-set-parameters callback that refuses a value when ``check(name, value)``
    returns a reason (arrays are passed as tuples)."""

    def callback(params: list[Parameter]) -> SetParametersResult:
        for param in params:
            value = param.value
            if isinstance(value, list | tuple) or hasattr(value, "tolist"):
                value = tuple(value)
            reason = check(param.name, value)
            if reason:
                return SetParametersResult(successful=False, reason=reason)
        return SetParametersResult(successful=True)

    return callback


class NodeLogHandler(logging.Handler):
    """Forwards Python ``logging`` records to a node's logger."""

    def __init__(self, node_logger: Any) -> None:
        super().__init__()
        self._logger = node_logger

    def emit(self, record: logging.LogRecord) -> None:
        message = self.format(record)
        if record.levelno >= logging.ERROR:
            self._logger.error(message)
        elif record.levelno >= logging.WARNING:
            self._logger.warning(message)
        elif record.levelno >= logging.INFO:
            self._logger.info(message)
        else:
            self._logger.debug(message)


def graph_executor(context) -> SingleThreadedExecutor:
    """The executor for several nodes in one process (``miles up``, ``miles demo``,
    the tests' graphs): single-threaded. rclpy's MultiThreadedExecutor spends the GIL on
    its own bookkeeping: with sim_node (250 Hz), safety_node (250 Hz) and skill_node
    in one process on 2 cores it delivered joint states at ~45 Hz (the simulated arm ran
    at ~1/5 of real time and skill periods stretched to 110-350 ms); single-threaded,
    the same graph runs at ~240 Hz with skill periods within 2 ms of 40 ms. No callback
    may block: slow work (planning, camera frames) runs on threads."""
    return SingleThreadedExecutor(context=context)


def run_node(make_node: Callable[[], Node], args=None) -> None:
    """A node executable's ``main``: init rclpy, build the node, spin it (single-threaded,
    see :func:`graph_executor`) until Ctrl-C or shutdown, then clean up."""
    rclpy.init(args=args)
    node = None
    try:
        node = make_node()
        rclpy.spin(node)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        if node is not None:
            node.destroy_node()
        rclpy.try_shutdown()


def stop_graph(executor, nodes: list[Node], context) -> None:
    """Tear down an in-process graph: stop the executor, then remove and destroy the nodes
    (last built first) and shut the context down."""
    executor.shutdown(timeout_sec=5.0)
    for node in reversed(nodes):
        executor.remove_node(node)
        node.destroy_node()
    rclpy.try_shutdown(context=context)
