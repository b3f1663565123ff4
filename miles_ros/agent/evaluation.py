"""Plan accuracy on the hand-written goal set (``eval_goals.yaml``) and refusal
precision/recall on the hand-written refusal set (``eval_refusals.yaml``), shared by
``miles planner-train`` (the adapter card) and ``bench/planner.py``."""

from __future__ import annotations

import re
import time
from pathlib import Path

import numpy as np
import yaml

from miles_ros.agent.grounding import Step, step_text

EVAL_GOALS = Path(__file__).resolve().parent / "eval_goals.yaml"
EVAL_REFUSALS = Path(__file__).resolve().parent / "eval_refusals.yaml"


def parse_step(text: str) -> Step:
    """``pick_place red_cube left_pad`` / ``reach [0.5, 0.1, 0.3]`` -> :class:`Step` with
    positional parameters named by the default skills' schemas."""
    text = text.strip()
    skill, _, rest = text.partition(" ")
    values: list = []
    for match in re.finditer(r"\[([^\]]*)\]|(\S+)", rest):
        if match.group(1) is not None:
            values.append([float(v) for v in match.group(1).split(",")])
        else:
            values.append(match.group(2))
    names = {
        "reach": ["target"],
        "push": ["object", "target"],
        "pick_place": ["object", "target"],
        "home": [],
    }.get(skill, [])
    return Step(skill, dict(zip(names, values, strict=False)))


GOAL_CATEGORY = "everyday"
"""The category of an eval goal that names none."""


def load_eval_goals(path: str | Path | None = None) -> list[dict]:
    """``[{"goal": str, "plan": [Step, ...], "category": str, "objects": {...}}, ...]``
    (``objects``: cube centres by name that replace the planner's scene's for that goal,
    e.g. a tower already standing; empty: the scene as it is)."""
    items = yaml.safe_load(Path(path or EVAL_GOALS).read_text())
    return [
        {
            "goal": it["goal"],
            "category": str(it.get("category", GOAL_CATEGORY)),
            "objects": _objects(it),
            "plan": [
                parse_step(s) if isinstance(s, str) else parse_step(" ".join(map(str, s)))
                for s in it["plan"]
            ],
        }
        for it in items
    ]


def _objects(item: dict) -> dict[str, tuple[float, ...]]:
    return {str(k): tuple(float(v) for v in p) for k, p in (item.get("objects") or {}).items()}


def goal_world(planner, item: dict):
    """The planner's world with the item's ``objects`` (cube centres) in place."""
    if not item.get("objects"):
        return planner.world
    world = planner.world.copy()
    world.objects.update(item["objects"])
    return world


