"""Supervisor interventions per request of pick_place versions, offline: the evidence the
canary's intervention rule rests on (``CanaryConfig``: docs/training.md, the loop).

    PYTHONPATH=. .venv/bin/python bench/canary_interventions.py --episodes 100 --out out/ci.json

Each version runs the card's evaluation episodes (its envelope, seed 1000) in PyBullet
behind the safety supervisor as skill_node sends its targets
(:func:`~miles_ros.runtime.supervised.pybullet_options`, ``time_scale`` x the episode,
the default 4 as ``miles eval --supervised``), on the original cell and the loop's changed
cell (:data:`bench.continual.SCENARIO`). Per episode: success and the supervisor's
interventions (its audit count, what ``/miles/safety/state`` counts live), and the
control period at which the count first passed each of :data:`CROSSINGS`. Versions: the
shipped one (the active), the same networks with a finger-reading calibration (the loop's
calibrated candidate: ``--calibration-mm``, half the identified offset) and the shipped
one with its actions mirrored (the broken candidate, here never cut off).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.continual import SCENARIO, SKILL, _Mirrored, eval_config  # noqa: E402
from policies.commands._common import stdout_to_stderr  # noqa: E402

CROSSINGS = (20, 40, 80, 160, 320)
"""Intervention counts whose first crossing is timed (control periods into the episode)."""


def counting_filters(num_envs: int, cfg) -> tuple[dict, list]:
    """``pybullet_options`` whose supervisors report each episode's interventions: the
    env kwargs and the list each ended episode's (count, crossings) is appended to."""
    from miles_ros.runtime.command_path import SHAPE_COMMANDS
    from miles_ros.runtime.supervised import SupervisorFilter, pybullet_options

    ended: list[tuple[int, dict]] = []

    class Counting(SupervisorFilter):
        periods = 0
        crossed: dict = {}

        def reset(self, row):
            if self.supervisor is not None:
                ended.append((int(self.supervisor.audit.count), dict(self.crossed)))
            self.periods, self.crossed = 0, {}
            super().reset(row)

        def __call__(self, substep, row, arm_target, finger_target):
            if substep == 0:
                self.periods += 1
                count = int(self.supervisor.audit.count)
                for c in CROSSINGS:
                    if c not in self.crossed and count > c:
                        self.crossed[c] = self.periods
            return super().__call__(substep, row, arm_target, finger_target)

    kwargs = pybullet_options(SKILL, num_envs, cfg, None, SHAPE_COMMANDS)
    kwargs["motor_filters"] = [
        Counting(f.dt / f.period_substeps, f.config, f.lead, f.fingers, f.command_path_dt)
        for f in kwargs["motor_filters"]
    ]
    return kwargs, ended


def measure(policy_fn, change: dict, episodes: int, seed: int, time_scale: float) -> dict:
    import sims
    from policies.evaluation import run_episodes

    cfg = eval_config(change)
    cfg = dataclasses.replace(cfg, episode_steps=round(cfg.episode_steps * time_scale))
    kwargs, ended = counting_filters(1, cfg)
    env = sims.make_env(SKILL, "pybullet", num_envs=1, **kwargs)
    try:
        result = run_episodes(env, policy_fn, episodes, seed)
    finally:
        env.close()
    counts = [c for c, _ in ended[:episodes]]
    crossings = [x for _, x in ended[:episodes]]
    return {
        "change": change,
        "episodes": result.episodes,
        "success": result.success,
        "per_episode_success": result.per_episode_success,
        "interventions": counts,
        "crossings": crossings,
        "episode_steps": cfg.episode_steps,
        "summary": summary(counts, crossings),
    }


def summary(counts: list[int], crossings: list[dict]) -> dict:
    a = np.asarray(counts, dtype=float)
    if not len(a):
        return {}
    out = {
        "mean": round(float(a.mean()), 2),
        "std": round(float(a.std()), 2),
        **{f"p{q}": float(np.percentile(a, q)) for q in (50, 90, 95, 99)},
        "max": int(a.max()),
        **{f"over_{c}": int((a > c).sum()) for c in CROSSINGS},
    }
    for c in CROSSINGS:
        at = [x[c] for x in crossings if c in x]
        if at:
            out[f"period_over_{c}"] = {"median": float(np.median(at)), "max": int(max(at))}
    return out


def calibrated_copy(shipped: Path, offset_m: float, where: Path) -> Path:
    """The shipped version's files with a finger-reading calibration of ``offset_m``."""
    dst = where / f"calibrated_{offset_m * 1000:.2f}mm"
    shutil.copytree(shipped, dst)
    card = yaml.safe_load((dst / "skill.yaml").read_text())
    card["calibration"] = {
        "finger_width": {"offset_m": offset_m, "source": "bench/canary_interventions.py"}
    }
    (dst / "skill.yaml").write_text(yaml.safe_dump(card, sort_keys=False))
    return dst


