"""Versions of a skill side by side (layout: :mod:`policies.library`): add one, promote
one, roll back, and the check that a version may replace the active one.

A version never overwrites another: :func:`add_version` copies an exported skill
directory in as the next number, with its ``provenance`` extended by ``parent_version``
(the version that was active when it was added) and ``data`` (what it was trained or
fine-tuned on). :func:`promote` and :func:`rollback` change ``active.yaml`` and append the
change to its history; so do :func:`route` and :func:`unroute`, which send the goals of one
target kind (``cube``) to another version and back, leaving the active version as it is
(and a promotion or rollback leaves the routes as they are).

Before a version is added or made active, and when the skill node loads it, it is checked
(:func:`check_version`): its files against the sha256 of its card and its card against
its task (:func:`policies.cards.validate_card`), then against the version it replaces
(:func:`differences`): the same name, task, observation layout, action mapping, joint
limits, envelope, permissions and request schema. A version that differs is refused with
what differs (``observation layout differs: object_pos start 18 -> 19``): the planner,
the supervisor and the scene code around a skill rely on all of these, and a new version
may change only what its networks learnt.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from policies.cards import SkillCard, SkillCardError, load_card, validate_card, write_card
from policies.library import (
    CARD_FILE,
    PROMOTE,
    ROLLBACK,
    ROUTE_TARGETS,
    VERSIONS_DIR,
    ActiveRecord,
    active_skill_dir,
    is_versioned,
    read_active,
    version_dir,
    versions,
    write_active,
)


class VersionError(SkillCardError):
    """A version that may not be added, promoted or loaded, or a request about a version
    that does not exist; the message says why."""


class NoSuchVersion(VersionError):
    """A version number that a versioned skill does not have."""


def _changes(prefix: str, old: Any, new: Any) -> list[str]:
    """``prefix.key old -> new`` for every leaf that differs between two nested mappings
    (lists compared whole)."""
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        out = []
        for key in [*old, *(k for k in new if k not in old)]:
            out += _changes(f"{prefix}.{key}" if prefix else str(key), old.get(key), new.get(key))
        return out
    return [] if old == new else [f"{prefix} {old} -> {new}"]


def _layout_changes(old: list, new: list) -> list[str]:
    """Each observation entry whose name, start or size differs, by name."""
    old_by, new_by = {e.get("name"): e for e in old}, {e.get("name"): e for e in new}
    out = []
    for name, entry in old_by.items():
        if name not in new_by:
            out.append(f"{name} missing")
            continue
        for key in ("start", "size"):
            if entry.get(key) != new_by[name].get(key):
                out.append(f"{name} {key} {entry.get(key)} -> {new_by[name].get(key)}")
    out += [f"{name} added" for name in new_by if name not in old_by]
    return out


def _action_mapping(card: SkillCard) -> dict[str, Any]:
    """What turns the actor's output into joint targets: the action's size, mode and
    scales, and the rate it is applied at."""
    mapping = {key: card.action.get(key) for key in ("dim", "mode", "scale")}
    if mapping["mode"] == "cartesian" and isinstance(mapping["scale"], Mapping):
        # a card exported before tool levelling has no gain: levelling off, as a gain of 0
        mapping["scale"] = {"ik_tilt_gain": 0.0, **mapping["scale"]}
    return {**mapping, "control_rate_hz": card.control_rate_hz}


def differences(old: SkillCard, new: SkillCard) -> list[str]:
    """What ``new`` changes of the contract ``old`` runs under (empty: it may replace it):
    each item says what differs and how."""
    out = []
    for what, a, b in (("name", old.name, new.name), ("task", old.task, new.task)):
        if a != b:
            out.append(f"{what} differs: {a} -> {b}")
    if old.obs_dim != new.obs_dim:
        out.append(f"observation dim differs: {old.obs_dim} -> {new.obs_dim}")
    layout = _layout_changes(*(c.observation.get("layout") or [] for c in (old, new)))
    out += [f"observation layout differs: {c}" for c in layout]
    mapping = _changes("", _action_mapping(old), _action_mapping(new))
    out += [f"action mapping differs: {c}" for c in mapping]
    out += [f"joint limits differ: {c}" for c in _changes("", old.limits, new.limits)]
    envelope_old, envelope_new = old.data.get("envelope") or {}, new.data.get("envelope") or {}
    out += [f"envelope differs: {c}" for c in _changes("", envelope_old, envelope_new)]
    if sorted(old.permissions) != sorted(new.permissions):
        out.append(f"permissions differ: {sorted(old.permissions)} -> {sorted(new.permissions)}")
    if old.parameters != new.parameters:
        out.append("parameters differ: the request schema changed")
    return out


def check_card(card: SkillCard, against: SkillCard | None = None) -> None:
    """A loaded card may replace ``against`` (None: nothing to compare with): in a
    ``versions/N`` folder its ``version`` is N, and it has no :func:`differences` from
    ``against``. :class:`VersionError` says what differs."""
    where = card.directory
    if where is not None and where.parent.name == VERSIONS_DIR and where.name != str(card.version):
        raise VersionError(
            f"{where}: the card says version {card.version}, its folder {where.name}"
        )
    diffs = [] if against is None else differences(against, card)
    if diffs:
        raise VersionError("; ".join(diffs))


def check_version(
    path: str | Path, against: SkillCard | None = None, check_hashes: bool = True
) -> SkillCard:
    """The card of the skill directory ``path`` once it passes every check: its files'
    sha256 and its task (:func:`policies.cards.validate_card`), then :func:`check_card`
    against ``against`` (the card it would replace). :class:`VersionError` says why not."""
    try:
        card = validate_card(path, check_hashes=check_hashes)
    except SkillCardError as exc:
        raise VersionError(str(exc)) from exc
    check_card(card, against)
    return card


def active_card(skill_folder: str | Path) -> SkillCard | None:
    """The card of a skill folder's active version (None when the folder holds no skill
    yet), read without checks."""
    folder = Path(skill_folder)
    if not (folder / CARD_FILE).is_file() and not is_versioned(folder):
        return None
    return load_card(active_skill_dir(folder))


def make_versioned(skill_folder: str | Path) -> int:
    """Turn a plain skill directory into a versioned skill whose only version (the card's
    ``version``, at least 1) holds its files; returns that version."""
    folder = Path(skill_folder)
    card = load_card(folder)
    version = max(card.version, 1)
    target = version_dir(folder, version)
    target.mkdir(parents=True)
    for item in list(folder.iterdir()):
        if item.name != VERSIONS_DIR:
            shutil.move(str(item), str(target / item.name))
    if card.version != version:
        write_card(_with(card, version=version), target)
    write_active(folder, ActiveRecord.first(version, "the plain skill directory"))
    return version


def _with(card: SkillCard, **fields: Any) -> SkillCard:
    data = card.to_dict()
    data.update(fields)
    return SkillCard.from_dict(data, card.path)


def add_version(
    skill_folder: str | Path, source: str | Path, data: str | None = None, check_hashes=True
) -> int:
    """Copy the exported skill directory ``source`` into ``skill_folder`` as its next
    version (the first: 1, made active; a plain skill directory is made versioned first)
    and return its number. Its card gets that ``version`` and, in ``provenance``,
    ``parent_version`` (the active version, None for the first) and ``data`` (``data``, else
    what its card already says, else its training run in words). The new version is not
    made active (:func:`promote`). :class:`VersionError` when ``source`` fails
    :func:`check_version` against the active version."""
    folder, source = Path(skill_folder), Path(source)
    current = active_card(folder)
    card = check_version(source, against=current, check_hashes=check_hashes)
    if current is not None and not is_versioned(folder):
        make_versioned(folder)
    parent = read_active(folder).active if current is not None else None
    number = max(versions(folder), default=0) + 1
    staging = folder / VERSIONS_DIR / f".{number}.adding"
    shutil.rmtree(staging, ignore_errors=True)
    shutil.copytree(card.directory, staging)
    provenance = dict(card.provenance)
    provenance["parent_version"] = parent
    provenance["data"] = data or provenance.get("data") or training_data(provenance)
    write_card(_with(card, version=number, provenance=provenance), staging)
    staging.replace(version_dir(folder, number))
    if current is None:
        write_active(folder, ActiveRecord.first(number, "the first version"))
    return number


def training_data(provenance: Mapping) -> str:
    """What a card's training run learnt from, in words (its ``provenance``)."""
    parts = [f"simulation: task {provenance.get('task', '?')}"]
    if provenance.get("backend"):
        parts.append(f"backend {provenance['backend']}")
    if provenance.get("steps"):
        parts.append(f"{provenance['steps']} env steps")
    if provenance.get("seed") is not None:
        parts.append(f"seed {provenance['seed']}")
    return ", ".join(parts)


