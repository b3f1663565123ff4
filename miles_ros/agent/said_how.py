"""Who moves and how, said once (:func:`miles_ros.agent.wording.plain_wording` runs
:func:`said_how` on the goal first, before :func:`~miles_ros.agent.said_once.said_once`).
Grammar, not goals; each rule is a frame and what it means:

- the gripper as the thing moved: "(the / your) gripper / hand / fingers / tool / end
  effector over / above / at / to X" heading a clause with no verb of its own is the reach of
  X ("move the gripper over X"; "hand over / me X" is a handing, "the gripper over X is open"
  a description: left); "(and / then) hold / keep / leave it (right) there" after a clause
  that names the gripper and grasps nothing names no cube ("it" is the gripper): staying adds
  nothing and is dropped, as is ", just / only hovering" closing a reach; "farthest /
  furthest off / away" with no "from" and no noun after it is "farthest from you";
- a manner restated: in a goal naming one cube, every clause must be the cube alone ("Red
  cube."), a manner on it with no place ("push / slide / shove / nudge it (along / over /
  across the table)", "lift / carry / raise / pick it (up)", "no lifting", "don't push /
  slide / lift / pick it up", "keep it on the table"), a hold of it ("take hold of / grab /
  grip / grasp X", "gripper closed on X"), or the one move that names a pad or a cube, with no
  verb or a verb a manner can say the way of (:data:`_MOVER`). A manner said (not only denied)
  or "leave it on P" (after taking hold of it: placing, not leaving the scene) then says HOW
  that move is done, never a second step and never another cube: the goal is "push the C cube
  PREP P" / "pick up the C cube and put it PREP P" (PREP as said). A manner only denied is
  left to the prohibitions; a second place, a second cube, "home", "leave it there", a
  direction ("to the left"), a verb no skill has ("toss") or a manner against the move's own
  verb leaves the goal as said;
- a sentence that states where a cube is describes, it does not command: "The C cube sits /
  rests / is sitting on (top of) D. V it ..." is "The C cube is on top of the D cube. V it
  ..." (nouns kept; read as :mod:`~miles_ros.agent.described` reads it; the seat checked
  against the scene before);
- negations joined by "and / nor / or" all hold: "the cube that isn't A and isn't B", "the
  cube that's neither A nor B" is the one cube of the scene of neither colour;
- "unstack / take the stack apart first (X to P), then ..." is "move X to P first, then
  ..." (the parenthesis is the unstack's move, done first);
- "make / build a three-cube tower / stack on D(,) (with) M in the middle / as the middle
  one" with three cubes is "put M on D, then put the third on M".
"""

from __future__ import annotations

import re

from miles_ros.agent.phrases import CUBE_NOUNS, PAD_NOUNS
from miles_ros.agent.scene_colours import cube_colours
from miles_ros.agent.world import World

