"""Plan accuracy on the hand-written goal set (``eval_goals.yaml``) and refusal
precision/recall on the hand-written refusal set (``eval_refusals.yaml``), shared by
``miles planner-train`` (the adapter card) and ``bench/planner.py``."""

from __future__ import annotations

import re
import time
from pathlib import Path

import numpy as np

from miles_ros.agent.grounding import Step, step_text
from sims import yaml_files

EVAL_GOALS = Path(__file__).resolve().parent / "eval_goals.yaml"
EVAL_REFUSALS = Path(__file__).resolve().parent / "eval_refusals.yaml"


def parse_step(text: str) -> Step:
    """``pick_place red_cube left_pad`` / ``reach [0.5, 0.1, 0.3]`` / ``turn red_cube -30``
    -> :class:`Step` with positional parameters named by the default skills' schemas (a
    bare number is a float)."""
    text = text.strip()
    skill, _, rest = text.partition(" ")
    values: list = []
    for match in re.finditer(r"\[([^\]]*)\]|(\S+)", rest):
        if match.group(1) is not None:
            values.append([float(v) for v in match.group(1).split(",")])
        else:
            values.append(_scalar(match.group(2)))
    names = {
        "reach": ["target"],
        "push": ["object", "target"],
        "pick_place": ["object", "target"],
        "turn": ["object", "angle"],
        "home": [],
    }.get(skill, [])
    return Step(skill, dict(zip(names, values, strict=False)))


def _scalar(token: str) -> float | str:
    try:
        return float(token)
    except ValueError:
        return token


GOAL_CATEGORY = "everyday"
"""The category of an eval goal that names none."""


def load_eval_goals(path: str | Path | None = None) -> list[dict]:
    """``[{"goal": str, "plan": [Step, ...], "category": str, "objects": {...}}, ...]``
    (``objects``: cube centres by name that replace the planner's scene's for that goal,
    e.g. a tower already standing; empty: the scene as it is)."""
    items = yaml_files.safe_load(Path(path or EVAL_GOALS).read_text())
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
    """Same skills in the same order with the same parameters (points and numbers within
    ``tol``)."""
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
            elif np.ndim(v) != np.ndim(w):
                return False
            elif np.ndim(v) == 0:
                if abs(float(v) - float(w)) > tol:
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
    items = yaml_files.safe_load(Path(path or EVAL_REFUSALS).read_text())
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


EVAL_HELDOUT = Path(__file__).resolve().parent / "eval_heldout.yaml"
"""The first held-out set (:func:`load_eval_set`'s form)."""
LATEST_HELD_OUT = 46
"""The number of the newest held-out set: the Nth (N >= 2) is ``eval_heldoutN.yaml`` beside
:data:`EVAL_HELDOUT`. Each was written in one sitting after the one before it had been run
and read, in scenes no other set uses, the later ones with growing minimums per category
(from the thirteenth on at least 37 everyday, 110 feasible, 40 to refuse and 16 ambiguous
goals and 75 in the harder categories); docs/planner.md says how each was written and what
it scored. A new set raises this number."""
HELD_OUT_SETS = {
    "heldout": EVAL_HELDOUT,
    **{
        f"heldout{n}": EVAL_HELDOUT.with_name(f"eval_heldout{n}.yaml")
        for n in range(2, LATEST_HELD_OUT + 1)
    },
}
"""The held-out sets by the name ``bench/planner.py --sets`` gives them, oldest first; each is
kept unseen: the bench answers it only when ``--sets`` names it, and its misses stay out of
planner tuning until its round reads it (the bench and tests/agent/test_eval_sets.py read
this)."""
EVAL_SCENE_DEV = Path(__file__).resolve().parent / "eval_scene_dev.yaml"
"""The development goals for the scene-reading categories (pronouns, ordering, references,
attributes, ambiguous, refusals, turn angles), in the held-out set's form, cubes moved per
goal."""
EVAL_WORDING_DEV = Path(__file__).resolve().parent / "eval_wording_dev.yaml"
"""The development goals for wordings a fresh set is likely to probe (casual and terse
phrasing, the skills' verbs, typos, synonyms; ambiguous goals; turns said several ways;
towers; moved cubes), in the held-out set's form."""
EVAL_READING_DEV = Path(__file__).resolve().parent / "eval_reading_dev.yaml"
"""The development goals for the reading rules of the round after the second held-out set
was read (each rule in other words and scenes than the goal that showed it), in the
held-out set's form."""
HARDER = ("references", "attributes", "negation", "ordering", "pronouns")
"""The categories of issue 31's "harder set"."""
ANSWERS = ("plan", "refuse", "clarify")
"""What an item of an eval set expects: a plan (possibly empty), a refusal, a question."""