def _checked(skill_folder: Path, record: ActiveRecord, version: int) -> None:
    """``version`` of ``skill_folder`` exists, is not the active one, and passes
    :func:`check_version` against the active one; else :class:`VersionError` saying why."""
    path = version_dir(skill_folder, version)
    if not (path / CARD_FILE).is_file():
        have = ", ".join(map(str, versions(skill_folder))) or "none"
        raise NoSuchVersion(f"no version {version} (versions: {have})")
    if version == record.active:
        raise VersionError(f"version {version} is already active")
    current = load_card(version_dir(skill_folder, record.active))
    check_version(path, against=current)


def _change(skill_folder: Path, version: int, action: str, reason: str) -> ActiveRecord:
    record = read_active(skill_folder)
    _checked(skill_folder, record, version)
    changed = record.changed(version, action, reason)
    write_active(skill_folder, changed)
    return changed


def _versioned(skill_folder: str | Path) -> Path:
    folder = Path(skill_folder)
    if not is_versioned(folder):
        raise VersionError(f"{folder} is not a versioned skill (no active.yaml)")
    return folder


def promote(skill_folder: str | Path, version: int, reason: str = "") -> ActiveRecord:
    """Make ``version`` active (after :func:`check_version` against the active one)."""
    return _change(_versioned(skill_folder), int(version), PROMOTE, reason)


