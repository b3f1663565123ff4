"""ROS 2 runtime: skill-loop rate and jitter, joint-state-to-command latency, demo time.

    .venv/bin/python bench/ros.py --json

The graph of ``miles up`` (sim_node at 250 Hz joint states, safety_node at 250 Hz,
skill_node) in one process with a single-threaded executor over loopback DDS. The skill
node runs the shipped reach skill (ONNX; ``home`` when none is shipped) toward an
unreachable point, so it keeps working for the whole window, with its loop rate forced
to 100 Hz and then 250 Hz (``loop_rate_hz``). Each control period records its start
(monotonic) and the time from the newest joint state's header stamp to the command's
publication. The peer, in the same executor and the same run: a plain rclpy timer at the
same rate doing nothing (``baseline``), i.e. what the executor alone allows.

Two layouts: ``processes`` (the headline numbers: sim_node and safety_node in their own
processes as ``ros2 launch`` runs them, the skill node and the peer in this one with a
single-threaded executor) and ``one_process`` (everything in one process, as ``miles up``
and ``miles demo`` run it).

Prints one JSON object: ``loop`` {"100": {rate_hz, jitter_p50_ms, jitter_p99_ms,
periods}, "250": {...}}, ``baseline`` (same keys), ``state_to_command_ms`` {p50, p99}
(at 250 Hz), ``one_process`` (the same keys for the one-process layout),
``operator`` (the one-process graph at 250 Hz with the console, the 3D view on its web
viewer and the metrics on: ``loop``, ``baseline``, ``estop_latch_ms`` {p50, p99, max,
samples} from the console's handler to the supervisor's latch, ``estop_ms``
from ``POST /api/estop`` reaching the server to every supervisor's latched answer, and
``estop_round_trip_ms`` as this client sees it), ``operator_ab`` (the 250 Hz loop's p99
jitter in the same graph with those parts off and on, alternated over ``--ab-rounds``
rounds: :func:`measure_operator_ab`), ``perception_ab`` (the same with the camera and the
perception node off, on in the graph's process and on in a process of its own as ``miles
up --perception`` runs it; on, the camera's frame rate, exposure-to-pose and
frame-to-pose latency: :func:`measure_perception_ab`), ``perception_processes`` (the same
with sim, safety and perception each in its own process),
``demo_wall_s`` (``miles demo`` with the shipped skills), ``config`` (with the 1-minute
load average: on a shared 2-core machine the numbers say more about the load than the
code; compare each loop with its ``baseline`` peer).
Jitter = |period - nominal period|.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from policies.commands._common import stdout_to_stderr  # noqa: E402

UNREACHABLE = [0.9, 0.0, 0.9]
"""A reach target outside the arm's reach: the skill runs until cancelled. It lies outside
the shipped reach card's envelope, so the bench runs a copy of the shipped library whose
cards have no envelope block (:func:`_library_without_envelopes`): the skill node's loop
is what is measured, not its door check."""


def _library_without_envelopes(dest: Path) -> Path:
    """The shipped skills copied to ``dest``, each card without its ``envelope`` block (the
    ONNX files and their sha256 fields are unchanged)."""
    import yaml

    from policies.cards import card_path, library_skill_dirs

    for folder in library_skill_dirs():
        shutil.copytree(folder, dest / folder.name)
        card = card_path(dest / folder.name)  # the active version's
        data = yaml.safe_load(card.read_text())
        data.pop("envelope", None)
        card.write_text(yaml.safe_dump(data, sort_keys=False))
    return dest


def _stats(times: list[float], nominal: float) -> dict:
    t = np.asarray(times)
    if t.size < 3:
        return {"rate_hz": None, "jitter_p50_ms": None, "jitter_p99_ms": None, "periods": 0}
    periods = np.diff(t)
    jitter = np.abs(periods - nominal) * 1e3
    return {
        "rate_hz": round(float((t.size - 1) / (t[-1] - t[0])), 2),
        "jitter_p50_ms": round(float(np.percentile(jitter, 50)), 3),
        "jitter_p99_ms": round(float(np.percentile(jitter, 99)), 3),
        "periods": int(periods.size),
    }


def _start_processes(domain: int, perception: bool = False) -> list:
    """sim_node and safety_node as separate processes (as ``ros2 launch`` runs them); with
    ``perception`` the sim's camera on and perception_node in a process of its own."""
    import subprocess

    from miles_ros.params import NODE_CONFIGS, config_dir
    from miles_ros.ros.graph import PERCEPTION_OVERRIDES

    env = {**os.environ, "ROS_DOMAIN_ID": str(domain)}
    procs = []
    for exe in ("sim_node", "safety_node", *(("perception_node",) if perception else ())):
        config = NODE_CONFIGS[exe]
        # The module the console script runs (the script itself may predate a reinstall).
        cmd = [sys.executable, "-m", f"miles_ros.ros.{exe}"]
        cmd += ["--ros-args", "--params-file", str(config_dir() / config)]
        if perception and exe == "sim_node":
            for name, value in PERCEPTION_OVERRIDES["sim"].items():
                cmd += ["-p", f"{name}:={str(value).lower()}"]
        procs.append(
            subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        )
    return procs


