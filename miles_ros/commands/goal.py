"""`miles goal`: send a goal to a running manager and follow it to the end.

    miles goal "move to the red cube" [--namespace /miles] [--timeout 300] [--json]

Publishes the goal on ``/miles/goal``, then follows ``/miles/plan`` and
``/miles/manager/status`` and prints the plan, each step as it is dispatched and how it
ended, replans, and the outcome. Exit status: 0 when the goal succeeded; 3 when the
planner refused it (it cannot be done; the reason is printed; nothing moved, as for
``miles plan``); 4 when the planner asks back which thing the goal means (the question
is printed; the manager's next goal may answer it: "the red one"); 1 when it failed, was
refused by the manager (busy, e-stop latched, planner not loaded) or ended by the e-stop;
2 when no manager answers (is `miles up` running?); 124 when it did not finish within
``--timeout`` (the manager keeps going).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

from miles_ros.commands import doc_parser
from miles_ros.interfaces import (
    EXIT_CLARIFY,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_NO_MANAGER,
    EXIT_OK,
    EXIT_REFUSED,
    EXIT_TIMED_OUT,
    FAILED,
    FINAL_GOAL_OUTCOMES,
    NAMESPACE,
    NEEDS_CLARIFICATION,
    PLANNING,
    REFUSED,
    RUNNING,
    SUCCEEDED,
    under_namespace,
)
from miles_ros.params.manager import ManagerNodeParams

topic = under_namespace
"""``/miles/x`` under another namespace: ``/NS/x``."""


def _params(params: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in params.items())


class GoalFollower:
    """Turns manager statuses and plans about one goal into printed lines (no ROS).

    Call :meth:`on_status` with every status before and after the goal is sent, and
    :meth:`sent` right before sending it: the first status after that whose ``goal_seq``
    is newer than every goal the manager had received, with the same words, is ours.
    """

    def __init__(self, goal: str, out: Callable[[str], None] = print):
        self.goal = " ".join(goal.split())
        self.out = out
        self.baseline: int | None = None
        """Goals the manager had received before ours (None until :meth:`sent`)."""
        self.received = 0
        self.seen_status = False
        self.seq: int | None = None
        self.outcome: str | None = None
        self.status: dict = {}
        self.plans: list[dict] = []
        self.printed_requests: set[str] = set()
        self.printed_executed = 0
        self.printed_plans: set[tuple] = set()
        self.said_loading = False
        self.running: dict[str, tuple[int, str]] = {}
        """A cell's tasks printed as running: task id -> (round, arm)."""

    def sent(self) -> None:
        self.baseline = self.received

    def on_status(self, status: dict) -> None:
        self.seen_status = True
        self.received = max(self.received, int(status.get("goals_received") or 0))
        if self.seq is None:
            if self.baseline is None or status.get("goal") != self.goal:
                if (
                    self.baseline is not None
                    and status.get("planner") == "loading"
                    and not self.said_loading
                ):
                    self.said_loading = True
                    self.out("waiting for the manager's planner to load ...")
                return
            if int(status.get("goal_seq") or 0) <= self.baseline:
                return
            self.seq = int(status["goal_seq"])
            for plan in self.plans:
                self.on_plan(plan)
        if status.get("goal_seq") != self.seq or self.outcome is not None:
            return
        self.status = status
        outcome = status.get("outcome")
        if outcome == PLANNING and not self.printed_plans and status.get("event") == "planning":
            self.out(f"planning: {self.goal}")
        for entry in (status.get("executed") or [])[self.printed_executed :]:
            call = f"{entry['skill']} {_params(entry.get('params') or {})}".rstrip()
            line = f"   <- {call}: {entry['state']}"
            if entry.get("duration_s"):
                line += f" in {entry['duration_s']:.2f} s"
            if entry.get("reason"):
                line += f": {entry['reason']}"
            self.out(line)
            self.printed_executed += 1
        if status.get("trace_id") and status.get("plan_info"):
            self._print_plan(
                status["trace_id"],
                int(status.get("replans") or 0),
                status.get("plan") or [],
                status["plan_info"],
            )
        if status.get("mode") == "cell":
            self._print_tasks(status)
        request = status.get("request")
        if outcome == RUNNING and request and request["id"] not in self.printed_requests:
            self.printed_requests.add(request["id"])
            step = status.get("step") or {"skill": request["skill"], "params": {}}
            n, total = int(status.get("step_index", 0)) + 1, status.get("steps", "?")
            self.out(
                f"-> step {n}/{total}: {step['skill']} {_params(step['params'])}".rstrip()
                + f"  [{request['id']}]"
            )
        if outcome in FINAL_GOAL_OUTCOMES:
            self.outcome = outcome
            line = f"goal {outcome}"
            if status.get("reason"):
                line += f": {status['reason']}"
            if status.get("trace_id"):
                line += f" (replans: {status.get('replans', 0)}, trace {status['trace_id']})"
            self.out(line)

    def _print_tasks(self, status: dict) -> None:
        """A cell's goal (contract net): its plan once, then each task's award and end."""
        trace, plan = status.get("trace_id"), status.get("plan") or []
        if trace and plan and (trace, 0) not in self.printed_plans:
            self.printed_plans.add((trace, 0))
            arms = ", ".join(status.get("arms") or [])
            self.out(f"plan (cell of {arms}: tasks by contract net, trace {trace}):")
            for i, step in enumerate(plan, 1):
                self.out(f"  {i}. {step['skill']} {_params(step['params'])}".rstrip())
        awards = {a["task_id"]: a for a in status.get("awards") or []}
        for n, task in enumerate(status.get("tasks") or [], 1):
            tid, state, rounds = task["task_id"], task["state"], int(task.get("rounds") or 0)
            call = f"{task['skill']} {_params(task.get('params') or {})}".rstrip()
            ran = self.running.get(tid)
            if ran is not None and state != RUNNING and (state != "bidding" or rounds > ran[0]):
                del self.running[tid]
                if state == SUCCEEDED:
                    self.out(f"   <- task {n}: {call} on {ran[1]}: succeeded")
                elif state == FAILED:
                    self.out(f"   <- task {n}: {call} on {ran[1]}: failed")
                else:  # waiting or bidding again: a failure, re-announced with it
                    self.out(f"   <- task {n}: {call} on {ran[1]}: failed, announced again")
            elif state == RUNNING and (ran is None or ran[0] != rounds):
                if ran is not None:  # its earlier round failed between two statuses
                    self.out(f"   <- task {n}: {call} on {ran[1]}: failed, announced again")
                self.running[tid] = (rounds, task["arm"])
                cost = awards.get(tid, {}).get("cost")
                bid = f", bid {cost:.2f}" if isinstance(cost, (int, float)) else ""
                self.out(f"-> task {n}: {call} on {task['arm']} (round {rounds}{bid})")

    def on_plan(self, plan: dict) -> None:
        if self.seq is None:
            self.plans.append(plan)
        elif plan.get("goal_seq") == self.seq and not plan.get("replans"):
            # a replan is printed from the status that carries it, after the failed step
            self._print_plan(
                plan.get("trace_id"), int(plan.get("replans") or 0), plan.get("steps") or [], plan
            )

    def _print_plan(self, trace, replans: int, steps: list[dict], info: dict) -> None:
        """Print a plan once, from /miles/plan or from a status, whichever comes first."""
        if (trace, replans) in self.printed_plans:
            return
        self.printed_plans.add((trace, replans))
        how = "cached" if info.get("cached") else f"{info.get('latency_s', 0.0):.2f} s"
        label = " [RULE-BASED FALLBACK]" if info.get("fallback_used") else ""
        head = "replanned" if replans else "plan"
        self.out(f"{head} ({info.get('mode')}, {info.get('model')}, {how}, trace {trace}){label}:")
        for i, step in enumerate(steps, 1):
            self.out(f"  {i}. {step['skill']} {_params(step['params'])}".rstrip())
        for error in info.get("errors") or []:
            self.out(f"  error: {error}")


