"""Does the push card's path rule keep other cubes untouched? The shipped push (and its
teacher, the scripted expert, on the same episodes) in PyBullet behind the safety
supervisor, as ``miles eval push --supervised`` runs it (its episodes of ``--seed``, one
env), with a second cube on the table where the goal resolver ACCEPTS the push
(:func:`~miles_ros.runtime.goals.push_path_error`), drawn per episode in one of three
places (``--families``, in turn):

- ``beside``: 5.7-16 cm (``PATH_CLEARANCE`` + 0.5 mm to ``--band``) from the rule's path
  (from ``PATH_BEHIND`` behind the cube to the goal), anywhere along it, either side;
- ``behind``: the same distance from the path's start, behind it (off the line, around
  where the fingers come down: the expert's standoff point is 2 cm behind the start);
- ``approach``: within ``--approach-band`` (3 cm) of the straight xy line from the TCP's
  start to the expert's standoff point (:data:`policies.experts.push.STANDOFF` behind the
  cube), kept only where the rule accepts it.

A cube that ends the episode moved more than ``--moved-mm`` (5 mm) or turned more than
``--turned-deg`` (5 deg) was hit; what touched it first (the arm or the pushed cube, from
PyBullet's contact points at the end of each control period) and where it stood are
recorded for every hit (the arm by the name of its link).

    nice -n 10 .venv/bin/python bench/push_clearance.py [--episodes 300] [--seed 1000]
        [--skill push] [--no-peer] [--margin 0.0] [--families beside,behind,approach]

``--fixed CX CY GX GY OX OY``: every episode pushes the cube from (CX, CY) to (GX, GY)
with the other cube at (OX, OY) (the README's live goal's second push: ``--fixed 0.40 0.15
0.55 -0.25 0.50 0.05``, blue to the right pad past green; the arm starts from home, not
from where the first step left it).

``--margin M``: the sampler keeps M m more than the rule's clearance from the path (the
rule is the resolver's as it stands; 0: right up to its boundary).

Prints one JSON object: ``{"where", "skill", "episodes", "seed", "families", "policy":
{...}, "expert": {...}, "wall_s"}``, each runner with ``success``, ``hit`` (rate), ``hits``,
``ci95``, ``by_family`` ({family: [hits, episodes]}), ``by_gap_cm`` (the same by the
cube's distance from the rule's path, cm; ``arm_side_by_gap_cm``, ``far_side_by_gap_cm``:
of the cubes on the side of the push line the robot's base stands on, the other side),
``by_toucher``, ``hit_list`` (each
hit: family, the cube's ``along_cm`` / ``lat_cm`` in the push frame (from the pushed
cube's centre; along negative: behind it), ``path_gap_cm`` (from the rule's path),
``approach_gap_cm`` (from the TCP-start-to-standoff line), ``moved_mm``, ``turned_deg``,
``by``, ``step``, ``tcp_z_cm`` at first contact).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

FAMILIES = ("beside", "behind", "approach")
OTHER = "other_cube"
PLACE_TRIES = 400
GAP_EDGES_CM = (0.0, 7.0, 8.5, 10.0, 12.0, 14.0, 16.0, 100.0)
"""Bands of the second cube's distance from the rule's path (cm) the hits are counted in."""
TABLE_X, TABLE_Y = (0.15, 0.80), (-0.45, 0.45)
"""Where a second cube may be placed (m): on the table, inside the arm's working area."""


def _segment_gap(point, start, end) -> float:
    """xy distance (m) from ``point`` to the segment ``start``-``end``."""
    way = end - start
    length2 = float(way @ way)
    t = 0.0 if length2 == 0.0 else float(np.clip((point - start) @ way / length2, 0.0, 1.0))
    return float(np.hypot(*(point - (start + t * way))))