def _reset_estop(node, timeout: float = 10.0) -> None:
    """Reset an e-stop latched while the processes started (their first control period
    loads numba kernels); the arm is still, so the reset is allowed."""
    from std_srvs.srv import Trigger

    from miles_ros.params.safety import SafetyNodeNames

    client = node.create_client(Trigger, SafetyNodeNames().reset_service)
    client.wait_for_service(timeout_sec=timeout)
    done = threading.Event()
    future = client.call_async(Trigger.Request())
    future.add_done_callback(lambda _: done.set())
    done.wait(timeout)
    node.destroy_client(client)


def _spin_with_peer(graph, skill_node, name: str, rt_priority: int = 0):
    """A peer node on ``graph`` (the bench's timer and skill requests), the graph spun on
    a thread (under SCHED_FIFO at ``rt_priority`` when > 0, as ``miles up --rt-priority``
    spins it); returns (peer, its skill-request publisher) once the skill node has joint
    states and hears the requests."""
    import rclpy
    from std_msgs.msg import String

    from miles_ros.params.skill import SkillNodeParams
    from miles_ros.ros.qos import COMMAND_QOS

    peer = graph.add(rclpy.create_node(name, context=graph.context))
    requests = peer.create_publisher(String, SkillNodeParams().request_topic, COMMAND_QOS)
    graph.spin_in_thread(f"{name}_spin", rt_priority)
    deadline = time.monotonic() + 60
    while skill_node.skills.joints is None or requests.get_subscription_count() == 0:
        if time.monotonic() > deadline:
            raise RuntimeError("the graph did not come up")
        time.sleep(0.05)  # polling for start-up, not synchronising a measurement
    return peer, requests


def _tear_down(graph, procs, library: Path) -> None:
    """After a measurement: the graph closed, the node processes ended, the library copy
    removed."""
    if graph is not None:
        graph.close()
    for proc in procs:
        proc.terminate()
        proc.wait(timeout=10)
    shutil.rmtree(library, ignore_errors=True)


def measure_loops(rates: list[float], window_s: float, mode: str) -> dict:
    """``mode``: ``one_process`` (the graph of ``miles up``) or ``processes`` (sim and
    safety in their own processes, the skill node and the peer in this one)."""
    from std_msgs.msg import String

    from miles_ros.ros.graph import InProcessGraph

    domain = 230 + (os.getpid() + (mode == "processes")) % 2
    procs = _start_processes(domain) if mode == "processes" else []
    # One executor as miles up runs it (also in "processes" mode, where it has only the
    # skill node and the peer); the safety kernels warmed up as miles up does.
    parts = ["skills"] if mode == "processes" else ["sim", "safety", "skills"]
    out: dict = {"loop": {}, "baseline": {}}
    graph = None
    library = _library_without_envelopes(Path(tempfile.mkdtemp(prefix="bench_ros_")))
    try:
        overrides = {"skills": {"skill_library": str(library)}}
        graph = InProcessGraph.of_parts(parts, overrides=overrides, domain_id=domain)
        skill_node = graph.nodes[-1]
        peer, requests = _spin_with_peer(graph, skill_node, "bench_peer")
        time.sleep(2.0)  # let the safety process load its kernels
        _reset_estop(peer)
        names = skill_node.skills.library.names()
        skill = "reach" if "reach" in names else "home"
        out["skill"] = skill
        latency = []
        for rate in rates:
            # loop_rate_hz is a read-only parameter: the bench sets the node's field.
            skill_node.params = dataclasses.replace(skill_node.params, loop_rate_hz=rate)
            baseline: list[float] = []
            timer = peer.create_timer(1.0 / rate, lambda b=baseline: b.append(time.monotonic()))
            skill_node.ticks.clear()
            skill_node.record_ticks = True
            params = {"target": UNREACHABLE} if skill == "reach" else {}
            request = {"id": f"bench-{rate:g}", "skill": skill, "params": params}
            requests.publish(String(data=json.dumps(request)))
            time.sleep(window_s)  # the measurement window (not a synchronisation)
            skill_node.record_ticks = False
            requests.publish(String(data=json.dumps({"id": request["id"], "cancel": True})))
            peer.destroy_timer(timer)
            ticks = list(skill_node.ticks)
            times = [t for t, _ in ticks[1:]]  # the first is the request's immediate period
            out["loop"][f"{rate:g}"] = _stats(times, 1.0 / rate)
            out["baseline"][f"{rate:g}"] = _stats(baseline[1:], 1.0 / rate)
            if rate == max(rates):
                latency = [lat * 1e3 for _, lat in ticks]
            time.sleep(0.5)  # let the supervisor settle into hold between windows
        lat = np.asarray(latency)
        out["state_to_command_ms"] = {
            "p50": round(float(np.percentile(lat, 50)), 3) if lat.size else None,
            "p99": round(float(np.percentile(lat, 99)), 3) if lat.size else None,
            "samples": int(lat.size),
        }
    finally:
        _tear_down(graph, procs, library)
    return out


