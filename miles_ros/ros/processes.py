"""Nodes in processes of their own, beside an in-process graph: :class:`NodeProcess`.

A part's node runs as its executable would under ``ros2 launch``: ``python -m
<module> --ros-args --params-file config/<part>.yaml [--params-file FILE] [-p name:=value
...]`` on the graph's ``ROS_DOMAIN_ID`` (:data:`miles_ros.ros.graph.PROCESS_PARTS` says
which parts). The child:

- imports this checkout's code (its root first on ``PYTHONPATH``, whatever an installed
  console script points at);
- runs in a process group of its own: a Ctrl-C on the terminal reaches the parent only,
  and the parent stops its children in order (:meth:`NodeProcess.stop`: SIGINT, which
  :func:`~miles_ros.ros.node_main.run_node` turns into a clean stop, then SIGKILL after
  :data:`STOP_TIMEOUT_S`);
- stops by itself when the parent dies (even by SIGKILL): ``run_node`` stops once its
  parent is no longer the process named in :data:`PARENT_PID_ENV` (:func:`orphaned`), so
  no node outlives ``miles up``.

"Up" is by discovery, not by a sleep: :func:`wait_up` waits until the graph sees each
child's node with a publisher of its own (its first is created once its parameters,
scene and core are loaded), and fails at once, with the exit status, if a child exits.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

PARENT_PID_ENV = "MILES_PARENT_PID"
"""Set in a node process's environment: the pid of the process that started it."""
STOP_TIMEOUT_S = 10.0
"""How long :meth:`NodeProcess.stop` waits for a clean exit before SIGKILL (s)."""
UP_TIMEOUT_S = 60.0
"""The longest :func:`wait_up` waits for a node process to be discovered (s)."""
UP_POLL_S = 0.05
"""How often :func:`wait_up` looks at the ROS graph (rclpy has no discovery event)."""
ROS_OWN_TOPICS = frozenset({"/rosout", "/parameter_events"})
"""Topics every rclpy node publishes: not a sign that the node's own parts are up."""
SOURCE_ROOT = Path(__file__).resolve().parents[2]
"""The checkout this module runs from (miles_ros/ and sims/ live there)."""


def orphaned() -> Callable[[], bool]:
    """For a node executable: a check that is true once the process that started it (the
    pid in :data:`PARENT_PID_ENV`) is gone, i.e. this process was re-parented; always false
    without that variable (a node started by hand or by ``ros2 launch``). The variable is
    taken out of the environment, so this process's own children do not inherit it."""
    parent = os.environ.pop(PARENT_PID_ENV, "")
    if not parent:
        return lambda: False
    pid = int(parent)
    return lambda: os.getppid() != pid


def child_environment(domain_id: int, **extra: str) -> dict[str, str]:
    """The environment of a child of this process on the graph's ``domain_id``: ours, with
    :data:`PARENT_PID_ENV` (:func:`orphaned`), this checkout first on ``PYTHONPATH`` and
    ``extra``."""
    env = {
        **os.environ,
        "ROS_DOMAIN_ID": str(domain_id),
        PARENT_PID_ENV: str(os.getpid()),
        **extra,
    }
    path = env.get("PYTHONPATH", "")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(SOURCE_ROOT), path) if p)
    return env


def ros_args(
    config: Path | None,
    params_file: str | None = None,
    overrides: dict | None = None,
    namespace: str = "",
) -> list[str]:
    """The ``--ros-args`` of a node process: ``config`` (its config/*.yaml), then
    ``params_file``, then each override as ``-p name:=value`` (JSON, which the ROS
    argument parser reads as YAML), in ``namespace``."""
    args = ["--ros-args"]
    if config is not None and config.is_file():
        args += ["--params-file", str(config)]
    if params_file:
        args += ["--params-file", str(params_file)]
    for name, value in (overrides or {}).items():
        args += ["-p", f"{name}:={json.dumps(value)}"]
    if namespace:
        args += ["-r", f"__ns:=/{namespace.strip('/')}"]
    return args


class NodeProcess:
    """One node executable in a child process (see the module docstring): ``module`` run
    with ``python -m`` and ``args`` (:func:`ros_args`), ``node_name`` (fully qualified) is
    what it shows in the ROS graph, ``label`` names it in messages."""

    def __init__(self, label: str, module: str, node_name: str, args: list[str], domain_id: int):
        self.label = label
        self.node_name = node_name if node_name.startswith("/") else f"/{node_name}"
        self.command = [sys.executable, "-m", module, *args]
        self.proc = subprocess.Popen(
            self.command, env=child_environment(domain_id), process_group=0
        )

    @property
    def pid(self) -> int:
        return self.proc.pid

    def running(self) -> bool:
        return self.proc.poll() is None

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> int:
        """Ask the node to stop (SIGINT: it finishes its callback and destroys itself),
        SIGKILL after ``timeout`` s; returns its exit status."""
        return interrupt(self.proc, timeout)