def route(skill_folder: str | Path, target: str, version: int, reason: str = "") -> ActiveRecord:
    """Run goals of kind ``target`` (:data:`~policies.library.ROUTE_TARGETS`) on
    ``version``, after the checks a promotion makes (:func:`check_version` against the
    active one); the active version and the other goals stay as they are."""
    folder = _versioned(skill_folder)
    if target not in ROUTE_TARGETS:
        raise VersionError(
            f"no target kind {target!r} to route (known: {', '.join(ROUTE_TARGETS)})"
        )
    record = read_active(folder)
    if record.route(target) == int(version):
        raise VersionError(f"{target} goals already run version {version}")
    _checked(folder, record, int(version))
    changed = record.rerouted(target, int(version), reason)
    write_active(folder, changed)
    return changed


def unroute(skill_folder: str | Path, target: str, reason: str = "") -> ActiveRecord:
    """Clear the route of ``target`` goals: they run the active version again."""
    folder = _versioned(skill_folder)
    record = read_active(folder)
    if record.route(target) is None:
        raise VersionError(f"no route for {target} goals to clear")
    changed = record.rerouted(target, None, reason)
    write_active(folder, changed)
    return changed


def rollback(skill_folder: str | Path, reason: str = "") -> ActiveRecord:
    """Make active again the version that was active before the current one was
    promoted (:meth:`ActiveRecord.rollback_target`)."""
    folder = _versioned(skill_folder)
    record = read_active(folder)
    target = record.rollback_target()
    if target is None:
        raise VersionError(
            f"nothing to roll back to: version {record.active} was not promoted over another"
        )
    return _change(folder, target, ROLLBACK, reason)


def version_summary(card: SkillCard) -> dict[str, Any]:
    """A version's numbers for listing: its success in its card's evaluation and each
    evidence entry, and its lineage."""
    ev = card.evaluation
    evidence = card.data.get("evidence") or {}
    return {
        "version": card.version,
        "success_rate": ev.get("success_rate"),
        "ci95": ev.get("ci95"),
        "episodes": ev.get("episodes"),
        "backend": ev.get("backend"),
        "evidence": {
            kind: entry.get("success_rate")
            for kind, entry in evidence.items()
            if isinstance(entry, Mapping)
        },
        "parent_version": card.provenance.get("parent_version"),
        "data": card.provenance.get("data") or training_data(card.provenance),
        "exported": card.provenance.get("exported"),
    }


def describe(skill_folder: str | Path) -> dict[str, Any]:
    """A skill folder for ``miles skills list|show``: its name, active version, routes
    (target kind -> version), every version's :func:`version_summary` with ``check`` (""
    when it passes :func:`check_version` against the active version, else why not) and the
    promotion history."""
    folder = Path(skill_folder)
    if not is_versioned(folder):
        card = load_card(folder)
        summary = {**version_summary(card), "check": _check(folder, None)}
        return {
            "name": folder.name,
            "active": card.version,
            "routes": {},
            "versions": [summary],
            "history": [],
        }
    record = read_active(folder)
    active = load_card(version_dir(folder, record.active))
    listed = []
    for number in versions(folder):
        path = version_dir(folder, number)
        try:
            summary = version_summary(load_card(path))
        except SkillCardError as exc:
            listed.append({"version": number, "check": str(exc)})
            continue
        against = None if number == record.active else active
        listed.append({**summary, "version": number, "check": _check(path, against)})
    return {
        "name": folder.name,
        "active": record.active,
        "routes": dict(record.routes),
        "versions": listed,
        "history": [h.to_dict() for h in record.history],
    }


def _check(path: Path, against: SkillCard | None) -> str:
    try:
        check_version(path, against=against)
    except SkillCardError as exc:
        return str(exc)
    return ""
