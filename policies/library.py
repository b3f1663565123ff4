"""A skill library on disk: one folder per skill, found by :func:`library_skills`.

A skill folder is either

- a plain skill directory: ``NAME/skill.yaml`` beside ``actor.onnx`` and ``critic.onnx``
  (what ``miles export --out DIR`` writes), a skill of one version; or
- a versioned skill: ``NAME/versions/V/`` (V = 1, 2, ...), each a complete skill
  directory, side by side, and ``NAME/active.yaml`` naming the active one and keeping its
  promotion history (:class:`ActiveRecord`), so that a rollback returns exactly to the
  version that was active before. ``active.yaml`` may also route a kind of goal
  (:data:`ROUTE_TARGETS`: ``cube``, a goal on a cube) to another version.

:func:`active_skill_dir` is the one resolver from a skill folder (and, for a routed
request, its goal's target kind) to the directory of the version that runs;
:func:`policies.cards.card_path`, and through it every loader (the skill node, the
planner's registry, the console, ``miles eval``), goes through it.
Managing versions (add, promote, rollback, the compatibility check) is
:mod:`policies.versions`. No imports from the rest of ``policies`` here, so that
:mod:`policies.cards` can build on it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from sims import yaml_files

CARD_FILE = "skill.yaml"
ACTIVE_FILE = "active.yaml"
"""In a versioned skill's folder: the active version and its promotion history."""
VERSIONS_DIR = "versions"
"""In a versioned skill's folder: one complete skill directory per version number."""
PROMOTE = "promote"
ROLLBACK = "rollback"
"""The two kinds of change of the active version (``action`` of a :class:`Promotion`)."""
ROUTE = "route"
UNROUTE = "unroute"
"""The two kinds of change of a route (``action`` of a :class:`Promotion` with a
``target``)."""
ROUTE_CUBE = "cube"
"""A route's target kind: a goal on a cube (pick_place stacking and towers: a goal with
``stack_on``, an episode variant that stacks)."""
ROUTE_TARGETS = (ROUTE_CUBE,)
"""The target kinds a route may name; every other goal runs the active version."""


class SkillCardError(ValueError):
    """A skill card that is missing, malformed, or does not match its files or task (also
    a versioned skill whose ``active.yaml`` names no complete version)."""


@dataclass(frozen=True)
class Promotion:
    """One change of a skill's active version, or of a route (``target``)."""

    version: int
    """The version that became active (a route's change: the version that runs the
    ``target`` goals from now on)."""
    previous: int | None
    """The version that was active before (None: the first one; a route's change: the
    version that ran the ``target`` goals before)."""
    action: str
    """:data:`PROMOTE` or :data:`ROLLBACK`; :data:`ROUTE` or :data:`UNROUTE`."""
    at: str
    """Local time of the change (``YYYY-MM-DDTHH:MM:SS``)."""
    reason: str = ""
    """Why, in words (``--reason``)."""
    target: str | None = None
    """A route's change: the target kind it routes (:data:`ROUTE_TARGETS`); None for a
    change of the active version."""

    def to_dict(self) -> dict[str, Any]:
        out = {
            "version": self.version,
            "previous": self.previous,
            "action": self.action,
            "at": self.at,
            "reason": self.reason,
        }
        return out if self.target is None else {**out, "target": self.target}


def now_stamp() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S")


@dataclass(frozen=True)
class ActiveRecord:
    """``active.yaml``: the active version, the routes, and every change that led to them,
    oldest first."""

    active: int
    history: tuple[Promotion, ...] = ()
    routes: tuple[tuple[str, int], ...] = ()
    """(target kind, version) pairs: goals of that kind run that version instead of the
    active one (:func:`active_skill_dir`); written ``routes: {cube: 3}``."""

    @classmethod
    def from_dict(cls, data: Any, where: str = ACTIVE_FILE) -> ActiveRecord:
        if not isinstance(data, dict) or not isinstance(data.get("active"), int):
            raise SkillCardError(f"{where}: needs an integer 'active' version")
        history = data.get("history") or []
        if not isinstance(history, list):
            raise SkillCardError(f"{where}: history must be a list")
        try:
            entries = tuple(
                Promotion(
                    version=int(h["version"]),
                    previous=None if h.get("previous") is None else int(h["previous"]),
                    action=str(h.get("action", PROMOTE)),
                    at=str(h.get("at", "")),
                    reason=str(h.get("reason", "")),
                    target=None if h.get("target") is None else str(h["target"]),
                )
                for h in history
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise SkillCardError(f"{where}: malformed history entry ({exc})") from exc
        return cls(data["active"], entries, _routes(data.get("routes"), where))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"active": self.active}
        if self.routes:
            out["routes"] = dict(self.routes)
        return {**out, "history": [h.to_dict() for h in self.history]}

    def route(self, target: str | None) -> int | None:
        """The version a goal of kind ``target`` is routed to (None: none, the active)."""
        return dict(self.routes).get(target) if target is not None else None

    def rollback_target(self) -> int | None:
        """The version a rollback returns to: the one active before the promotion that the
        current state rests on (promotions push their ``previous``, rollbacks pop it).
        None when there is nothing to roll back to."""
        stack: list[int | None] = []
        for change in self.history:
            if change.action == ROLLBACK:
                if stack:
                    stack.pop()
            elif change.target is None:
                stack.append(change.previous)
        return stack[-1] if stack else None

    @classmethod
    def first(cls, version: int, reason: str = "") -> ActiveRecord:
        """The record of a skill whose first version, ``version``, becomes active now."""
        return cls(version, (Promotion(version, None, PROMOTE, now_stamp(), reason),))

    def changed(self, version: int, action: str, reason: str = "") -> ActiveRecord:
        """This record with ``version`` made active by ``action`` now."""
        change = Promotion(version, self.active, action, now_stamp(), reason)
        return ActiveRecord(version, (*self.history, change), self.routes)

    def rerouted(self, target: str, version: int | None, reason: str = "") -> ActiveRecord:
        """This record with goals of kind ``target`` routed to ``version`` now (None: the
        route cleared, they run the active version again); the active version stays."""
        before = self.route(target)
        routes = {k: v for k, v in self.routes if k != target}
        if version is not None:
            routes[target] = version
        action = UNROUTE if version is None else ROUTE
        now = self.active if version is None else version
        previous = self.active if before is None else before
        change = Promotion(now, previous, action, now_stamp(), reason, target)
        return ActiveRecord(self.active, (*self.history, change), tuple(sorted(routes.items())))


