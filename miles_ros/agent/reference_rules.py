"""The patterns of :mod:`~miles_ros.agent.references`: ``_RULES``, each a compiled pattern
and the resolver (:mod:`~miles_ros.agent.reference_picks`) of what it matches, in the order
:func:`~miles_ros.agent.references.resolve_references` applies them; and the rewrites run
before them (an indefinite superlative, a comparative of place).
"""

from __future__ import annotations

import re

from miles_ros.agent.reference_edge import _near_edge, _nth_pad
from miles_ros.agent.reference_picks import (
    _before_or_behind,
    _beside,
    _between,
    _between_others,
    _colour_alone,
    _coloured_cube,
    _coloured_place,
    _container,
    _counted,
    _depth,
    _height,
    _middle,
    _moved_there,
    _not_coloured,
    _nth_of_colour,
    _on_its_own,
    _ordinal,
    _other,
    _others,
    _pad_than,
    _place_distance,
    _pointed_at,
    _robot_distance,
    _same_colour,
    _side,
    _than_cube,
    _underneath,
)
from miles_ros.agent.reference_scene import (
    _A_PAD,
    _COLOUR_WORDS,
    _COUNTS,
    _CUBE,
    _FAR,
    _NEAR,
    _OF_THEM,
    _PAD,
    _PLACE,
    _REL,
    _ROBOT,
    ORDINALS,
    _bare,
    _Groups,
    place_named,
)
from miles_ros.agent.reference_stacked import (
    _on_place,
    _side_of_two,
    _stack_bottom,
    _stack_middle,
)

_A_SUPERLATIVE = re.compile(
    rf"\ban? (?=(?:{_CUBE}|one) {_REL}(?:the )?(?:{_NEAR}|{_FAR}|(?:left|right)(?:-| )?most)\b|"
    rf"(?:{_NEAR}|{_FAR}|(?:left|right)(?:-| )?most) (?:{_CUBE}|one)\b)",
    re.I,
)
"""An indefinite article before a superlative ("there's a cube nearest the left pad", "a
leftmost block"): a superlative picks one thing, so it reads as "the"."""


_COMPARATIVE = re.compile(
    r"\b(?:that'?s |that is |which is )?(?:(?:further|farther|more)(?: to the)? "
    r"(?P<side>left|right)|(?P<depth>further back|farther back|further forward|farther forward|"
    r"further out|farther out|further in|farther in))(?:wards)? than\b",
    re.I,
)
"""A comparative of place against another thing ("the cube further right than the red
one", "farther back than the blue cube"): the relation on that side of it, said as the
relative phrases are ("to the right of", "behind", "in front of" seen from the robot)."""


def _as_relation(match: re.Match) -> str:
    if match["side"]:  # the nearest on that side, as "just to the left of" picks
        return f"just to the {match['side'].lower()} of"
    back = re.search(r"back|out", match["depth"], re.I)
    return "behind" if back else "in front of"


_ORDINAL = "|".join(ORDINALS)


_BUT = (
    r"(?P<comma>,)? (?:(?:that|which) (?:is not|isn'?t|'s not|is no) (?:the )?|(?:other than|"
    rf"except(?: for)?|apart from|but not|besides|excluding) the )(?P<but>{_COLOUR_WORDS})"
    rf"(?: one| {_CUBE})?\b(?(comma),?)"
)
"""A restriction said after a superlative ("the leftmost cube that isn't green", "the
nearest cube other than the red one"): the cube it names is not ranked (:func:`_cubes`)."""