def load_eval_set(path: str | Path | None = None) -> list[dict]:
    """A categorised eval set (default: the held-out set, ``eval_heldout.yaml``) as
    ``[{"goal", "category", "expect": "plan" | "refuse" | "clarify", "plan": [Step],
    "objects": {cube: position} | None}, ...]``; ``objects`` moves the cubes of the
    planner's scene (the item's ``scene`` under the file's ``scenes``)."""
    data = yaml_files.safe_load(Path(path or EVAL_HELDOUT).read_text())
    scenes = data.get("scenes", {})
    out = []
    for it in data["goals"]:
        expect = "refuse" if it.get("refuse") else "clarify" if it.get("clarify") else "plan"
        scene = it.get("scene")
        out.append(
            {
                "goal": str(it["goal"]),
                "category": str(it["category"]),
                "expect": expect,
                "plan": [parse_step(s) for s in it.get("plan", [])],
                "objects": {k: tuple(v) for k, v in scenes[scene].items()} if scene else None,
            }
        )
    return out


def dev_set(registry, world) -> list[dict]:
    """``eval_goals.yaml``, ``eval_refusals.yaml``, ``eval_scene_dev.yaml``,
    ``eval_wording_dev.yaml`` and ``eval_reading_dev.yaml`` in
    :func:`load_eval_set`'s form (the sets the reading's rules were written beside: the
    development set). As in
    :func:`evaluate_refusals`, a goal whose expected plan ``registry`` cannot express in
    ``world`` (a call outside a card's envelope, a stack a card does not take) is one to
    refuse; a goal's ``objects`` (a tower already standing) stand its cubes where it
    finds them, as in :func:`evaluate_goals`."""
    from miles_ros.agent.validation import validate_plan

    def placed(item: dict):
        if not item["objects"]:
            return world
        moved = world.copy()
        moved.objects.update(item["objects"])
        return moved

    goals = [
        {
            **g,
            "expect": "refuse" if validate_plan(g["plan"], registry, placed(g)) else "plan",
            "objects": g["objects"] or None,
        }
        for g in load_eval_goals()
    ]
    refusals = [
        {
            "goal": r["goal"],
            "category": r["category"],
            "expect": "refuse" if r["refuse"] else "plan",
            "plan": [],
            "objects": r["objects"] or None,
        }
        for r in load_eval_refusals()
    ]
    return (
        goals
        + refusals
        + load_eval_set(EVAL_SCENE_DEV)
        + load_eval_set(EVAL_WORDING_DEV)
        + load_eval_set(EVAL_READING_DEV)
    )


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def _tally(rows: list[dict]) -> dict:
    """Exact answers, valid plans, refusal and clarification precision/recall and latency
    of a list of :func:`evaluate_set` rows."""
    n = len(rows)
    wanted = [r for r in rows if r["expect"] == "plan"]
    out: dict = {
        "n": n,
        "exact": _ratio(sum(r["ok"] for r in rows), n),
        "valid": _ratio(sum(r["got"] == "plan" for r in wanted), len(wanted)),
    }
    for answer in ("refuse", "clarify"):
        got = sum(r["got"] == answer for r in rows)
        hit = sum(r["got"] == answer and r["expect"] == answer for r in rows)
        expected = sum(r["expect"] == answer for r in rows)
        name = "refusal" if answer == "refuse" else "clarification"
        out[f"{name}_precision"] = _ratio(hit, got)
        out[f"{name}_recall"] = _ratio(hit, expected)
    times = [r["latency_s"] for r in rows]
    out["latency_p50_s"] = round(float(np.percentile(times, 50)), 4) if times else None
    out["latency_p99_s"] = round(float(np.percentile(times, 99)), 4) if times else None
    return out


