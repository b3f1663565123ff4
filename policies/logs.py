"""Logged episodes as a dataset: the file format, the operator's marks, and the check that
logs fit a skill before they fine-tune it.

A dataset file (``*.npz``, compressed, no pickles) holds the episodes of one recording,
one per skill request, rows of all episodes stacked (``episode`` says whose):

- ``obs`` [N, D] float32: the observation the skill saw at each control period its
  policy ran (rebuilt with the skill node's own observation code:
  :mod:`miles_ros.runtime.logs`);
- ``actions`` [N, A] float32: the card's actor on those observations (its deterministic
  output: what the running version computed from them);
- ``commands`` [N, 7] float32: the arm targets the skill node sent after that period
  (``/miles/skill_command``; NaN where none was recorded);
- ``object_pos`` [N, 3], ``truth_object_pos`` [N, 3] float32: the task's cube as the skill
  saw it, and the simulator's true pose where the recording has it (perception on); NaN
  where unknown;
- ``episode`` [N] int32;
- ``header``: JSON (:data:`HEADER_KEYS`): the skill, its card version, the hash of its
  observation layout, its action layout, the recording, and one entry per episode
  (:data:`EPISODE_KEYS`: request id, trace id, params, final state, reason, return, ...).

Operator marks (``miles feedback``) live in a JSON-lines file (:data:`DEFAULT_FEEDBACK_FILE`)
that the manager's tools and the dataset share: :func:`read_dataset` applies them, so a
step (request id) or a goal (trace id) marked ``bad`` counts as a failure whatever its
status said.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

DATASET_FORMAT = 1
"""Version of the dataset file layout."""
ARRAYS = ("obs", "actions", "commands", "object_pos", "truth_object_pos", "episode")
"""The arrays of a dataset file (besides ``header``)."""
HEADER_KEYS = (
    "format",
    "skill",
    "task",
    "card_version",
    "observation_layout_sha256",
    "observation_layout",
    "action_layout",
    "recording",
    "episodes",
)
"""The keys of a dataset file's header."""
EPISODE_KEYS = ("id", "trace_id", "skill", "params", "state", "reason", "return", "steps")
"""The keys of each episode of a header."""

DEFAULT_FEEDBACK_FILE = Path("out") / "feedback.jsonl"
"""Where ``miles feedback`` writes its marks unless told otherwise (``--file``)."""
GOOD, BAD = "good", "bad"
MARKS = (GOOD, BAD)
"""An operator's verdict on a goal or a step."""
MARKED_BAD_REASON = "marked bad by the operator"
"""The failure reason of an episode marked bad (its note follows, when it has one)."""