_CUBE = rf"(?:{'|'.join(CUBE_NOUNS)})"
_PAD = rf"(?:{'|'.join(PAD_NOUNS)})"
_TOOL = r"(?:the\s+|your\s+)?(?:gripper|hand|fingers|tool|end[\s-]effector)"
_VERBLESS = re.compile(
    r"(?P<lead>(?:^|[.;!?]\s+|\bthen\s+)(?:(?:please|now|just|okay|ok)\s*,?\s+)*)(?:(?:the|your)\s+"
    r"(?:gripper|hand|fingers|tool|end[\s-]effector)|gripper|fingers|tool|end[\s-]effector|hand(?!\s+"
    r"(?:over|me)\b))\s+(?P<prep>(?:right\s+|directly\s+|straight\s+)?(?:over|above|at|to|on\s+top\s+"
    r"of)\b)(?![^.;!?]*\b(?:is|are|was|were|looks|seems|has)\b)",
    re.I,
)
"""The gripper heading a clause with no verb ("Gripper over X", "The hand above X"; not "hand
over X", a handing, nor "the gripper over X is open", a description)."""
_HOLD_THERE = re.compile(
    r"\s*(?:[,;]\s*|\s[-\u2013\u2014]+\s*)?(?:\s*(?:and|then)\s+)*(?:hold|keep|leave)\s+it\s+"
    r"(?:right\s+)?there(?:\s+for\s+(?:a|one)\s+(?:moment|bit|second|sec|while))?(?=\s*(?:[.!;,]|$))",
    re.I,
)
_HOVERING = re.compile(
    r"\s*(?:,|\s[-\u2013\u2014]+)\s*(?:just|only)\s+(?:hovering|hover)(?=\s*(?:[.!;,]|$))", re.I
)
_GRASPED = r"\b(?:pick|grab|grip|grasp|lift|take|hold|raise|carry)(?!per)"
_FAR_OFF = re.compile(
    rf"\b(?P<w>farthest|furthest)\s+(?:off|away)\b(?!\s+(?:from|{_CUBE}|one)\b)", re.I
)
_PUSHES = r"(?:push|slide|shove|nudge|drag)"
_MOVER = (
    r"(?:put|place|set|drop|lay|lower|rest|leave|move|get|bring|take|carry|lift|push|slide|shove|"
    r"nudge|stack)"
)
"""The verbs of a move a manner may say the way of (not "toss", "throw": no skill's)."""
_LIFTS = r"(?:lift|carry|raise|hoist|pick)"
_TABLE = r"(?:\s+(?:along|over|across)\s+the\s+(?:table|surface))?"
_PLACE = rf"(?:the\s+)?(?:[a-z]+\s+)?(?:{_PAD}|{_CUBE}|one)|(?:the\s+)?[a-z]+"
_MOVE = re.compile(
    rf"^(?P<pre>.*?)\b(?P<prep>onto|on\s+top\s+of|on|over\s+to|across\s+to|to)\s+"
    rf"(?P<place>{_PLACE})(?:\s+(?:please|instead))?$",
    re.I,
)
_CLAUSES = re.compile(
    r"\s*[.;!?]+\s*|\s*,\s*(?:and\s+)?(?:then\s+)?|\s+[-\u2013\u2014]+\s+|\s+and\s+(?:then\s+)?",
    re.I,
)


def said_how(goal: str, world: World) -> str:
    """``goal`` with the gripper said as the thing moved and a manner said once (see the
    module)."""
    cubes = cube_colours(world)
    text = _gripper(goal)
    if cubes:
        text = _described(text, cubes)
        text = _neither(text, cubes)
        text = _middle(text, cubes)
        text = _manner_restated(text, cubes)
    return _unstack_first(text)


def _gripper(text: str) -> str:
    """ "Gripper over X": "move the gripper over X"; "... and hold it there" after the
    gripper: dropped; ", just hovering": dropped; "farthest off": "farthest from you"."""
    text = _VERBLESS.sub(
        lambda m: f"{m['lead']}move the gripper {re.sub('at$', 'to', m['prep'], flags=re.I)}",
        text,
    )
    if re.search(rf"\b{_TOOL}\b", text, re.I) or re.match(r"\s*(?:please\s+)?hover\b", text, re.I):

        def hold(m: re.Match) -> str:
            clause = re.split(r"[;!?]|\.(?!\d)|\bthen\b", text[: m.start()])[-1]
            grasped = re.search(_GRASPED, clause, re.I)
            said_tool = re.search(rf"\b{_TOOL}\b|\bhover\b", clause, re.I)
            return "" if said_tool and not grasped else m[0]

        text = _HOLD_THERE.sub(hold, text)
    text = _HOVERING.sub("", text) if re.search(r"\bhover|\bgripper\b", text, re.I) else text
    return _FAR_OFF.sub(lambda m: f"{m['w']} from you", text)