def live(args, shipped: Path, work: Path) -> dict:
    """``--live``: the same versions as the active one of the bench's live graph
    (:class:`bench.continual.Cell`, its seeded requests), no canary: each request's
    interventions (``/miles/safety/state``'s count), their kinds (``/miles/safety/events``)
    and, polled every 20 ms, the seconds into the request at which the count first passed
    each of :data:`CROSSINGS`."""
    import threading
    import time

    from std_msgs.msg import String

    from bench.continual import Cell, episodes, library_copy
    from bench.drift_signals import NOMINAL
    from miles_ros import interfaces
    from miles_ros.ros.qos import COMMAND_QOS
    from miles_ros.runtime.rollout.core import load_candidate
    from miles_ros.safety.audit import interventions_by_kind

    library = library_copy(work / "skills")
    cell = Cell(library, work)
    events: list[dict] = []
    cell.peer.create_subscription(
        String, interfaces.SAFETY_EVENTS, lambda m: events.append(json.loads(m.data)), COMMAND_QOS
    )
    lib = cell.skills.skills.library
    active = lib.skills[SKILL]
    versions = {
        "active": active,
        "mirrored": dataclasses.replace(active, policy=_Mirrored(active.policy)),
    }
    for mm in args.calibration_mm:
        path = calibrated_copy(shipped, mm / 1000.0, work)
        versions[f"calibrated_{mm:g}mm"] = load_candidate(lib, SKILL, path, check_hashes=False)
    eps = episodes(args.seed)
    out: dict = {}
    try:
        for spec in args.live:
            name, cell_name, n = spec.split(":")
            change = SCENARIO if cell_name == "changed" else NOMINAL
            cell.set_change(change)
            lib.skills[SKILL] = versions[name]
            rows = []
            for k in range(int(n)):
                before = int(cell.safety_state.get("interventions", 0) or 0)
                del events[:]
                crossed: dict = {}
                stop = threading.Event()
                t0 = time.monotonic()

                def poll(before=before, crossed=crossed, stop=stop, t0=t0):
                    while not stop.is_set():
                        now = int(cell.safety_state.get("interventions", 0) or 0) - before
                        for c in CROSSINGS:
                            if c not in crossed and now > c:
                                crossed[c] = round(time.monotonic() - t0, 2)
                        time.sleep(0.02)  # polling the latest safety state

                poller = threading.Thread(target=poll, daemon=True)
                poller.start()
                status, _ = cell.run(f"{name}-{cell_name}-{k}", next(eps))
                time.sleep(0.3)  # the safety state is published at most every 0.1 s
                stop.set()
                poller.join()
                after = int(cell.safety_state.get("interventions", 0) or 0)
                row = {
                    "state": status["state"],
                    "reason": status.get("reason", ""),
                    "elapsed_s": status.get("elapsed_s"),
                    "steps": status.get("step"),
                    "interventions": after - before,
                    "kinds": interventions_by_kind(list(events)),
                    "crossed_s": crossed,
                }
                rows.append(row)
                print(spec, k, json.dumps(row), file=sys.stderr, flush=True)
            counts = [r["interventions"] for r in rows]
            out[f"{name}_{cell_name}"] = {
                "rows": rows,
                "success": float(np.mean([r["state"] == "succeeded" for r in rows])),
                "summary": summary(counts, []),
            }
            if args.out:
                Path(args.out).write_text(json.dumps(out))
    finally:
        lib.skills[SKILL] = active
        cell.close()
    return out


def main() -> int:
    from policies.cards import skill_library
    from policies.library import active_skill_dir
    from policies.runtime import SkillPolicy

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--time-scale", type=float, default=4.0)
    parser.add_argument("--calibration-mm", type=float, nargs="*", default=[4.0])
    parser.add_argument("--runs", nargs="*", default=None, help="names of runs to do (all)")
    parser.add_argument("--out", default=None)
    parser.add_argument(
        "--live",
        nargs="*",
        default=None,
        help="VERSION:CELL:N ... on the live graph (VERSION: active, mirrored, "
        "calibrated_4mm; CELL: original, changed)",
    )
    args = parser.parse_args()
    shipped = active_skill_dir(skill_library() / SKILL)
    work = Path(tempfile.mkdtemp(prefix="canary_interventions_"))
    if args.live:
        try:
            with stdout_to_stderr():
                result = live(args, shipped, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        print(json.dumps({k: v["summary"] for k, v in result.items()}))
        return 0
    active = SkillPolicy(shipped)
    runs = {
        "active_original": (active.act, {}),
        "active_changed": (active.act, SCENARIO),
        "mirrored_changed": (_Mirrored(active).act, SCENARIO),
        "mirrored_original": (_Mirrored(active).act, {}),
    }
    for mm in args.calibration_mm:
        policy = SkillPolicy(calibrated_copy(shipped, mm / 1000.0, work))
        runs[f"calibrated_{mm:g}mm_changed"] = (policy.act, SCENARIO)
        runs[f"calibrated_{mm:g}mm_original"] = (policy.act, {})
    out = {"episodes": args.episodes, "seed": args.seed, "time_scale": args.time_scale}
    try:
        with stdout_to_stderr():
            for name, (fn, change) in runs.items():
                if args.runs and name not in args.runs:
                    continue
                out[name] = measure(fn, change, args.episodes, args.seed, args.time_scale)
                s = out[name]
                print(name, s["success"], json.dumps(s["summary"]), file=sys.stderr, flush=True)
                if args.out:
                    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
                    Path(args.out).write_text(json.dumps(out))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(
        json.dumps({k: v.get("summary", v) if isinstance(v, dict) else v for k, v in out.items()})
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
