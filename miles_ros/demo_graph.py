"""The ``miles demo`` loop in a ROS 2 graph: shipped ONNX skills -> safety -> PyBullet.

Brings up sim_node, safety_node and skill_node in this process
(:class:`miles_ros.ros.graph.InProcessGraph`: their config/*.yaml, one single-threaded
executor, a private ROS domain), then a demo client
(:class:`miles_ros.ros.clients.GraphClient`) runs a sequence of
skill requests over the public topics, exactly as the manager would: ``home`` between
skills (the shipped skills were trained from the home pose), every shipped skill on the
default scene, and once, mid-motion, the e-stop (``/miles/safety/trigger_estop``): the
skill ends ``estopped``, the supervisor stops the arm within its acceleration limits and
holds it; the demo measures the latency, checks the hold, resets the e-stop
(``/miles/safety/reset_estop``) and runs the interrupted skill again. Pictures come
from the sim's camera service. The report lists every skill's outcome, the safety
interventions by kind, and the e-stop latency.

:func:`run_demo` (``miles demo --no-manager``) runs the fixed sequence of
:func:`demo_sequence`; :mod:`miles_ros.demo_goal` (``miles demo``) adds manager_node and
starts from a goal in words, with the graph, the e-stop check and the records of this
module.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from miles_ros.interfaces import ESTOPPED, RUNNING, SUCCEEDED
from miles_ros.safety.audit import events_by_kind, interventions_by_kind

if TYPE_CHECKING:
    from miles_ros.ros.clients import GraphClient

ESTOP_PROGRESS = 0.25
"""The e-stop is pressed once the chosen skill reports this much progress."""
STILL_SPEED = 0.01
"""rad/s: every measured joint below this counts as stopped."""
HOLD_SAMPLES = 125
"""Joint states (0.5 s at 250 Hz) over which the hold is checked."""
GRAPH_TIMEOUT_S = 30.0
"""Longest wait (s) for the nodes' first messages once the graph spins."""


@dataclass(frozen=True)
class DemoOptions:
    """What a graph demo (:func:`run_demo`, :func:`miles_ros.demo_goal.run_goal_demo`,
    :func:`miles_ros.demo_dual.run_dual_demo`) runs with besides its goal."""

    skill_library: str | None = None
    """The skill library (None: the shipped one)."""
    domain_id: int | None = None
    """The ROS domain (None: :func:`demo_domain`'s private one)."""
    log: Callable[[str], None] = print
    """Where the progress lines go."""
    view: dict | None = None
    """The 3D view's outputs (:func:`miles_ros.ros.view_node.view_spec`'s ``record``,
    ``native``, ``web``, ``web_port``), None for none."""
    perception: bool = False
    """The object poses from the camera (:func:`miles_ros.ros.graph.with_perception`)."""


DEFAULT_OPTIONS = DemoOptions()


@dataclass
class Step:
    """One request of the demo sequence."""

    skill: str
    """Skill name."""
    params: dict = field(default_factory=dict)
    """Request params."""
    estop: bool = False
    """Press the e-stop while this one runs."""


def demo_sequence(skills: list[str]) -> list[Step]:
    """The requests for the shipped skills (``home`` first and between skills)."""
    steps = [Step("home")]
    if "reach" in skills:
        steps += [
            Step("reach", {"target": "red_cube"}),
            Step("home"),
            Step("reach", {"target": "blue_cube"}, estop=True),
            Step("home"),
        ]
    # The fixed sequence (--no-manager) shows reach and home only: a goal in words
    # (`miles demo --goal`, `miles goal`) runs push and pick_place through the manager.
    if not any(s.estop for s in steps) and len(steps) > 1:
        steps[1].estop = True
    return steps


def _final(client: GraphClient, rid: str, timeout: float) -> dict:
    """The final status of skill request ``rid``."""

    def done():
        return any(s["id"] == rid and s["state"] != RUNNING for s in client.statuses)

    client.wait(done, timeout, f"the end of {rid}")
    return next(s for s in client.statuses if s["id"] == rid and s["state"] != RUNNING)


def demo_domain(domain_id: int | None) -> int:
    """The demo graph's ROS domain: ``domain_id``, else a private one of 201-230 drawn
    from the pid, off the domain (``ROS_DOMAIN_ID``, or 0) a running cell uses."""
    return domain_id if domain_id is not None else 201 + os.getpid() % 30