def same_plan(a: list[Step], b: list[Step], tol: float = 1e-3) -> bool:
    """Same skills in the same order with the same parameters (points within ``tol``)."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        if x.skill != y.skill or set(x.params) != set(y.params):
            return False
        for k, v in x.params.items():
            w = y.params[k]
            if isinstance(v, str) or isinstance(w, str):
                if v != w:
                    return False
            elif len(v) != len(w) or np.max(np.abs(np.subtract(v, w))) > tol:
                return False
    return True


def evaluate_goals(planner, goals: list[dict], mode: str = "grounded") -> dict:
    """Accuracy, validity and latency of ``planner`` on ``goals`` (cache bypassed), in
    all and per category (``by_category``).

    Goals whose expected plan does not validate against the planner's registry are left
    out (listed under ``unsupported``)."""
    from miles_ros.agent.validation import validate_plan

    latencies, correct, valid, misses, unsupported = [], 0, 0, [], []
    by_category: dict[str, dict] = {}
    for item in goals:
        world = goal_world(planner, item)
        if validate_plan(item["plan"], planner.registry, world):
            # the expected plan is not expressible with these skills (e.g. a trained card
            # whose targets are pads only cannot stack): not counted
            unsupported.append(item["goal"])
            continue
        t0 = time.perf_counter()
        plan = planner.plan(item["goal"], world=world, mode=mode, use_cache=False)
        latencies.append(time.perf_counter() - t0)
        valid += plan.valid and not plan.fallback_used
        ok = plan.valid and not plan.fallback_used and same_plan(plan.steps, item["plan"])
        correct += ok
        tally = by_category.setdefault(
            item.get("category", GOAL_CATEGORY), {"n": 0, "exact": 0, "valid": 0}
        )
        tally["n"] += 1
        tally["exact"] += ok
        tally["valid"] += plan.valid and not plan.fallback_used
        if not ok:
            misses.append(
                {
                    "goal": item["goal"],
                    "expected": [step_text(s) for s in item["plan"]],
                    "got": [step_text(s) for s in plan.steps],
                    **({"errors": plan.errors} if plan.errors else {}),
                }
            )
    n = len(goals) - len(unsupported)
    return {
        "n_goals": n,
        "unsupported": unsupported,
        "accuracy": round(correct / n, 4) if n else 0.0,
        "validity": round(valid / n, 4) if n else 0.0,
        "latency_p50_s": round(float(np.percentile(latencies, 50)), 4) if n else None,
        "latency_p95_s": round(float(np.percentile(latencies, 95)), 4) if n else None,
        "by_category": {
            name: {
                "n": t["n"],
                "accuracy": round(t["exact"] / t["n"], 4),
                "validity": round(t["valid"] / t["n"], 4),
            }
            for name, t in sorted(by_category.items())
        },
        "misses": misses,
    }


def load_eval_refusals(path: str | Path | None = None) -> list[dict]:
    """``[{"goal": str, "refuse": bool, "category": str, "objects": {...}}, ...]``
    (``refuse: false``: a no-motion goal; category ``infeasible`` or ``nothing`` unless
    named; ``objects`` as in :func:`load_eval_goals`)."""
    items = yaml.safe_load(Path(path or EVAL_REFUSALS).read_text())
    return [
        {
            "goal": str(it["goal"]),
            "refuse": bool(it["refuse"]),
            "objects": _objects(it),
            "category": str(it.get("category", "infeasible" if it["refuse"] else "nothing")),
        }
        for it in items
    ]


def evaluate_refusals(
    planner, refusals: list[dict], goals: list[dict], mode: str = "grounded"
) -> dict:
    """Refusal precision and recall: positives are ``refusals`` labelled ``refuse`` plus
    the ``goals`` (eval_goals) whose expected plan the registry cannot express; negatives
    are the other ``goals`` and the no-motion goals (which must give a valid empty plan).
    ``by_category``: per category, the goals answered right (refused when labelled so,
    not refused otherwise) out of its goals."""
    from miles_ros.agent.validation import validate_plan

    labelled = [
        (r["goal"], r["refuse"], r.get("category", "infeasible"), goal_world(planner, r))
        for r in refusals
    ] + [
        (
            g["goal"],
            bool(validate_plan(g["plan"], planner.registry, goal_world(planner, g))),
            g.get("category", GOAL_CATEGORY),
            goal_world(planner, g),
        )
        for g in goals
    ]
    tp = fp = fn = 0
    wrong: list[dict] = []
    by_category: dict[str, dict] = {}
    for goal, refuse, category, world in labelled:
        plan = planner.plan(goal, world=world, mode=mode, use_cache=False)
        tally = by_category.setdefault(category, {"n": 0, "right": 0})
        tally["n"] += 1
        tally["right"] += plan.refused == refuse
        tp += refuse and plan.refused
        fp += plan.refused and not refuse
        fn += refuse and not plan.refused
        if plan.refused != refuse:
            wrong.append(
                {
                    "goal": goal,
                    "expected": "refuse" if refuse else "plan",
                    "got": plan.reason if plan.refused else [step_text(s) for s in plan.steps],
                }
            )
    nothing = [r["goal"] for r in refusals if not r["refuse"]]
    empty_ok = sum(
        (p := planner.plan(g, mode=mode, use_cache=False)).nothing and p.valid for g in nothing
    )
    return {
        "n_refuse": tp + fn,
        "n_plan": len(labelled) - tp - fn,
        "precision": round(tp / (tp + fp), 4) if tp + fp else 1.0,
        "recall": round(tp / (tp + fn), 4) if tp + fn else 1.0,
        "nothing_ok": f"{empty_ok}/{len(nothing)}",
        "by_category": {name: f"{t['right']}/{t['n']}" for name, t in sorted(by_category.items())},
        "wrong": wrong,
    }
