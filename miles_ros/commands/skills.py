"""``miles skills list|show|add|promote|rollback|route``: the versions of the skills in a
skill library (default: the shipped ``policies/skills``; layout :mod:`policies.library`,
the operations :mod:`policies.versions`).

    miles skills list [--library DIR] [--json]
    miles skills show NAME [--version V] [--json]
    miles skills add NAME SKILL_DIR [--data TEXT]       # the next version, not yet active
    miles skills promote NAME V [--reason TEXT]
    miles skills rollback NAME [--reason TEXT]
    miles skills route NAME --on cube V [--reason TEXT] # goals on a cube run version V
    miles skills route NAME --on cube --clear [--reason TEXT]

A version that fails its checks (its files' sha256, its task, the contract of the active
version: observation layout, action mapping, envelope, permissions) is refused with what
differs; so is a route to it. A running skill node swaps the new active (or routed)
version in at its next request of that skill. Exit codes: 0 done, 1 refused (the reason
on stderr), 2 usage error (no such skill or version).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from miles_ros.interfaces import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from policies.library import ROUTE_TARGETS


def build_parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="action", required=True)

    def command(name: str, text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=text, description=text)
        p.add_argument(
            "--library", default=None, help="skill library folder (default policies/skills)"
        )
        p.add_argument("--json", action="store_true", help="print JSON")
        return p

    command("list", "every skill: active version, versions and their success numbers")
    show = command("show", "one skill's versions, their provenance and promotion history")
    show.add_argument("name", help="skill name (its folder in the library)")
    show.add_argument("--version", type=int, default=None, help="only this version")
    add = command("add", "copy an exported skill directory in as the skill's next version")
    add.add_argument("name", help="skill name (its folder in the library; new: created)")
    add.add_argument("skill_dir", help="an exported skill directory (miles export --out DIR)")
    add.add_argument(
        "--data",
        default=None,
        help="what the version was trained or fine-tuned on, for its provenance "
        "(default: its card's, else its training run in words)",
    )
    promote = command("promote", "make a version active (checked against the active one)")
    promote.add_argument("name", help="skill name")
    promote.add_argument("version", type=int, help="the version to make active")
    promote.add_argument("--reason", default="", help="why, kept in the promotion history")
    rollback = command("rollback", "make the version active before the current one again")
    rollback.add_argument("name", help="skill name")
    rollback.add_argument("--reason", default="", help="why, kept in the promotion history")
    route = command("route", "run one kind of goal on another version (checked as a promotion)")
    route.add_argument("name", help="skill name")
    route.add_argument(
        "version", type=int, nargs="?", default=None, help="the version those goals run"
    )
    route.add_argument(
        "--on",
        required=True,
        choices=ROUTE_TARGETS,
        help="the goals routed: cube (a goal on a cube: stacking and towers)",
    )
    route.add_argument(
        "--clear", action="store_true", help="clear the route: those goals run the active version"
    )
    route.add_argument("--reason", default="", help="why, kept in the promotion history")
    return parser


def _print_list(skills: list[dict]) -> None:
    for skill in skills:
        if "error" in skill:
            print(f"{skill['name']}: {skill['error']}")
            continue
        numbers = ", ".join(str(v["version"]) for v in skill["versions"])
        print(f"{skill['name']}: active {skill['active']}{_routes(skill)} (versions {numbers})")
        for v in skill["versions"]:
            print("  " + _version_line(v, skill["active"]))


def _version_line(v: dict, active: int) -> str:
    mark = "*" if v["version"] == active else " "
    if v.get("success_rate") is None:
        numbers = "no evaluation"
    else:
        numbers = f"{v['backend']} success {100 * v['success_rate']:.1f}% ({v['episodes']} ep)"
    evidence = ", ".join(
        f"{kind} {100 * rate:.1f}%" for kind, rate in v.get("evidence", {}).items() if rate
    )
    line = f"{mark} {v['version']}: {numbers}" + (f"; evidence {evidence}" if evidence else "")
    return line + (f"  REFUSED: {v['check']}" if v.get("check") else "")


def _routes(skill: dict) -> str:
    """``, cube goals -> 3`` for each route of a :func:`policies.versions.describe` entry."""
    return "".join(f", {on} goals -> {v}" for on, v in skill.get("routes", {}).items())


def _print_show(skill: dict) -> None:
    print(f"{skill['name']}: active {skill['active']}{_routes(skill)}")
    for v in skill["versions"]:
        print("  " + _version_line(v, skill["active"]))
        if "data" in v:
            print(f"      parent version: {v.get('parent_version')}; data: {v['data']}")
            print(f"      exported: {v.get('exported')}")
    for h in skill["history"]:
        reason = f": {h['reason']}" if h["reason"] else ""
        on = f" ({h['target']} goals)" if h.get("target") else ""
        print(f"  {h['at']} {h['action']} {h['previous']} -> {h['version']}{on}{reason}")


def main(argv: list[str] | None = None, prog: str = "miles skills") -> int:
    parser = build_parser(prog)
    args, extra = parser.parse_known_args(argv)
    if args.action == "route" and args.version is None and len(extra) == 1:
        # argparse gives an optional positional nothing when an option comes between it and
        # the positional before it (route NAME --on cube V): V arrives here
        try:
            args.version, extra = int(extra[0]), []
        except ValueError:
            pass
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if args.action == "route" and (args.version is None) != args.clear:
        parser.error("route takes a version or --clear (one of them)")
    from policies import versions
    from policies.cards import SkillCardError, library_skill_dirs, skill_library

    def folder(name: str) -> Path:
        return skill_library(args.library) / name

    def out(data, text) -> None:
        if args.json:
            print(json.dumps(data))
        else:
            text(data)

    if args.action == "list":
        listed = []
        for path in library_skill_dirs(args.library):
            try:
                listed.append(versions.describe(path))
            except SkillCardError as exc:
                listed.append({"name": path.name, "error": str(exc)})
        out(listed, _print_list)
        return EXIT_OK
    path = folder(args.name)
    if args.action != "add" and not path.is_dir():
        print(f"{prog}: no skill {args.name!r} in {skill_library(args.library)}", file=sys.stderr)
        return EXIT_USAGE
    try:
        if args.action == "show":
            skill = versions.describe(path)
            if args.version is not None:
                skill["versions"] = [v for v in skill["versions"] if v["version"] == args.version]
                if not skill["versions"]:
                    print(f"{prog}: {args.name} has no version {args.version}", file=sys.stderr)
                    return EXIT_USAGE
            out(skill, _print_show)
        elif args.action == "add":
            number = versions.add_version(path, args.skill_dir, data=args.data)
            result = {"name": args.name, "version": number, "path": str(path)}
            out(result, lambda r: print(f"{r['name']}: added version {r['version']}"))
        elif args.action == "route":
            if args.clear:
                record = versions.unroute(path, args.on, args.reason)
            else:
                record = versions.route(path, args.on, args.version, args.reason)
            change = record.history[-1].to_dict()
            result = {
                "name": args.name,
                "active": record.active,
                "routes": dict(record.routes),
                "change": change,
            }
            out(
                result,
                lambda r: print(
                    f"{r['name']}: {r['change']['target']} goals {r['change']['previous']} -> "
                    f"{r['change']['version']} (active {r['active']})"
                ),
            )
        else:
            if args.action == "promote":
                record = versions.promote(path, args.version, args.reason)
            else:
                record = versions.rollback(path, args.reason)
            change = record.history[-1].to_dict()
            result = {"name": args.name, "active": record.active, "change": change}
            out(
                result,
                lambda r: print(f"{r['name']}: active {r['change']['previous']} -> {r['active']}"),
            )
    except SkillCardError as exc:  # VersionError included: refused, with the reason
        print(f"{prog}: {args.name}: {exc}", file=sys.stderr)
        return EXIT_USAGE if isinstance(exc, versions.NoSuchVersion) else EXIT_FAILED
    return EXIT_OK