@contextlib.contextmanager
def client_graph(
    parts: list[str], overrides: dict, domain_id: int | None, times: dict, view: dict | None = None
):
    """Bring up ``parts`` (and a :class:`~miles_ros.ros.clients.GraphClient`) in this
    process; yields ``(client, nodes)``; ``times[part]`` is how long each node took to
    construct. ``view``: the 3D view's outputs (:func:`miles_ros.ros.view_node.view_spec`'s
    ``record``, ``native``, ``web``, ``web_port``), None for none."""
    from miles_ros.ros.clients import GraphClient
    from miles_ros.ros.graph import InProcessGraph
    from miles_ros.ros.view_node import start_view, view_spec

    with InProcessGraph.of_parts(
        parts, overrides=overrides, domain_id=demo_domain(domain_id), times=times
    ) as g:
        nodes = list(g.nodes)
        if view:
            start_view(g, view_spec(**view))
        client = GraphClient(g.context)
        g.add(client.node)
        g.spin_in_thread("miles_demo_spin")
        skill_node = nodes[parts.index("skills")]
        client.wait(
            lambda: (
                bool(client.safety)
                and bool(client.objects)
                and skill_node.skills.joints is not None
            ),
            GRAPH_TIMEOUT_S,
            "the graph (safety state, object poses and joint states)",
        )
        yield client, nodes


