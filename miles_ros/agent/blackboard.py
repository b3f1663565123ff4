"""The cell's blackboard (no ROS): versioned facts with a time to live, and atomic claims.

A fact is a JSON value under a key (``pose/red_cube``, ``arm/left/queue``), written by an
owner; every write bumps the key's version, and a writer may ask for compare-and-set
(``expected_version``) so two writers never silently overwrite each other. A fact with
a time to live disappears when it runs out (reads never see it; :meth:`expire` drops it).

A claim is a fact ``claim/<resource>`` whose value is its holder: :meth:`Blackboard.claim`
grants it only when nobody else holds an unexpired claim on that resource (the holder may
renew it), under one lock, so two concurrent requests for one cube never both succeed.

:meth:`Blackboard.apply_json` takes a fact message as a ROS node would (std_msgs/String
JSON): malformed ones are refused and logged, and nothing is written.
"""

from __future__ import annotations

import json
import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

LOG = logging.getLogger("miles_ros.agent.blackboard")

CLAIM_PREFIX = "claim/"
"""Keys of claims: ``claim/<resource>``."""


class VersionConflict(RuntimeError):
    """A compare-and-set write found another version than the one it expected."""


@dataclass(frozen=True)
class Fact:
    """One versioned fact."""

    key: str
    """What the fact is about (``pose/red_cube``, ``claim/red_cube``)."""
    value: Any
    """A JSON-able value."""
    owner: str
    """Who wrote it (an arm's or node's name)."""
    version: int
    """1 for the first write of the key, +1 for each later one (also after expiry)."""
    stamp: float
    """When it was written (s, the blackboard's clock)."""
    ttl: float | None = None
    """Seconds it stays valid after ``stamp``; None: until overwritten."""

    def expired(self, now: float) -> bool:
        """True once the time to live has run out."""
        return self.ttl is not None and now >= self.stamp + self.ttl

    def to_json(self) -> dict[str, Any]:
        """The fact as a JSON object."""
        return {
            "key": self.key,
            "value": self.value,
            "owner": self.owner,
            "version": self.version,
            "stamp": self.stamp,
            "ttl": self.ttl,
        }


@dataclass(frozen=True)
class ClaimResult:
    """The answer to a claim."""

    granted: bool
    """True when the requester now holds the claim."""
    holder: str
    """Who holds the claim after the request ('' when nobody)."""
    version: int
    """The claim fact's version after the request (0 when none)."""
    reason: str = ""
    """Why it was refused."""