@dataclasses.dataclass
class Frame:
    """One episode's push, read from its first observation (xy, m)."""

    tcp: np.ndarray
    cube: np.ndarray
    goal: np.ndarray

    def __post_init__(self):
        from policies.experts.push import STANDOFF
        from sims.tasks.push import PATH_BEHIND

        way = self.goal - self.cube
        self.d = way / max(float(np.hypot(*way)), 1e-9)
        self.n = np.array([-self.d[1], self.d[0]])
        self.start = self.cube - PATH_BEHIND * self.d  # the rule's path: start -> goal
        self.standoff = self.cube - STANDOFF * self.d  # where the expert comes down

    def arm_side(self, p) -> bool:
        """Whether ``p`` lies on the side of the push line the robot's base (the origin)
        stands on."""
        side, base = float((p - self.cube) @ self.n), float(-self.cube @ self.n)
        return bool(np.sign(side) * np.sign(base) > 0)  # signs: a product may underflow

    def where(self, p) -> dict:
        rel = p - self.cube
        return {
            "arm_side": self.arm_side(p),
            "along_cm": round(100 * float(rel @ self.d), 2),
            "lat_cm": round(100 * float(rel @ self.n), 2),
            "path_gap_cm": round(100 * _segment_gap(p, self.start, self.goal), 2),
            "approach_gap_cm": round(100 * _segment_gap(p, self.tcp, self.standoff), 2),
        }


def place_other(frame: Frame, family: str, rng, band: float, approach_band: float, margin: float):
    """An xy (m) for the second cube in ``family`` where the resolver accepts the push (and
    ``margin`` m beyond its boundary), or None after :data:`PLACE_TRIES` draws."""
    from miles_ros.runtime.goals import push_path_error
    from sims.tasks.push import PATH_CLEARANCE

    low = PATH_CLEARANCE + 0.0005 + margin
    for _ in range(PLACE_TRIES):
        if family == "beside":
            t, off = rng.uniform(0.0, 1.0), rng.uniform(low, band) * rng.choice([-1.0, 1.0])
            p = frame.start + t * (frame.goal - frame.start) + off * frame.n
        elif family == "behind":
            angle, r = rng.uniform(0.5 * math.pi, 1.5 * math.pi), rng.uniform(low, band)
            p = frame.start + r * (math.cos(angle) * frame.d + math.sin(angle) * frame.n)
        else:
            t, off = rng.uniform(0.0, 1.0), rng.uniform(-approach_band, approach_band)
            way = frame.standoff - frame.tcp
            normal = np.array([-way[1], way[0]]) / max(float(np.hypot(*way)), 1e-9)
            p = frame.tcp + t * way + off * normal
        if not (TABLE_X[0] <= p[0] <= TABLE_X[1] and TABLE_Y[0] <= p[1] <= TABLE_Y[1]):
            continue
        if _segment_gap(p, frame.start, frame.goal) < low:
            continue
        positions = {"cube": (*frame.cube, 0.02), OTHER: (*p, 0.02)}
        if push_path_error("cube", frame.goal, positions) is None:
            return p
    return None


def make_env(skill: str, fixed=None):
    """(the PyBullet env behind the supervisor with one more cube, the world, its body);
    ``fixed`` (cube x, y, goal x, y, ...): every episode pushes from there to there."""
    import sims
    from miles_ros.runtime.supervised import supervised_env_kwargs
    from policies.commands.evaluate import episode_config
    from sims.scene import SceneObject, load_scene

    scene = load_scene()
    parked = SceneObject(OTHER, (0.45, 0.55, scene.cube_size / 2), (0.15, 0.7, 0.2, 1.0))
    scene = dataclasses.replace(scene, objects={OTHER: parked}, places={})
    kwargs = supervised_env_kwargs("push", 1)
    flags = (None, None, None)
    if fixed is not None:  # areas of 2 mm around both points, the distance between them
        (cx, cy, gx, gy), e = fixed[:4], 0.001
        far = math.hypot(gx - cx, gy - cy)
        flags = ((far - 0.003, far + 0.003), (cx - e, cy - e, cx + e, cy + e))
        flags += ((gx - e, gy - e, gx + e, gy + e),)
    config, _ = episode_config(skill, "push", kwargs["config"], *flags)
    kwargs["config"] = config or kwargs["config"]
    env = sims.make_env(
        "push", "pybullet", num_envs=1, autoreset=False, scene=scene, scene_objects=True, **kwargs
    )
    world = env._worlds.group.worlds[0]  # in process (the supervisor's num_workers=0)
    return env, world, world.decor[OTHER]