_RULES = [
    (  # "the second green cube": a cube the scene lacks (reference_picks._nth_of_colour)
        re.compile(
            rf"\bthe (?P<nth>second|third|fourth|fifth|sixth) (?P<colour>{_COLOUR_WORDS}) "
            rf"(?:{_CUBE}|one)\b",
            re.I,
        ),
        _nth_of_colour,
    ),
    (  # "the cube near the edge (of the table)" (reference_edge.py)
        re.compile(
            rf"\bthe {_CUBE} (?:(?:that's|that is|which is|sitting|lying) )?(?:right |just )?"
            r"(?:near|by|at|next to|beside|close to|closest to|nearest(?: to)?) the "
            r"(?:table's )?edge(?: of the table)?\b",
            re.I,
        ),
        _near_edge,
    ),
    (  # "the cube on the left of the two at the back" (recast.of_two_at)
        re.compile(
            rf"\bthe {_CUBE} on the (?P<side>left|right) of the two (?:at|in) the "
            r"(?P<end>back|rear|front)\b",
            re.I,
        ),
        _side_of_two,
    ),
    (
        re.compile(
            rf"\bthe {_CUBE} (?:that'?s |that is |which is |sitting |standing |lying )?(?:(?:off |"
            r"out )?on its own|by itself|all alone|apart from the others)\b",
            re.I,
        ),
        _on_its_own,  # "the cube on its own", "the block sitting by itself"
    ),
    (
        re.compile(
            rf"\bthe (?P<colour>{_COLOUR_WORDS}) {_PLACE}\b|"
            rf"\b(?:the {_PLACE} (?:(?:that|which) ?(?:is|'s) (?:painted|coloured|colored)|"
            rf"that is|which is|that's|coloured|colored|painted|whose colou?r is|"
            rf"(?:that|which) (?:has|is in) the colou?r)|"
            rf"(?:whichever|whatever) {_PLACE} (?:is|'s)(?: painted| coloured| colored)?) "
            rf"(?P<colour2>{_COLOUR_WORDS})\b",
            re.I,
        ),
        _coloured_place,  # "the yellow pad", "whichever pad is yellow", "the mat painted grey"
    ),
    (
        re.compile(
            rf"\bthe (?P<colour>{_COLOUR_WORDS})(?: one)?\b(?!\s*(?:-|{_CUBE}\b|{_PLACE}\b))", re.I
        ),
        _colour_alone,
    ),
    (
        re.compile(
            rf"\bthe {_PAD} (?:that is |which is )?(?:on|at|to) the (?P<side>left|right)"
            r"(?:(?:-| )hand)?(?: side)?\b(?! of)",
            re.I,
        ),
        lambda m, w: (place_named(m.group("side"), w), None),
    ),
    (
        re.compile(
            rf"\bthe (?P<kind>{_PLACE}|{_CUBE}|one(?= (?:that|which) (?:is not|isn'?t|'?s not) "
            rf"(?:the )?(?:{_COLOUR_WORDS})\b(?!(?: one)? (?:or|nor)\b))) (?:that|which) "
            rf"(?:is not|isn'?t|'?s not) (?:the )?(?P<colour>{_COLOUR_WORDS})(?: one)?\b|"
            rf"\bthe non-?(?P<colour2>{_COLOUR_WORDS}) (?P<kind2>{_PLACE}|{_CUBE})\b",
            re.I,
        ),
        lambda m, w: _not_coloured(_Groups(m, colour="colour2", kind="kind2"), w),
    ),
    (
        re.compile(
            rf"\bthe (?:same[- ]colou?red |matching )(?P<kind2>{_PLACE}|{_CUBE})\b|"
            rf"\bthe (?P<kind>{_PLACE}|{_CUBE}) (?:(?:of|with|in|that is|which is|that's) )?"
            rf"(?:the )?(?:same colou?r|matching colou?r)(?: as (?:the )?"
            rf"(?P<ref>it|[a-z_]+(?: {_CUBE}| {_PAD}| one)?))?",
            re.I,
        ),
        lambda m, w: _same_colour(_Groups(m, kind="kind2"), w),
    ),
    (
        re.compile(
            rf"\b(?:all\s+(?:of\s+)?(?:the\s+)?|the\s+|these\s+|those\s+)"
            rf"(?P<n>{'|'.join(_COUNTS[2:])}|\d+)\s+{_CUBE}\b",
            re.I,
        ),
        _counted,
    ),
    (  # "one of the others": one cube of them, not all (before "the others" below)
        re.compile(
            rf"\b(?:one|either|any|some) of the (?:other (?:{_CUBE}s|ones|two)|others|"
            rf"rest(?: of the {_CUBE}s)?|remaining (?:{_CUBE}s|ones|two))\b",
            re.I,
        ),
        _other,
    ),
    (
        re.compile(
            rf"(?<!between )(?<!among )\bthe (?:(?:other|remaining) (?:(?:two|2) )?"
            rf"(?:{_CUBE}s|ones)|(?:other|remaining) (?:two|2)|others|"
            rf"rest(?: of the {_CUBE}s)?)\b",
            re.I,
        ),
        _others,
    ),
    (
        re.compile(
            rf"\bthe {_CUBE} (?:that is|which is|that's|coloured|colored) (?P<colour>[a-z]+)\b",
            re.I,
        ),
        _coloured_cube,
    ),
    (
        re.compile(
            rf"(?:\bthe (?P<side>left|right)(?:-| )?most"
            rf"(?: (?:{_CUBE}|one)(?:{_OF_THEM})?|{_OF_THEM})\b|"
            rf"\bthe {_CUBE} {_REL}(?:(?:on|at|to) the (?:far|very) |"
            rf"(?:on|at) the )(?P<side2>left|right)(?:(?:-| )hand)?(?: side| end)?\b"
            rf"(?! {_PAD}| of| {_CUBE})|\bthe (?:far|very)[- ](?P<side3>left|right) {_CUBE}\b|"
            rf"\bthe {_CUBE} {_REL}(?:the )?(?:farthest|furthest|most|the most) "
            rf"(?:to the )?(?P<side4>left|right)\b(?! of))(?:{_BUT})?",
            re.I,
        ),
        _side,
    ),
    (  # along the table's depth, from the robot's base: "the cube furthest back"
        re.compile(
            rf"(?:\bthe (?P<end>back|rear|front)most (?:{_CUBE}|one)\b|"
            rf"\bthe {_CUBE} {_REL}(?:the )?(?:farthest|furthest|most) (?:to the )?"
            rf"(?P<end2>back|forward|front)\b(?! of)|"
            rf"\bthe {_CUBE} {_REL}(?:(?:at|in) the (?:very )?(?P<end3>back|front|rear)|"
            rf"(?:nearest|closest)(?: to)? the (?P<end4>front|back))\b(?! of))(?:{_BUT})?",
            re.I,
        ),
        _depth,
    ),
    (
        re.compile(
            rf"\bthe (?:(?P<nth>{_ORDINAL}) )?(?P<how>{_NEAR}|{_FAR}) {_CUBE}"
            r"(?= (?:to|onto|on|into) the )",
            re.I,
        ),
        _moved_there,
    ),
    (
        re.compile(
            rf"(?:\b(?:the|whichever|whatever) (?:{_CUBE} {_REL}(?:the )?"
            rf"(?:(?P<nth>{_ORDINAL}) )?(?P<how>{_NEAR} to|{_FAR} from|{_NEAR}|{_FAR})|"
            rf"(?:(?P<nth2>{_ORDINAL}) )?"
            rf"(?P<how2>{_NEAR}|{_FAR}) {_CUBE} (?:to|from)) {_ROBOT}\b|"
            rf"\bthe (?:(?P<nth3>{_ORDINAL}) )?(?P<how3>{_NEAR}|{_FAR}) (?:{_CUBE}|one)\b"
            r"(?!\s+(?:to|from)\b))"
            rf"(?:{_BUT})?",
            re.I,
        ),
        _robot_distance,
    ),
    (
        re.compile(
            rf"\b(?:the|whichever|whatever) (?:{_CUBE} {_REL}(?:the )?"
            rf"(?:(?P<nth>{_ORDINAL}) )?(?P<how>{_NEAR}(?: to)?|{_FAR}(?: from)?|next to|beside|"
            rf"near(?: to)?|close to)|(?:(?P<nth2>{_ORDINAL}) )?(?P<how2>{_NEAR}|{_FAR}) "
            rf"{_CUBE} (?:to|from)) the (?P<place>[a-z_]+(?: {_PAD}| {_CUBE}| one)?)"
            rf"(?:{_BUT})?",
            re.I,
        ),
        _place_distance,
    ),
    (
        re.compile(
            rf"\bthe {_CUBE} (?:that is |which is )?(?:(?:directly|just|immediately) )?"
            rf"(?:to the |on the )?(?P<side>left|right) of (?:the )?(?P<ref>{_COLOUR_WORDS})"
            rf"(?: {_CUBE}| one)?\b",
            re.I,
        ),
        _beside,
    ),
    (
        re.compile(
            rf"\bthe {_CUBE} (?:that is |which is |that's |sitting |resting |lying )?"
            r"(?:(?:directly|just|right|immediately) )?(?:underneath|beneath|under|below) "
            r"(?:the )?"
            rf"(?P<ref>{_COLOUR_WORDS})(?: {_CUBE}| one)?\b",
            re.I,
        ),
        _underneath,  # "the cube underneath the green one": the cube it stands on
    ),
    (
        re.compile(
            rf"\bthe {_CUBE} (?:that is |which is |that's )?(?:(?P<straight>directly|just|right|"
            rf"straight|immediately) )?(?P<side>in front of|behind|beyond) (?:the )?"
            rf"(?P<ref>{_COLOUR_WORDS})(?: {_CUBE}| one)?\b",
            re.I,
        ),
        _before_or_behind,
    ),
    (
        re.compile(
            rf"\b(?:the|whichever|whatever) {_CUBE} (?:that is |which is |that's |is )?"
            rf"(?:(?P<near>closer|nearer)|(?:further|farther)(?: away| out)?)"
            rf"(?: to| from)?(?: {_ROBOT})? than (?:the )?(?P<ref>{_COLOUR_WORDS})"
            rf"(?: {_CUBE}| one)?\b",
            re.I,
        ),
        _than_cube,
    ),
    (
        re.compile(
            rf"\b(?:the|whichever|whatever) {_PAD} (?:that is |which is |that's |is )?"
            rf"(?:(?P<near>closer|nearer)|(?:further|farther)(?: away)?) (?:to|from) "
            rf"(?:the )?(?P<ref>{_COLOUR_WORDS})(?: {_CUBE}| one)\b",
            re.I,
        ),
        _pad_than,
    ),
    (
        re.compile(
            rf"\bthe {_CUBE} (?:that is |which is |lying |standing )?between the "
            rf"(?P<a>{_COLOUR_WORDS})(?: {_CUBE}| one)? and the (?P<b>{_COLOUR_WORDS})"
            rf"(?: {_CUBE}s?| ones?)?\b",
            re.I,
        ),
        _between,
    ),
    (
        re.compile(
            rf"\bthe {_CUBE} (?:that is |which is |that's |lying |standing |sitting )?"
            r"(?:(?:in )?between|in the middle of) the (?:other|remaining) (?:two|ones|cubes|"
            r"blocks)\b|"
            rf"\bthe {_CUBE} (?:that is |which is )?between the others\b",
            re.I,
        ),
        _between_others,
    ),
    (  # the tower's bottom level, before the lowest cube of the table below
        re.compile(
            rf"\bthe (?:lowest|bottom|bottommost) {_CUBE} (?:in|of) the (?:stack|tower|pile)\b",
            re.I,
        ),
        _stack_bottom,
    ),
    (
        re.compile(
            rf"\bthe (?P<how>highest|topmost|uppermost|lowest|bottommost) (?:{_CUBE}|one)\b",
            re.I,
        ),
        _height,
    ),
    (  # the tower's middle level, before the table plane's middle below
        re.compile(
            rf"\bthe (?:{_CUBE} (?:that is |which is |that's )?(?:in|at) the (?:middle|center|"
            r"centre) of the (?:stack|tower|pile)|(?:middle|center|centre) "
            rf"{_CUBE} (?:of|in) the (?:stack|tower|pile))\b",
            re.I,
        ),
        _stack_middle,
    ),
    (
        re.compile(
            rf"\bthe {_CUBE} (?:that'?s |that is |which is )?(?:sitting|resting|lying|standing)"
            rf" on (?:top of )?the (?P<place>[a-z_]+) {_PAD}\b",
            re.I,
        ),
        _on_place,
    ),
    (
        re.compile(
            rf"\bthe (?:(?:middle|center|centre|central) (?:{_CUBE}|one(?! (?:of|in) the "
            rf"(?:stack|tower|pile)))|{_CUBE} in the (?:middle|center|centre))\b",
            re.I,
        ),
        _middle,
    ),
    (
        re.compile(
            rf"\b(?:the|an?) (?P<nth>{'|'.join(ORDINALS)}) {_CUBE}"
            rf"(?: from the (?P<side>left|right))?\b|"
            rf"\bthe (?:{_CUBE}|one) {_REL}(?:the )?(?P<nth2>{'|'.join(ORDINALS)}) "
            r"(?:one )?from the (?P<side2>left|right)\b",
            re.I,
        ),
        lambda m, w: _ordinal(_Groups(m, nth="nth2", side="side2"), w),
    ),
    (
        re.compile(rf"\b(?:in|into|inside(?: of)?) (?:the|a|an) (?P<noun>{_CUBE})\b", re.I),
        _container,
    ),
    (  # "the third pad" (reference_edge.py)
        re.compile(rf"\bthe (?P<nth>{_ORDINAL}) (?:pad|mat)\b", re.I),
        _nth_pad,
    ),
    # "the other cube", "the cube" / "the pad" / "that cube" with nothing that says which
    # (run last: the rules above have replaced the phrases that do say it; _SAYS_WHICH
    # counts the rules above)
    (
        re.compile(rf"\b(?:the other|another) (?:{_CUBE}|{_PAD}|one)\b", re.I),
        _other,
    ),
    (
        re.compile(
            rf"\b(?:a|an|one|any)\s+(?:single\s+)?{_CUBE}\b"
            r"(?!\s+(?:of|that|which|with|from|nearest|closest|farthest|furthest|high|tall))",
            re.I,
        ),
        _bare("cube"),
    ),
    (
        re.compile(
            rf"\b(?:(?:a|an|any|either)\s+{_A_PAD}|one of the {_A_PAD})\b"
            r"(?!\s+(?:of|that|which|with|on|in|position|point|nearest|closest))",
            re.I,
        ),
        _bare("pad"),
    ),
    (
        re.compile(
            rf"\bthe {_CUBE}\b(?! (?:that|which|with|from|nearest|closest|farthest))", re.I
        ),
        _bare("cube"),
    ),
    (
        re.compile(rf"\bthe {_PAD}\b(?! (?:that|which|with|on the (?:left|right)))", re.I),
        _bare("pad"),
    ),
    (
        re.compile(
            rf"\b(?:that|this) (?:{_CUBE}|one)\b|"
            r"\b(?:that|this)(?= (?:on|onto|to|into|over|across)\b)",
            re.I,
        ),
        _pointed_at,
    ),
]


_SAYS_WHICH = len(_RULES) - 6
"""The rules before the six for "the other cube", "a cube", "a pad", "the cube", "the pad"
and "that cube" with nothing that says which."""