def _described(text: str, cubes: frozenset[str]) -> str:
    """ "The C cube sits on D. V it ...": "The C cube is on top of the D cube. V it ..." (the
    seat checked against the scene before, by :func:`~miles_ros.agent.reference_stacked.
    seat_checked`)."""
    c = "|".join(sorted(cubes, key=len, reverse=True))
    return re.sub(
        rf"^\s*(?:the\s+)?(?P<c>{c})(?:\s+(?P<n>{_CUBE}|one))?(?:\s+(?:now|currently|still))?\s+"
        r"(?:sits|rests|stands|lies|perches|(?:is|'s)\s+(?:sitting|resting|standing|lying))\s+"
        rf"(?:on\s+top\s+of|on|atop)\s+(?:the\s+)?(?P<d>{c})(?:\s+(?P<e>{_CUBE}|one))?\s*[.;:,]\s*"
        r"(?=[a-z]+\s+it\b)",
        lambda m: (
            f"The {m['c'].lower()} {m['n'] or 'cube'} is on top of the {m['d'].lower()} "
            f"{m['e'] if m['e'] and m['e'].lower() != 'one' else 'cube'}. "
        ),
        text,
        flags=re.I,
    )


def _neither(text: str, cubes: frozenset[str]) -> str:
    """ "the cube that isn't A and isn't B": the one cube of neither colour."""
    c = "|".join(sorted(cubes, key=len, reverse=True))
    noun = rf"(?:\s+(?:{_CUBE}|one))?"

    def one(m: re.Match) -> str:
        left = cubes - {m["a"].lower(), m["b"].lower()}
        return f"the {next(iter(left))} {m['n']}" if len(left) == 1 else m[0]

    return re.sub(
        rf"\bthe\s+(?P<n>{_CUBE}|one)\s+(?:that|which)(?:\s+isn'?t|\s+is\s+not|'s\s+not|\s+is\s+"
        rf"neither|'s\s+neither)\s+(?:the\s+)?(?P<a>{c}){noun}\s*,?\s*(?:and|nor|or)\s+(?:(?:isn'?t|"
        rf"is\s+not|'s\s+not|not)\s+)?(?:the\s+)?(?P<b>{c}){noun}\b",
        one,
        text,
        flags=re.I,
    )


def _middle(text: str, cubes: frozenset[str]) -> str:
    """ "a three-cube tower on D, M in the middle": M on D, then the third on M."""
    c = "|".join(sorted(cubes, key=len, reverse=True))

    def built(m: re.Match) -> str:
        d, mid = m["d"].lower(), m["m"].lower()
        third = sorted(cubes - {d, mid})
        if len(third) != 1 or d == mid:
            return m[0]
        top = third[0]
        return f"put the {mid} cube on the {d} cube, then put the {top} cube on the {mid} cube"

    return re.sub(
        rf"\b(?:make|build|stack|create)\s+(?:a|the)\s+(?:three|3)[- ](?:{_CUBE}|level|layer)s?\s+"
        rf"(?:tower|stack|pile)\s+on\s+(?:top\s+of\s+)?(?:the\s+)?(?P<d>{c})(?:\s+(?:{_CUBE}|one))?"
        rf"\s*,?\s*(?:with\s+)?(?:the\s+)?(?P<m>{c})(?:\s+(?:{_CUBE}|one))?\s+(?:in\s+the\s+middle|"
        r"as\s+the\s+middle(?:\s+one)?|in\s+between)\b",
        built,
        text,
        flags=re.I,
    )


def _unstack_first(text: str) -> str:
    """ "Unstack first (X to P), then ...": "Move X to P first, then ..."."""

    def first(m: re.Match) -> str:
        move = m["move"].strip()
        verb = re.match(r"(?:move|put|lift|place|set|take|carry|push|slide)\b", move, re.I)
        return f"{'' if verb else 'move '}{move} first"

    return re.sub(
        r"^\s*(?:please\s+)?(?:unstack(?:\s+(?:it|them|the\s+(?:stack|tower|pile)))?|take\s+(?:the\s+"
        r"|that\s+)?(?:stack|tower|pile)\s+(?:apart|down))\s+first\s*\((?P<move>[^()]+)\)",
        first,
        text,
        flags=re.I,
    )


