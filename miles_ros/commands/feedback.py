"""``miles feedback GOAL_OR_STEP good|bad [--note TEXT]``: an operator's mark on a goal
(its trace id) or a step (its skill request id).

The mark goes to the feedback file the fine-tuning data read (:mod:`policies.logs`: a
step or goal marked ``bad`` counts as a failure there whatever its status said) and, as a
fact of kind :data:`FEEDBACK_FACT`, to the manager's memory (the same file and embedder
the manager node opens with these parameters: :func:`miles_ros.manager.build.build_memory`),
where its planner finds it as it finds its reflections."""

from __future__ import annotations

import argparse
import json
import sys

from policies.logs import DEFAULT_FEEDBACK_FILE, MARKS, add_mark

FEEDBACK_FACT = "feedback"
"""The ``kind`` of an operator's mark in the manager's memory."""


def build_parser(prog: str = "miles feedback") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    p.add_argument(
        "target", metavar="GOAL_OR_STEP", help="a goal's trace id or a step's request id"
    )
    p.add_argument("mark", choices=MARKS, help="good or bad (a bad mark counts as a failure)")
    p.add_argument("--note", default="", help="what was right or wrong, in words")
    p.add_argument(
        "--file",
        default=str(DEFAULT_FEEDBACK_FILE),
        help=f"the feedback file (JSON lines; default {DEFAULT_FEEDBACK_FILE})",
    )
    p.add_argument(
        "--memory-db",
        default="",
        help="the manager's memory file (default: the manager node's default, memory.sqlite in "
        "the model cache)",
    )
    p.add_argument(
        "--memory-embedder", default="minilm", choices=["minilm", "hash"], help="as the manager's"
    )
    p.add_argument("--no-memory", action="store_true", help="the feedback file only")
    p.add_argument("--json", action="store_true", help="print the mark as JSON")
    return p


def memory_text(mark: dict) -> str:
    """The fact an operator's mark becomes in the manager's memory."""
    note = f": {mark['note']}" if mark.get("note") else ""
    return f"operator marked goal or step {mark['id']} {mark['mark']}{note}"


def main(argv: list[str] | None = None, prog: str = "miles feedback") -> int:
    args = build_parser(prog).parse_args(argv)
    mark = add_mark(args.file, args.target, args.mark, args.note)
    if not args.no_memory:
        from miles_ros.manager.build import build_memory
        from miles_ros.params.manager import ManagerNodeParams

        params = ManagerNodeParams(memory_db=args.memory_db, memory_embedder=args.memory_embedder)
        memory = build_memory(params)
        try:
            memory.add_fact(memory_text(mark), kind=FEEDBACK_FACT, trace_id=args.target)
        finally:
            memory.close()
    if args.json:
        print(json.dumps(mark))
    else:
        where = args.file + ("" if args.no_memory else " and the manager's memory")
        print(f"{prog}: {args.target} marked {args.mark} in {where}", file=sys.stdout)
    return 0
