"""Where the one-process graph's time goes: CPU per thread and executor time per callback.

    PYTHONPATH=. .venv/bin/python bench/graph_profile.py --perception [--one-process] --window 20

The graph of ``miles up`` (sim, safety, skills; with ``--perception`` the sim's camera and
perception_node as ``miles up --perception`` lays them out) in this process, the skill
node running reach toward an unreachable point at 250 Hz (as bench/ros.py). Over the
window: each thread's CPU seconds per second (from /proc, Linux; Python threads by name,
the others by their native name: DDS, the camera's processes are not counted) and, for
every timer, subscription and service callback of the graph's nodes, its calls and the
executor seconds per second it held (each callback wrapped in a timer: its wall time,
which includes waiting for the GIL that other threads hold). No py-spy in the venv: this is
the yappi-free breakdown.
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.ros import _library_without_envelopes, _loop_window, _reset_estop, _spin_with_peer  # noqa: E402
from policies.commands._common import stdout_to_stderr  # noqa: E402

SKILL_WINDOW_S = 6.0
"""The longest one skill request is measured (the reach request times out after 8 s)."""


def _thread_cpu() -> dict[int, float]:
    """CPU seconds (user + system) of each thread of this process, by native id."""
    ticks = os.sysconf("SC_CLK_TCK")
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            fields = Path(f"/proc/self/task/{tid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[int(tid)] = (int(fields[11]) + int(fields[12])) / ticks
    return out


def _thread_names() -> dict[int, str]:
    names = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            names[int(tid)] = Path(f"/proc/self/task/{tid}/comm").read_text().strip()
        except OSError:
            pass
    for thread in threading.enumerate():
        if thread.native_id is not None:
            names[thread.native_id] = f"py:{thread.name}"
    return names


def _wrap_callbacks(nodes, held: dict, calls: collections.Counter) -> None:
    """Wrap every callback of ``nodes`` to add its wall time to ``held[label]``."""
    for node in nodes:
        entities = [("timer", e) for e in node.timers]
        entities += [("sub " + e.topic_name, e) for e in node.subscriptions]
        entities += [("srv " + e.srv_name, e) for e in node.services]
        for kind, entity in entities:
            label = f"{node.get_name()}: {kind}"
            inner = entity.callback
            if inner is None:
                continue

            def timed(*args, inner=inner, label=label):
                t0 = time.perf_counter()
                try:
                    return inner(*args)
                finally:
                    held[label] += time.perf_counter() - t0
                    calls[label] += 1

            entity.callback = timed


def profile(window_s: float, perception: bool, processes: bool) -> dict:
    from miles_ros.ros.graph import PROCESS_PARTS, InProcessGraph, with_perception

    library = _library_without_envelopes(Path(tempfile.mkdtemp(prefix="bench_profile_")))
    parts, overrides = ["sim", "safety", "skills"], {"skills": {"skill_library": str(library)}}
    if perception:
        parts, overrides = with_perception(parts, overrides)
    graph = InProcessGraph.of_parts(
        parts,
        overrides=overrides,
        domain_id=224 + os.getpid() % 2,
        processes=PROCESS_PARTS if processes else frozenset(),
    )
    try:
        skill_node = next(n for n in graph.nodes if n.get_name() == "skill_node")
        held: dict[str, float] = collections.defaultdict(float)
        calls: collections.Counter = collections.Counter()
        _wrap_callbacks(graph.nodes, held, calls)
        peer, requests = _spin_with_peer(graph, skill_node, "bench_profile_peer")
        _reset_estop(peer)
        time.sleep(3.0)  # the camera's first frames (its process starting), not a sync
        held.clear()
        calls.clear()
        cpu0 = _thread_cpu()
        t0 = time.monotonic()
        out: dict = {"perception": perception, "processes": processes, "loops": []}
        pieces = max(1, math.ceil(window_s / SKILL_WINDOW_S))
        for k in range(pieces):  # one request per piece: the skill's own timeout is 8 s
            piece: dict = {}
            _loop_window(
                skill_node, peer, requests, 250.0, window_s / pieces, f"bench-profile-{k}", piece
            )
            out["loops"].append(piece["loop"])
        window_s = out["window_s"] = round(time.monotonic() - t0, 2)
        cpu1 = _thread_cpu()
        names = _thread_names()
        per_thread: dict[str, float] = collections.defaultdict(float)
        for tid, t1 in cpu1.items():
            per_thread[names.get(tid, str(tid))] += (t1 - cpu0.get(tid, 0.0)) / window_s
        out["thread_cpu"] = {
            k: round(v, 3) for k, v in sorted(per_thread.items(), key=lambda kv: -kv[1]) if v > 0
        }
        out["callbacks_s_per_s"] = {
            k: {"held": round(v / window_s, 4), "calls_per_s": round(calls[k] / window_s, 1)}
            for k, v in sorted(held.items(), key=lambda kv: -kv[1])
        }
        out["executor_held_s_per_s"] = round(sum(held.values()) / window_s, 3)
        node = next((n for n in graph.nodes if n.get_name() == "perception_node"), None)
        if node is not None:
            out["perception_frames"] = node.frames
            out["perception_dropped"] = node.dropped
        return out
    finally:
        graph.close()
        shutil.rmtree(library, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--window", type=float, default=20.0)
    parser.add_argument("--perception", action="store_true")
    parser.add_argument(
        "--one-process",
        action="store_true",
        help="perception on the graph's executor too (the layout before PROCESS_PARTS)",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with stdout_to_stderr():
        result = profile(args.window, args.perception, not args.one_process)
    result["load_avg_1m"] = round(os.getloadavg()[0], 2)
    print(json.dumps(result, indent=None if args.json else 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
