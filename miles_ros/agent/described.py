"""A cube described by where it sits before the step on it (issue 31, held-out 40-42's
remaining classes), said in the full form :func:`~miles_ros.agent.reference_stacked.
seat_checked` reads (and checks against the scene):

- "C's / C is (sitting / resting / standing / perched) (up) on (top of) D. V it ...", the
  cubes said by bare colours or with a noun: "The C cube is on top of the D cube. V it ..."
  (checked: refused where C does not sit on D; else the step on C);
- a verbless "C on top of D - V it and V it (down) there", or "C goes / belongs on D: ...
  there": the placing of C onto D ("there" is on D; :func:`onto_there`).

Only cubes of the scene's colours are read; a description of anything else is left as said.
"""

from __future__ import annotations

import re

from miles_ros.agent.reference_stacked import _SEAT_TOPIC

_NOUN = r"(?:cube|block|box|brick|one)"
_SITS = r"(?:sitting|resting|standing|perched|sat|placed|stacked|balanced|lying)"


def _colours(world) -> str:
    names = {n.split("_")[0] for n in world.objects}
    return "|".join(sorted(names, key=len, reverse=True)) or "(?!)"


def described(goal: str, world) -> str:
    """``goal`` with a description of where a cube sits said in full (see the module)."""
    c = _colours(world)
    seat = re.compile(
        rf"^(?P<lead>\s*(?:(?:ok(?:ay)?|right|so|now)\s*,?\s+)?)(?:the\s+)?(?P<x>{c})(?:\s+{_NOUN})?"
        rf"(?:'s|\s+is)(?:\s+(?:currently|now|still|already))?(?:\s+{_SITS})?(?:\s+up)?\s+"
        rf"(?:on\s+top\s+of|on|atop)\s+(?:the\s+)?(?P<y>{c})(?:\s+{_NOUN})?"
        r"(?=\s*(?:[:;,.]|\s[-\u2013\u2014]+))",
        re.I,
    )
    if not _SEAT_TOPIC.search(goal):  # "The C box is perched on the D box: ..." read already
        goal = seat.sub(
            lambda m: (
                f"{m['lead']}The {m['x'].lower()} cube is on top of the {m['y'].lower()} cube"
            ),
            goal,
        )
    return onto_there(goal, c)


def onto_there(goal: str, colours: str) -> str:
    """ "C on top of D - pick it up and put it down there": "C onto D - ..." (the placing;
    "there" is on D), the description verbless and a later clause saying "there"."""
    m = re.match(
        rf"^\s*(?P<x>(?:the\s+)?(?:{colours})(?:\s+{_NOUN})?)\s+(?:(?:goes|belongs|should\s+go)\s+"
        r"(?:on\s+top\s+of|onto|on)|on\s+top\s+of)\s+"
        rf"(?P<y>(?:the\s+)?(?:{colours})(?:\s+{_NOUN})?)(?P<sep>\s*(?:[:;,]|\s[-\u2013\u2014]+))",
        goal,
        re.I,
    )
    if m is None or not re.search(r"\bthere\b", goal[m.end() :], re.I):
        return goal
    return f"{m['x']} onto {m['y']}{m['sep']}{goal[m.end() :]}"
