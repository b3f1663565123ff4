"""``miles demo`` from a goal in words: manager_node in the graph of
:mod:`miles_ros.demo_graph`.

:func:`run_goal_demo` sends a goal to ``/miles/goal`` and follows ``/miles/plan`` and
``/miles/manager/status``; the e-stop interrupts the plan's last moving step (the manager
ends the goal ``estopped`` and never resets), the demo checks the hold and resets, then
asks for the rest of the plan in words (``home`` first) and follows it to success.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

from miles_ros.demo_graph import (
    DEFAULT_OPTIONS,
    GRAPH_TIMEOUT_S,
    DemoOptions,
    client_graph,
    estop_mid_motion,
    run_tally,
    safety_report,
)
from miles_ros.interfaces import ESTOPPED, FINAL_GOAL_OUTCOMES, SUCCEEDED

if TYPE_CHECKING:
    from miles_ros.ros.clients import GraphClient

DEFAULT_GOAL = "move to the red cube, go back home, then move to the blue cube and return home"
"""The goal ``miles demo`` sends (the shipped planner adapter plans it as reach red_cube,
home, reach blue_cube, home; reach is reliable from near the home pose)."""
PLAN_TIMEOUT_S = 120.0
"""Longest wait (s) for the manager's plan of a goal (a few seconds on 2 idle cores)."""
STEP_TIMEOUT_S = 75.0
"""Budget (s) per planned step while a goal runs (the manager's own step timeout is 60 s)."""
PHRASES = {
    "home": "go home",
    "reach": "move to the {target}",
    "push": "slide the {object} to the {target}",
    "pick_place": "put the {object} on the {target}",
}
"""How the demo words a step when it asks for the rest of an interrupted plan."""


def _send_goal(client: GraphClient, text: str) -> int:
    """Publish a goal once the manager is ready; returns the ``goal_seq`` it gets."""

    def ready():
        return bool(client.manager) and client.manager[-1].get("planner") in ("ready", "error")

    client.wait(ready, GRAPH_TIMEOUT_S, "the manager to be ready")
    last = client.manager[-1]
    if last.get("planner") == "error":
        raise RuntimeError(f"demo: the manager has no planner: {last.get('reason')}")
    seq = int(last.get("goals_received", 0)) + 1
    client.publish_goal(text)
    return seq


def _goal_status(client: GraphClient, seq: int) -> dict | None:
    """The latest manager status about goal ``seq``."""
    return next((m for m in reversed(client.manager) if m.get("goal_seq") == seq), None)


def remainder_goal(steps: list[dict], start: int) -> str | None:
    """The words for ``home`` then ``steps[start:]`` (the arm stopped mid-motion; the
    skills start from home), or None when a step has no phrase."""
    words = ["go home"]
    for step in steps[start:]:
        phrase = PHRASES.get(step["skill"])
        if phrase is None:
            return None
        params = {k: str(v).replace("_", " ") for k, v in step.get("params", {}).items()}
        try:
            text = phrase.format(**params)
        except KeyError:
            return None
        if text != words[-1]:
            words.append(text)
    return ", then ".join(words)


def estop_step(steps: list[dict]) -> int | None:
    """Index of the step the demo interrupts: the last one that is not ``home``."""
    moving = [k for k, s in enumerate(steps) if s["skill"] != "home"]
    return moving[-1] if moving else None


def _fmt_step(step: dict) -> str:
    params = ", ".join(f"{k}={v}" for k, v in step.get("params", {}).items())
    return f"{step['skill']}({params})"


