"""What every node executable shares: its ``main`` (:func:`run_node`), the spin loop that
stops cleanly on Ctrl-C (:func:`spin_until`, also behind ``miles up``) and a bridge from
Python ``logging`` to the node's logger (:class:`NodeLogHandler`)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import rclpy
from rclpy.executors import Executor, ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node
from rclpy.signals import SignalHandlerOptions

from miles_ros.ros.processes import orphaned
from miles_ros.ros.signals import StopSignals

STOP_POLL_S = 0.1
"""The longest :func:`spin_until` waits for work before it looks at its stop condition
again (s): how long a Ctrl-C can take to be noticed on an idle graph."""


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


def spin_until(
    executor: Executor,
    context: rclpy.Context,
    stop: Callable[[], bool],
    duration: float = 0.0,
) -> None:
    """Spin ``executor`` in this thread, one callback at a time, until ``stop()`` is true
    (looked at after each callback and at least every :data:`STOP_POLL_S`), ``duration``
    s have passed (0: no limit) or ``context`` shuts down. A running callback always
    finishes: with :class:`~miles_ros.ros.signals.StopSignals` as ``stop``, Ctrl-C never
    interrupts rclpy or a node half-way."""
    deadline = time.monotonic() + duration if duration > 0 else None
    try:
        while context.ok() and not stop():
            timeout = STOP_POLL_S
            if deadline is not None:
                timeout = min(timeout, deadline - time.monotonic())
                if timeout <= 0:
                    return
            executor.spin_once(timeout_sec=timeout)
    except ExternalShutdownException:
        pass


def run_node(make_node: Callable[[], Node], args=None) -> None:
    """A node executable's ``main``: init rclpy, build the node, spin it (single-threaded,
    see :func:`miles_ros.ros.graph.graph_executor`) until Ctrl-C, SIGTERM or shutdown, then
    clean up. The signals only request the stop (:class:`StopSignals`, rclpy's own
    handlers are not installed): the callback that is running finishes, no traceback. A
    node process started by a graph (:mod:`miles_ros.ros.processes`) also stops when that
    parent dies, so it never outlives it."""
    parent_gone = orphaned()
    with StopSignals() as signals:

        def stop() -> bool:
            return signals() or parent_gone()

        rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
        context = rclpy.get_default_context()
        executor = SingleThreadedExecutor(context=context)
        node = None
        try:
            node = make_node()
            executor.add_node(node)
            spin_until(executor, context, stop)
        finally:
            executor.shutdown(timeout_sec=5.0)
            if node is not None:
                node.destroy_node()
            rclpy.try_shutdown()