class Blackboard:
    """Versioned facts with a time to live; atomic claims. Thread-safe."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._facts: dict[str, Fact] = {}
        self._versions: dict[str, int] = {}
        self.refused = 0
        """Fact messages refused by :meth:`apply_json`."""

    # --- facts ------------------------------------------------------------------------
    def put(
        self,
        key: str,
        value: Any,
        owner: str,
        ttl: float | None = None,
        expected_version: int | None = None,
        now: float | None = None,
    ) -> Fact:
        """Write a fact; with ``expected_version``, only if the key's current version is
        that (0: the key must not hold a live fact), else :class:`VersionConflict`."""
        _check_key(key)
        _check_owner(owner)
        _check_ttl(ttl)
        json.dumps(value)  # a TypeError/ValueError here: not JSON-able
        with self._lock:
            now = self._now(now)
            current = self._live(key, now)
            have = current.version if current is not None else 0
            if expected_version is not None and expected_version != have:
                raise VersionConflict(f"{key}: version {have}, expected {expected_version}")
            return self._write(key, value, owner, ttl, now)

    def get(self, key: str, now: float | None = None) -> Fact | None:
        """The live fact under ``key`` (None when absent or expired)."""
        with self._lock:
            return self._live(key, self._now(now))

    def snapshot(self, prefix: str = "", now: float | None = None) -> dict[str, Fact]:
        """Every live fact whose key starts with ``prefix``."""
        with self._lock:
            now = self._now(now)
            return {
                k: f for k, f in self._facts.items() if k.startswith(prefix) and not f.expired(now)
            }

    def expire(self, now: float | None = None) -> list[str]:
        """Drop expired facts; returns their keys."""
        with self._lock:
            now = self._now(now)
            gone = [k for k, f in self._facts.items() if f.expired(now)]
            for k in gone:
                del self._facts[k]
            return gone

    # --- claims -----------------------------------------------------------------------
    def claim(
        self, resource: str, holder: str, ttl: float, now: float | None = None
    ) -> ClaimResult:
        """Claim ``resource`` for ``holder`` for ``ttl`` seconds: granted when nobody else
        holds a live claim (the holder's own claim is renewed)."""
        _check_owner(holder)
        if ttl is None:
            raise ValueError("a claim needs a time to live")
        _check_ttl(ttl)
        key = CLAIM_PREFIX + resource
        _check_key(key)
        with self._lock:
            now = self._now(now)
            current = self._live(key, now)
            if current is not None and current.value != holder:
                reason = f"{resource!r} is claimed by {current.value!r}"
                return ClaimResult(False, current.value, current.version, reason)
            fact = self._write(key, holder, holder, ttl, now)
            return ClaimResult(True, holder, fact.version)

    def release(self, resource: str, holder: str, now: float | None = None) -> bool:
        """Release ``holder``'s claim on ``resource``. False when it does not hold it."""
        key = CLAIM_PREFIX + resource
        with self._lock:
            current = self._live(key, self._now(now))
            if current is None or current.value != holder:
                return False
            del self._facts[key]
            return True

    def holder(self, resource: str, now: float | None = None) -> str:
        """Who holds a live claim on ``resource`` ('' when nobody)."""
        fact = self.get(CLAIM_PREFIX + resource, now)
        return fact.value if fact is not None else ""

    # --- messages ---------------------------------------------------------------------
    def apply_json(self, text: str, now: float | None = None) -> Fact | None:
        """Apply a fact message ``{"key", "value", "owner", "ttl"?, "expected_version"?}``
        (a key under ``claim/`` is a claim request for its owner). None, logged, when the
        message is malformed, conflicts or the claim is refused: nothing is written."""
        try:
            data = json.loads(text)
        except (TypeError, ValueError) as exc:
            return self._refuse(f"not JSON ({exc})")
        if not isinstance(data, dict):
            return self._refuse("not a JSON object")
        unknown = set(data) - {"key", "value", "owner", "ttl", "expected_version"}
        if unknown or not {"key", "value", "owner"} <= set(data):
            return self._refuse(f"need key, value, owner (unknown fields {sorted(unknown)})")
        version = data.get("expected_version")
        if version is not None and (isinstance(version, bool) or not isinstance(version, int)):
            return self._refuse("expected_version must be an integer")
        try:
            key, ttl = data["key"], data.get("ttl")
            if isinstance(key, str) and key.startswith(CLAIM_PREFIX):
                if data["value"] != data["owner"]:
                    return self._refuse("a claim's value must be its owner")
                result = self.claim(key[len(CLAIM_PREFIX) :], data["owner"], ttl, now)
                if not result.granted:
                    return self._refuse(result.reason)
                return self.get(key, now)
            return self.put(key, data["value"], data["owner"], ttl, version, now)
        except (TypeError, ValueError, VersionConflict) as exc:
            return self._refuse(str(exc))

    # --- internals --------------------------------------------------------------------
    def _now(self, now: float | None) -> float:
        return self._clock() if now is None else float(now)

    def _live(self, key: str, now: float) -> Fact | None:
        fact = self._facts.get(key)
        return None if fact is None or fact.expired(now) else fact

    def _write(self, key: str, value: Any, owner: str, ttl: float | None, now: float) -> Fact:
        version = self._versions.get(key, 0) + 1
        self._versions[key] = version
        fact = Fact(key, value, owner, version, now, ttl)
        self._facts[key] = fact
        return fact

    def _refuse(self, why: str) -> None:
        self.refused += 1
        LOG.warning("blackboard message refused: %s", why)
        return None


def _check_key(key: object) -> None:
    if not isinstance(key, str) or not key or len(key) > 200 or key.endswith("/"):
        raise ValueError(f"key must be a non-empty string (<= 200 chars), got {key!r}")


def _check_owner(owner: object) -> None:
    if not isinstance(owner, str) or not owner:
        raise ValueError(f"owner must be a non-empty string, got {owner!r}")


def _check_ttl(ttl: object) -> None:
    if ttl is None:
        return
    if isinstance(ttl, bool) or not isinstance(ttl, int | float) or not math.isfinite(ttl):
        raise ValueError(f"ttl must be a finite number of seconds, got {ttl!r}")
    if ttl <= 0.0:
        raise ValueError(f"ttl must be positive, got {ttl!r}")