def layout_sha256(layout: list[dict]) -> str:
    """sha256 of an observation layout (the card's ``observation.layout``: name, start,
    size and meaning of each field), in a canonical JSON form."""
    text = json.dumps(layout, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def action_layout(card_action: Mapping) -> dict:
    """What an action means, from a card's ``action`` block: its size, mode and scales
    (the words of ``meaning`` are left out: they may be reworded)."""
    return {
        "dim": int(card_action.get("dim", 0)),
        "mode": str(card_action.get("mode", "")),
        "scale": json.loads(json.dumps(card_action.get("scale") or {})),
    }


def dataset_header(card, recording: str, episodes: list[dict]) -> dict:
    """The header of a dataset of ``card``'s skill (a :class:`~policies.cards.SkillCard`)
    from ``recording`` with ``episodes`` (:data:`EPISODE_KEYS` each)."""
    layout = list(card.observation.get("layout") or [])
    return {
        "format": DATASET_FORMAT,
        "skill": card.name,
        "task": card.task,
        "card_version": card.version,
        "observation_layout_sha256": layout_sha256(layout),
        "observation_layout": layout,
        "action_layout": action_layout(card.action),
        "recording": str(recording),
        "episodes": episodes,
    }


@dataclass
class Dataset:
    """One dataset file in memory (see the module docstring)."""

    header: dict
    arrays: dict[str, np.ndarray]
    path: Path | None = None

    @property
    def episodes(self) -> list[dict]:
        return self.header["episodes"]

    def failed(self, index: int) -> bool:
        """Whether episode ``index`` is a failure: any final state but succeeded, or a
        mark ``bad`` (:func:`apply_marks`)."""
        return self.episodes[index]["state"] != "succeeded"


def write_dataset(path: str | Path, header: Mapping, arrays: Mapping[str, np.ndarray]) -> Path:
    """Write a compressed dataset file; ValueError for a header or arrays that miss keys."""
    missing = [k for k in HEADER_KEYS if k not in header] + [k for k in ARRAYS if k not in arrays]
    if missing:
        raise ValueError(f"dataset lacks {', '.join(missing)}")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    out = {k: np.asarray(arrays[k]) for k in ARRAYS}
    with open(path, "wb") as f:
        np.savez_compressed(f, header=np.array(json.dumps(dict(header))), **out)
    return path


def read_dataset(path: str | Path, marks: Iterable[Mapping] = ()) -> Dataset:
    """A dataset file with the operator's ``marks`` applied (:func:`apply_marks`)."""
    path = Path(path)
    with np.load(path, allow_pickle=False) as data:
        header = json.loads(str(data["header"]))
        arrays = {k: data[k] for k in ARRAYS}
    if header.get("format") != DATASET_FORMAT:
        raise ValueError(f"{path}: dataset format {header.get('format')}, not {DATASET_FORMAT}")
    dataset = Dataset(header, arrays, path)
    apply_marks(dataset, marks)
    return dataset


def apply_marks(dataset: Dataset, marks: Iterable[Mapping]) -> None:
    """Record on each episode the latest mark naming its request id or its trace id
    (``operator``, ``operator_note``); a ``bad`` mark on an episode that did not fail
    turns it into a failure with :data:`MARKED_BAD_REASON` (its status kept as
    ``logged_state``)."""
    latest: dict[str, Mapping] = {}
    for mark in marks:
        latest[str(mark["id"])] = mark
    for episode in dataset.episodes:
        mark = latest.get(episode["id"]) or latest.get(episode.get("trace_id") or "")
        if mark is None:
            continue
        episode["operator"] = mark["mark"]
        episode["operator_note"] = mark.get("note", "")
        if mark["mark"] == BAD and episode["state"] == "succeeded":
            note = mark.get("note")
            episode["logged_state"] = episode["state"]
            episode["state"] = "failed"
            episode["reason"] = MARKED_BAD_REASON + (f": {note}" if note else "")


def add_mark(path: str | Path, target: str, mark: str, note: str = "") -> dict:
    """Append one mark (a goal's trace id or a step's request id, ``good`` or ``bad``, an
    optional note) to the feedback file ``path``; returns it. ValueError for another mark."""
    if mark not in MARKS:
        raise ValueError(f"mark must be one of {', '.join(MARKS)}, not {mark!r}")
    if not target:
        raise ValueError("a mark needs the goal's trace id or the step's request id")
    entry = {"id": target, "mark": mark, "note": note, "time": round(time.time(), 3)}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(entry) + "\n")
    return entry


def read_marks(path: str | Path) -> list[dict]:
    """The marks of a feedback file, oldest first ([] when there is no file)."""
    path = Path(path)
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def dataset_refusal(header: Mapping, card) -> str:
    """Why logs with ``header`` may not fine-tune the skill of ``card`` ('' when they may):
    another skill, another observation layout (naming the fields that differ), another
    action layout (naming the keys that differ). The card's side is
    :func:`dataset_header`'s (one description of what a skill's logs look like)."""
    ours = dataset_header(card, "", [])
    if header.get("skill") != ours["skill"]:
        return f"logs of skill {header.get('skill')!r}, not {ours['skill']!r}"
    sha = ours["observation_layout_sha256"]
    if header.get("observation_layout_sha256") != sha:
        theirs = {f["name"]: f for f in header.get("observation_layout") or []}
        mine = {f["name"]: f for f in ours["observation_layout"]}
        diff = sorted(n for n in {*theirs, *mine} if theirs.get(n) != mine.get(n))
        fields = f" (fields {', '.join(diff)})" if diff else ""
        return (
            f"logs of another observation layout{fields}: sha256 "
            f"{str(header.get('observation_layout_sha256'))[:12]} != {sha[:12]}"
        )
    theirs, mine = header.get("action_layout") or {}, ours["action_layout"]
    if theirs != mine:
        diff = sorted(k for k in {*theirs, *mine} if theirs.get(k) != mine.get(k))
        return f"logs of another action layout: {', '.join(diff)} differ"
    return ""