def _attach_operator(graph, console_process: bool = False, view_process: bool = False):
    """The operator's side of ``miles up --console --view-web`` on ``graph``: the metrics
    node, the 3D view (its node in the graph, drawing in a child process, web viewer on a
    free port; the graph closes it) and the console (its bridge on the graph's executor,
    uvicorn on a thread). ``console_process``: the console and the metrics' monitor in a
    process of their own, as ``miles up --console --rt-priority N`` serves them
    (:class:`~miles_ros.ros.console_process.ConsoleProcess`, running
    :mod:`bench.console_timed`, whose presses the caller reads from the file named in its
    environment). ``view_process``: the view's
    node and drawing in a process of their own (``miles view``,
    :class:`~miles_ros.ros.view_node.ViewNodeProcess`). Returns (console, the view's
    process or None): the caller stops both."""
    from miles_ros.ros.view_node import start_view, view_spec

    view = start_view(graph, view_spec(web=True, web_port=0), own_process=view_process)
    apart = view if view_process else None
    try:
        if console_process:
            from miles_ros.ros.console_process import ConsoleProcess

            return ConsoleProcess(
                graph.domain_id, view_url=view.url, module="bench.console_timed"
            ), apart
        from miles_ros.ros.console_node import attach_console
        from miles_ros.ros.monitor_node import add_monitor

        registry = add_monitor(graph).metrics.registry
        return attach_console(graph, metrics_registry=registry, view_url=view.url), apart
    except BaseException:
        if apart is not None:
            apart.stop()
        raise


def _time_publishing(graph) -> dict[str, list[float]]:
    """Lists that fill with how long each ``/joint_states`` and ``/miles/joint_command``
    publication takes in ``graph`` (s): what a reader in another process adds to the
    loop's thread (the publication crosses processes: Fast DDS's shared memory)."""
    nodes = {n.get_name(): n for n in graph.nodes}
    publishers = {
        "joint_states": nodes["sim_node"].pub_joints[""],
        "joint_command": nodes["safety_node"].pub_command,
    }
    times: dict[str, list[float]] = {name: [] for name in publishers}
    for name, publisher in publishers.items():
        publish, out = publisher.publish, times[name]

        def timed(msg, publish=publish, out=out):
            t0 = time.perf_counter()
            publish(msg)
            out.append(time.perf_counter() - t0)

        publisher.publish = timed
    return times


def _count_readers(peer) -> dict[str, int]:
    """The readers of the loop's fast topics that the graph sees (every process)."""
    from miles_ros.interfaces import JOINT_COMMAND, JOINT_STATES

    return {
        "joint_states": peer.count_subscribers(JOINT_STATES),
        "joint_command": peer.count_subscribers(JOINT_COMMAND),
    }