def run_goal_demo(
    out: Path, goal: str = DEFAULT_GOAL, opts: DemoOptions = DEFAULT_OPTIONS
) -> dict:
    """The demo from a goal in words: sim_node, safety_node, skill_node and manager_node
    in this process; the goal goes to ``/miles/goal``; the plan and every step are followed
    on ``/miles/plan`` and ``/miles/manager/status``; the e-stop is pressed during the
    plan's last moving step, the hold checked and the e-stop reset; then the rest of the
    plan is asked for in words (``home`` first) and followed to its end. Returns the
    report (also written to ``out/report.json``)."""
    started = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    for name in ("before.png", "estop.png", "after.png"):  # none from an earlier run
        (out / name).unlink(missing_ok=True)
    manager = {"memory_db": ":memory:", "memory_embedder": "hash"}
    overrides: dict[str, dict] = {"manager": manager}
    if opts.skill_library:
        overrides["skills"] = {"skill_library": opts.skill_library}
        manager["skill_library"] = opts.skill_library
    times: dict[str, float] = {}
    parts = ["sim", "safety", "skills", "manager"]
    if opts.perception:
        from miles_ros.ros.graph import with_perception

        parts, overrides = with_perception(parts, overrides)
    log = opts.log
    log(f"Miles demo: goal {goal!r}")
    log("  loading the graph: sim_node (PyBullet), safety_node, skill_node, manager_node ...")
    with client_graph(parts, overrides, opts.domain_id, times, opts.view) as (client, nodes):
        skills = nodes[2].skills.library.names()
        model = getattr(getattr(nodes[3].driver.planner, "lm", None), "name", "?")
        log(
            f"  graph up in {time.perf_counter() - started:.1f} s (planner {model} loaded in "
            f"{times['manager']:.1f} s); skills: {', '.join(skills)}"
        )
        client.capture(out / "before.png")
        goals = [_run_goal(client, goal, out, log, estop=True)]
        estop = goals[0].pop("estop_result")
        if goals[0]["outcome"] == ESTOPPED and estop is not None and estop["reset"]:
            client.wait(
                lambda: client.manager[-1].get("estop") is False,
                10.0,
                "the manager to see the e-stop reset",
            )
            first = goals[0]
            rest = remainder_goal(first["interrupted_plan"], first["estop_step"]) or goal
            log(f"  resuming: goal {rest!r}")
            goals.append(_run_goal(client, rest, out, log, estop=False))
            goals[-1].pop("estop_result")
        client.capture(out / "after.png")
        safety = safety_report(dict(client.safety), client.events)
    runs = [r for g in goals for r in g["executed"]]
    report = {
        "demo": "ros2_graph_pybullet_goal",
        "graph": ["sim_node", "safety_node", "skill_node", "manager_node"],
        "goal": goal,
        "plan": goals[0]["plan"],
        "goals": goals,
        "runs": runs,
        **run_tally(runs),
        "replans": sum(g["replans"] for g in goals),
        "safety": safety,
        "estop": estop,
        "model": model,
        "model_load_s": times.get("manager"),
        "node_construct_s": times,
        "pictures": [p for p in ("before.png", "estop.png", "after.png") if (out / p).exists()],
        "success": bool(
            estop is not None
            and estop["held"]
            and estop["reset"]
            and goals[0]["outcome"] == ESTOPPED
            and goals[-1]["outcome"] == SUCCEEDED
        ),
    }
    report["wall_time_s"] = round(time.perf_counter() - started, 2)
    (out / "report.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return report


def _run_goal(client: GraphClient, text: str, out: Path, log, estop: bool) -> dict:
    """Send ``text``, print its plan and steps, press the e-stop during its last moving
    step when ``estop``; returns the goal's record once the manager ends it."""
    t0 = time.monotonic()
    seq = _send_goal(client, text)

    def planned():
        st = _goal_status(client, seq)
        ended = st is not None and st.get("outcome") in FINAL_GOAL_OUTCOMES
        return ended or any(p.get("goal_seq") == seq for p in client.plans)

    client.wait(planned, PLAN_TIMEOUT_S, f"the manager's plan for {text!r}")
    plan = next((p for p in client.plans if p.get("goal_seq") == seq), None)
    record = {
        "goal": text,
        "goal_seq": seq,
        "plan": plan["steps"] if plan else [],
        "plan_latency_s": plan.get("latency_s") if plan else None,
        "plan_mode": plan.get("mode") if plan else None,
        "plan_cached": plan.get("cached") if plan else None,
        "fallback_used": plan.get("fallback_used") if plan else None,
        "estop_step": None,
        "interrupted_plan": None,
        "estop_result": None,
    }
    if plan is not None:
        steps = plan["steps"]
        plural = "" if len(steps) == 1 else "s"
        log(
            f"  plan ({len(steps)} step{plural}, {plan.get('mode')}, "
            f"{plan.get('latency_s', 0):.2f} s"
            f"{', cached' if plan.get('cached') else ''}): "
            + " -> ".join(_fmt_step(s) for s in steps)
        )
    deadline = time.monotonic() + STEP_TIMEOUT_S * max(1, len(record["plan"])) * 2
    printed, plans_seen = 0, 1
    while True:
        st = _goal_status(client, seq) or {}
        executed = st.get("executed") or []
        for e in executed[printed:]:
            mark = {SUCCEEDED: "ok"}.get(e["state"], str(e["state"]).upper())
            why = f" ({e['reason']})" if e.get("reason") else ""
            dur = e.get("duration_s") or 0.0
            log(f"    step {_fmt_step(e):<30} {dur:5.2f} s  [{mark}]{why}")
        printed = max(printed, len(executed))
        replans = [p for p in client.plans if p.get("goal_seq") == seq]
        for p in replans[plans_seen:]:
            log("  replanned: " + " -> ".join(_fmt_step(s) for s in p["steps"]))
        plans_seen = max(plans_seen, len(replans))
        if st.get("outcome") in FINAL_GOAL_OUTCOMES:
            break
        request = st.get("request") or {}
        current = st.get("plan") or record["plan"]  # a replan may have changed it
        if (
            estop
            and record["estop_result"] is None
            and request.get("id")
            and st.get("step_index") == estop_step(current)
        ):
            record["estop_step"], record["interrupted_plan"] = st["step_index"], current
            record["estop_result"] = estop_mid_motion(client, request["id"], out, log)
            continue
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError(f"demo: goal {text!r} did not end in time (last status: {st})")
        with client.cond:  # the manager publishes at least once a second (heartbeat)
            count = len(client.manager)
            client.cond.wait_for(lambda c=count: len(client.manager) > c, min(remaining, 5.0))
    st = _goal_status(client, seq) or {}
    outcome = st.get("outcome")
    mark = "ok" if outcome == SUCCEEDED else str(outcome).upper()
    why = f": {st['reason']}" if st.get("reason") else ""
    log(f"  goal {mark}{why} ({time.monotonic() - t0:.1f} s, {st.get('replans', 0)} replans)")
    record.update(
        outcome=outcome,
        reason=st.get("reason", ""),
        replans=int(st.get("replans") or 0),
        executed=st.get("executed") or [],
        metrics=st.get("metrics") or {},
        trace_id=st.get("trace_id"),
        wall_s=round(time.monotonic() - t0, 2),
    )
    return record
