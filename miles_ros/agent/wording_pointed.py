"""A cube pointed out or introduced, then "it": a sentence that only says where a cube is,
that there is one, or to look for it, then a step on "it"; the step is said on that cube
(run by :func:`~miles_ros.agent.wording.plain_wording`: :func:`pointed_out` first,
:func:`introduced` last; :mod:`miles_ros.agent.negation` runs :func:`introduced` too).

==========================================================  ================================
the goal says                                               the reading gets
==========================================================  ================================
"There's a blue cube near the left pad. Put it on the       "Put the blue cube on the right
right pad."                                                 pad."
"Red's near you; push it over to the yellow pad."           "push the red cube over to the
                                                            yellow pad."
==========================================================  ================================

Where the cube is said to be is no step and no place; a colour said alone names a cube only
where it is a colour of the vocabulary ("see red?" is "see the red cube?").
"""

from __future__ import annotations

import re

from miles_ros.agent.phrases import CUBE_NOUNS, PAD_NOUNS
from miles_ros.agent.vocabulary import COLOURS

_CUBE = rf"(?:{'|'.join(CUBE_NOUNS)})"
"""A cube noun of the training phrases (the cube pointed out, named or looked for)."""


_INTRODUCED = re.compile(
    rf"^\s*(?:there(?:'s|\u2019s| is)|i see|you(?:'ll| can| will)? see|(?:do|can) you see|see|"
    rf"look at|notice|spot)\s+"
    rf"(?:(?:a|an|the)\s+(?P<cube>\w+\s+{_CUBE})\b[^.;?!]*|(?P<bare>[a-z]+)(?=\s*\?))[.;?!]+"
    r"\s*(?P<rest>.+)$",
    re.I,
)
_POINTED = re.compile(
    rf"^\s*(?:the\s+)?(?P<bare>[a-z]+)(?:\s+(?P<noun>{_CUBE}))?(?:(?:'s|\u2019s|\s+is|\s+sits|"
    r"\s+stands)\s+(?:(?:over|right|just|sitting|standing)\s+)?(?:by|near|next\s+to|beside|"
    rf"close\s+to)\s+(?:you|the\s+robot|the\s+\w+\s+(?:{'|'.join(PAD_NOUNS)}))\s*(?:[.;:,]|"
    r"\s[-\u2013\u2014]+)|\s*,\s*(?:yeah|yes|right|ok|okay|got\s+it|see\s+it)\s*\?)\s*"
    r"(?P<rest>.+)$",
    re.I,
)
"""A cube pointed out by where it is ("Red's near you; ...", "green's by the grey pad. ...")
or checked with the listener ("Green cube, yeah? ..."), its colour alone or with its noun,
then a step on "it": "it" is that cube; where it is said to be is no step and no place."""
_LOOKED_FOR = re.compile(
    rf"^\s*(?:(?:please|first|now|just)[, ]+)*(?:look (?:for|at)|find|locate|spot|search for|"
    rf"seek out|identify|pick out|check|watch|look around for)\s+the\s+(?P<cube>\w+\s+{_CUBE})"
    rf"\s*(?:,\s*)?(?:and(?: then)?|then|, then)\s+(?P<rest>[^.;?!]*\bit\b.*)$",
    re.I,
)
"""A clause that only looks for a cube, then a step on "it" ("look for the red cube and
hover over it"): the looking is no step (no skill looks), "it" is that cube."""


def introduced(text: str) -> str:
    """ "There's a blue cube near the left pad. Put it on the right pad." -> "Put the blue
    cube on the right pad.": a sentence that only points a cube out, then "it"; likewise
    "look for / find / locate the red cube and hover over it" -> "hover over the red cube"
    (:data:`_LOOKED_FOR`); "see red?" (a colour alone) as "see the red cube?"."""
    return _it_named(text, _INTRODUCED.match(text) or _LOOKED_FOR.match(text))


def pointed_out(text: str) -> str:
    """ "Red's near you; push it over to the yellow pad." -> "push the red cube over to the
    yellow pad."; "Green cube, yeah? Park above it." -> "Park above the green cube."
    (:data:`_POINTED`; read first, so the step on "it" is read as any step on a cube)."""
    return _it_named(text, _POINTED.match(text))


def _it_named(text: str, match: re.Match | None) -> str:
    """The rest of ``text`` after ``match``'s sentence, its first "it" the cube named."""
    if match is None or not re.search(r"\bit\b", match.group("rest"), re.I):
        return text
    said = match.groupdict()
    cube = said.get("cube")
    if not cube:  # "see red?", "red's near you": a colour of a cube, its noun said or not
        if said["bare"].lower() not in COLOURS:
            return text
        cube = f"{said['bare'].lower()} {said.get('noun') or 'cube'}"
    return re.sub(r"\bit\b", f"the {cube}", match.group("rest"), count=1, flags=re.I)
