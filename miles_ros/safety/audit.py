"""Audit trail: every intervention as one JSON object, appended to a JSONL file (every
one) and published (at most one per kind per throttle window, with the count of the ones
left out); and a logger that reports a burst of rejected requests once."""

from __future__ import annotations

import json
import logging
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LOG = logging.getLogger("miles_ros.safety")

# Kinds that always pass the throttle (state changes an operator must see).
_UNTHROTTLED = frozenset(
    {
        "estop",
        "estop_input",
        "reset",
        "reset_refused",
        "watchdog",
        "resume",
        "skill",
        "tracking_reset",
        "peer_stop",
        "peer_fresh",
    }
)
NOT_INTERVENTIONS = frozenset({"estop_input", "reset", "resume", "skill", "peer_fresh"})
"""Kinds written to the trail for context but not counted as interventions."""


def events_by_kind(events) -> dict[str, int]:
    """How many published events (JSON dicts of :meth:`Intervention.to_json`) there are of
    each kind ("?" for one without), as published: context kinds included, the ones an
    event left out (``suppressed``) not."""
    return dict(Counter(event.get("kind", "?") for event in events))


def interventions_by_kind(events) -> dict[str, int]:
    """Every intervention by kind from published events (JSON dicts of
    :meth:`Intervention.to_json`): each published one and the ones it left out
    (``suppressed``); context kinds (:data:`NOT_INTERVENTIONS`) are not counted."""
    counts: dict[str, int] = {}
    for event in events:
        kind = event.get("kind", "?")
        if kind not in NOT_INTERVENTIONS:
            counts[kind] = counts.get(kind, 0) + 1 + int(event.get("suppressed", 0) or 0)
    return counts


@dataclass(frozen=True)
class Intervention:
    """One decision of the supervisor that changed or refused what was requested."""

    time: float
    """Seconds since the epoch (ROS time) of the decision."""
    kind: str
    """What intervened: 'velocity_limit', 'non_finite', 'estop', 'watchdog', ..."""
    joint: str | None = None
    """The joint concerned, when one is."""
    requested: Any = None
    """What was asked (a number, a list, or None)."""
    allowed: Any = None
    """What was let through instead (None when refused)."""
    detail: str = ""
    """A human-readable reason."""
    suppressed: int = 0
    """Events of the same kind (any joint) left out of the published stream since the
    previous published one (throttle); 0 in the file, which keeps every event."""

    def to_json(self) -> str:
        """One line of JSON (non-finite numbers as strings, so the line stays valid JSON)."""
        data = {
            "time": self.time,
            "kind": self.kind,
            "joint": self.joint,
            "requested": self.requested,
            "allowed": self.allowed,
            "detail": self.detail,
            "suppressed": self.suppressed,
        }
        return json.dumps(_jsonable(data), separators=(",", ":"), allow_nan=False)


def _jsonable(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if hasattr(value, "tolist"):
        return _jsonable(value.tolist())
    return value


class AuditLog:
    """Counts every intervention, writes every one to an optional JSONL file and emits them
    to listeners throttled per kind: at most one per kind per ``throttle`` seconds (state
    changes such as 'estop' always), carrying the number of that kind left out since."""

    def __init__(self, path: str | Path | None = None, throttle: float = 0.0) -> None:
        self.count = 0
        """Every intervention recorded, including throttled ones (context kinds such as
        'reset' or 'resume' are written but not counted)."""
        self.listeners: list[Callable[[Intervention, str], None]] = []
        """Called with (intervention, json line) for every emitted event."""
        self._throttle = throttle
        self._last: dict[str, float] = {}
        self._held: dict[str, int] = {}
        self._file = None
        if path:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            self._file = open(path, "a", encoding="utf-8")  # noqa: SIM115 (closed in close())

    def record(self, event: Intervention) -> bool:
        """Count ``event`` and emit it unless throttled. Returns True when emitted."""
        return self.add(
            event.time, event.kind, event.joint, event.requested, event.allowed, event.detail
        )

    def add(
        self,
        time: float,
        kind: str,
        joint: str | None = None,
        requested: Any = None,
        allowed: Any = None,
        detail: str = "",
    ) -> bool:
        """Like :meth:`record`, building the Intervention only when it is written or emitted."""
        if kind not in NOT_INTERVENTIONS:
            self.count += 1
        emit = True
        if self._throttle > 0.0 and kind not in _UNTHROTTLED:
            last = self._last.get(kind)
            emit = last is None or time - last >= self._throttle
        if self._file is not None:
            line = Intervention(time, kind, joint, requested, allowed, detail).to_json()
            self._file.write(line + "\n")
            self._file.flush()
        if not emit:
            self._held[kind] = self._held.get(kind, 0) + 1
            return False
        self._last[kind] = time
        held = self._held.pop(kind, 0)
        event = Intervention(time, kind, joint, requested, allowed, detail, held)
        line = event.to_json()
        for listener in self.listeners:
            listener(event, line)
        return True

    def close(self) -> None:
        """Close the JSONL file."""
        if self._file is not None:
            self._file.close()
            self._file = None


class BurstLogger:
    """Logs the first rejection of a burst with its reason; later ones of the same kind are
    only counted until ``gap`` seconds pass without any, then the next one is logged with
    the number left out."""

    def __init__(self, gap: float, logger: logging.Logger = LOG) -> None:
        self._gap = gap
        self._logger = logger
        self._last: dict[str, float] = {}
        self._quiet: dict[str, int] = {}

    def warn(self, kind: str, now: float, message: str) -> bool:
        """Log ``message`` if it opens a burst of ``kind``. Returns True when logged."""
        last = self._last.get(kind)
        self._last[kind] = now
        if last is not None and now - last < self._gap:
            self._quiet[kind] = self._quiet.get(kind, 0) + 1
            return False
        left_out = self._quiet.pop(kind, 0)
        suffix = f" ({left_out} more in the previous burst)" if left_out else ""
        self._logger.warning("%s%s", message, suffix)
        return True