def _manner_restated(text: str, cubes: frozenset[str]) -> str:
    """A manner said in a clause of its own on the one cube moved: the move said once (see
    the module); else ``text`` unchanged."""
    named = {c for c in cubes if re.search(rf"\b{c}\b", text, re.I)}
    if len(named) != 1:
        return text
    (c,) = named
    me = rf"(?:it|(?:the\s+)?{c}(?:\s+{_CUBE})?)"
    push_manner = re.compile(
        rf"^(?:just\s+)?(?:{_PUSHES}\s+{me}{_TABLE}(?:\s+(?:the\s+whole\s+way|all\s+the\s+way))?|"
        rf"no\s+(?:lifting|picking(?:\s+it)?\s+up|carrying)|(?:don'?t|do\s+not|never)\s+(?:lift|"
        rf"pick|carry|raise)(?:\s+it)?(?:\s+up)?|keep\s+it\s+on\s+the\s+(?:table|ground|surface))"
        r"(?:\s+please)?$",
        re.I,
    )
    lift_manner = re.compile(
        rf"^(?:just\s+)?(?:{_LIFTS}\s+{me}(?:\s+up)?|pick\s+up\s+{me}|no\s+(?:pushing|sliding|"
        rf"shoving)|(?:don'?t|do\s+not|never)\s+(?:push|slide|shove|drag)(?:\s+it)?|(?:take\s+hold"
        rf"\s+of|grab|grip|grasp|hold)\s+{me}|(?:with\s+)?(?:the\s+)?gripper\s+closed\s+on\s+{me})"
        r"(?:\s+please)?$",
        re.I,
    )
    said = re.compile(  # a manner said, not denied, or a hold the reading does not take as a pick
        rf"^(?:just\s+)?(?:{_PUSHES}|lift|carry|raise|hoist)\s+it\b|^(?:pick\s+it\s+up|(?:take\s+hold"
        rf"\s+of|grip|hold)\s+{me}|(?:with\s+)?(?:the\s+)?gripper\s+closed\s+on)\b",
        re.I,
    )
    ways, move, kept, positive = set(), None, [], False
    for part in (p for p in _CLAUSES.split(text.strip()) if p):
        if push_manner.match(part) or lift_manner.match(part):
            ways.add("push" if push_manner.match(part) else "lift")
            positive = positive or bool(said.match(part))
        elif re.fullmatch(rf"(?:the\s+)?{c}(?:\s+{_CUBE})?", part, re.I):
            continue
        elif move is None and (m := _MOVE.match(part)):
            move = m
        else:
            kept.append(part)
    if kept or move is None or len(ways) != 1:
        return text
    pre, place, prep = move["pre"], move["place"], move["prep"]
    if not (positive or re.search(r"\bleave\s+it\s+on", move[0], re.I)):
        return text  # only a manner denied ("no lifting"): read as a prohibition, as before
    if not re.match(rf"^(?:(?:the\s+)?{c}\b|it\b|{_MOVER}\b)", pre.strip(), re.I):
        return text  # a verb of its own ("toss it onto P"), left to the rules that read it
    if re.search(rf"\b{_TOOL}\b", pre, re.I):
        return text
    if re.search(r"\b(?:keep|let|stay|remain)\b|\bleave\b(?!\s+it\s+on)", move[0], re.I):
        return text
    if re.search(rf"\b{c}\b|\bhome\b", place, re.I):
        return text
    last = place.lower().split()[-1]
    if not re.search(rf"\b(?:{_PAD}|{_CUBE}|one)$", place, re.I) and last not in cubes:
        return text  # "to the left", "to the side": a direction, not a pad or a cube
    (way,) = ways
    own_push = re.search(rf"\b{_PUSHES}", pre, re.I)
    own_lift = re.search(rf"\b(?:{_LIFTS}|put|place|set|stack|drop)", pre, re.I)
    if (way == "lift" and own_push) or (way == "push" and own_lift):
        return text
    if re.search(r"\bleave\b", pre, re.I) and way != "lift":
        return text
    on_cube = not re.search(rf"\b{_PAD}$", place, re.I)
    stop = "." if text.rstrip().endswith(".") else ""
    if way == "push":
        return text if on_cube else f"Push the {c} cube {prep} {place}{stop}"
    return f"Pick up the {c} cube and put it {prep} {place}{stop}"
