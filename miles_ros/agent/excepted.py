"""All but some cubes kept where they are (issue 31, held-out 40-42's remaining classes): the
frames English says it in, said as the one the prohibitions already read, "leave everything
as it is except X" (:func:`miles_ros.agent.scope._expand_every`: every cube but X kept, X
free to move):

- the cubes as the subject of a verb of staying, the exception inside or after it:
  "Everything except X stays put", "Every cube but X remains where it is", "All the cubes
  stay put except X", "Every block apart from X doesn't move";
- a verb of moving or touching denied of "anything": "Don't move anything except X", "Don't
  touch anything apart from X", "Never move any cube but X";
- keeping said of everything with the exception inside: "Leave everything except X alone /
  where it is";
- the exception as a topic that names the one left: "All except X and Y: that leaves Z, ..."
  (Z alone is free).

A relative clause on the exception ("except X, which goes on P") is its own clause ("...;
it goes on P"). A goal that moves every cube except X ("move every cube except X to P")
is no such frame (its verb moves) and is left as it is.
"""

from __future__ import annotations

import re

from miles_ros.agent.vocabulary import COLOURS

_NOUN = r"(?:cube|block|box|brick|one)"
_ALL = (
    rf"(?:everything(?:\s+else)?|every\s+(?:other\s+)?{_NOUN}|each\s+{_NOUN}|all\s+(?:of\s+)?"
    rf"(?:the\s+)?(?:(?:other|three|two)\s+)?{_NOUN}s|all(?:\s+of\s+them)?|the\s+(?:other\s+)?"
    rf"{_NOUN}s)"
)
_EXCEPT = r"(?:except(?:\s+for)?|but|other\s+than|apart\s+from|save(?:\s+for)?|excluding|bar)"
_KEPT = (
    r"(?:(?:stays?|remains?|sits?|is|are|must\s+stay|should\s+stay|can\s+stay|(?:is|are|gets?)\s+"
    r"left)\s+(?:exactly\s+|right\s+|just\s+)?(?:put|still|where\s+(?:it|they)\s+(?:is|are|sits?|"
    r"stands?)|in\s+(?:its|their)\s+place|(?:as|how)\s+(?:it\s+is|they\s+are)|unmoved|untouched|"
    r"alone)|(?:doesn'?t|does\s+not|don'?t|do\s+not|must\s+not|mustn'?t|shouldn'?t|should\s+not|"
    r"won'?t|will\s+not)\s+(?:move|get\s+moved|be\s+moved|budge|shift))"
)
"""A verb of staying said of the cubes ("stays put", "remain where they are", "doesn't
move")."""
_PLACED = (
    r"(?:alone|untouched|unmoved|be|(?:exactly\s+|right\s+|just\s+)?(?:where\s+(?:it|they)\s+"
    r"(?:is|are)|as\s+(?:it\s+is|they\s+are)|in\s+(?:its|their)\s+place))"
)
_LEAD = r"(?P<lead>^|[,;:.!?]\s+|\s[-\u2013\u2014]+\s+|\b(?:and|so|but)\s+)"


def _frames(cubes: str) -> list[tuple[re.Pattern, str]]:
    one = rf"(?:the\s+)?(?:{cubes})(?:\s+{_NOUN}s?)?"
    items = rf"(?P<list>{one}(?:\s*(?:,|,?\s*and|,?\s*or)\s+{one})*)"
    kept = r"\g<lead>leave everything as it is except \g<list>"
    flags = re.I
    return [
        (re.compile(rf"{_LEAD}{_ALL}\s*,?\s+{_EXCEPT}\s+{items}\s*,?\s+{_KEPT}", flags), kept),
        (re.compile(rf"{_LEAD}{_ALL}\s+{_KEPT}\s*,?\s+{_EXCEPT}\s+{items}", flags), kept),
        (
            re.compile(
                rf"{_LEAD}(?:please\s+)?(?:don'?t|do\s+not|never)\s+(?:move|shift|disturb|touch)\s+"
                rf"(?:anything|a\s+thing|any\s+(?:other\s+)?{_NOUN}s?|any\s+of\s+the\s+{_NOUN}s)"
                rf"(?:\s+else)?\s*,?\s+{_EXCEPT}\s+{items}",
                flags,
            ),
            kept,
        ),
        (
            re.compile(
                rf"{_LEAD}(?:leave|keep|let)\s+{_ALL}\s+{_EXCEPT}\s+{items}\s+{_PLACED}", flags
            ),
            kept,
        ),
        (
            re.compile(
                rf"{_LEAD}{_ALL}\s+{_EXCEPT}\s+{one}(?:\s*(?:,|,?\s*and|,?\s*or)\s+{one})*\s*"
                rf"[:;,\-\u2013\u2014]+\s*(?:so\s+)?that\s+leaves\s+{items}\s*[,:;\-\u2013\u2014]*",
                flags,
            ),
            r"\g<lead>leave everything as it is except \g<list>;",
        ),
    ]


_WHICH = re.compile(
    r"(?P<head>\bleave everything as it is except [^,;:.]+?)\s*,\s*which\s+(?=(?:goes|is\s+going|"
    r"should\s+go|needs\s+to\s+go|has\s+to\s+go|must\s+go|moves|gets|is\s+to\s+go|can\s+go|"
    r"you\s+(?:can|should)\s+))",
    re.I,
)


def excepted(text: str, cube_colours: frozenset[str] = frozenset()) -> str:
    """``text`` with every frame of the module said as "leave everything as it is except
    X" (see the module); unchanged when no frame is said."""
    cubes = "|".join(sorted(cube_colours or COLOURS, key=len, reverse=True))
    for pattern, said in _frames(cubes):
        text = pattern.sub(said, text)
    text = re.sub(r"^leave everything", "Leave everything", text)
    return _WHICH.sub(lambda m: m["head"] + "; it ", text)
