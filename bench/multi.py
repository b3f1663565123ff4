"""Two-arm cell: makespan of contract-net dispatch with one arm vs both arms, in PyBullet,
every arm behind its safety supervisor.

    .venv/bin/python bench/multi.py --json [--repeats 1] [--limit 60]
        [--latency-ms 6 25] [--seed 0] [--margin 0.05] [--clearance 0.35]
        [--stagger-home 0.5] [--goals 0,2]

Runs without ROS (the ROS graph on 2 shared cores is too slow to time skills): one
PyBullet world of ``config/scene_dual.yaml`` (:class:`miles_ros.runtime.scene_world.
SceneWorld`, both Pandas, the cubes), one :class:`miles_ros.runtime.skills.SkillExecutor`
per arm (the skill node's logic with its default parameters, :meth:`miles_ros.runtime.
params.skill.skill_executor`: its timeout_scale and home speed; fed joint states and
world-frame object poses moved into its base frame), one :class:`miles_ros.agent.
arm_agent.ArmAgent` per arm and the
:class:`miles_ros.agent.dispatch.Dispatcher`, all in sim time. Between each skill and its
arm runs that arm's :class:`miles_ros.safety.SafetySupervisor` as its safety node drives
it (the node's default :class:`~miles_ros.safety.SafetyConfig`, 250 Hz, the skill's
targets stamped ahead by its lead, the measured joint states, the safety state back to
the skill), with the cell's separation (:class:`~miles_ros.safety.separation.
SeparationConfig` from the scene's mounts): every output period each supervisor's
occupancy goes to the other as JSON and arrives after a latency drawn per message from a
log-normal with the given median and 99th percentile (default 6 and 25 ms: what a safety
node measured in the one-process ROS graph on 2 loaded cores). Both supervisors run in
both configurations; the peer in the same run: the same goals dispatched to ``left_arm``
alone (the right arm stays at home behind its supervisor). The dispatcher plans for
shared space as the cell manager does (``--clearance``, ``--stagger-home``: see
:mod:`miles_ros.agent.dispatch`); ``--margin`` sets both supervisors' separation margin.

Prints one JSON object:

- ``makespan_s`` {one_arm, two_arms}: mean sim seconds from the first announcement to the
  goal's end, over the goals both configurations finished; ``makespan_ratio`` two/one;
- ``bid_round_ms`` {p50, p99}: wall time of one in-process bid round (announcement
  parsed by every agent, their bids parsed and checked by the auction, the award), no
  DDS transport;
- ``min_separation_m``: the smallest surface distance between the two arms' link spheres
  (:mod:`sims.robots.panda_spheres`) at the measured (PyBullet) joint positions over
  every output period of the two-arm runs; ``violations``: periods closer than the
  separation margin, ``margin_m`` that margin; ``min_separation_commanded_m`` the same
  for the supervisors' commanded positions (what they guarantee);
- ``goal_success``: the fraction of two-arm goals that succeeded (every task reported
  success by its skill); ``goal_success_one_arm`` the same for one arm;
- ``overlap_s``: per two-arm goal, the seconds both arms were running a task at once;
  ``peer_age_ms`` {p50, p99}: the occupancy ages the supervisors measured; ``separation``:
  the periods in which a supervisor limited or stopped its arm for the peer.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repo, not bench/sims.py

from miles_ros.agent.arm_agent import ArmAgent, cards_from_registry  # noqa: E402
from miles_ros.agent.contract_net import to_json  # noqa: E402
from miles_ros.agent.dispatch import CELL_CLEARANCE, Dispatcher  # noqa: E402
from miles_ros.agent.registry import SkillRegistry  # noqa: E402
from miles_ros.interfaces import FINAL_SKILL_STATES  # noqa: E402
from miles_ros.params.skill import skill_executor  # noqa: E402
from miles_ros.runtime.actions import JointTargets  # noqa: E402
from miles_ros.runtime.frames import arm_bodies, base_to_world, poses_to_base, scene_in_base_frame  # noqa: E402
from miles_ros.runtime.observation import JointReading, ObjectPose  # noqa: E402
from miles_ros.runtime.scene_world import SceneWorld  # noqa: E402
from miles_ros.runtime.skills import SkillLibrary  # noqa: E402
from miles_ros.safety import JointRequest, SafetyConfig, SafetySupervisor  # noqa: E402
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
TARGET_LEAD_MAX = 0.04
"""How far ahead a skill's targets are stamped at most (the skill node's
``target_lead_max``)."""


class Guard:
    """One arm's safety supervisor, driven as its safety node drives it."""

    def __init__(self, scene, name: str, config: SafetyConfig) -> None:
        mount = scene.arm(name)
        self.separation = SeparationConfig(
            arm=name,
            peers=tuple(m.name for m in scene.arms if m.name != name),
            base_xyz=tuple(float(v) for v in mount.base_position),
            base_yaw=float(mount.base_yaw),
            margin=config.separation_margin,
            max_age=config.peer_max_age,
        )
        self.sup = SafetySupervisor(config, separation=self.separation)
        self.names = config.joint_names + config.finger_joint_names
        self.last_stamp = -np.inf
        self.commanded: np.ndarray | None = None
        self.kinds: list[str] = []
        self.sup.audit.listeners.append(lambda event, _: self.kinds.append(event.kind))

    def request(
        self,
        arm: np.ndarray,
        finger: float | None,
        lead: float,
        now: float,
        velocity: np.ndarray | None = None,
    ) -> None:
        """A skill's targets (with the arm's velocities at them: a trajectory point),
        stamped ``lead`` ahead (never before the previous stamp)."""
        stamp = max(now + max(0.0, min(lead, TARGET_LEAD_MAX)), self.last_stamp + 1e-9)
        stamp = max(stamp, 1e-6)  # sim time starts at 0, which a stamp may not be
        self.last_stamp = stamp
        names, position, velocities = JointTargets(arm, finger, velocity).message(
            self.sup.config.joint_names, self.sup.config.finger_joint_names
        )
        self.sup.submit(JointRequest(names, position, stamp, velocities), now)


