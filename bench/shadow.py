"""The shadow's cost on the live graph: the skill's control period and the 250 Hz loops
with the shadow off and on, alternated in one run.

    .venv/bin/python bench/shadow.py --json

The one-process graph of ``miles up`` (sim_node and safety_node at 250 Hz, skill_node,
one single-threaded executor) runs the shipped reach skill toward an unreachable point
at its card's rate (25 Hz; the library copy of bench/ros.py, cards without envelopes),
each window from the home pose (the scripted home move runs before it, untimed), in
windows that alternate the shadow off and on (``--rounds``; which goes first alternates,
so a load on the machine hits both alike). The shadow's candidate is a copy of the
shipped reach: one more actor, action mapping, command-path model and the safety
supervisor run offline over the period's 10 outputs, each period
(:mod:`miles_ros.runtime.rollout.shadow`). Per window: ``tick_ms`` (p50, p99, max: the
executor's whole control period, policy and shadow, timed around ``SkillExecutor.tick``),
``safety_loop`` (the safety node's 250 Hz output loop: rate and jitter of its
``supervisor.step`` calls), ``loop`` (the skill's 25 Hz loop) and ``baseline`` (a plain
250 Hz timer in the same executor), and on the "on" side the shadow's periods in that
window. Jitter = |period - nominal period|. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import ros as ros_bench  # noqa: E402  (bench/ros.py: the graph helpers)

from policies.commands._common import stdout_to_stderr  # noqa: E402


def _timed(calls: list, fn):
    """``fn`` recording the monotonic time and the duration (s) of each call."""

    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            calls.append((start, time.perf_counter() - start))

    return wrapper


def _home(requests, finals: set, rid: str, timeout: float = 30.0) -> None:
    """Run the scripted home move to its end (``finals``: ids of the skill requests that
    ended), so every window starts from the same state."""
    from std_msgs.msg import String

    requests.publish(String(data=json.dumps({"id": rid, "skill": "home", "params": {}})))
    deadline = time.monotonic() + timeout
    while rid not in finals:
        if time.monotonic() > deadline:
            raise RuntimeError("the arm did not get home")
        time.sleep(0.05)  # polling for the home move's end, not synchronising a measurement


def _window(graph, skill_node, safety_node, peer, requests, shadow, window_s, rid) -> dict:
    from std_msgs.msg import String

    ex = skill_node.skills
    ex.rollout = shadow
    ticks: list = []
    steps: list = []
    baseline: list[float] = []
    ex.tick = _timed(ticks, type(ex).tick.__get__(ex))
    safety_node.supervisor.step = _timed(
        steps, type(safety_node.supervisor).step.__get__(safety_node.supervisor)
    )
    timer = peer.create_timer(1.0 / 250.0, lambda: baseline.append(time.monotonic()))
    request = {"id": rid, "skill": "reach", "params": {"target": ros_bench.UNREACHABLE}}
    requests.publish(String(data=json.dumps(request)))
    cpu0 = time.process_time()
    time.sleep(window_s)  # the measurement window (not a synchronisation)
    cpu = (time.process_time() - cpu0) / window_s
    requests.publish(String(data=json.dumps({"id": rid, "cancel": True})))
    peer.destroy_timer(timer)
    del ex.tick, safety_node.supervisor.step  # back to the class's methods
    period = 1.0 / ex.library.skills["reach"].control_rate_hz
    cost = np.array([d for _, d in ticks[1:]]) * 1e3
    out = {
        "tick_ms": {
            "p50": round(float(np.percentile(cost, 50)), 3),
            "p99": round(float(np.percentile(cost, 99)), 3),
            "max": round(float(cost.max()), 3),
            "samples": int(cost.size),
        },
        "loop": ros_bench._stats([t for t, _ in ticks[1:]], period),
        "safety_loop": ros_bench._stats([t for t, _ in steps], 1.0 / 250.0),
        "baseline": ros_bench._stats(baseline[1:], 1.0 / 250.0),
        "process_cpu": round(cpu, 3),
    }
    if shadow is not None:
        time.sleep(0.2)  # the cancel's final status reaches the history (not a measurement)
        record = shadow.shadow_history[-1] if shadow.shadow_history else {}
        out["shadow_periods"] = record.get("periods")
        out["shadow_interventions"] = record.get("interventions")
    return out


def measure(rounds: int, window_s: float) -> dict:
    from std_msgs.msg import String

    from miles_ros.interfaces import FINAL_SKILL_STATES
    from miles_ros.params.skill import SkillNodeParams
    from miles_ros.ros.graph import InProcessGraph
    from miles_ros.ros.qos import COMMAND_QOS
    from miles_ros.runtime.rollout import rollout_from_config

    domain = 232  # above the tests' ids (tests/ros_domains.py) and bench/ros.py's 230-231
    library = ros_bench._library_without_envelopes(Path(tempfile.mkdtemp(prefix="bench_sh_")))
    candidate = Path(tempfile.mkdtemp(prefix="bench_sh_cand_")) / "reach"
    shutil.copytree(library / "reach", candidate)
    graph = None
    try:
        overrides = {"skills": {"skill_library": str(library)}}
        graph = InProcessGraph.of_parts(
            ["sim", "safety", "skills"], overrides=overrides, domain_id=domain
        )
        skill_node = graph.nodes[-1]
        safety_node = next(n for n in graph.nodes if n.get_name() == "safety_node")
        skill_node.params = dataclasses.replace(skill_node.params, loop_rate_hz=0.0)
        # each window starts at home (a home move before it): no lead-in to time
        skill_node.skills.start_from_home = False
        shadow = rollout_from_config(skill_node.skills.library, shadow=f"{{reach: {candidate}}}")
        peer, requests = ros_bench._spin_with_peer(graph, skill_node, "bench_shadow_peer")
        finals: set[str] = set()

        def on_status(msg) -> None:
            status = json.loads(msg.data)
            if status["state"] in FINAL_SKILL_STATES:
                finals.add(status["id"])

        peer.create_subscription(String, SkillNodeParams().status_topic, on_status, COMMAND_QOS)
        time.sleep(1.0)
        ros_bench._reset_estop(peer)
        runs: dict = {"off": [], "on": []}
        for k in range(rounds):
            for side in ("off", "on") if k % 2 == 0 else ("on", "off"):
                rid = f"shadow-{side}-{k}"
                _home(requests, finals, f"home-{side}-{k}")
                runs[side].append(
                    _window(
                        graph,
                        skill_node,
                        safety_node,
                        peer,
                        requests,
                        shadow if side == "on" else None,
                        window_s,
                        rid,
                    )
                )
                time.sleep(0.5)  # the supervisor settles into hold between windows
    finally:
        ros_bench._tear_down(graph, [], library)
        shutil.rmtree(candidate.parent, ignore_errors=True)
    out: dict = {"rounds": rounds, "window_s": window_s}
    for side, results in runs.items():
        out[side] = {
            "tick_p50_ms": [r["tick_ms"]["p50"] for r in results],
            "tick_p99_ms": [r["tick_ms"]["p99"] for r in results],
            "median_tick_p50_ms": round(
                float(np.median([r["tick_ms"]["p50"] for r in results])), 3
            ),
            "safety_jitter_p99_ms": [r["safety_loop"]["jitter_p99_ms"] for r in results],
            "median_safety_jitter_p99_ms": round(
                float(np.median([r["safety_loop"]["jitter_p99_ms"] for r in results])), 3
            ),
            "safety_rate_hz": [r["safety_loop"]["rate_hz"] for r in results],
            "baseline_jitter_p99_ms": [r["baseline"]["jitter_p99_ms"] for r in results],
            "median_baseline_jitter_p99_ms": round(
                float(np.median([r["baseline"]["jitter_p99_ms"] for r in results])), 3
            ),
            "skill_rate_hz": [r["loop"]["rate_hz"] for r in results],
            "process_cpu": [r["process_cpu"] for r in results],
            "windows": results,
        }
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the JSON on one line")
    parser.add_argument("--window", type=float, default=4.0, help="seconds per window")
    parser.add_argument("--rounds", type=int, default=3, help="off/on rounds")
    args = parser.parse_args()
    with stdout_to_stderr():
        result = measure(args.rounds, args.window)
    result["config"] = {
        "cpus": os.cpu_count(),
        "load_avg_1m": round(os.getloadavg()[0], 2),
    }
    print(json.dumps(result, indent=None if args.json else 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