def _routes(data: Any, where: str) -> tuple[tuple[str, int], ...]:
    """``active.yaml``'s ``routes`` (absent: none) as sorted (target kind, version) pairs;
    :class:`SkillCardError` for a kind not in :data:`ROUTE_TARGETS` or a version that is
    not an integer."""
    if data is None:
        return ()
    if not isinstance(data, dict):
        raise SkillCardError(f"{where}: routes must map a target kind to a version")
    for kind, version in data.items():
        if kind not in ROUTE_TARGETS:
            known = ", ".join(ROUTE_TARGETS)
            raise SkillCardError(f"{where}: routes: unknown target kind {kind!r} (known: {known})")
        if not isinstance(version, int) or isinstance(version, bool):
            raise SkillCardError(f"{where}: routes: {kind} needs an integer version")
    return tuple(sorted(data.items()))


def is_versioned(skill_dir: str | Path) -> bool:
    """Whether ``skill_dir`` is a versioned skill (has ``active.yaml``)."""
    return (Path(skill_dir) / ACTIVE_FILE).is_file()


def is_skill_folder(path: str | Path) -> bool:
    """A plain skill directory or a versioned skill."""
    path = Path(path)
    return (path / CARD_FILE).is_file() or is_versioned(path)


def read_active(skill_dir: str | Path) -> ActiveRecord:
    """The ``active.yaml`` of a versioned skill; :class:`SkillCardError` says what is wrong."""
    path = Path(skill_dir) / ACTIVE_FILE
    try:
        data = yaml_files.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SkillCardError(f"{path}: cannot read it ({exc})") from exc
    except yaml.YAMLError as exc:
        raise SkillCardError(f"{path}: not valid YAML ({exc})") from exc
    return ActiveRecord.from_dict(data, str(path))


def write_active(skill_dir: str | Path, record: ActiveRecord) -> Path:
    """Write ``active.yaml`` (to a temporary file first, then renamed over the old one, so
    a reader sees the old record or the new one, never half of one)."""
    path = Path(skill_dir) / ACTIVE_FILE
    tmp = path.with_name(f".{ACTIVE_FILE}.tmp")
    tmp.write_text(yaml.safe_dump(record.to_dict(), sort_keys=False), encoding="utf-8")
    tmp.replace(path)
    return path


def version_dir(skill_dir: str | Path, version: int) -> Path:
    """Where version ``version`` of a versioned skill lives."""
    return Path(skill_dir) / VERSIONS_DIR / str(int(version))


def versions(skill_dir: str | Path) -> list[int]:
    """The version numbers of a versioned skill that have a card, ascending ([] for a
    plain skill directory)."""
    root = Path(skill_dir) / VERSIONS_DIR
    if not root.is_dir():
        return []
    found = [int(p.name) for p in root.iterdir() if p.name.isdigit() and (p / CARD_FILE).is_file()]
    return sorted(found)


def active_skill_dir(skill_dir: str | Path, target: str | None = None) -> Path:
    """The directory of the version that runs: ``skill_dir`` itself for a plain skill
    directory, ``versions/V`` of a versioned skill (V from ``active.yaml``: the version its
    ``routes`` give goals of kind ``target``, e.g. :data:`ROUTE_CUBE`, else the active one).
    A folder that is neither is returned as it is (loading it then says that it has no
    card). :class:`SkillCardError` when ``active.yaml`` is unreadable or names a missing
    version."""
    skill_dir = Path(skill_dir)
    if (skill_dir / CARD_FILE).is_file() or not is_versioned(skill_dir):
        return skill_dir
    record = read_active(skill_dir)
    routed = record.route(target)
    version = record.active if routed is None else routed
    path = version_dir(skill_dir, version)
    if not (path / CARD_FILE).is_file():
        what = "active version" if routed is None else f"version routed for {target} goals,"
        raise SkillCardError(
            f"{skill_dir / ACTIVE_FILE}: {what} {version} has no {CARD_FILE} in {path}"
        )
    return path


def library_skills(root: str | Path) -> list[Path]:
    """The skill folders of a library (plain or versioned), sorted by name; empty when
    ``root`` does not exist."""
    root = Path(root)
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_dir() and is_skill_folder(p))