def _time_the_latch(graph, console_apart: bool = False) -> tuple[list[float], list[float]]:
    """Two lists that fill as the console's e-stops go through ``graph``: when the
    console's handler calls its bridge, and when the safety node's supervisor has latched
    (each press latches once: the bench resets in between); ``time.perf_counter``, on
    Linux CLOCK_MONOTONIC, one clock for every process. ``console_apart``: the console is
    :mod:`bench.console_timed` in a process of its own, the first list stays empty here
    (that process writes its times to a file)."""
    supervisor = next(n for n in graph.nodes if n.get_name() == "safety_node").supervisor
    pressed: list[float] = []
    latched: list[float] = []
    trigger = supervisor.trigger_estop

    def timed_trigger(*args, **kwargs):
        fresh = trigger(*args, **kwargs)
        if fresh:
            latched.append(time.perf_counter())
        return fresh

    supervisor.trigger_estop = timed_trigger
    if not console_apart:
        bridge = graph.nodes[-1]  # attach_console adds the bridge last
        estop = bridge.estop

        def timed_estop():
            pressed.append(time.perf_counter())
            return estop()

        bridge.estop = timed_estop
    return pressed, latched


def _loop_window(skill_node, peer, requests, rate, window_s, request_id, out) -> tuple:
    """One measurement window: the skill node's loop at ``rate`` running a skill toward
    :data:`UNREACHABLE` (``home`` without reach), the peer's baseline timer beside it; puts
    ``process_cpu``, ``loop`` and ``baseline`` into ``out``; returns (skill, params)."""
    from std_msgs.msg import String

    names = skill_node.skills.library.names()
    skill = "reach" if "reach" in names else "home"
    skill_node.params = dataclasses.replace(skill_node.params, loop_rate_hz=rate)
    baseline: list[float] = []
    timer = peer.create_timer(1.0 / rate, lambda: baseline.append(time.monotonic()))
    skill_node.ticks.clear()
    skill_node.record_ticks = True
    params = {"target": UNREACHABLE} if skill == "reach" else {}
    request = {"id": request_id, "skill": skill, "params": params}
    requests.publish(String(data=json.dumps(request)))
    cpu0 = time.process_time()
    time.sleep(window_s)  # the measurement window (not a synchronisation)
    out["process_cpu"] = round((time.process_time() - cpu0) / window_s, 3)
    skill_node.record_ticks = False
    requests.publish(String(data=json.dumps({"id": request_id, "cancel": True})))
    peer.destroy_timer(timer)
    out["loop"] = _stats([t for t, _ in list(skill_node.ticks)[1:]], 1.0 / rate)
    out["baseline"] = _stats(baseline[1:], 1.0 / rate)
    return skill, params