def run(env, world, body, act, placements, args) -> dict:
    """``placements`` (per episode: family, xy or None) with ``act``; the hits."""
    import pybullet as p

    from sims.tasks.push import CUBE_REST_Z

    cid, s = world.client, env.task.LAYOUT.slices
    hits, by_family, by_toucher, successes, unplaced = [], {}, {}, 0, 0
    obs, _ = env.reset(seed=args.seed)
    hit_flags = []
    for i, (family, xy, yaw, _) in enumerate(placements):
        if i:
            obs, _ = env.reset()
        o = obs[0]
        frame = Frame(o[s["tcp_pos"]][:2], o[s["object_pos"]][:2], o[s["goal_pos"]][:2])
        if xy is None:  # no accepted place in this family: the cube stays parked
            unplaced += 1
            xy = np.array([0.45, 0.55])
        quat = p.getQuaternionFromEuler([0.0, 0.0, yaw])
        p.resetBasePositionAndOrientation(body, [*xy, CUBE_REST_Z], quat, physicsClientId=cid)
        p.resetBaseVelocity(body, [0, 0, 0], [0, 0, 0], physicsClientId=cid)
        first, step, success = None, 0, False
        while True:
            obs, _, terminated, truncated, info = env.step(act(obs))
            step += 1
            if first is None:
                for other, name in ((world.robot, "arm"), (world.cube, "pushed cube")):
                    if contacts := p.getContactPoints(body, other, physicsClientId=cid):
                        index = contacts[0][4]
                        if other == world.robot and index >= 0:  # the arm's link
                            name = p.getJointInfo(other, index, physicsClientId=cid)[12].decode()
                        tcp_z = float(obs[0][s["tcp_pos"]][2])
                        first = (name, step, round(100 * tcp_z, 1))
                        break
            if terminated[0] or truncated[0]:
                success = bool(info["success"][0])
                break
        successes += success
        pos, orn = p.getBasePositionAndOrientation(body, physicsClientId=cid)
        moved = float(np.linalg.norm(np.asarray(pos) - [*xy, CUBE_REST_Z]))
        dot = min(1.0, abs(float(np.dot(orn, quat))))
        turned = math.degrees(2.0 * math.acos(dot))
        tally = by_family.setdefault(family, [0, 0])
        tally[1] += 1
        hit_flags.append(moved > args.moved_mm / 1000 or turned > args.turned_deg)
        if hit_flags[-1]:
            tally[0] += 1
            by = first[0] if first else "unseen"
            by_toucher[by] = by_toucher.get(by, 0) + 1
            hits.append(
                {
                    "episode": i,
                    "family": family,
                    **frame.where(xy),
                    "moved_mm": round(1000 * moved, 1),
                    "turned_deg": round(turned, 1),
                    "by": by,
                    "step": first[1] if first else None,
                    "tcp_z_cm": first[2] if first else None,
                    "success": success,
                }
            )
    from policies.evaluation import wilson_interval

    n = len(placements)
    return {
        "success": round(successes / n, 4),
        "hit": round(len(hits) / n, 4),
        "hits": len(hits),
        "ci95": [round(v, 4) for v in wilson_interval(len(hits), n)],
        "unplaced": unplaced,
        "by_family": by_family,
        "by_toucher": by_toucher,
        "by_gap_cm": by_gap(placements, hit_flags),
        "arm_side_by_gap_cm": by_gap(placements, hit_flags, True),
        "far_side_by_gap_cm": by_gap(placements, hit_flags, False),
        "hit_list": hits,
        "_hit_flags": hit_flags,
    }


def by_gap(placements, hit_flags, arm_side: bool | None = None) -> dict:
    """{"lo-hi": [hits, episodes]} by the second cube's distance from the rule's path (of
    the cubes on the arm's side of the push line, the far side, or both: None)."""
    out = {}
    for lo, hi in zip(GAP_EDGES_CM, GAP_EDGES_CM[1:], strict=False):
        rows = [
            hit
            for (_, _, _, where), hit in zip(placements, hit_flags, strict=True)
            if where is not None and lo <= where["path_gap_cm"] < hi
            if arm_side is None or where["arm_side"] == arm_side
        ]
        if rows:
            out[f"{lo:g}-{hi:g}"] = [sum(rows), len(rows)]
    return out


