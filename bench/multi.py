"""Two-arm cell: makespan of contract-net dispatch with one arm vs both arms, in PyBullet.

    .venv/bin/python bench/multi.py --json [--repeats 1] [--limit 60]

Runs without ROS (the ROS graph on 2 shared cores is too slow to time skills): one
PyBullet world of ``config/scene_dual.yaml`` (:class:`miles_ros.runtime.scene_world.
SceneWorld`, both Pandas, the cubes), one :class:`miles_ros.runtime.skills.SkillExecutor`
per arm (the skill node's logic, fed joint states and world-frame object poses moved into
its base frame), one :class:`miles_ros.agent.arm_agent.ArmAgent` per arm and the
:class:`miles_ros.agent.dispatch.Dispatcher`, all in sim time. The peer in the same run:
the same goals dispatched to ``left_arm`` alone (the right arm stays at home).

Prints one JSON object:

- ``makespan_s`` {one_arm, two_arms}: mean sim seconds from the first announcement to the
  goal's end, over the goals both configurations finished; ``makespan_ratio`` two/one;
- ``bid_round_ms`` {p50, p99}: wall time of one in-process bid round (announcement
  parsed by every agent, their bids parsed and checked by the auction, the award), no
  DDS transport;
- ``min_separation_m``: the smallest surface distance between the two arms' link spheres
  (:mod:`sims.robots.panda_spheres`) over every control tick of the two-arm runs;
  ``violations``: ticks closer than the separation margin
  (:class:`miles_ros.safety.separation.SeparationConfig`), ``margin_m`` that margin;
- ``goal_success``: the fraction of two-arm goals that succeeded (every task reported
  success by its skill); ``goal_success_one_arm`` the same for one arm.

No safety node runs here: separation is measured, not enforced.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repo, not bench/sims.py

from miles_ros.agent.arm_agent import ArmAgent, cards_from_registry  # noqa: E402
from miles_ros.agent.contract_net import to_json  # noqa: E402
from miles_ros.agent.dispatch import FINAL_STATES, Dispatcher  # noqa: E402
from miles_ros.agent.registry import SkillRegistry  # noqa: E402
from miles_ros.runtime.frames import base_to_world, poses_to_base, scene_in_base_frame  # noqa: E402
from miles_ros.runtime.observation import JointReading, ObjectPose  # noqa: E402
from miles_ros.runtime.scene_world import SceneWorld  # noqa: E402
from miles_ros.runtime.skills import SkillExecutor, SkillLibrary  # noqa: E402
from miles_ros.safety.separation import SeparationConfig  # noqa: E402
from sims.robots import panda_spheres  # noqa: E402
from sims.scene import load_scene  # noqa: E402

SCENE_FILE = "config/scene_dual.yaml"
GOALS: tuple[tuple[tuple[str, dict], ...], ...] = (
    (
        ("pick_place", {"object": "red_cube", "target": "left_pad"}),
        ("pick_place", {"object": "blue_cube", "target": "right_pad"}),
    ),
    (
        ("pick_place", {"object": "blue_cube", "target": "right_pad"}),
        ("pick_place", {"object": "red_cube", "target": "left_pad"}),
    ),
    (("reach", {"target": "red_cube"}), ("reach", {"target": "blue_cube"})),
    (
        ("reach", {"target": "red_cube"}),
        ("pick_place", {"object": "blue_cube", "target": "right_pad"}),
    ),
    (
        ("pick_place", {"object": "red_cube", "target": "left_pad"}),
        ("reach", {"target": "blue_cube"}),
    ),
)
"""The fixed two-task goals (as planned steps)."""
TICK_S = 0.02
"""Period (s) at which idle arms are looked at and statuses routed."""


class Cell:
    """One run: the world, an executor and an agent per arm, the dispatcher."""

    def __init__(self, world: SceneWorld, library: SkillLibrary, cards, arms, steps, trace):
        self.world, self.scene = world, world.scene
        self.mounts = {m.name: m for m in self.scene.arms}
        self.executors = {
            name: SkillExecutor(library, scene_in_base_frame(self.scene, m))
            for name, m in self.mounts.items()
        }
        places = {k: p.position for k, p in self.scene.places.items()}
        self.agents = {a: ArmAgent(a, self.mounts[a], cards, places) for a in arms}
        self.dispatcher = Dispatcher(arms, trace, steps, tuple(self.scene.objects))
        self.next_tick = dict.fromkeys(self.mounts, 0.0)
        self.round_ms: list[float] = []
        self.separations: list[float] = []

    def sense(self, now: float) -> None:
        poses = {
            n: ObjectPose(np.asarray(p.position), p.yaw)
            for n, p in self.world.object_poses().items()
        }
        world_positions = {n: p.position for n, p in poses.items()}
        for name, ex in self.executors.items():
            pos, vel, _ = self.world.joint_state(name)
            reading = JointReading(np.array(pos[:7]), np.array(vel[:7]), pos[7] + pos[8], now)
            ex.on_joint_state(reading, now)
            ex.on_objects(poses_to_base(self.mounts[name], poses))
            if name in self.agents:
                self.agents[name].on_joints(pos[:7])
                self.agents[name].on_objects(world_positions)

    def route(self, sends, now: float) -> None:
        for send in sends:
            if send.kind == "announce":
                started = time.perf_counter()
                replies = []
                for agent in self.agents.values():
                    bid = agent.on_announce(send.payload, now)
                    if bid is not None:
                        replies += self.dispatcher.on_bid(to_json(bid), now)
                self.round_ms.append((time.perf_counter() - started) * 1e3)
                self.route(replies, now)
            elif send.kind == "award":
                for agent in self.agents.values():
                    agent.on_award(send.payload, now)
            else:
                data = json.loads(send.payload)
                if "skill" in data:
                    task = next(t for t in self.dispatcher.tasks if t.request_id == data["id"])
                    self.agents[send.arm].started(task.task_id, now)
                self.statuses(send.arm, self.executors[send.arm].on_request(data, now), now)

    def statuses(self, arm: str, statuses, now: float) -> None:
        for status in statuses:
            if status.get("state") in FINAL_STATES:
                task = next(
                    (t for t in self.dispatcher.tasks if t.request_id == status.get("id")), None
                )
                if task is not None:
                    self.agents[arm].done(task.task_id)
            self.route(self.dispatcher.on_status(arm, status, now), now)

    def separation(self) -> float:
        spheres = []
        for name, mount in self.mounts.items():
            pos, _, _ = self.world.joint_state(name)
            centres, radii = panda_spheres.link_spheres(np.array(pos[:7]))
            spheres.append((base_to_world(mount, centres), radii))
        (ca, ra), (cb, rb) = spheres[:2]
        d = np.linalg.norm(ca[:, None, :] - cb[None, :, :], axis=2)
        return float(np.min(d - ra[:, None] - rb[None, :]))

    def run(self, limit: float) -> tuple[str, float]:
        world = self.world
        self.sense(0.0)
        self.route(self.dispatcher.start(0.0), 0.0)
        while self.dispatcher.outcome == "running" and world.time < limit:
            now = world.time
            due = [n for n, t in self.next_tick.items() if now >= t - 1e-9]
            if due:
                self.sense(now)
                self.separations.append(self.separation())
            for name in due:
                ex = self.executors[name]
                result = ex.tick(now)
                if result.targets is not None:
                    world.set_targets(result.targets.arm, result.targets.finger, robot=name)
                self.statuses(name, result.statuses, now)
                self.next_tick[name] = now + (ex.period or TICK_S)
            self.route(self.dispatcher.tick(now), now)
            world.step()
        return self.dispatcher.outcome, world.time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--repeats", type=int, default=1, help="runs of every goal")
    parser.add_argument("--limit", type=float, default=60.0, help="sim seconds per goal")
    args = parser.parse_args()
    if args.repeats < 1 or args.limit <= 0:
        parser.error("--repeats must be >= 1 and --limit > 0")
    scene = load_scene(SCENE_FILE)
    world = SceneWorld(scene)
    library = SkillLibrary.load()
    cards = cards_from_registry(SkillRegistry.load())
    margin = SeparationConfig().margin
    configs = {"one_arm": ("left_arm",), "two_arms": ("left_arm", "right_arm")}
    runs: dict[str, list[tuple[str, float]]] = {k: [] for k in configs}
    rounds, seps, goals = [], [], []
    for rep in range(args.repeats):
        for g, steps in enumerate(GOALS):
            for key, arms in configs.items():
                world.reset()
                cell = Cell(world, library, cards, arms, steps, f"bench-{rep}-{g}-{key}")
                outcome, makespan = cell.run(args.limit)
                runs[key].append((outcome, makespan))
                rounds += cell.round_ms
                if key == "two_arms":
                    seps += cell.separations
                    goals.append(
                        {
                            "steps": [list(s) for s in steps],
                            "outcome": outcome,
                            "reason": cell.dispatcher.reason,
                            "makespan_s": round(makespan, 2),
                            "one_arm_s": round(runs["one_arm"][-1][1], 2),
                            "awards": [a["arm"] for a in cell.dispatcher.awards],
                        }
                    )
    both = [
        (a[1], b[1])
        for a, b in zip(runs["one_arm"], runs["two_arms"], strict=True)
        if a[0] == b[0] == "succeeded"
    ]
    one = float(np.mean([a for a, _ in both])) if both else float("nan")
    two = float(np.mean([b for _, b in both])) if both else float("nan")
    seps_arr = np.array(seps) if seps else np.array([np.inf])
    out = {
        "makespan_s": {"one_arm": round(one, 2), "two_arms": round(two, 2)},
        "makespan_ratio": round(two / one, 3) if both else None,
        "bid_round_ms": {
            "p50": round(float(np.percentile(rounds, 50)), 3),
            "p99": round(float(np.percentile(rounds, 99)), 3),
        },
        "min_separation_m": round(float(seps_arr.min()), 4),
        "violations": int(np.sum(seps_arr < margin)),
        "margin_m": margin,
        "goal_success": sum(o == "succeeded" for o, _ in runs["two_arms"]) / len(goals),
        "goal_success_one_arm": sum(o == "succeeded" for o, _ in runs["one_arm"])
        / len(runs["one_arm"]),
        "goals": goals,
        "backend": "pybullet, no ROS",
    }
    world.close()
    print(json.dumps(out, indent=None if args.json else 2))


if __name__ == "__main__":
    main()
