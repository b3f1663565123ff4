"""What every node executable shares: its ``main`` (:func:`run_node`) and a bridge from
Python ``logging`` to the node's logger (:class:`NodeLogHandler`)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import rclpy
from rclpy.executors import ExternalShutdownException
from rclpy.node import Node


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


def run_node(make_node: Callable[[], Node], args=None) -> None:
    """A node executable's ``main``: init rclpy, build the node, spin it (single-threaded,
    see :func:`miles_ros.ros.graph.graph_executor`) until Ctrl-C or shutdown, then clean
    up."""
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
