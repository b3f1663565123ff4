"""Safety supervisor: core throughput, e-stop latency over DDS, limit violations on
``/miles/joint_command`` during an adversarial stream; peer: a naive clamp-only limiter
fed the same adversarial stream in the same run.

    .venv/bin/python bench/safety.py --json [--duration 60] [--trials 100] [--seed 0]

Prints one JSON object with (besides details):

- ``core_checks_per_s``: complete checks per second on one core: shaping of all 7
  joints + Cartesian checks (FK, braking ball, segment, TCP speed) + state update, the
  numba kernel driven by a numba loop (no Python in between) over the adversarial mix of
  the stream below (malformed requests left out: they never reach the kernel);
  ``core_checks_per_s_by_stream`` adds a smooth skill-like stream and far random jumps
  (the worst case: the Cartesian search runs on most checks).
  ``supervisor_steps_per_s`` is the whole Python path per control period (``submit`` +
  ``update_robot_state`` + ``step``).
- ``estop_latency_ms`` {p50, p99, max, n}: from publishing ``true`` on ``/miles/estop``
  to receiving the first decelerating command on ``/miles/joint_command``, with the node
  in its own process (DDS loopback), while joint 7 moves at speed (both DDS hops and this
  process's own receive path). ``estop_latency_published_ms``: the same up to the
  command's stamp, i.e. when the node produced and published it.
- ``stream_commands`` / ``stream_violations``: commands received during a
  ``--duration`` s adversarial stream at 250 Hz (random and out-of-range jumps, fast sine
  sweeps, NaN/Inf, wrong lengths, unknown/missing joints, missing/stale/future/reordered
  stamps, silences) and how many position, velocity, acceleration, jerk, workspace or
  keep-out violations the checker finds in them (``miles_ros.safety.checker``).
- ``peer``: the same kind of stream offline (fixed seed, jittered 4 ms periods) through
  the supervisor and through a naive limiter that only clamps positions into the band
  and velocity/acceleration per step (no jerk, no braking, no Cartesian checks): the
  violations each lets through.
- ``host``: load average and the time of a bare Python loop iteration, because the
  numbers depend on what else runs on the machine. ``--rt-priority N`` (root) runs the
  node and the DDS client under SCHED_FIFO, as a supervisor would be deployed.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from miles_ros.safety import JointRequest, SafetyConfig, SafetySupervisor, check_commands  # noqa: E402
from miles_ros.safety import shaping as sh  # noqa: E402
from miles_ros.safety.cartesian import supervise_step  # noqa: E402
from sims.robots import panda  # noqa: E402

NAMES = panda.JOINT_NAMES
HOME = panda.home_joint_positions
PERIOD = 0.004


class Adversary:
    """Segments of requests (smooth fast sweeps, far or out-of-range jumps, silences) with
    malformed requests mixed in. ``next(t)`` -> (names, positions, stamp) or None."""

    MALFORMED = (
        "nan",
        "inf",
        "short",
        "unknown",
        "missing",
        "nostamp",
        "stale",
        "future",
        "reorder",
        "duplicate",
    )

    def __init__(self, seed: int, malformed_rate: float = 0.04) -> None:
        self.rng = np.random.default_rng(seed)
        self.malformed_rate = malformed_rate
        self.segment_end = -1.0
        self.kind = "silence"
        self.target = HOME.copy()
        self.last_stamp = 0.0

    def _new_segment(self, t: float) -> None:
        rng = self.rng
        self.kind = rng.choice(["sweep", "jump", "jump", "silence"], p=[0.45, 0.2, 0.2, 0.15])
        self.segment_end = t + rng.uniform(0.05, 1.0)
        lo, hi = panda.joint_position_min, panda.joint_position_max
        if self.kind == "jump":
            self.target = rng.uniform(lo - 0.5, hi + 0.5)
        elif self.kind == "sweep":
            self.center = rng.uniform(lo + 0.3, hi - 0.3)
            self.amp = rng.uniform(0.05, 0.6, 7)
            self.freq = rng.uniform(0.2, 2.0, 7)
            self.phase = rng.uniform(0, 2 * np.pi, 7)

    def next(self, t: float):
        if t >= self.segment_end:
            self._new_segment(t)
        if self.kind == "silence":
            return None
        if self.kind == "sweep":
            target = self.center + self.amp * np.sin(2 * np.pi * self.freq * t + self.phase)
        else:
            target = self.target
        names, positions, stamp = list(NAMES), [float(x) for x in target], t
        if self.rng.random() < self.malformed_rate:
            bad = self.rng.choice(self.MALFORMED)
            if bad == "nan":
                positions[int(self.rng.integers(7))] = float("nan")
            elif bad == "inf":
                positions[int(self.rng.integers(7))] = float("-inf")
            elif bad == "short":
                positions = positions[:6]
            elif bad == "unknown":
                names[2] = "elbow"
            elif bad == "missing":
                names, positions = names[:6], positions[:6]
            elif bad == "nostamp":
                stamp = None
            elif bad == "stale":
                stamp = t - 1.0
            elif bad == "future":
                stamp = t + 1.0
            elif bad == "reorder":
                stamp = self.last_stamp - 0.002
            else:
                names[1] = names[0]
        if stamp is not None and stamp > self.last_stamp and stamp <= t:
            self.last_stamp = stamp
        return names, positions, stamp


def naive_clamp_limiter(stamps, requests, q0, limits):
    """The peer: clamp each step's velocity, acceleration and position only."""
    q, v = q0.copy(), np.zeros(7)
    lo, hi = limits.lower, limits.upper
    target = q0.copy()
    out, t_prev = [], stamps[0] - PERIOD
    for t, req in zip(stamps, requests, strict=True):
        h = t - t_prev
        t_prev = t
        if req is not None and len(req[0]) == 7 == len(req[1]) and set(req[0]) == set(NAMES):
            values = np.array(req[1])
            if np.all(np.isfinite(values)):
                target = values[[req[0].index(n) for n in NAMES]]
        v_new = np.clip((target - q) / h, -limits.velocity, limits.velocity)
        v_new = np.clip(v_new, v - limits.acceleration * h, v + limits.acceleration * h)
        q_new = np.clip(q + v_new * h, lo, hi)
        v = (q_new - q) / h
        q = q_new
        out.append(q.copy())
    return np.array(out)