def draw_placements(env, args) -> list:
    """Per episode of the seed: (family, xy or None, yaw), the same for every runner (the
    episodes' starts do not depend on the actions)."""
    s = env.task.LAYOUT.slices
    rng = np.random.default_rng([args.seed, 31])
    out = []
    obs, _ = env.reset(seed=args.seed)
    for i in range(args.episodes):
        if i:
            obs, _ = env.reset()
        o = obs[0]
        frame = Frame(o[s["tcp_pos"]][:2], o[s["object_pos"]][:2], o[s["goal_pos"]][:2])
        family = args.families[i % len(args.families)]
        if args.fixed:  # the other cube where --fixed puts it, accepted or not
            family, xy = "fixed", np.array(args.fixed[4:6])
        else:
            xy = place_other(frame, family, rng, args.band, args.approach_band, args.margin)
        yaw = float(rng.uniform(0.0, 0.5 * math.pi))
        out.append((family, xy, yaw, None if xy is None else frame.where(xy)))
    return out


def fixed_verdict(fixed) -> str:
    """The resolver's verdict on ``--fixed``'s push ("accepted" or its reason)."""
    from miles_ros.runtime.goals import push_path_error

    cube, goal, other = fixed[0:2], fixed[2:4], fixed[4:6]
    positions = {"cube": (*cube, 0.02), OTHER: (*other, 0.02)}
    return push_path_error("cube", goal, positions) or "accepted"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--skill", default="push")
    p.add_argument("--episodes", type=int, default=300)
    p.add_argument("--seed", type=int, default=1000)
    p.add_argument("--families", default=",".join(FAMILIES))
    p.add_argument("--band", type=float, default=0.16, help="farthest from the path (m)")
    p.add_argument("--approach-band", type=float, default=0.03, help="from the approach (m)")
    p.add_argument("--margin", type=float, default=0.0, help="kept beyond the rule (m)")
    p.add_argument("--moved-mm", type=float, default=5.0)
    p.add_argument("--turned-deg", type=float, default=5.0)
    p.add_argument("--no-peer", action="store_true", help="skip the expert on the episodes")
    p.add_argument("--dump", default=None, help="write every episode's placement here")
    p.add_argument(
        "--fixed",
        type=float,
        nargs=6,
        default=None,
        metavar=("CX", "CY", "GX", "GY", "OX", "OY"),
        help="every episode: the cube at CX CY, the goal at GX GY, the other cube at OX OY (m)",
    )
    args = p.parse_args(argv)
    args.families = [f for f in args.families.split(",") if f]
    if not set(args.families) <= set(FAMILIES):
        p.error(f"--families: from {', '.join(FAMILIES)}")

    import torch

    torch.set_num_threads(1)
    from policies.experts import get_expert
    from policies.runtime import SkillPolicy

    started = time.perf_counter()
    env, world, body = make_env(args.skill, args.fixed)
    placements = draw_placements(env, args)
    policy = SkillPolicy(args.skill)
    out = {
        "where": "pybullet behind the safety supervisor (miles eval --supervised), one env",
        "skill": str(policy.path),
        "episodes": args.episodes,
        "seed": args.seed,
        "families": args.families,
        "band_m": args.band,
        "approach_band_m": args.approach_band,
        "margin_m": args.margin,
        **({"fixed": args.fixed, "rule": fixed_verdict(args.fixed)} if args.fixed else {}),
        "policy": run(env, world, body, policy.act, placements, args),
    }
    if not args.no_peer:
        expert = get_expert("push")
        out["expert"] = run(env, world, body, lambda o: expert(o, env.cfg), placements, args)
    env.close()
    out["wall_s"] = round(time.perf_counter() - started, 1)
    flags = {who: out[who].pop("_hit_flags") for who in ("policy", "expert") if who in out}
    print(json.dumps(out))
    if args.dump:  # every episode: where its second cube stood, which runners hit it
        rows = [
            {"family": f, "where": where, **{f"{who}_hit": hit[i] for who, hit in flags.items()}}
            for i, (f, _, _, where) in enumerate(placements)
        ]
        Path(args.dump).write_text(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
