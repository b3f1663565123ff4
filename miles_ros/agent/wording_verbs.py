"""Actions said as the training phrases say them: a turn or another action said as a noun
("give X a twist / a shake"), a verb the phrases lack ("shunt", "ferry", "swivel", "hang
over", "go over", "visit"), the arm's end said as "the gripper", and "tap" said as a reach
in the text the model plans (run by :func:`~miles_ros.agent.wording.plain_wording`, save
:func:`tap_as_reach`, which :mod:`miles_ros.agent.negation` runs on the planned text).

==========================================================  ================================
the goal says                                               the reading gets
==========================================================  ================================
"give the blue cube a 25 degree twist"                      "turn the blue cube by 25
                                                            degrees"
"give the green cube a good shake"                          "shake the green cube"
"go over the yellow pad", "visit the left pad"             "hover over the yellow pad"
"move the tool to x 0.45, ...", "your hand above the pad"   "the gripper" (the arm's end)
==========================================================  ================================
"""

from __future__ import annotations

import re

from miles_ros.agent.phrases import CUBE_NOUNS

_SHUNTED = re.compile(
    r"\bshunt(?=\s+(?:the|this|that|it|them|[a-z]+\s+(?:along|over|across|to|onto)"
    r"|[a-z]+\s*$)\b)",
    re.I,
)
""""shunt X" is "shove X" (a push verb the training phrases lack; the imperative only)."""
_CARRIED = re.compile(
    r"\b(?:ferry|shuttle|cart|haul|lug|tote|transport|convey)(?=\s+(?:the|this|that|your|it|them)"
    r"\b)",
    re.I,
)
"""A cube carried by a verb the training phrases lack ("Ferry the red cube across and set it
on P", "haul the blue box over"): "carry", as the phrases say it (the imperative only)."""
_SWIVELLED = re.compile(r"\b(?:swivel|pivot)(?=\s+(?:the|this|that|it)\b)", re.I)
"""A cube turned by a verb the training phrases lack ("Swivel the green block so a face
points at the robot", "pivot the red box 30 degrees"): "turn" (the imperative only; the
repertoire lists neither as a verb no skill does)."""
_HUNG_OVER = re.compile(r"\bhang\s+(?=(?:over|above)\s+(?:the|it|this|that)\b)", re.I)
"""The arm hung over a thing ("just hang over the red one", "hang above the yellow pad"): a
hover, as the reach phrases say it (the imperative only; "hang on" is kept)."""


def verbs_said(text: str) -> str:
    """A turn, a push and a carry said by a verb the training phrases lack, said by theirs:
    "swivel / pivot X" -> "turn X", "shunt X" -> "shove X", "ferry / haul ... X" -> "carry
    X" (:data:`_SWIVELLED`, :data:`_SHUNTED`, :data:`_CARRIED`, in that order)."""
    return _CARRIED.sub("carry", _SHUNTED.sub("shove", _SWIVELLED.sub("turn", text)))


def hung_over(text: str) -> str:
    """ "hang over / above X" -> "hover X" (:data:`_HUNG_OVER`)."""
    return _HUNG_OVER.sub("hover ", text)


_TURN_NOUN = re.compile(
    r"\bgive\s+(?P<cube>.+?)\s+an?\s+(?P<angle>[\w.]+)[ -]?(?:degrees?|deg|°)\s+"
    r"(?P<way>(?:counter[ -]?|anti[ -]?)?clockwise\s+)?(?:turn|twist|spin|rotation)\b",
    re.I,
)


def turn_as_noun(text: str) -> str:
    """ "give the blue cube a 25 degree twist" -> "turn the blue cube by 25 degrees"."""

    def said(m: re.Match) -> str:
        way = f" {m.group('way').strip()}" if m.group("way") else ""
        return f"turn {m.group('cube')} by {m.group('angle')} degrees{way}"

    return _TURN_NOUN.sub(said, text)


_CUBE = rf"(?:{'|'.join(CUBE_NOUNS)})"
"""A cube noun of the training phrases (the cube given "a shake")."""
_ACTION_NOUN = re.compile(
    rf"\bgive\s+(?P<cube>the\s+\w+\s+{_CUBE}|it)\s+an?\s+(?:(?:good|quick|little|gentle|small|"
    r"light|firm|hard|big|proper|short|slight)\s+)*(?!(?:quarter|half|full|complete|third)\b)"
    r"(?P<noun>[a-z]+)\b(?![ -](?:turn|twist|spin|rotation|degrees?|deg)\b)",
    re.I,
)


def action_as_noun(text: str) -> str:
    """ "give the green cube a good shake" -> "shake the green cube": the action said as
    its verb, which the repertoire check then reads (a push is planned, a shake refused)."""
    return _ACTION_NOUN.sub(lambda m: f"{m.group('noun')} {m.group('cube')}", text)


_GO_OVER = re.compile(
    r"\b(?:(?:go|get|come)\s+(?:right\s+)?(?:over|above)|visit|stop by|drop by|swing by)\s+"
    r"(?=the\b)",
    re.I,
)
"""The arm sent over a thing ("go over the yellow pad", "visit the left pad, then the right
pad"): a hover, as the reach phrases say it (a cube is never moved by it)."""
_SWUNG = re.compile(
    r"\b(?:swing|swivel|sweep|slew)\s+(?=(?:the|your|its)(?:\s+robot'?s|\s+arm'?s)?\s+(?:arm|hand|"
    r"gripper|tool|claw|wrist|end[- ]effector|effector|tcp|fingers)\b)",
    re.I,
)
"""The arm's end swung somewhere ("swing your hand round so it's over X"): moved there."""
_ARM_END = re.compile(
    r"\b(?:the|your|its)(?: robot'?s| arm'?s)? (?:tool(?: tip| centre point| center point)?|"
    r"end[- ]effector|effector|tcp|claw|wrist|fingertips|hand)\b(?=,?\s+(?:to|over|above|at|"
    r"toward|towards|near|onto|directly|right|up|down|back)\b)",
    re.I,
)
"""The arm's end said another way than the training phrases' "gripper" ("move the tool to
x 0.45, y 0.1, z 0.3", "hold your hand above the left pad") where it is what goes
somewhere: the gripper, not a tool or a hand the scene lacks."""


def arm_sent(text: str) -> str:
    """The arm's end sent somewhere, said as the reach phrases say it: "swing your hand ..."
    -> "move your hand ..." (:data:`_SWUNG`), "go over / visit the X" -> "hover over the X"
    (:data:`_GO_OVER`), then the arm's end "the gripper" (:data:`_ARM_END`)."""
    text = _GO_OVER.sub("hover over ", _SWUNG.sub("move ", text))
    return _ARM_END.sub("the gripper", text)


_TAP_ON = re.compile(r"\b(?:tap|poke)\s+(?:at\s+|on\s+)?(?=the\b)", re.I)


def tap_as_reach(text: str) -> str:
    """ "tap the green cube" -> "reach for the green cube" in the text the model plans (the
    reading keeps "tap": it forbids contact): said so, the model does not read "tap the green
    cube, then slide it ..." as two pushes."""
    return _TAP_ON.sub(lambda m: "Reach for " if m.group(0)[0].isupper() else "reach for ", text)