def offline_peer(seed: int, steps: int) -> dict:
    """The same kind of adversarial stream through the supervisor and the naive peer."""
    config = SafetyConfig(fault_violations=0)
    limits = config.limits
    rng = np.random.default_rng(seed + 1)
    stamps = np.cumsum(PERIOD * rng.uniform(0.8, 1.2, steps))
    adversary = Adversary(seed)
    requests = [adversary.next(t) for t in stamps]
    sup = SafetySupervisor(config)
    sup.update_robot_state(NAMES, HOME, np.zeros(7), 0.0)
    ours, q = [], HOME.copy()
    start = time.perf_counter()
    for t, req in zip(stamps, requests, strict=True):
        if req is not None:
            sup.submit(JointRequest(*req), t)
        sup.update_robot_state(NAMES, q, (), t)
        cmd = sup.step(t)
        q = cmd.positions[:7]
        ours.append(q.copy())
    elapsed = time.perf_counter() - start
    workspace, zones = config.workspace, config.zones
    theirs = naive_clamp_limiter(stamps, requests, HOME, limits)
    v_ours = check_commands(stamps, np.array(ours), limits, workspace, zones, (HOME, 0.0))
    v_naive = check_commands(stamps, theirs, limits, workspace, zones, (HOME, 0.0))

    def summary(v):
        return {
            "total": v.total,
            "position": v.position,
            "velocity": v.velocity,
            "acceleration": v.acceleration,
            "jerk": v.jerk,
            "workspace": v.workspace,
            "worst_ratio": {k: round(x, 4) for k, x in v.worst.items()},
        }

    return {
        "stream_steps": steps,
        "supervisor": summary(v_ours),
        "naive_clamp": summary(v_naive),
        "naive_clamp_violations": v_naive.total,
        "supervisor_violations": v_ours.total,
        "supervisor_steps_per_s": round(steps / elapsed, 1),
    }