def run_demo(out: Path, opts: DemoOptions = DEFAULT_OPTIONS) -> dict:
    """Run the graph demo with a fixed skill sequence (no manager); returns the report
    (also written to ``out/report.json``)."""
    started = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    library = opts.skill_library
    overrides = {"skills": {"skill_library": library}} if library else {}
    parts = ["sim", "safety", "skills"]
    if opts.perception:
        from miles_ros.ros.graph import with_perception

        parts, overrides = with_perception(parts, overrides)
    log = opts.log
    with client_graph(parts, overrides, opts.domain_id, {}, opts.view) as (client, nodes):
        skills = [n for n in nodes[2].skills.library.names() if n != "home"]
        log(
            f"Miles demo: sim_node (PyBullet) -> safety_node -> skill_node, skills: "
            f"{', '.join(skills) or 'none'} (+ scripted home), graph up in "
            f"{time.perf_counter() - started:.1f} s"
        )
        client.capture(out / "before.png")
        report = _run_sequence(client, demo_sequence(skills), out, log, nodes[2])
    report["wall_time_s"] = round(time.perf_counter() - started, 2)
    (out / "report.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return report


def run_tally(runs: list[dict]) -> dict:
    """A demo report's count of its skill runs (``_record``'s dicts): how many, how many
    succeeded, how many ended in each final state."""
    return {
        "skills_run": len(runs),
        "succeeded": sum(r["state"] == SUCCEEDED for r in runs),
        "outcomes": dict(Counter(r["state"] for r in runs)),
    }


def safety_report(safety: dict, events: list[dict]) -> dict:
    """A demo report's ``safety`` section from safety_node's last ``/miles/safety/state``
    (``safety``) and the events it published: its intervention count (the events' number
    when the state has none), the events and the interventions by kind, the state."""
    return {
        "interventions": int(safety.get("interventions", len(events))),
        "events_by_kind": events_by_kind(events),
        "interventions_by_kind": interventions_by_kind(events),
        "final_state": safety,
    }


def _run_sequence(client: GraphClient, steps: list[Step], out: Path, log, skill_node) -> dict:
    runs, estop = [], None
    for k, step in enumerate(steps):
        for attempt in (1, 2):
            rid = f"demo-{k}-{step.skill}" + (f"-retry{attempt - 1}" if attempt > 1 else "")
            t0 = time.monotonic()
            client.request(rid, step.skill, step.params)
            if step.estop and estop is None:
                estop = estop_mid_motion(client, rid, out, log)
                runs.append(_record(client, rid, step, t0, log))
                if estop["reset"]:  # the reset's answer can come before skill_node hears it
                    client.wait(
                        lambda: not skill_node.skills.estop,
                        10.0,
                        "skill_node to see the e-stop reset",
                    )
                client.request(f"{rid}-home", "home", {})  # back to where skills start
                runs.append(_record(client, f"{rid}-home", Step("home"), time.monotonic(), log))
                continue  # run the interrupted skill again
            result = _record(client, rid, step, t0, log)
            result["index"] = k
            runs.append(result)
            if result["state"] == SUCCEEDED or attempt == 2:
                break
            client.request(f"{rid}-home", "home", {})
            runs.append(_record(client, f"{rid}-home", Step("home"), time.monotonic(), log))
    client.capture(out / "after.png")
    last_of_step = {r["index"]: r for r in runs if "index" in r}
    ok = len(last_of_step) == len(steps) and all(
        r["state"] == SUCCEEDED for r in last_of_step.values()
    )
    report = {
        "demo": "ros2_graph_pybullet",
        "graph": ["sim_node", "safety_node", "skill_node"],
        "runs": runs,
        **run_tally(runs),
        "safety": {
            **safety_report(client.safety, client.events),
            "note": "interventions: the supervisor's count; events: what it published (at "
            "most one per kind per audit_throttle, the rest counted in suppressed)",
        },
        "estop": estop,
        "pictures": ["before.png", "estop.png", "after.png"],
        "success": bool(ok and estop is not None and estop["held"] and estop["reset"]),
    }
    return report


def _record(client: GraphClient, rid: str, step: Step, t0: float, log) -> dict:
    final = _final(client, rid, timeout=60.0)
    result = {
        "id": rid,
        "step": f"{step.skill} {json.dumps(step.params)}",
        "skill": step.skill,
        "params": step.params,
        "state": final["state"],
        "reason": final["reason"],
        "progress": final["progress"],
        "control_periods": final.get("step", 0),
        "wall_s": round(time.monotonic() - t0, 2),
    }
    mark = {SUCCEEDED: "ok"}.get(final["state"], final["state"].upper())
    why = f" ({final['reason']})" if final["reason"] else ""
    log(
        f"  {step.skill:<10} {json.dumps(step.params):<48} {result['wall_s']:5.2f} s  "
        f"[{mark}]{why}"
    )
    return result


def estop_mid_motion(client: GraphClient, rid: str, out: Path, log) -> dict:
    def moving():
        return any(
            s["id"] == rid and s["state"] == RUNNING and s.get("progress", 0.0) >= ESTOP_PROGRESS
            for s in client.statuses
        )

    client.wait(moving, 30.0, f"{rid} to be under way")
    speed_before = float(np.max(np.abs(client.joints[-1][2])))
    t_press = time.monotonic()
    client.trigger_estop()
    t_answer = time.monotonic()
    client.wait(
        lambda: any(s["id"] == rid and s["state"] == ESTOPPED for s in client.statuses),
        10.0,
        ESTOPPED,
    )
    t_status = time.monotonic()
    client.wait(
        lambda: (
            client.joints[-1][0] > t_press and np.max(np.abs(client.joints[-1][2])) < STILL_SPEED
        ),
        10.0,
        "the arm to stop",
    )
    t_still = client.joints[-1][0]
    n = len(client.joints)
    client.wait(lambda: len(client.joints) >= n + HOLD_SAMPLES, 10.0, "the hold")
    held = np.array([q for _, q, _ in client.joints[n : n + HOLD_SAMPLES]])
    drift = float(np.max(np.abs(held - held[0])))
    client.capture(out / "estop.png")
    refused = client.reset_estop()
    reset_ok, attempts = refused.success, 1
    while not reset_ok and attempts < 20:  # the reset needs a still arm; it is
        attempts += 1
        reset_ok = client.reset_estop().success
    result = {
        "during": rid,
        "arm_speed_at_press_rad_s": round(speed_before, 3),
        "service_ms": round((t_answer - t_press) * 1e3, 1),
        "to_estopped_status_ms": round((t_status - t_press) * 1e3, 1),
        "to_arm_still_ms": round((t_still - t_press) * 1e3, 1),
        "hold_drift_rad": drift,
        "held": drift < 1e-3,
        "reset": bool(reset_ok),
        "reset_attempts": attempts,
    }
    log(
        f"  E-STOP pressed during {rid} at {speed_before:.2f} rad/s: status estopped after "
        f"{result['to_estopped_status_ms']:.0f} ms, arm still after "
        f"{result['to_arm_still_ms']:.0f} ms, hold drift {drift * 1e3:.3f} mrad over "
        f"{HOLD_SAMPLES} joint states, reset {'ok' if reset_ok else 'REFUSED'}"
    )
    return result