def measure_operator(
    window_s: float,
    presses: int,
    operator: bool = True,
    rt_priority: int = 0,
    console_process: bool = False,
    view_process: bool = False,
) -> dict:
    """The one-process graph (sim, safety, skills) with the operator's console, 3D view and
    metrics on: the skill loop at 250 Hz (as :func:`measure_loops`, with its ``baseline``
    peer), then ``presses`` e-stops through ``POST /api/estop``, each followed by a reset
    once the arm is still. ``estop_latch_ms``: from the console's handler taking the
    request to the supervisor's latch (one process, one clock); ``estop_ms``: from the
    request reaching the server to every
    supervisor's answer that it latched (the console's ``server_ms``); ``estop_round_trip_ms``:
    the same from this client, HTTP included. ``operator=False``: the same graph and
    window with none of the operator's parts (no presses), the loop's own peer for
    :func:`measure_operator_ab`. ``rt_priority`` > 0: the graph's executor under SCHED_FIFO
    (``miles up --rt-priority``). ``console_process``: the console and the metrics in a
    process of their own (``estop_latch_ms`` still: both processes read CLOCK_MONOTONIC);
    ``view_process``: the 3D view's node and drawing in a process of their own (``miles
    view``). Every side: ``publish_us`` {joint_states, joint_command: p50, p99, ...}, how
    long each publication of the loop's fast topics took in the window, and ``readers``,
    how many readers of each the graph saw."""
    if not operator and (presses or view_process):
        raise ValueError("e-stops go through the console: presses need operator=True")
    import httpx
    from std_msgs.msg import String

    from miles_ros.ros.graph import InProcessGraph

    rate = 250.0
    domain = 228 + os.getpid() % 2
    library = _library_without_envelopes(Path(tempfile.mkdtemp(prefix="bench_ros_")))
    graph, console, view = None, None, None
    out: dict = {"on": ["console", "view_web", "metrics"] if operator else []}
    if operator and console_process:
        out["on"].append("console_process")
    if operator and view_process:
        out["on"].append("view_process")
    try:
        overrides = {"skills": {"skill_library": str(library)}}
        graph = InProcessGraph.of_parts(
            ["sim", "safety", "skills"], overrides=overrides, domain_id=domain
        )
        skill_node = graph.nodes[-1]
        pressed, latched = [], []
        if operator:
            from bench.console_timed import PRESSES_ENV

            os.environ[PRESSES_ENV] = str(Path(library) / "presses.txt")
            try:
                console, view = _attach_operator(graph, console_process, view_process)
            finally:
                os.environ.pop(PRESSES_ENV)
            pressed, latched = _time_the_latch(graph, console_process)
        publishing = _time_publishing(graph)
        peer, requests = _spin_with_peer(graph, skill_node, "bench_operator_peer", rt_priority)
        if operator:
            base = console.base_url
            auth = {"Authorization": f"Bearer {console.token}"}
            client = httpx.Client(base_url=base, timeout=10.0, headers={"Origin": base})
            client.post("/api/reset", headers=auth)  # a latch from start-up, if any
        else:
            _reset_estop(peer)
        for times in publishing.values():
            times.clear()  # start-up's publications (discovery) are not the window's
        skill, params = _loop_window(
            skill_node, peer, requests, rate, window_s, "bench-operator", out
        )
        out["publish_us"] = {
            name: _percentiles([t * 1e6 for t in list(times)])
            for name, times in publishing.items()
        }
        out["readers"] = _count_readers(peer)
        if not operator:
            return out
        server_ms, round_trip_ms, failed = [], [], 0
        for k in range(presses):
            request = {"id": f"bench-estop-{k}", "skill": skill, "params": params}
            requests.publish(String(data=json.dumps(request)))
            time.sleep(0.3)  # let the arm start moving: the e-stop lands mid-motion
            t0 = time.perf_counter()
            answer = client.post("/api/estop")
            round_trip_ms.append((time.perf_counter() - t0) * 1e3)
            if answer.status_code != 200:
                failed += 1
                continue
            server_ms.append(answer.json()["server_ms"])
            deadline = time.monotonic() + 10
            while client.post("/api/reset", headers=auth).status_code != 200:
                if time.monotonic() > deadline:
                    raise RuntimeError("the supervisor did not reset after an e-stop")
                time.sleep(0.1)  # polling the supervisor until the arm is still
        if console_process:  # the console's process wrote its press times, a line each
            times = Path(library) / "presses.txt"
            pressed = [float(t) for t in times.read_text().split()] if times.is_file() else []
        # Every press latched afresh, or the pairs would not match: then none is reported.
        pairs = zip(pressed, latched, strict=True) if len(pressed) == len(latched) else ()
        out["estop_latch_ms"] = _percentiles([(b - a) * 1e3 for a, b in pairs])
        out["estop_ms"] = _percentiles(server_ms)
        out["estop_round_trip_ms"] = _percentiles(round_trip_ms)
        out["estop_failed"] = failed
        client.close()
    finally:
        if console is not None:
            console.stop()
        if view is not None:
            view.stop()
        _tear_down(graph, (), library)
    return out


def measure_operator_ab(
    window_s: float,
    rounds: int,
    rt_priority: int = 0,
    console_process: bool = False,
    view_process: bool = False,
    only: tuple[str, ...] = (),
) -> dict:
    """The 250 Hz loop's jitter with the operator's parts off and on, the same graph and
    window each time, in ``rounds`` rounds that rotate which goes first (a load on the
    machine hits all alike); with ``rt_priority`` > 0 also both under SCHED_FIFO
    (``off_rt``, ``on_rt``). Per side: each round's ``jitter_p99_ms`` and ``rate_hz``,
    their medians, the same of the executor's ``baseline`` timer, and ``process_cpu``:
    the graph process's CPU seconds per second of the window (every thread; the view's
    drawing process not counted). ``console_process``: also the operator's parts with
    the console in a process of its own (``on_process``, and ``on_rt_process`` with
    ``rt_priority``); ``view_process``: also with the console and the 3D view each in a
    process of its own (``on_views``, and ``on_rt_views`` with ``rt_priority``). Every
    side also has ``publish_us`` per round (:func:`measure_operator`). ``only``: just
    those sides (all when empty)."""
    sides = {
        "off": lambda: measure_operator(window_s, 0, operator=False),
        "on": lambda: measure_operator(window_s, 0, operator=True),
    }
    if rt_priority:
        sides["off_rt"] = lambda: measure_operator(window_s, 0, False, rt_priority)
        sides["on_rt"] = lambda: measure_operator(window_s, 0, True, rt_priority)
    if console_process:
        sides["on_process"] = lambda: measure_operator(window_s, 0, True, 0, True)
        if rt_priority:
            sides["on_rt_process"] = lambda: measure_operator(window_s, 0, True, rt_priority, True)
    if view_process:
        sides["on_views"] = lambda: measure_operator(window_s, 0, True, 0, True, True)
        if rt_priority:
            sides["on_rt_views"] = lambda: measure_operator(
                window_s, 0, True, rt_priority, True, True
            )
    if only:
        unknown = set(only) - set(sides)
        if unknown:
            raise ValueError(f"no such sides {sorted(unknown)}: {sorted(sides)}")
        sides = {name: run for name, run in sides.items() if name in only}
    return _rotate(rounds, window_s, sides, ("publish_us", "readers"))