class Bus:
    """``/miles/safety/occupancy`` between the supervisors: every message (JSON) arrives
    after its own latency, drawn from a log-normal (median, 99th percentile), and no
    earlier than the sender's message before it (one writer's messages stay in order)."""

    def __init__(self, p50: float, p99: float, rng: np.random.Generator) -> None:
        self.mu, self.sigma = np.log(p50), max(np.log(p99 / p50), 0.0) / 2.3263
        self.rng = rng
        self.queue: list[tuple[float, str, str]] = []
        self.last: dict[str, float] = {}

    def publish(self, sender: str, text: str, now: float) -> None:
        at = now + float(self.rng.lognormal(self.mu, self.sigma))
        at = max(at, self.last.get(sender, -np.inf))
        self.last[sender] = at
        self.queue.append((at, sender, text))

    def due(self, now: float) -> list[tuple[str, str]]:
        ready = sorted((m for m in self.queue if m[0] <= now), key=lambda m: m[0])
        self.queue = [m for m in self.queue if m[0] > now]
        return [(sender, text) for _, sender, text in ready]


class Cell:
    """One run: the world, an executor and an agent per arm, the dispatcher."""

    def __init__(
        self,
        world: SceneWorld,
        library: SkillLibrary,
        cards,
        arms,
        steps,
        trace,
        bus: Bus,
        margin: float = SafetyConfig.separation_margin,
        clearance: float = CELL_CLEARANCE,
        stagger_home: float = 0.5,
    ):
        self.world, self.scene = world, world.scene
        self.mounts = {m.name: m for m in self.scene.arms}
        self.executors = {  # the skill node's, with its default parameters
            name: skill_executor(library, scene_in_base_frame(self.scene, m))
            for name, m in self.mounts.items()
        }
        config = SafetyConfig(scene_file=SCENE_FILE, separation_margin=margin)
        self.guards = {
            name: Guard(self.scene, name, dataclasses.replace(config, arm=name))
            for name in self.mounts
        }
        self.period = 1.0 / config.rate_hz
        self.bus = bus
        self.next_guard = 0.0
        self.commanded_separations: list[float] = []
        self.busy: dict[str, list[list[float]]] = {name: [] for name in self.mounts}
        places = {k: p.position for k, p in self.scene.places.items()}
        self.agents = {a: ArmAgent(a, self.mounts[a], cards, places) for a in arms}
        where = {k: o.position[:2] for k, o in self.scene.objects.items()}
        where.update({k: p.position[:2] for k, p in self.scene.places.items()})
        self.dispatcher = Dispatcher(
            arms,
            trace,
            steps,
            tuple(self.scene.objects),
            where=where,
            clearance=clearance,
            stagger_home=stagger_home,
            bodies=arm_bodies(self.scene),
        )
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
            guard = self.guards[name]
            guard.sup.update_robot_state(guard.names, list(pos[:9]), list(vel[:9]), now)
            if name in self.agents:
                self.agents[name].on_joints(pos[:7])
                self.agents[name].on_objects(world_positions)

    def guard(self, now: float) -> None:
        """One output period of every supervisor: peers' occupancy that arrived, the
        command to the arm, this arm's occupancy onto the bus, the safety state back."""
        for sender, text in self.bus.due(now):
            for name, guard in self.guards.items():
                if name != sender:
                    guard.sup.update_peer_occupancy(text, now)
        for name, guard in self.guards.items():
            cmd = guard.sup.step(now)
            if cmd is not None:
                fingers = cmd.positions[7:]
                finger = float(np.mean(fingers)) if len(fingers) else None
                self.world.set_targets(cmd.positions[:7], finger, robot=name)
                guard.commanded = cmd.positions[:7].copy()
                self.executors[name].on_command(guard.commanded, now)
            occ = guard.sup.occupancy(now)
            if occ is not None:
                self.bus.publish(name, occ.to_json(), now)
            state = guard.sup.state()
            self.statuses(name, self.executors[name].on_safety_state(state, now), now)

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
                    task = next(
                        (t for t in self.dispatcher.tasks if t.request_id == data["id"]), None
                    )
                    if task is not None:  # else a clearing home
                        self.agents[send.arm].started(task.task_id, now)
                        self.busy[send.arm].append([now, np.inf])
                self.statuses(send.arm, self.executors[send.arm].on_request(data, now), now)

    def statuses(self, arm: str, statuses, now: float) -> None:
        for status in statuses:
            if status.get("state") in FINAL_SKILL_STATES:
                task = next(
                    (t for t in self.dispatcher.tasks if t.request_id == status.get("id")), None
                )
                if task is not None:
                    self.agents[arm].done(task.task_id)
                    if self.busy[arm] and self.busy[arm][-1][1] == np.inf:
                        self.busy[arm][-1][1] = now
            self.route(self.dispatcher.on_status(arm, status, now), now)

    def separation(self, commanded: bool = False) -> float:
        """Surface distance between the arms' link spheres, measured or commanded."""
        spheres = []
        for name, mount in self.mounts.items():
            q = self.guards[name].commanded if commanded else None
            if q is None:
                q = np.array(self.world.joint_state(name)[0][:7])
            centres, radii = panda_spheres.link_spheres(q)
            spheres.append((base_to_world(mount, centres), radii))
        (ca, ra), (cb, rb) = spheres[:2]
        d = np.linalg.norm(ca[:, None, :] - cb[None, :, :], axis=2)
        return float(np.min(d - ra[:, None] - rb[None, :]))

    def overlap(self) -> float:
        """Seconds both arms ran a task at once."""
        a, b = (self.busy[n] for n in self.mounts)
        end = self.world.time
        return sum(
            max(0.0, min(e1 if e1 < np.inf else end, e2 if e2 < np.inf else end) - max(s1, s2))
            for s1, e1 in a
            for s2, e2 in b
        )

    def run(self, limit: float) -> tuple[str, float]:
        world = self.world
        self.sense(0.0)
        self.guard(0.0)
        self.next_guard = self.period
        self.route(self.dispatcher.start(0.0), 0.0)
        while self.dispatcher.outcome == "running" and world.time < limit:
            now = world.time
            if now >= self.next_guard - 1e-9:
                self.sense(now)
                self.guard(now)
                self.separations.append(self.separation())
                self.commanded_separations.append(self.separation(commanded=True))
                self.next_guard = now + self.period
            due = [n for n, t in self.next_tick.items() if now >= t - 1e-9]
            for name in due:
                ex = self.executors[name]
                result = ex.tick(now)
                if result.targets is not None:
                    t = result.targets
                    self.guards[name].request(t.arm, t.finger, result.lead_s, now, t.velocity)
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
    parser.add_argument(
        "--latency-ms",
        type=float,
        nargs=2,
        default=(6.0, 25.0),
        metavar=("P50", "P99"),
        help="occupancy latency between the supervisors: median and 99th percentile (ms)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the latency draws")
    parser.add_argument(
        "--clearance",
        type=float,
        default=CELL_CLEARANCE,
        help="dispatcher's clearance between the tasks of different arms (m; 0: off)",
    )
    parser.add_argument(
        "--stagger-home",
        type=float,
        default=0.5,
        help="progress of a clearing home at which the waiting task starts (0..1)",
    )
    parser.add_argument(
        "--goals", default="", help="comma-separated indices into the fixed goals (all)"
    )
    parser.add_argument(
        "--margin",
        type=float,
        default=SafetyConfig.separation_margin,
        help="separation margin (m) of both supervisors (default: the safety node's)",
    )
    args = parser.parse_args()
    p50, p99 = args.latency_ms
    if args.repeats < 1 or args.limit <= 0:
        parser.error("--repeats must be >= 1 and --limit > 0")
    if not (0.0 < p50 <= p99 < 1000.0):
        parser.error("--latency-ms: need 0 < P50 <= P99 < 1000")
    if not (0.0 <= args.margin <= 1.0 and 0.0 <= args.clearance <= 2.0):
        parser.error("--margin must be in [0, 1] m and --clearance in [0, 2] m")
    try:
        chosen = [GOALS[int(i)] for i in args.goals.split(",")] if args.goals else list(GOALS)
    except (ValueError, IndexError):
        parser.error(f"--goals: indices in 0..{len(GOALS) - 1}")
    if not 0.0 <= args.stagger_home <= 1.0:
        parser.error("--stagger-home must be in [0, 1]")
    rng = np.random.default_rng(args.seed)
    scene = load_scene(SCENE_FILE)
    world = SceneWorld(scene)
    library = SkillLibrary.load()
    cards = cards_from_registry(SkillRegistry.load())
    margin = args.margin
    configs = {"one_arm": ("left_arm",), "two_arms": ("left_arm", "right_arm")}
    runs: dict[str, list[tuple[str, float]]] = {k: [] for k in configs}
    rounds, seps, commanded, ages, goals = [], [], [], [], []
    kinds: Counter[str] = Counter()
    for rep in range(args.repeats):
        for g, steps in enumerate(chosen):
            for key, arms in configs.items():
                world.reset()
                bus = Bus(p50 * 1e-3, p99 * 1e-3, rng)
                trace = f"bench-{rep}-{g}-{key}"
                cell = Cell(world, library, cards, arms, steps, trace, bus, margin, args.clearance)
                outcome, makespan = cell.run(args.limit)
                runs[key].append((outcome, makespan))
                rounds += cell.round_ms
                if key == "two_arms":
                    seps += cell.separations
                    commanded += cell.commanded_separations
                    for guard in cell.guards.values():
                        ages += guard.sup.peers.ages
                        kinds.update(guard.kinds)
                    goals.append(
                        {
                            "steps": [list(s) for s in steps],
                            "outcome": outcome,
                            "reason": cell.dispatcher.reason,
                            "makespan_s": round(makespan, 2),
                            "one_arm_s": round(runs["one_arm"][-1][1], 2),
                            "overlap_s": round(cell.overlap(), 2),
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
        "min_separation_commanded_m": round(float(min(commanded, default=np.inf)), 4),
        "goal_success": sum(o == "succeeded" for o, _ in runs["two_arms"]) / len(goals),
        "goal_success_one_arm": sum(o == "succeeded" for o, _ in runs["one_arm"])
        / len(runs["one_arm"]),
        "peer_age_ms": {
            "p50": round(float(np.percentile(ages, 50)) * 1e3, 2),
            "p99": round(float(np.percentile(ages, 99)) * 1e3, 2),
        },
        "separation": {k: kinds[k] for k in ("cartesian", "peer_stop", "estop") if kinds[k]},
        "latency_ms": {"p50": p50, "p99": p99},
        "clearance_m": args.clearance,
        "stagger_home": args.stagger_home,
        "goals": goals,
        "backend": "pybullet, no ROS; a SafetySupervisor per arm, occupancy at 250 Hz",
    }
    world.close()
    print(json.dumps(out, indent=None if args.json else 2))


if __name__ == "__main__":
    main()
