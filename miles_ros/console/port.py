"""What the console needs of a cell (:class:`CellPort`), and the skill cards it shows.

The web app (:mod:`miles_ros.console.app`) talks only to a port; the ROS bridge
(:class:`miles_ros.ros.console_node.ConsoleBridge`) is the real one, the tests use fakes.
"""

from __future__ import annotations

from concurrent.futures import Future
from typing import Protocol

from policies.cards import SkillCardError, library_skill_dirs, load_card

EVIDENCE_KEYS = ("backend", "episodes", "success_rate", "ci95", "measured")
"""The fields of each evidence entry of a card that the console shows."""


class CellPort(Protocol):
    """The cell as the console sees it. Every method may be called from any thread."""

    def send_goal(self, text: str) -> dict:
        """Send a goal (validated by the app) to the manager without waiting for it:
        ``{"sent": bool, "message": str}``."""

    def estop(self) -> Future:
        """Trigger every arm's e-stop now, without blocking: a future of
        ``{"latched": bool, "message": str, "arms": {arm: message}}`` that completes when
        every supervisor answered (or the port gave up on one)."""

    def reset(self, timeout: float) -> dict:
        """Reset every arm's e-stop, waiting up to ``timeout`` s for the supervisors:
        ``{"success": bool, "message": str, "arms": {arm: message}}`` (the supervisor's
        own reason when it refuses)."""

    def snapshot(self) -> dict:
        """The cell now (:meth:`miles_ros.console.state.CellState.snapshot`), with a
        ``version`` that grows with every change."""

    def wait_newer(self, version: int, timeout: float) -> dict | None:
        """The snapshot once it is newer than ``version``, or None after ``timeout`` s."""

    def cards(self) -> list[dict]:
        """The skill cards, as :func:`card_summaries` gives them."""


def card_summaries(library: str | None = None) -> list[dict]:
    """Each skill card of ``library`` (None: the shipped policies/skills) as
    ``{"name", "description", "parameters", "permissions", "evidence": {kind: {...}}}``;
    a card that does not load is listed with its ``error``."""
    out = []
    for skill_dir in library_skill_dirs(library):
        try:
            card = load_card(skill_dir)
        except (SkillCardError, OSError, ValueError) as exc:
            out.append({"name": skill_dir.name, "error": str(exc)})
            continue
        evidence = card.data.get("evidence") or {}
        out.append(
            {
                "name": card.name,
                "description": card.description,
                "parameters": sorted((card.parameters.get("properties") or {}).keys()),
                "permissions": list(card.permissions),
                "evidence": {
                    kind: {k: entry.get(k) for k in EVIDENCE_KEYS if k in entry}
                    for kind, entry in evidence.items()
                    if isinstance(entry, dict)
                },
            }
        )
    return out