PERCEPTION_LAYOUTS = ("one_process", "graph", "processes")
"""Where :func:`measure_perception` runs perception: ``one_process`` (perception_node on the
graph's executor, as ``miles up --perception`` ran it before
:data:`~miles_ros.ros.graph.PROCESS_PARTS`), ``graph`` (the layout of ``miles up
--perception``: perception_node in a process of its own beside the graph) and
``processes`` (sim, safety and perception each in a process of its own, as ``ros2
launch`` runs them; the skill node here). The sim's camera renders and publishes from its
own process in all three."""


def measure_perception(
    window_s: float, perception: bool, mode: str = "graph", rt_priority: int = 0
) -> dict:
    """The graph (sim, safety, skills) with the camera and the perception node on or off,
    laid out as ``mode`` says (:data:`PERCEPTION_LAYOUTS`): the skill loop at 250 Hz with
    its ``baseline`` peer, this process's CPU, and with perception the camera as the
    skills see it: ``frames_hz`` (new measurements of a cube in plain view per second),
    ``exposure_to_pose_ms`` {p50, p99} (from a frame's exposure to its pose arriving on
    ``/miles/scene/objects``: render, camera latency, transport, perception),
    ``frame_to_pose_ms`` (from the frame's camera_info arriving here, published just
    before its images, to its pose arriving: the images' transport, perception and the
    pose's transport, the same in every layout) and, with perception_node in this
    process, ``node_frame_to_pose_ms`` (the node's own: from a frame's colour and depth
    both received to its pose published). ``rt_priority`` > 0: the graph's executor under
    SCHED_FIFO (``miles up --rt-priority``); the camera and perception processes as they
    are."""
    from sensor_msgs.msg import CameraInfo
    from std_msgs.msg import String

    from miles_ros.interfaces import CAMERA_INFO, SCENE_OBJECTS
    from miles_ros.ros.graph import PROCESS_PARTS, InProcessGraph, with_perception
    from miles_ros.ros.qos import COMMAND_QOS, IMAGE_QOS

    if mode not in PERCEPTION_LAYOUTS:
        raise ValueError(f"mode {mode!r}: one of {PERCEPTION_LAYOUTS}")
    rate = 250.0
    domain = 226 + os.getpid() % 2
    library = _library_without_envelopes(Path(tempfile.mkdtemp(prefix="bench_ros_")))
    parts, overrides = ["sim", "safety", "skills"], {"skills": {"skill_library": str(library)}}
    if perception and mode != "processes":
        parts, overrides = with_perception(parts, overrides)
    procs = _start_processes(domain, perception) if mode == "processes" else []
    if mode == "processes":
        parts = ["skills"]
    layout = PROCESS_PARTS if mode == "graph" else frozenset()
    graph = None
    out: dict = {"perception": perception, "mode": mode, "rt_priority": rt_priority}
    try:
        graph = InProcessGraph.of_parts(
            parts, overrides=overrides, domain_id=domain, processes=layout
        )
        skill_node = next(n for n in graph.nodes if n.get_name() == "skill_node")
        peer, requests = _spin_with_peer(graph, skill_node, "bench_perception_peer", rt_priority)
        _reset_estop(peer)
        seen: dict[float, float] = {}  # a cube's measurement stamp -> its pose's arrival
        published: dict[float, float] = {}  # a frame's stamp -> its camera_info's arrival

        def now() -> float:
            return peer.get_clock().now().nanoseconds * 1e-9

        def on_objects(msg) -> None:
            body = json.loads(msg.data).get("objects", {}).get("blue_cube")
            if body and body.get("state") == "seen" and body["stamp"] not in seen:
                seen[body["stamp"]] = now()

        def on_info(msg) -> None:
            published[msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9] = now()

        peer.create_subscription(String, SCENE_OBJECTS, on_objects, COMMAND_QOS)
        if perception:
            peer.create_subscription(CameraInfo, CAMERA_INFO, on_info, IMAGE_QOS)
            deadline = time.monotonic() + 30.0  # the first frames: the camera has started
            while len(seen) < 3 and time.monotonic() < deadline:
                time.sleep(0.05)  # polling for the camera's first frames, with a deadline
            seen.clear()
        _loop_window(skill_node, peer, requests, rate, window_s, "bench-perception", out)
        if perception:
            stamps = sorted(seen)
            out["frames_hz"] = (
                round((len(stamps) - 1) / (stamps[-1] - stamps[0]), 2) if len(stamps) > 2 else 0.0
            )
            out["exposure_to_pose_ms"] = _percentiles([(seen[t] - t) * 1e3 for t in stamps])
            infos = {round(t, 6): at for t, at in published.items()}  # the stamps via JSON
            pairs = [(seen[t] - infos[round(t, 6)]) * 1e3 for t in stamps if round(t, 6) in infos]
            out["frame_to_pose_ms"] = _percentiles(pairs)
            node = next((n for n in graph.nodes if n.get_name() == "perception_node"), None)
            if node is not None:  # in this process: the node's own frame-to-pose times
                out["node_frame_to_pose_ms"] = _percentiles([t * 1e3 for t in node.frame_to_pose])
    finally:
        _tear_down(graph, procs, library)
    return out


