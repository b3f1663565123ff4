"""A turn said as a noun a cube gets (issue 31, held-out 42's turn misses), said as "give C a
turn", which the reading already reads (:mod:`miles_ros.agent.clause_steps`):

- a topic and the turn as a fragment: "C: a N-degree (anticlockwise / leftward) spin /
  turn / twist / rotation (, please)" -> "Give C a N-degree ... turn";
- the cube as the subject of "get / have / receive": "Could / Can C get a N-degree ... turn?"
  -> "Give C a N-degree ... turn";
- "leftward(s) / rightward(s)" before the turn's noun is "to the left / right" after it.

Only a cube said by a colour (its noun said or not) heads either frame.
"""

from __future__ import annotations

import re

_NOUN = r"(?:cube|block|box|brick|one)"
_TURN = r"(?:turn|spin|twist|rotation|swivel)"
_DEGREES = r"(?:\d+(?:\.\d+)?)(?:-|\s+)degrees?(?:-|\s+)?"
_WAY = (
    r"(?:anti-?clockwise|counter-?clockwise|clockwise|leftwards?|rightwards?|left|right|to\s+the\s+"
    r"(?:left|right))?"
)


def turned_noun(text: str, cube_colours: frozenset[str]) -> str:
    """``text`` with a turn said as a noun a cube gets said as "give C a ... turn" (see the
    module); unchanged otherwise."""
    if not cube_colours:
        return text
    colours = "|".join(sorted(cube_colours, key=len, reverse=True))
    cube = rf"(?P<cube>(?:the\s+)?(?:{colours})(?:\s+{_NOUN})?)"
    turn = rf"(?P<turn>an?\s+{_DEGREES}\s*{_WAY}\s*{_TURN}(?:\s+to\s+the\s+(?:left|right))?)"
    text = re.sub(
        rf"^\s*{cube}\s*[:,\-\u2013\u2014]+\s*{turn}\b",
        lambda m: f"Give {m['cube']} {m['turn']}",
        text,
        flags=re.I,
    )
    text = re.sub(
        rf"^\s*(?:could|can|would|will|might)\s+{cube}\s+(?:get|have|receive|be\s+given)\s+{turn}"
        r"\s*(?:,?\s*please)?\s*\?",
        lambda m: f"Give {m['cube']} {m['turn']}.",
        text,
        flags=re.I,
    )
    return re.sub(
        rf"\b(?P<deg>{_DEGREES})\s*(?P<side>left|right)wards?\s+(?P<noun>{_TURN})\b",
        lambda m: f"{m['deg'].rstrip(' -')} {m['noun']} to the {m['side'].lower()}",
        text,
        flags=re.I,
    )