def _core_streams(seed: int, checks: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Target sequences [checks, 7] and stop flags [checks] for the core benchmark."""
    rng = np.random.default_rng(seed)
    adversary = Adversary(seed, malformed_rate=0.0)
    mix, stop, last = np.empty((checks, 7)), np.zeros(checks, dtype=np.bool_), HOME.copy()
    for k in range(checks):
        req = adversary.next((k + 1) * PERIOD)
        if req is None:
            stop[k] = True
        else:
            last = np.array(req[1])
        mix[k] = last
    t = (np.arange(checks) + 1)[:, None] * PERIOD
    # A skill-like stream: every joint within 0.4 rad/s, the TCP under the speed cap.
    skill = HOME + 0.2 * np.sin(2 * np.pi * 0.1 * t * np.array([1, 2, 3, 1, 2, 3, 1.0]))
    blocks = rng.uniform(
        panda.joint_position_min - 0.3, panda.joint_position_max + 0.3, (checks // 50 + 1, 7)
    )
    far = np.repeat(blocks, 50, axis=0)[:checks].copy()
    no_stop = np.zeros(checks, dtype=np.bool_)
    return {
        "adversarial_mix": (mix, stop),
        "skill_stream": (skill, no_stop),
        "far_jumps": (far, no_stop),
    }


def core_throughput(seed: int, checks: int) -> dict[str, float]:
    """Complete checks/s of the per-period kernel, driven by a numba loop, per stream."""
    from numba import njit

    @njit(cache=False)
    def drive(js, targets, stop, state):
        """``state``: :func:`supervise_step`'s arguments after its first four."""
        env = np.empty(2)
        p, res = state[3], state[9]
        stopping = False
        for k in range(targets.shape[0]):
            if stop[k] and not stopping:  # what the supervisor does on a watchdog hold
                for i in range(7):
                    sh.stop_envelope(js[i, sh.V], js[i, sh.A], js[i, sh.VMAX], js[i, sh.JMAX], env)
                    js[i, sh.ENV_LO], js[i, sh.ENV_HI] = env[0], env[1]
            stopping = stop[k]
            for i in range(7):
                js[i, sh.TARGET] = targets[k, i]
            supervise_step(js, PERIOD, stopping, True, *state)
            p[0], p[1], p[2] = res[2], res[3], res[4]
        return res[1]

    rates = {}
    for name, (targets, stop) in _core_streams(seed, checks).items():
        sup = SafetySupervisor(SafetyConfig())
        sup.update_robot_state(NAMES, HOME, np.zeros(7), 0.0)
        state = (
            sup._out,
            sup._brake,
            sup._work,
            sup._p_prev.copy(),
            sup._speed_cap,
            sup._ws,
            sup._boxes,
            sup._spheres,
            sup.config.zone_padding,
            sup._res,
            sup._lk,
        )
        drive(sup._js.copy(), targets[:100], stop[:100], state)  # compile / warm up
        best = 0.0
        for _ in range(3):
            js = sup._js.copy()
            start = time.perf_counter()
            drive(js, targets, stop, state)
            best = max(best, checks / (time.perf_counter() - start))
        rates[name] = round(best, 1)
    return rates


class BenchClient:
    """Robot echo, request stream, e-stop input and services, in the bench process."""

    def __init__(self, domain_id: int) -> None:
        import rclpy
        from rclpy.executors import SingleThreadedExecutor
        from sensor_msgs.msg import JointState
        from std_msgs.msg import Bool, String
        from std_srvs.srv import Trigger

        from miles_ros.params.safety import SafetyNodeNames
        from miles_ros.ros.qos import COMMAND_QOS, LATCHED_QOS

        names = SafetyNodeNames()

        self.rclpy, self.JointState, self.Bool, self.Trigger = rclpy, JointState, Bool, Trigger
        self.context = rclpy.Context()
        rclpy.init(context=self.context, domain_id=domain_id)
        self.node = rclpy.create_node("safety_bench", context=self.context)
        self.cond = threading.Condition()
        self.records: list[tuple[int, int, np.ndarray]] = []  # (recv ns, stamp ns, q)
        self.state: dict = {}
        self.source = None  # callable(t) -> request or None
        self.sent = 0
        pub, sub = self.node.create_publisher, self.node.create_subscription
        self.pub_req = pub(JointState, names.skill_command_topic, COMMAND_QOS)
        self.pub_robot = pub(JointState, names.joint_states_topic, COMMAND_QOS)
        self.pub_estop = pub(Bool, names.estop_topic, COMMAND_QOS)
        sub(JointState, names.joint_command_topic, self._on_cmd, 1000)  # every command kept
        sub(String, names.state_topic, self._on_state, LATCHED_QOS)
        self.reset_client = self.node.create_client(Trigger, names.reset_service)
        self.node.create_timer(PERIOD, self._tick)
        self.home_timer = self.node.create_timer(0.02, self._echo_home)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self.thread = threading.Thread(target=self.executor.spin, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.executor.shutdown()
        self.thread.join(timeout=10)
        self.node.destroy_node()
        self.rclpy.shutdown(context=self.context)

    def _echo(self, positions) -> None:
        msg = self.JointState(name=list(NAMES), position=list(positions))
        msg.header.stamp = self.node.get_clock().now().to_msg()
        self.pub_robot.publish(msg)

    def _echo_home(self) -> None:
        if not self.records:
            self._echo(HOME)

    def _on_cmd(self, msg) -> None:
        recv = time.perf_counter_ns()
        stamp = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
        q = np.array(msg.position[:7])
        self._echo(q)
        with self.cond:
            self.records.append((recv, stamp, q))
            self.cond.notify_all()

    def _on_state(self, msg) -> None:
        with self.cond:
            self.state = json.loads(msg.data)
            self.cond.notify_all()

    def _tick(self) -> None:
        source = self.source
        if source is None:
            return
        t = self.node.get_clock().now().nanoseconds * 1e-9
        req = source(t)
        if req is None:
            return
        names, positions, stamp = req
        msg = self.JointState(name=list(names), position=[float(x) for x in positions])
        if stamp is not None:
            ns = int(stamp * 1e9)
            msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(ns, 1_000_000_000)
        self.pub_req.publish(msg)
        self.sent += 1

    def wait(self, predicate, timeout: float = 20.0) -> bool:
        with self.cond:
            return self.cond.wait_for(predicate, timeout=timeout)

    def reset(self, timeout: float = 20.0) -> bool:
        """Release the input, wait for the stop, reset (retrying while the arm settles)."""
        self.pub_estop.publish(self.Bool(data=False))
        self.wait(lambda: self.state.get("mode") == "estop", timeout)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            done = threading.Event()
            future = self.reset_client.call_async(self.Trigger.Request())
            future.add_done_callback(lambda _, done=done: done.set())
            done.wait(timeout)
            if future.result() is not None and future.result().success:
                return True
            n = len(self.records)
            self.wait(lambda m=n: len(self.records) > m + 5, 2.0)
        return False


def _percentiles(values: list[float], trials: int) -> dict:
    if not values:
        return {"p50": None, "p99": None, "max": None, "n": 0, "trials": trials}
    return {
        "p50": round(statistics.median(values), 3),
        "p99": round(float(np.percentile(values, 99)), 3),
        "max": round(max(values), 3),
        "n": len(values),
        "trials": trials,
    }


def _speed(records, k: int) -> float:
    """Joint 7 speed of received command ``k`` (rad per ns)."""
    (_, t1, q1), (_, t0, q0) = records[k], records[k - 1]
    return abs(q1[6] - q0[6]) / max(t1 - t0, 1)


def _fifo(priority: int) -> None:
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(priority))


def dds_phase(seed: int, duration: float, trials: int, rt_priority: int = 0) -> dict:
    """The node in its own process: adversarial stream, then e-stop latency trials.
    ``rt_priority`` > 0 runs the node and this client under SCHED_FIFO at that priority
    (how a supervisor is deployed next to other load); the main thread's policy is
    restored afterwards."""
    domain_id = 1 + (os.getpid() * 11) % 100
    env = {**os.environ, "ROS_DOMAIN_ID": str(domain_id)}
    previous = (os.sched_getscheduler(0), os.sched_getparam(0))
    if rt_priority:
        _fifo(rt_priority)  # inherited by the client's executor thread
    node = subprocess.Popen(
        [sys.executable, "-m", "miles_ros.ros.safety_node"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    client = BenchClient(domain_id)
    config = SafetyConfig()
    result: dict = {}
    try:
        if not client.wait(lambda: client.state.get("mode") == "hold" and client.records, 60):
            raise RuntimeError("safety node did not come up")
        # 1. Adversarial stream.
        adversary = Adversary(seed)
        first = len(client.records)
        estops, reasons = 0, []
        client.source = adversary.next
        end = time.monotonic() + duration
        while time.monotonic() < end:
            if client.wait(lambda: client.state.get("estop") is True, min(1.0, duration)):
                estops += 1  # a fault latched (e.g. a burst of malformed requests)
                reasons.append(client.state.get("reason", ""))
                client.source = None
                client.reset()
                client.source = adversary.next
        client.source = None
        client.wait(lambda: client.state.get("mode") == "hold", 5.0)
        last = len(client.records)
        records = client.records[first:last]
        stamps_ns = np.array([r[1] for r in records], dtype=np.int64)
        positions = np.array([r[2] for r in records])
        stamps = (stamps_ns - stamps_ns[0]) * 1e-9
        violations = check_commands(
            stamps,
            positions,
            config.limits,
            config.workspace,
            config.zones,
        )
        gaps = np.diff(stamps)
        result.update(
            stream_duration_s=duration,
            stream_requests_sent=client.sent,
            stream_commands=len(records),
            stream_violations=violations.total,
            stream_violation_detail={
                "position": violations.position,
                "velocity": violations.velocity,
                "acceleration": violations.acceleration,
                "jerk": violations.jerk,
                "workspace": violations.workspace,
                "stamps": violations.stamps,
                "worst_ratio": {k: round(x, 6) for k, x in violations.worst.items()},
            },
            stream_fault_estops=estops,
            stream_fault_reasons=reasons,
            stream_period_ms={
                "median": round(float(np.median(gaps)) * 1e3, 3),
                "max": round(float(gaps.max()) * 1e3, 3),
            },
        )
        # 2. E-stop latency while joint 7 moves at speed (TCP speed unaffected).
        latencies, produced = [], []
        for trial in range(trials):
            goal = HOME.copy()
            goal[6] = 2.5 if trial % 2 == 0 else -2.5

            def chase(t, goal=goal):
                return list(NAMES), goal, t

            client.source = chase
            n = len(client.records)
            client.wait(lambda m=n: len(client.records) > m + 50, 10.0)  # ~0.2 s of motion
            with client.cond:
                n = len(client.records)
            sent_wall = time.time_ns()
            sent = time.perf_counter_ns()
            client.pub_estop.publish(client.Bool(data=True))

            def decelerating(m=n, sent=sent):
                """The first command received after ``sent`` that is slower than the one
                before it (joint 7 speed from positions and stamps)."""
                recs = client.records
                for k in range(max(m, 2), len(recs)):
                    if recs[k][0] >= sent and _speed(recs, k) < _speed(recs, k - 1) * (1 - 1e-9):
                        return recs[k]
                return None

            client.wait(lambda: decelerating() is not None, 5.0)
            hit = decelerating()
            client.source = None
            if hit is not None:
                latencies.append((hit[0] - sent) * 1e-6)
                produced.append((hit[1] - sent_wall) * 1e-6)
            if not client.reset():
                raise RuntimeError("reset failed after a latency trial")
        result["estop_latency_ms"] = _percentiles(latencies, trials)
        result["estop_latency_published_ms"] = _percentiles(produced, trials)
    finally:
        client.close()
        node.terminate()
        try:
            node.wait(timeout=10)
        except subprocess.TimeoutExpired:
            node.kill()
        os.sched_setscheduler(0, previous[0], previous[1])
    result["rt_priority"] = rt_priority
    return result


def host_info() -> dict:
    start = time.perf_counter()
    total = 0
    for i in range(1_000_000):
        total += i
    loop_ns = (time.perf_counter() - start) * 1e3
    return {
        "loadavg": [round(x, 2) for x in os.getloadavg()],
        "cpus": os.cpu_count(),
        "python_loop_ns": round(loop_ns, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--duration", type=float, default=60.0, help="adversarial stream (s)")
    parser.add_argument("--trials", type=int, default=100, help="e-stop latency trials")
    parser.add_argument("--checks", type=int, default=200_000, help="core checks to time")
    parser.add_argument("--peer-steps", type=int, default=15_000, help="offline stream steps")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-dds", action="store_true", help="skip the node/DDS part")
    parser.add_argument(
        "--rt-priority",
        type=int,
        default=0,
        help="run the node and the DDS client under SCHED_FIFO at this priority (root)",
    )
    args = parser.parse_args()
    logging.getLogger("miles_ros.safety").setLevel(logging.ERROR)  # rejections are expected
    out: dict = {"host": host_info()}
    rates = core_throughput(args.seed, args.checks)
    out["core_checks_per_s"] = rates["adversarial_mix"]
    out["core_checks_per_s_by_stream"] = rates
    out["peer"] = offline_peer(args.seed, args.peer_steps)
    out["supervisor_steps_per_s"] = out["peer"]["supervisor_steps_per_s"]
    if not args.no_dds:
        out.update(dds_phase(args.seed, args.duration, args.trials, args.rt_priority))
    out["host_after"] = host_info()
    if args.json:
        print(json.dumps(out))
    else:
        print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