class CommandProcess:
    """A ``miles`` command (``python -m <module> args``) in a child process on
    ``domain_id``, started as a :class:`NodeProcess` is (:func:`child_environment` with
    ``env``: never secrets on the command line), which says it is up by printing a line
    that starts with ``ready``. The constructor returns once it has (RuntimeError with its
    exit status if it exits first, or after ``timeout`` s): ``ready_line`` is that line
    without the prefix, ``lines`` the lines it printed before it; each line is copied to
    this process's stdout, then and afterwards."""

    def __init__(
        self,
        label: str,
        module: str,
        args: list[str],
        domain_id: int,
        ready: str,
        env: dict[str, str] | None = None,
        timeout: float = UP_TIMEOUT_S,
    ) -> None:
        self.label = label
        self.command = [sys.executable, "-m", module, *args]
        self.proc = subprocess.Popen(
            self.command,
            env=child_environment(domain_id, **(env or {})),
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
            process_group=0,
        )
        self.lines: list[str] = []
        self.ready_line = self._wait_for(ready, timeout)
        self._copy = threading.Thread(target=self._copy_output, daemon=True, name=f"{label}_out")
        self._copy.start()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _wait_for(self, ready: str, timeout: float) -> str:
        """The child's ``ready`` line (the lines before it are kept and copied through); a
        reader thread, so the deadline holds even while the child prints nothing."""
        found: list[str] = []
        done = threading.Event()

        def read() -> None:
            for line in self.proc.stdout:
                print(line, end="", flush=True)
                if line.startswith(ready):
                    found.append(line[len(ready) :].strip())
                    break
                self.lines.append(line.rstrip("\n"))
            done.set()

        threading.Thread(target=read, daemon=True, name=f"{self.label}_up").start()
        if not done.wait(timeout) or not found:
            self.stop()
            raise RuntimeError(
                f"the {self.label} ({' '.join(self.command)}) was not up within {timeout:g} s "
                f"(exit status {self.proc.returncode})"
            )
        return found[0]

    def _copy_output(self) -> None:
        for line in self.proc.stdout:
            print(line, end="", flush=True)

    def running(self) -> bool:
        return self.proc.poll() is None

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> int:
        """SIGINT (a Miles command stops cleanly), SIGKILL after ``timeout`` s; returns its
        exit status."""
        return interrupt(self.proc, timeout)


def interrupt(proc: subprocess.Popen, timeout: float = STOP_TIMEOUT_S) -> int:
    """Stop a child of ours as Ctrl-C would (SIGINT: a Miles executable finishes what it
    is doing and exits cleanly), SIGKILL after ``timeout`` s; returns its exit status."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.returncode


def is_up(node, name: str) -> bool:
    """Whether ``node``'s ROS graph holds the node ``name`` (fully qualified) with a
    publisher of its own (beyond :data:`ROS_OWN_TOPICS`)."""
    if name not in node.get_fully_qualified_node_names():
        return False
    namespace, _, base = name.rpartition("/")
    try:
        topics = node.get_publisher_names_and_types_by_node(base, namespace or "/")
    except Exception:  # rclpy raises while the node's entry is half-discovered
        return False
    return any(topic not in ROS_OWN_TOPICS for topic, _ in topics)


def wait_up(context, processes: list[NodeProcess], timeout: float = UP_TIMEOUT_S) -> None:
    """Wait until every one of ``processes`` is up (:func:`is_up`, seen from a node of
    ``context``); RuntimeError when one exits first or ``timeout`` s pass."""
    if not processes:
        return
    import rclpy

    watcher = rclpy.create_node("miles_process_watch", context=context)
    try:
        deadline = time.monotonic() + timeout
        waiting = list(processes)
        while waiting:
            for child in list(waiting):
                if not child.running():
                    raise RuntimeError(
                        f"{child.label} ({' '.join(child.command)}) exited with status "
                        f"{child.proc.returncode} before it was up"
                    )
                if is_up(watcher, child.node_name):
                    waiting.remove(child)
            if waiting and time.monotonic() > deadline:
                names = ", ".join(child.label for child in waiting)
                raise RuntimeError(f"{names} not up within {timeout:g} s")
            if waiting:
                time.sleep(UP_POLL_S)  # polling discovery, with a deadline
    finally:
        watcher.destroy_node()


def stop_all(processes: list[NodeProcess]) -> None:
    """Stop ``processes``, the last started first."""
    for child in reversed(processes):
        child.stop()
