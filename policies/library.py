"""A skill library on disk: one folder per skill, found by :func:`library_skills`.

A skill folder is either

- a plain skill directory: ``NAME/skill.yaml`` beside ``actor.onnx`` and ``critic.onnx``
  (what ``miles export --out DIR`` writes), a skill of one version; or
- a versioned skill: ``NAME/versions/V/`` (V = 1, 2, ...), each a complete skill
  directory, side by side, and ``NAME/active.yaml`` naming the active one and keeping its
  promotion history (:class:`ActiveRecord`), so that a rollback returns exactly to the
  version that was active before.

:func:`active_skill_dir` is the one resolver from a skill folder to the directory of the
version that runs; :func:`policies.cards.card_path`, and through it every loader (the
skill node, the planner's registry, the console, ``miles eval``), goes through it.
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


class SkillCardError(ValueError):
    """A skill card that is missing, malformed, or does not match its files or task (also
    a versioned skill whose ``active.yaml`` names no complete version)."""


@dataclass(frozen=True)
class Promotion:
    """One change of a skill's active version."""

    version: int
    """The version that became active."""
    previous: int | None
    """The version that was active before (None: the first one)."""
    action: str
    """:data:`PROMOTE` or :data:`ROLLBACK`."""
    at: str
    """Local time of the change (``YYYY-MM-DDTHH:MM:SS``)."""
    reason: str = ""
    """Why, in words (``--reason``)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "previous": self.previous,
            "action": self.action,
            "at": self.at,
            "reason": self.reason,
        }


def now_stamp() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S")


@dataclass(frozen=True)
class ActiveRecord:
    """``active.yaml``: the active version and every change that led to it, oldest first."""

    active: int
    history: tuple[Promotion, ...] = ()

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
                )
                for h in history
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise SkillCardError(f"{where}: malformed history entry ({exc})") from exc
        return cls(data["active"], entries)

    def to_dict(self) -> dict[str, Any]:
        return {"active": self.active, "history": [h.to_dict() for h in self.history]}

    def rollback_target(self) -> int | None:
        """The version a rollback returns to: the one active before the promotion that the
        current state rests on (promotions push their ``previous``, rollbacks pop it).
        None when there is nothing to roll back to."""
        stack: list[int | None] = []
        for change in self.history:
            if change.action == ROLLBACK:
                if stack:
                    stack.pop()
            else:
                stack.append(change.previous)
        return stack[-1] if stack else None

    @classmethod
    def first(cls, version: int, reason: str = "") -> ActiveRecord:
        """The record of a skill whose first version, ``version``, becomes active now."""
        return cls(version, (Promotion(version, None, PROMOTE, now_stamp(), reason),))

    def changed(self, version: int, action: str, reason: str = "") -> ActiveRecord:
        """This record with ``version`` made active by ``action`` now."""
        change = Promotion(version, self.active, action, now_stamp(), reason)
        return ActiveRecord(version, (*self.history, change))


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


def active_skill_dir(skill_dir: str | Path) -> Path:
    """The directory of the version that runs: ``skill_dir`` itself for a plain skill
    directory, ``versions/V`` of a versioned skill (V from ``active.yaml``). A folder that is
    neither is returned as it is (loading it then says that it has no card).
    :class:`SkillCardError` when ``active.yaml`` is unreadable or names a missing version."""
    skill_dir = Path(skill_dir)
    if (skill_dir / CARD_FILE).is_file() or not is_versioned(skill_dir):
        return skill_dir
    active = read_active(skill_dir).active
    path = version_dir(skill_dir, active)
    if not (path / CARD_FILE).is_file():
        raise SkillCardError(
            f"{skill_dir / ACTIVE_FILE}: active version {active} has no {CARD_FILE} in {path}"
        )
    return path


def library_skills(root: str | Path) -> list[Path]:
    """The skill folders of a library (plain or versioned), sorted by name; empty when
    ``root`` does not exist."""
    root = Path(root)
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_dir() and is_skill_folder(p))