def main(argv: list[str] | None = None, prog: str = "miles goal") -> int:
    parser = doc_parser(prog, __doc__)
    parser.add_argument("goal", help="the goal in words")
    parser.add_argument("--namespace", default=NAMESPACE, help="the graph's namespace")
    parser.add_argument(
        "--timeout",
        type=float,
        default=300.0,
        help="seconds to follow the goal before giving up (exit 124)",
    )
    parser.add_argument(
        "--wait",
        type=float,
        default=30.0,
        help="seconds to wait for the manager to be reachable (it is not "
        "while it loads its model)",
    )
    parser.add_argument("--domain-id", type=int, default=None, help="ROS_DOMAIN_ID to use")
    parser.add_argument(
        "--json", action="store_true", help="print the final manager status as one JSON object"
    )
    args = parser.parse_args(argv)
    if not args.goal.strip():
        parser.error("the goal is empty")

    from miles_ros.ros.clients import follow_goal  # rclpy: heavy, only when used

    follower = GoalFollower(args.goal, out=lambda line: print(line, flush=True))
    try:
        how = follow_goal(
            args.goal,
            follower.on_status,
            follower.on_plan,
            sent=follower.sent,
            done=lambda: follower.outcome is not None,
            namespace=args.namespace,
            domain_id=args.domain_id,
            wait=args.wait,
            timeout=args.timeout,
        )
    except KeyboardInterrupt:
        print(
            f"\n{prog}: stopped following (the manager keeps working on the goal)", file=sys.stderr
        )
        return EXIT_INTERRUPTED
    if how == "no_manager":
        status_topic = topic(args.namespace, ManagerNodeParams().status_topic)
        print(
            f"{prog}: no manager on {status_topic} within {args.wait:g} s "
            "(is `miles up` running, with the same ROS_DOMAIN_ID?)",
            file=sys.stderr,
        )
        return EXIT_NO_MANAGER
    if how == "timed_out":
        print(
            f"{prog}: no outcome within {args.timeout:g} s; the manager keeps working on the goal",
            file=sys.stderr,
        )
        return EXIT_TIMED_OUT
    if args.json:
        print(json.dumps(follower.status))
    if follower.outcome == REFUSED and follower.status.get("trace_id"):
        return EXIT_REFUSED  # by the planner (planned, not gated): nothing moved
    if follower.outcome == NEEDS_CLARIFICATION:
        return EXIT_CLARIFY  # the question is the status's reason; the next goal answers
    return EXIT_OK if follower.outcome == SUCCEEDED else EXIT_FAILED