def measure_perception_ab(window_s: float, rounds: int, rt_priority: int = 0) -> dict:
    """:func:`measure_perception` off, on with perception in the graph's process
    (``one_process``) and on as ``miles up --perception`` lays it out (``graph``), in
    ``rounds`` rounds that rotate which goes first (a load on the machine hits all
    alike): per side each round's loop ``jitter_p99_ms`` and their median, the
    baseline's, the process CPU; on the "on" sides the camera's ``frames_hz``,
    ``exposure_to_pose_ms`` and ``frame_to_pose_ms``. With ``rt_priority`` > 0 also
    ``off_rt`` and ``graph_rt``: the graph's executor under SCHED_FIFO (``miles up
    --perception --rt-priority``)."""
    sides = {
        "off": lambda: measure_perception(window_s, False, "graph"),
        "one_process": lambda: measure_perception(window_s, True, "one_process"),
        "graph": lambda: measure_perception(window_s, True, "graph"),
    }
    if rt_priority:
        sides["off_rt"] = lambda: measure_perception(window_s, False, "graph", rt_priority)
        sides["graph_rt"] = lambda: measure_perception(window_s, True, "graph", rt_priority)
    keys = ("frames_hz", "exposure_to_pose_ms", "frame_to_pose_ms", "node_frame_to_pose_ms")
    return _rotate(rounds, window_s, sides, keys)


def _rotate(rounds: int, window_s: float, sides: dict, on_keys: tuple[str, ...] = ()) -> dict:
    """Each of ``sides`` (name -> measure()) once per round, in ``rounds`` rounds whose
    order rotates; per side the summary of :func:`_summary`, with ``on_keys`` listed per
    round where a side has them."""
    names = list(sides)
    runs: dict = {name: [] for name in names}
    for k in range(rounds):
        for name in names[k % len(names) :] + names[: k % len(names)]:
            runs[name].append(sides[name]())
    out: dict = {"rounds": rounds, "window_s": window_s}
    for name, results in runs.items():
        out[name] = _summary(results)
        for key in on_keys:
            if any(key in r for r in results):
                out[name][key] = [r.get(key) for r in results]
    return out


def _summary(results: list[dict]) -> dict:
    """Each run's loop ``jitter_p99_ms`` and ``rate_hz``, their median, the same of the
    executor's ``baseline`` timer and the ``process_cpu``."""
    p99 = [r["loop"]["jitter_p99_ms"] for r in results]
    base = [r["baseline"]["jitter_p99_ms"] for r in results]
    return {
        "jitter_p99_ms": p99,
        "median_jitter_p99_ms": round(float(np.median(p99)), 3),
        "rate_hz": [r["loop"]["rate_hz"] for r in results],
        "baseline_jitter_p99_ms": base,
        "median_baseline_jitter_p99_ms": round(float(np.median(base)), 3),
        "process_cpu": [r["process_cpu"] for r in results],
    }


