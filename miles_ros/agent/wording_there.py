"""A place stated, then "there": where a cube goes said first (a statement, a question, a
fragment), then the step on "it there" said with that cube and that place; a thing named
just before "there" is the place "there" points at (run by
:func:`~miles_ros.agent.wording.plain_wording`: :func:`there_placed` before the clauses are
read, :func:`put_there` after).

==========================================================  ================================
the goal says                                               the reading gets
==========================================================  ================================
"the green cube should go to the left pad. Push it there."  "push the green cube to the left
                                                            pad."
"green onto the grey pad, slide it there"                   "slide the green cube onto the
                                                            grey pad"
==========================================================  ================================
"""

from __future__ import annotations

import re

from miles_ros.agent.phrases import CUBE_NOUNS, PAD_NOUNS
from miles_ros.agent.vocabulary import COLOURS

_CUBE = rf"(?:{'|'.join(CUBE_NOUNS)})"
"""A cube noun of the training phrases (the cube stated, or the cube "there" is on)."""


_STATED = re.compile(
    rf"^(?:(?P<cube>the\s+\w+\s+{_CUBE})\s+(?:should|must|needs to|has to|is to|ought to)\s+"
    r"(?:go|be|end up|sit|be moved|be put|be placed|be pushed)\s+"
    r"(?P<where>(?:on top of|onto|on|to|at|in|into)\s+the\s+[\w ]+?)\s*[.;,]"
    rf"|(?:can|could|would|will)\s+(?P<asked>the\s+\w+\s+{_CUBE})\s+(?:go|sit|be\s+put|be\s+"
    r"placed|be\s+stacked|rest|stand|fit)\s+(?P<on>(?:on\s+top\s+of|onto|on|atop)\s+the\s+"
    rf"\w+\s+(?:{_CUBE}|one))\s*\?)\s*(?P<rest>.+)$",
    re.I,
)
"""Where a cube goes, said first (a statement with "should / must", or a question "can /
could X go on top of Y?"), then what to do ("push it there", "lift it up there")."""


_THERE = re.compile(
    r"(?<!closest\s)(?<!nearest\s)(?<!farthest\s)(?<!furthest\s)(?<!close\s)(?<!near\s)"
    r"\b(?P<np>(?:over|above|on|onto|on\s+top\s+of|atop|beside)\s+"
    rf"the\s+[a-z]+\s+(?:{_CUBE}|{'|'.join(PAD_NOUNS)}|one))\s+(?:(?:over|back|right|up|down|out)\s+)?"
    r"there\b(?=\s*(?:$|[.!?,;]|(?:and|then|please|for\s+me|too)\b))",
    re.I,
)
"""A thing after a preposition of place, then "there" ("hover over the red cube back there",
"stack it on the green cube there"): "there" points at the thing just named, no other place.
Not after a relation that picks a cube ("put the cube closest to the grey pad there": "there"
is where it goes) nor after "to" (a destination that may be the relation's)."""
_PLACED_FIRST = re.compile(
    rf"^(?P<cube>(?:the\s+)?(?P<colour>[a-z]+)(?:\s+(?P<noun>{_CUBE}|one))?)\s*"
    r"(?:(?P<prep>onto|on\s+to|on|to|over\s+to|across\s+to|into)\s+"
    rf"(?P<place>the\s+[a-z]+\s+(?:{'|'.join(PAD_NOUNS)}|{_CUBE}|one)|(?P<bare>[a-z]+))|,\s*"
    rf"(?P<pad>(?:the\s+)?[a-z]+\s+(?:{'|'.join(PAD_NOUNS)})))\s*"
    r"(?:,?\s*(?:please|thanks|if\s+you\s+would|if\s+you\s+could|if\s+you\s+can)\s*)?"
    r"(?:[,;:.]|[-\u2013\u2014]+)\s*(?P<rest>.*\bit\s+(?:(?:over|up|down)\s+)?there\b.*)$",
    re.I,
)
"""A cube and its place said first, then the verb on "it there" ("green onto the grey pad,
slide it there"; "red cube, grey pad. lift it there": a cube, then a pad, named alone)."""


def _placed_first(text: str, cube_colours: frozenset[str] = frozenset()) -> str:
    """ "green onto the grey pad, slide it there" -> "slide the green cube onto the grey pad":
    the fragment says what goes where, the clause after it how; the place may be a cube's
    colour alone ("green on red, please: lift it up and set it there": "lift the green cube
    up and set it on the red cube", the first "it" the cube, "there" the place)."""
    match = _PLACED_FIRST.match(text.strip())
    if match is None or match["colour"].lower() not in COLOURS:
        return text
    if match["bare"] and match["bare"].lower() not in cube_colours:
        return text
    said = (match["prep"] or "onto").lower()
    prep = re.sub(r"\s+", "", said) if "on" in said else "to"
    cube = f"the {match['colour'].lower()} {match['noun'] or 'cube'}"
    place = (
        f"the {match['bare'].lower()} cube"
        if match["bare"]
        else match["place"] or re.sub(r"^(?:the\s+)?", "the ", match["pad"], flags=re.I)
    )
    return _there_named(match["rest"], cube, f"{prep} {place}")


def there_placed(text: str, cube_colours: frozenset[str] = frozenset()) -> str:
    """What runs before the clauses are read: a cube and its place said first, then the verb
    on "it there" (:func:`_placed_first`), and a "there" after a thing just named dropped
    (:data:`_THERE`: "hover over the red cube back there" -> "hover over the red cube")."""
    return _THERE.sub(r"\g<np>", _placed_first(text, cube_colours))


_IT_THERE = re.compile(r"\bit\s+(?:(?:over|up|down)\s+)?there\b", re.I)


def _there_named(rest: str, cube: str, where: str) -> str:
    """``rest`` with "it there" said as ``cube`` ``where``; where an "it" comes before it
    ("lift it up and set it there": two steps on one cube), that "it" is ``cube`` and "it
    there" is "it" ``where``."""
    there = _IT_THERE.search(rest)
    first = re.search(r"\bit\b", rest, re.I)
    if first.start() < there.start():
        rest = f"{rest[: there.start()]}it {where}{rest[there.end() :]}"
        return f"{rest[: first.start()]}{cube}{rest[first.end() :]}"
    return f"{rest[: there.start()]}{cube} {where}{rest[there.end() :]}"


def put_there(text: str) -> str:
    """ "The green cube should go to the left pad. Push it there." -> "Push the green cube
    to the left pad.": the first sentence says where, the second what to do (said as a
    fragment: :func:`_placed_first`, before the clauses are read)."""
    match = _STATED.match(text.strip())
    if match is not None and match["asked"] and _IT_THERE.search(match["rest"]):
        # "can the red cube go on top of the green one? lift it up there"
        cube, where = "the" + match["asked"][3:], re.sub(r"\s+", " ", match["on"])
        return _there_named(match["rest"], cube, where)
    if match is None or not re.search(r"\bit (?:over )?there\b", match.group("rest"), re.I):
        return text
    where = re.sub(r"^(?:onto|on top of|on|at|in|into)\b", "to", match.group("where"))
    cube = "the" + match.group("cube")[3:]
    return re.sub(
        r"\bit (?:over )?there\b",
        f"{cube} {where}",
        match.group("rest"),
        count=1,
        flags=re.I,
    )
