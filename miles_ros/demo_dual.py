"""``miles demo --dual``: a goal in words on the two-arm cell of config/scene_dual.yaml.

One process, as ``miles up --scene config/scene_dual.yaml``
(:func:`miles_ros.ros.graph.cell_factories`): sim_node with both arms, per arm a
safety_node, a skill_node and an arm agent, and manager_node in its cell mode (the
embedded planner; the goal's steps handed out by contract net). A probe
(:class:`miles_ros.ros.cell_client.CellClient`) sends the goal (default
:data:`DUAL_GOAL`), follows it to its end and records the announcements, bids, awards,
each arm's skill requests and statuses and its safety state and events. Pictures before,
during (once both arms run a task, else once one does) and after.

The report (``out/report.json``, built by :func:`cell_report` from what was heard, never
from what was expected) has the plan, every bid and award, each arm's task intervals
(request, first ``running``, final status; seconds since the goal was sent), the makespan
(first request to last task end), how long both arms ran tasks at once
(``both_arms_at_once_s``, ``overlapped``: 0 / false when the tasks ran one after the
other) and how long two tasks that succeeded did (``succeeded_at_once_s``: arms held
over the table by the safety nodes' separation run at once but fail), the safety
interventions per arm, and whether the goal succeeded.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

from miles_ros.demo_graph import DEFAULT_OPTIONS, DemoOptions, demo_domain
from miles_ros.interfaces import FINAL_GOAL_OUTCOMES, FINAL_SKILL_STATES, RUNNING, SUCCEEDED
from miles_ros.safety.audit import events_by_kind

if TYPE_CHECKING:
    from miles_ros.ros.cell_client import CellClient

DUAL_SCENE = str(Path(__file__).resolve().parents[1] / "config" / "scene_dual.yaml")
"""The cell the demo runs on (the installed config/ when not run from the source tree)."""
DUAL_GOAL = "put the red cube on the left pad and the blue cube on the right pad"
"""The goal ``miles demo --dual`` sends (two tasks, one for each arm's side)."""
GOAL_TIMEOUT_S = 600.0
"""Longest wait (s) for the goal's end (3 rounds of 2 pick_place at 12 s each, bidding and
planning fit many times over; the demo reports ``timed_out`` after it)."""
READY_TIMEOUT_S = 60.0
"""Longest wait (s) for the graph: both arms' joint states and safety state, the object
poses, the skill nodes' state and the manager's idle status."""


def run_dual_demo(
    out: Path,
    goal: str = DUAL_GOAL,
    opts: DemoOptions = DEFAULT_OPTIONS,
    overrides: dict[str, dict] | None = None,
    timeout: float = GOAL_TIMEOUT_S,
    scene_file: str = DUAL_SCENE,
) -> dict:
    """Run ``goal`` on the cell and return the report (also ``out/report.json``).
    ``overrides[part]`` are node parameters on top of config/ (every copy of a part)."""
    from miles_ros.ros.cell_client import CellClient
    from miles_ros.ros.graph import PROCESS_PARTS, InProcessGraph, cell_factories, with_perception
    from miles_ros.ros.view_node import start_view, view_spec

    started = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    for name in ("before.png", "during.png", "after.png"):  # none from an earlier run
        (out / name).unlink(missing_ok=True)
    values = {part: dict(v) for part, v in (overrides or {}).items()}
    values.setdefault("manager", {}).update(memory_db=":memory:", memory_embedder="hash")
    if opts.skill_library:
        for part in ("skills", "manager", "agents"):
            values.setdefault(part, {})["skill_library"] = opts.skill_library
    parts = ["sim", "safety", "skills", "manager"]
    if opts.perception:
        parts, values = with_perception(parts, values)
    here = [part for part in parts if part not in PROCESS_PARTS]
    labels = [label for label, _ in cell_factories(scene_file, here, overrides=values)]
    labels_all = labels + [part for part in parts if part in PROCESS_PARTS]
    log = opts.log
    log(f"Miles demo (two arms): goal {goal!r}")
    log(f"  loading the cell: {', '.join(labels_all)} ...")
    times: dict[str, float] = {}
    with InProcessGraph.of_parts(
        parts,
        overrides=values,
        domain_id=demo_domain(opts.domain_id),
        times=times,
        scene_file=scene_file,
    ) as graph:
        nodes = dict(zip(labels, graph.nodes, strict=True))
        if opts.view:
            start_view(graph, view_spec(scene_file, **opts.view))
        arms = [label.split("/", 1)[1] for label in labels if label.startswith("skills/")]
        client = CellClient(graph.context, arms)
        graph.add(client.node)
        graph.spin_in_thread("miles_demo_dual_spin")
        _wait_ready(client, [nodes[f"skills/{a}"] for a in arms])
        manager = nodes["manager"]
        model = getattr(getattr(manager.driver.planner, "lm", None), "name", "?")
        log(
            f"  cell up in {time.perf_counter() - started:.1f} s (planner {model}, built in "
            f"{times.get('manager', 0.0):.1f} s); arms: {', '.join(arms)}"
        )
        client.capture(out / "before.png")
        t_goal, final = _follow(client, goal, out, log, timeout)
        client.capture(out / "after.png")
        with client.cond:
            heard = {
                "requests": {a: list(v) for a, v in client.requests.items()},
                "statuses": {a: list(v) for a, v in client.arm_statuses.items()},
                "net": {k: list(v) for k, v in client.net.items()},
                "safety": {a: dict(v) for a, v in client.arm_safety.items()},
                "events": {a: list(v) for a, v in client.arm_events.items()},
            }
    report = cell_report(goal, final, heard, t_goal)
    report.update(
        demo="ros2_cell_pybullet_goal",
        scene=scene_file,
        graph=labels_all,
        model=model,
        node_construct_s=times,
        pictures=[p for p in ("before.png", "during.png", "after.png") if (out / p).exists()],
        wall_time_s=round(time.perf_counter() - started, 2),
    )
    (out / "report.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return report


def _wait_ready(client: CellClient, skill_nodes: list) -> None:
    def ready():
        return (
            all(client.arm_safety[a] and client.arm_joint_states[a] > 0 for a in client.arms)
            and bool(client.objects)
            and all(n.skills.joints is not None for n in skill_nodes)
            and any(m.get("planner") == "ready" for m in client.manager)
        )

    client.wait(ready, READY_TIMEOUT_S, "the cell (both arms' state, objects, the manager)")


def _follow(client: CellClient, goal: str, out: Path, log, timeout: float):
    """Send ``goal``, log its plan, awards and each arm's task ends, take the ``during``
    picture; returns ``(t_goal, final status)`` (``outcome: timed_out`` after
    ``timeout``)."""
    seq = max(int(m.get("goals_received") or 0) for m in client.manager) + 1
    t_goal = time.monotonic()
    client.publish_goal(goal)
    deadline = t_goal + timeout
    logged_plan, logged_awards, logged_ends, during = False, 0, set(), False
    while True:
        with client.cond:
            mine = [m for m in client.manager if m.get("goal_seq") == seq]
            status = mine[-1] if mine else {}
            awards = [a for _, a in client.net["award"]]
            running = _running_arms(client)
            ends = [
                (arm, s)
                for arm, items in client.arm_statuses.items()
                for _, s in items
                if s.get("state") in FINAL_SKILL_STATES
            ]
        if status.get("plan") and not logged_plan:
            logged_plan = True
            log("  plan: " + " -> ".join(_call(s) for s in status["plan"]))
        for award in awards[logged_awards:]:
            log(f"  award: {award['task_id']} -> {award['arm']} (cost {award['cost']:.2f})")
        logged_awards = len(awards)
        for arm, s in ends:
            if s["id"] not in logged_ends:
                logged_ends.add(s["id"])
                why = f" ({s['reason']})" if s.get("reason") else ""
                log(f"    {arm}: {s.get('skill')} [{s['id']}] {s['state']}{why}")
        if not during and (len(running) == len(client.arms) or (running and ends)):
            during = True  # both at once, or one while the other has finished
            client.capture(out / "during.png")
        if status.get("outcome") in FINAL_GOAL_OUTCOMES:
            if not during and running:
                client.capture(out / "during.png")
            return t_goal, status
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            log(f"  no end within {timeout:.0f} s")
            return t_goal, {**status, "outcome": "timed_out", "failure": "demo timeout"}
        with client.cond:  # every message notifies; re-check at least once a second
            client.cond.wait(min(remaining, 1.0))


def _running_arms(client: CellClient) -> set[str]:
    """Arms whose latest skill status is ``running`` (call under ``client.cond``)."""
    return {
        arm
        for arm, items in client.arm_statuses.items()
        if items and items[-1][1].get("state") == RUNNING
    }


def _call(step: dict) -> str:
    params = ", ".join(f"{k}={v}" for k, v in (step.get("params") or {}).items())
    return f"{step.get('skill')}({params})"


def arm_intervals(requests: list, statuses: list, trace_id: str | None, t0: float) -> list:
    """One arm's tasks of goal ``trace_id``: for each request, when it was requested, when
    the arm first reported it ``running``, when it ended and how (seconds since ``t0``;
    ``ended_s`` None when no final status came)."""
    out = []
    for t_req, req in requests:
        if req.get("cancel") or (trace_id and req.get("trace_id") != trace_id):
            continue
        mine = [(t, s) for t, s in statuses if s.get("id") == req["id"]]
        run = next((t for t, s in mine if s.get("state") == RUNNING), None)
        end = next(((t, s) for t, s in mine if s.get("state") in FINAL_SKILL_STATES), None)
        start = run if run is not None else (end[0] if end else None)
        out.append(
            {
                "request_id": req["id"],
                "skill": req.get("skill"),
                "params": req.get("params") or {},
                "requested_s": round(t_req - t0, 3),
                "started_s": None if start is None else round(start - t0, 3),
                "ended_s": None if end is None else round(end[0] - t0, 3),
                "duration_s": None if end is None else round(end[0] - t_req, 3),
                "state": end[1].get("state") if end else "no final status",
                "reason": (end[1].get("reason") or "") if end else "",
            }
        )
    return out


def both_at_once_s(intervals: dict[str, list]) -> float:
    """Seconds during which every arm was running a task (intersection of the arms' busy
    time; a task runs from ``requested_s`` to ``ended_s``)."""
    busy = []
    for items in intervals.values():
        spans = sorted((i["requested_s"], i["ended_s"]) for i in items if i["ended_s"] is not None)
        busy.append(_union(spans))
    if len(busy) < 2:
        return 0.0
    common = busy[0]
    for other in busy[1:]:
        common = [
            (max(a, c), min(b, d)) for a, b in common for c, d in other if min(b, d) > max(a, c)
        ]
    return round(sum(b - a for a, b in common), 3)


def _union(spans: list[tuple[float, float]]) -> list[tuple[float, float]]:
    merged: list[tuple[float, float]] = []
    for a, b in spans:
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def cell_report(goal: str, final: dict, heard: dict, t0: float) -> dict:
    """The report of one cell goal from the final manager status and what the probe
    heard (``requests``/``statuses`` per arm and ``net`` by kind as ``(t, dict)``;
    ``safety`` per arm; ``events`` per arm), times in seconds since ``t0``."""
    trace = final.get("trace_id")

    def of_goal(kind: str) -> list[dict]:
        return [
            {**m, "t_s": round(t - t0, 3)}
            for t, m in heard["net"][kind]
            if trace is None or m.get("trace_id") == trace
        ]

    intervals = {
        arm: arm_intervals(heard["requests"][arm], heard["statuses"][arm], trace, t0)
        for arm in heard["requests"]
    }
    spans = [i for items in intervals.values() for i in items]
    ended = [i["ended_s"] for i in spans if i["ended_s"] is not None]
    first = min((i["requested_s"] for i in spans), default=None)
    makespan = round(max(ended) - first, 3) if ended and first is not None else None
    busy = sum(i["duration_s"] for i in spans if i["duration_s"] is not None)
    at_once = both_at_once_s(intervals)
    ok = {a: [i for i in items if i["state"] == SUCCEEDED] for a, items in intervals.items()}
    announces = of_goal("announce")
    safety = {
        arm: {
            "interventions": int(state.get("interventions", 0)),
            "events_by_kind": events_by_kind(heard["events"][arm]),
            "mode": state.get("mode"),
            "estop": state.get("estop"),
        }
        for arm, state in heard["safety"].items()
    }
    return {
        "goal": goal,
        "outcome": final.get("outcome"),
        "failure": final.get("failure") or "",
        "trace_id": trace,
        "plan": final.get("plan") or [],
        "tasks": final.get("tasks") or [],
        "announcements": announces,
        "bids": of_goal("bid"),
        "awards": of_goal("award"),
        "intervals": intervals,
        "first_announce_s": announces[0]["t_s"] if announces else None,
        "makespan_s": makespan,
        "busy_s": round(busy, 3),
        "both_arms_at_once_s": at_once,
        "overlapped": at_once > 0,
        "succeeded_at_once_s": both_at_once_s(ok),
        "arms_used": sorted(a for a, items in intervals.items() if items),
        "safety": safety,
        "success": final.get("outcome") == SUCCEEDED,
    }