def _percentiles(values: list[float]) -> dict:
    v = np.asarray(values)
    if not v.size:
        return {"p50": None, "p99": None, "max": None, "samples": 0}
    return {
        "p50": round(float(np.percentile(v, 50)), 3),
        "p99": round(float(np.percentile(v, 99)), 3),
        "max": round(float(v.max()), 3),
        "samples": int(v.size),
    }


def measure_demo() -> float | None:
    from miles_ros.demo_graph import DemoOptions, run_demo

    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        report = run_demo(Path(tmp), DemoOptions(log=lambda line: print(line, file=sys.stderr)))
        wall = time.perf_counter() - started
    return round(wall, 2) if report["success"] else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print only the JSON object")
    parser.add_argument("--window", type=float, default=4.0, help="seconds per loop rate")
    parser.add_argument("--no-demo", action="store_true", help="skip the demo timing")
    parser.add_argument(
        "--presses",
        type=int,
        default=50,
        help="console e-stops in the operator measurement (0: skip it)",
    )
    parser.add_argument(
        "--perception-rounds",
        type=int,
        default=3,
        help="rounds of the loop's jitter with the camera and perception off and on (0: skip)",
    )
    parser.add_argument(
        "--rt-priority",
        type=int,
        default=0,
        metavar="N",
        help="run the operator measurement's presses with the graph's executor under "
        "SCHED_FIFO at priority N, as `miles up --rt-priority N` runs it, and add that side "
        "to the off/on comparisons (root; default 0: not)",
    )
    parser.add_argument(
        "--only",
        choices=("perception", "operator"),
        default=None,
        help="run only that part (perception: its off/on comparison; operator: the "
        "console's e-stop presses and its off/on comparison)",
    )
    parser.add_argument(
        "--ab-rounds",
        type=int,
        default=3,
        help="rounds of the loop's jitter with the operator's parts off and on (0: skip)",
    )
    parser.add_argument(
        "--view-process",
        action="store_true",
        help="the 3D view in a process of its own (`miles view` beside the graph): for the "
        "operator measurement's presses, and in operator_ab the console and the view each "
        "apart (on_views, on_rt_views)",
    )
    parser.add_argument(
        "--ab-sides",
        default="",
        metavar="NAMES",
        help="operator_ab: only these sides, comma-separated (e.g. off_rt,on_rt_process,"
        "on_rt_views; default all)",
    )
    parser.add_argument(
        "--console-process",
        action="store_true",
        help="the console in a process of its own, as `miles up --console --rt-priority N` "
        "serves it: for the operator measurement's presses, and in operator_ab beside the "
        "in-process sides (on_process, on_rt_process)",
    )
    args = parser.parse_args()
    from miles_ros.runtime.realtime import RealtimeRefused, realtime

    try:
        with realtime(args.rt_priority):  # refused here, before any measurement
            pass
    except (ValueError, RealtimeRefused) as exc:
        parser.error(f"--rt-priority: {exc}")
    rt, result = args.rt_priority, {}
    with stdout_to_stderr():
        if args.only is None:
            result = measure_loops([100.0, 250.0], args.window, "processes")
            result["one_process"] = measure_loops([100.0, 250.0], args.window, "one_process")
        if args.presses and args.only in (None, "operator"):
            result["operator"] = measure_operator(
                args.window, args.presses, True, rt, args.console_process, args.view_process
            )
        if args.ab_rounds and args.only in (None, "operator"):
            only = tuple(name for name in args.ab_sides.split(",") if name)
            result["operator_ab"] = measure_operator_ab(
                args.window,
                args.ab_rounds,
                rt,
                args.console_process,
                args.view_process,
                only,
            )
        if args.perception_rounds and args.only in (None, "perception"):
            result["perception_ab"] = measure_perception_ab(
                args.window, args.perception_rounds, rt
            )
            if args.only is None:
                result["perception_processes"] = measure_perception(args.window, True, "processes")
        if args.only is None:
            result["demo_wall_s"] = None if args.no_demo else measure_demo()
    result["config"] = {
        "window_s": args.window,
        "cpus": os.cpu_count(),
        "load_avg_1m": round(os.getloadavg()[0], 2),
        "joint_states_hz": 250.0,
        "safety_rate_hz": 250.0,
        "rt_priority": args.rt_priority,
    }
    print(json.dumps(result, indent=None if args.json else 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