def evaluate_set(planner, items: list[dict], mode: str = "grounded") -> dict:
    """:func:`summarize` of :func:`answer` on every item."""
    return summarize([answer(planner, item, mode) for item in items])


def answer(planner, item: dict, mode: str = "grounded") -> dict:
    """Plan one item of an eval set (cache bypassed; the item's ``objects`` move the cubes
    of the planner's world) and judge the answer: a plan must be valid and exactly the
    expected one, a refusal or a question must be one. A plan from the rule-based fallback
    is a failure, whatever it holds."""
    world = planner.world.copy()
    if item["objects"]:
        world.objects.update(item["objects"])
    t0 = time.perf_counter()
    plan = planner.plan(item["goal"], world=world, mode=mode, use_cache=False)
    latency = time.perf_counter() - t0
    if plan.fallback_used:
        got = "fallback"
    elif plan.clarification is not None:
        got = "clarify"
    elif plan.refused:
        got = "refuse"
    else:
        got = "plan" if plan.valid else "invalid"
    return {
        "goal": item["goal"],
        "category": item["category"],
        "expect": item["expect"],
        "got": got,
        "ok": got == item["expect"] and (got != "plan" or same_plan(plan.steps, item["plan"])),
        "latency_s": latency,
        "steps": [step_text(s) for s in plan.steps],
        "reason": plan.reason or (plan.clarification.question if plan.clarification else ""),
        "expected": [step_text(s) for s in item["plan"]],
        "moved": bool(item["objects"]),
    }


def summarize(rows: list[dict]) -> dict:
    """``{"all": tally, "by_category": {name: tally}, "targets": ..., "misses": [...]}`` of
    :func:`answer` rows (tallies: :func:`_tally`). ``targets``, as issue 31 states them:
    everyday exact, harder-set exact (:data:`HARDER` categories, refusals there included),
    goals to refuse that were refused, feasible goals refused, ambiguous goals asked back,
    latency."""

    def share(subset: list[dict], test) -> float | None:
        return _ratio(sum(bool(test(r)) for r in subset), len(subset))

    everyday = [r for r in rows if r["category"] == "everyday"]
    harder = [r for r in rows if r["category"] in HARDER]
    feasible = [r for r in rows if r["expect"] == "plan" and r["category"] != "nothing"]
    everything = _tally(rows)
    return {
        "all": everything,
        "by_category": {
            c: _tally([r for r in rows if r["category"] == c])
            for c in sorted({r["category"] for r in rows})
        },
        "targets": {
            "everyday_exact": share(everyday, lambda r: r["ok"]),
            "harder_exact": share(harder, lambda r: r["ok"]),
            "infeasible_refused": share(
                [r for r in rows if r["expect"] == "refuse"], lambda r: r["got"] == "refuse"
            ),
            "feasible_wrongly_refused": share(feasible, lambda r: r["got"] == "refuse"),
            "ambiguous_asked": share(
                [r for r in rows if r["expect"] == "clarify"], lambda r: r["got"] == "clarify"
            ),
            "latency_p50_s": everything["latency_p50_s"],
            "latency_p99_s": everything["latency_p99_s"],
        },
        "misses": [
            {k: r[k] for k in ("goal", "category", "expect", "got", "expected", "steps", "reason")}
            | {"moved": r["moved"]}
            for r in rows
            if not r["ok"]
        ],
    }
