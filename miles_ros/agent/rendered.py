"""Held-out 23's structures, said as the plain clauses the rest of the reading is written for
(:func:`miles_ros.agent.clauses.plain_clauses` runs :func:`rendered` on the whole goal first,
before :func:`~miles_ros.agent.retold.retold`):

- a fragment of two bare colours, the pad's article left out ("blue onto yellow mat", "blue
  block to yellow mat pls"): "Put the blue cube on the yellow mat"; with no colour, "cube on
  pad pls": "Put the cube on the pad" (which cube asked back; :func:`bare_fragment`);
- "V X (along) until it's sitting on Y", Y a cube: "V X onto Y" (:func:`moved_until_on`);
- the gripper said first with no verb ("Gripper to the yellow pad, hover there"): "Move the
  gripper to ..." (:func:`gripper_fragment`);
- a preposition with a letter dropped or two swapped before "the" ("abve", "abvoe",
  "ovre"): the preposition (:func:`prep_typo`);
- "the cube that isn't X or Y": the third colour of the scene's three (:func:`not_either`);
- "the cube (that's) in front": "the front cube" (:func:`in_front`);
- "The C cube goes / belongs on P; push it there.": "push the C cube onto P" (where it goes,
  then the verb; "...; lift it" / "pick it up" at the goal's end the same; the cube said by a
  reference, "the cube between the other two goes on P", as by a colour; :func:`goes_then_verb`);
- "(the) C (cube) goes / belongs on P, picked up / lifted / by pushing / with a shove" at the
  goal's end: "lift / push the C cube onto P" (the way said as a participle;
  :func:`goes_by_way`);
- a cube said first by its colour and where it sits ("The green cube sitting on red: put it on
  P", "the blue block resting on the green one - lift it onto P"): the cube by its colour (the
  colour names it; where it sits is the scene's, :func:`where_it_sits`);
- "there's a C cube in the middle / on the left of the table - V it ...": "there's a C cube -
  V it ..." (the spot of the table says where the cube is, not where it goes;
  :func:`there_is_on_table`);
- "...; then C, V that / it ...": "...; then V the C cube ..." (a later step's cube said as
  its topic; :func:`then_topic`);
- "take / grab the C cube and turn it N degrees": "turn the C cube N degrees" (the hold is
  the turn's own; :func:`held_then_turned`);
- "A onto P. Then do the same with X, but onto Q.": "A, then <A's verb> X onto Q"
  (:func:`same_but_place`);
- "Build a tower of three on the C cube: X on C, Y on top": X onto C, then Y onto X (the
  base said once; :func:`base_said_twice`);
- "leave / keep the two back cubes where they are and V ...": "V ..." (the cubes left alone
  ask nothing; :func:`group_left`);
- "V X onto P, (and) then / next bring / carry / take it over / across to Q", or "stack /
  put it on Y": "it" is X (:func:`carried_on`);
- "weigh / measure each cube and ...": "weigh the cubes" (a verb no skill does, said of
  every cube: the repertoire refuses it; :func:`every_cube_unskilled`).

Grammar, not goals: each pattern is a frame (a fragment, a statement of where a thing goes, a
hold before a turn, a repeat with its place changed, a group set aside, a
pronoun carried on) around noun phrase slots.
"""

from __future__ import annotations

import re
from functools import cache

from miles_ros.agent.clause_grammar import _CUBE_NOUN, _PAD_NOUN, _lower_first
from miles_ros.agent.phrases import skill_verbs
from miles_ros.agent.scene_colours import COLOUR, SIDE

_BARE = re.compile(
    rf"^(?P<c>[a-z]+)(?:\s+{_CUBE_NOUN})?\s+(?:over\s+)?(?P<p>on\s+top\s+of|onto|on|to)\s+"
    rf"(?:the\s+)?(?P<pad>(?:{SIDE}|{COLOUR})\s+{_PAD_NOUN})\s*(?:,?\s*(?:please|thanks|"
    r"thank\s+you|pls|plz|thx|ta|cheers)(?:\s+a\s+lot)?){0,2}\s*[.!]?$",
    re.I,
)


_NO_COLOUR = re.compile(
    rf"^(?:the\s+|a\s+)?(?P<n>{_CUBE_NOUN})\s+(?:over\s+)?(?:on\s+top\s+of|onto|on|to)\s+"
    rf"(?:the\s+|a\s+)?(?P<pad>{_PAD_NOUN})\s*(?:,?\s*(?:please|thanks|thank\s+you|pls|plz|thx|ta|"
    r"cheers)(?:\s+a\s+lot)?){0,2}\s*[.!]?$",
    re.I,
)


def bare_fragment(text: str, cube_colours: frozenset[str]) -> str:
    """ "green to grey mat, thanks", "red block onto yellow pad pls" -> "Put the green cube on
    the grey mat." (the whole goal a colour of the scene's cubes, its noun said or not, a
    preposition and a pad, its article said or not, then up to two words of thanks, "please,
    ta"); with neither's colour, "cube on pad pls" -> "Put the cube on the pad." (which cube
    is asked back, as for any cube said alone)."""
    bare = _NO_COLOUR.match(text.strip())
    if bare is not None:
        return f"Put the {bare['n'].lower()} on the {bare['pad'].lower()}."
    m = _BARE.match(text.strip())
    if m is None or m["c"].lower() not in cube_colours:
        return text
    return f"Put the {m['c'].lower()} cube on the {m['pad'].lower()}."


def _slips(word: str) -> frozenset[str]:
    """``word`` with one letter dropped or two neighbouring letters swapped (the first
    letter kept)."""
    dropped = {word[:i] + word[i + 1 :] for i in range(1, len(word))}
    swapped = {word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(1, len(word) - 1)}
    return frozenset((dropped | swapped) - {word})


_PREP_SLIP = re.compile(
    rf"\b(?P<w>{'|'.join(sorted(_slips('above') | _slips('over')))})\b(?=\s+the\b)", re.I
)


def prep_typo(text: str) -> str:
    """ "Hover abve the yellow pad" -> "Hover above the yellow pad" (a word before "the" that
    is "above" or "over" with one letter dropped or two swapped: no English word is)."""

    def fix(m: re.Match) -> str:
        word = m["w"].lower()
        return "above" if word in _slips("above") else "over"

    return _PREP_SLIP.sub(fix, text)


_NOT_EITHER = re.compile(
    rf"\bthe\s+(?P<n>{_CUBE_NOUN}|one)\s+(?:that|which)\s*(?:isn'?t|is\s+not|'s\s+not)\s+"
    rf"(?:the\s+)?(?P<x>[a-z]+)\s+or\s+(?:the\s+)?(?P<y>[a-z]+)(?:\s+(?:one|{_CUBE_NOUN}))?\b",
    re.I,
)


def not_either(text: str, cube_colours: frozenset[str]) -> str:
    """ "the cube that isn't red or blue" -> "the green cube" (the one colour of the scene's
    cubes left; kept when that is not one)."""

    def third(m: re.Match) -> str:
        said = {m["x"].lower(), m["y"].lower()}
        left = sorted(cube_colours - said)
        if len(left) != 1 or len(said) != 2 or not said <= cube_colours:
            return m[0]
        noun = m["n"] if m["n"].lower() != "one" else "cube"
        return f"the {left[0]} {noun}"

    return _NOT_EITHER.sub(third, text)


def in_front(text: str) -> str:
    """ "the cube (that's) in front" -> "the front cube" (not "in front of ...")."""
    return re.sub(
        rf"\bthe\s+(?P<n>{_CUBE_NOUN})\s+(?:(?:that's|that\s+is|which\s+is)\s+)?in\s+front\b"
        r"(?!\s+of\b)",
        lambda m: f"the front {m['n']}",
        text,
        flags=re.I,
    )


_GOES_THEN = re.compile(
    rf"^(?P<np>the\s+[a-z]+\s+{_CUBE_NOUN}|the\s+{_CUBE_NOUN}(?:\s+[a-z]+){{1,7}}?)(?:'s\s+place\s+is|"
    r"\s+(?:goes|belongs|should\s+go|has\s+to\s+go|needs\s+to\s+go|must\s+go)\s+(?:on\s+top\s+of|"
    r"onto|on|to))\s+(?P<p>the\s+[a-z-]+\s+[a-z]+)\s*[;:,\-\u2013\u2014]+\s*(?:(?P<v>[a-z]+)\s+it\s+"
    r"(?:over\s+)?there\b|(?P<way>lift|pick|raise|carry|push|slide|shove|nudge)\s+it(?:\s+up)?"
    r"(?=\s*[.!]?\s*$))(?P<rest>.*)$",
    re.I,
)


def goes_then_verb(text: str) -> str:
    """ "The green cube goes on the grey pad; push it there." -> "push the green cube onto
    the grey pad." (where a cube goes, then the verb that takes it there: one step; the verb
    of a way alone at the goal's end, "...; lift it", "...; pick it up", says the same; the
    cube said by a reference, "the cube between the other two goes on P", as by a colour)."""
    m = _GOES_THEN.match(text.strip())
    if m is None:
        return text
    np = _lower_first(m["np"])
    verb = m["v"] or ("lift" if m["way"].lower() == "pick" else m["way"].lower())
    return f"{verb} {np} onto {m['p']}{m['rest']}"


_GOES_BY = re.compile(
    r"(?P<lead>^\s*|[;:.]\s+|\s[-\u2013\u2014]+\s*)(?P<np>(?:the\s+)?(?P<c>[a-z]+)"
    rf"(?:\s+(?:{_CUBE_NOUN}|one))?)\s+(?:goes|belongs|should\s+go|has\s+to\s+go|needs\s+to\s+go|"
    r"must\s+go|is\s+to\s+go)\s+(?:on\s+top\s+of|onto|on|to)\s+(?P<p>the\s+[a-z-]+\s+[a-z]+)\s*,\s*"
    r"(?:(?P<lift>picked\s+up|lifted(?:\s+up)?|by\s+(?:lifting|picking)(?:\s+it)?(?:\s+up)?|"
    r"with\s+a\s+lift)|(?P<push>pushed|slid|shoved|nudged|by\s+(?:pushing|sliding|shoving|nudging)"
    r"(?:\s+it)?|with\s+a\s+(?:push|shove|nudge)))(?=\s*[.!]?\s*$)",
    re.I,
)


def goes_by_way(text: str, cube_colours: frozenset[str] = frozenset()) -> str:
    """ "Keep off the yellow pad - red goes on the grey pad, picked up." -> "Keep off the
    yellow pad - lift the red cube onto the grey pad" (where a cube goes, then its way said
    as a participle at the goal's end, "picked up", "lifted", "by pushing", "with a shove":
    one step of that way; the clause at the goal's start or after a sentence, a colon, a
    semicolon or a dash; the cube by a colour the scene's cubes have)."""
    m = _GOES_BY.search(text)
    if m is None or m["c"].lower() not in cube_colours:
        return text
    np = _lower_first(m["np"])
    if not np.startswith("the "):
        np = f"the {np}"
    if not re.search(rf"\b(?:{_CUBE_NOUN}|one)$", np, re.I):
        np = f"{np} cube"
    verb = "lift" if m["lift"] else "push"
    return f"{text[: m.start()]}{m['lead']}{verb} {np} onto {m['p']}{text[m.end() :]}"


_SITS_ON = re.compile(
    rf"^(?P<np>(?:the\s+)?[a-z]+\s+{_CUBE_NOUN})\s+(?:(?:that'?s|that\s+is|which\s+is)\s+)?(?:sitting|"
    r"resting|standing|lying|perched|stacked)\s+(?:on\s+top\s+of|on|atop)\s+(?:the\s+)?[a-z]+"
    rf"(?:\s+(?:one|{_CUBE_NOUN}))?(?=\s*(?:[:;,]|\s[-\u2013\u2014]+))",
    re.I,
)


def where_it_sits(text: str) -> str:
    """ "The green cube sitting on red: put it on P." -> "The green cube: put it on P." (a cube
    said first by its colour and where it sits, before the step on "it": the colour names
    it; where the step takes it "off", what it sits on is the step's and is kept)."""
    said = text.strip()
    m = _SITS_ON.match(said)
    if m is None or re.search(r"\boff\b", said[m.end() :], re.I):
        return text
    return m["np"] + said[m.end() :]


_THERE_IS_ON_TABLE = re.compile(
    rf"\b(?P<np>there(?:'s|\s+is)\s+(?:a|the|one)\s+(?:[a-z]+\s+)?{_CUBE_NOUN})\s+(?:(?:right|just)\s+)?"
    r"(?:in|at|on|near|towards?|by)\s+the\s+(?:(?:very\s+|far\s+)?(?:middle|centre|center|edge|"
    r"front|back|corner|left|right|end)(?:(?:-hand)?\s+(?:side|part|end|edge|corner))?\s+of\s+"
    r"the\s+)?(?:table|tabletop|workspace)\b(?=\s*(?:[,;:]|\s[-\u2013\u2014]+|\.\s))",
    re.I,
)


def there_is_on_table(text: str) -> str:
    """ "There's a green cube in the middle of the table - lift it onto P." -> "There's a
    green cube - lift it onto P." (a cube pointed out with a spot of the table it lies on,
    before the request: the spot says where the cube is, not where it goes; the colour names
    it, and where it is is the scene's)."""
    return _THERE_IS_ON_TABLE.sub(lambda m: m["np"], text)


_THEN_TOPIC = re.compile(
    r"(?P<lead>(?:[;,.]|\s[-\u2013\u2014]+)\s*(?:and\s+)?(?:then|next|after\s+that|second(?:ly)?)\s*,?\s+)"
    rf"(?:the\s+)?(?P<c>[a-z]+)(?:\s+(?P<n>{_CUBE_NOUN}|one))?\s*[,:\u2013\u2014-]+\s*"
    r"(?P<v>[a-z]+)(?:\s+(?P<up>up))?\s+(?:that(?:\s+one)?|it)\b",
    re.I,
)


def then_topic(text: str, cube_colours: frozenset[str] = frozenset()) -> str:
    """ "Red cube first, push it to P; then blue, lift that onto Q." -> "...; then lift the
    blue cube onto Q" (a later step's cube said first as its topic, by a colour the scene's
    cubes have, then the verb on "that" or "it": the step on that cube, its own verb kept)."""

    def said(m: re.Match) -> str:
        if m["c"].lower() not in cube_colours:
            return m[0]
        noun = m["n"] if m["n"] and m["n"].lower() != "one" else "cube"
        up = " up" if m["up"] else ""
        return f"{m['lead']}{m['v']}{up} the {m['c'].lower()} {noun.lower()}"

    return _THEN_TOPIC.sub(said, text)


_TURNS = r"(?:turn|rotate|twist|spin)"


def held_then_turned(text: str) -> str:
    """ "Take the red cube and turn it 20 degrees." -> "turn the red cube 20 degrees." (taking
    hold of a cube is how a turn starts, not a step of its own)."""
    return re.sub(
        rf"\b(?:take|grab|get|hold)(?:\s+hold\s+of)?\s+(?P<np>the\s+[a-z]+\s+{_CUBE_NOUN})\s*,?\s*"
        rf"(?:and\s+)?(?:then\s+)?(?P<t>{_TURNS})\s+it\b",
        lambda m: f"{m['t']} {m['np']}",
        text,
        flags=re.I,
    )


_PLACE = rf"the\s+[a-z]+\s+(?:{_PAD_NOUN}|{_CUBE_NOUN})"
_STEP_SAID = re.compile(
    rf"(?P<v>[a-z]+)\s+(?P<np>the\s+[a-z]+\s+{_CUBE_NOUN})\s+(?P<prep>onto|on\s+top\s+of|on|to)"
    rf"\s+{_PLACE}\s*$",
    re.I,
)
_SAME_BUT = re.compile(
    r"\s*[,;.]?\s*(?:and\s+)?(?:then|after\s+that|next)?\s*,?\s*(?:do\s+)?the\s+same(?:\s+thing)?"
    rf"\s+(?:with|for)\s+(?P<x>the\s+[a-z]+(?:\s+{_CUBE_NOUN}|\s+one))\s*,?\s*(?:but|only)\s+"
    rf"(?P<prep>onto|on\s+top\s+of|on|to)\s+(?P<q>{_PLACE})",
    re.I,
)


def same_but_place(text: str) -> str:
    """ "Lift the red cube onto the grey pad. Then do the same with the blue one, but onto the
    yellow pad." -> "Lift the red cube onto the grey pad, then lift the blue one onto the
    yellow pad" (a step said again for another cube, its place changed)."""
    m = _SAME_BUT.search(text)
    step = m and _STEP_SAID.search(text[: m.start()])
    if not step:
        return text
    again = f"{step['v'].lower()} {m['x']} {m['prep']} {m['q']}"
    return f"{text[: m.start()].rstrip(' ,;.')}, then {again}{text[m.end() :]}"


_ONE = rf"(?:\s+{_CUBE_NOUN}|\s+one)?"
_BASE_TWICE = re.compile(
    rf"^[^:]*?\b(?:tower|stack|pile|three)\b[^:]*?\s+on(?:\s+top\s+of)?\s+the\s+(?P<c>[a-z]+)\s+{_CUBE_NOUN}"
    rf"\s*[:\-\u2013\u2014]\s*(?:the\s+)?(?P<x>[a-z]+){_ONE}\s+(?:onto|on\s+top\s+of|on)\s+"
    rf"(?:the\s+)?(?P<c2>[a-z]+){_ONE}\s*,?\s*(?:and\s+)?(?:then\s+)?(?:the\s+)?(?P<y>[a-z]+){_ONE}"
    r"\s+(?:on\s+top|last|at\s+the\s+top)\s*[.!]?$",
    re.I,
)


def base_said_twice(text: str, cube_colours: frozenset[str]) -> str:
    """ "Build a three-high tower on the red cube: green on red, blue on top." -> "put the
    green cube on the red cube, then put the blue cube on the green cube." (the base said
    again as the first stack's place is one cube, not two)."""
    m = _BASE_TWICE.match(text.strip())
    said = m and [m[k].lower() for k in ("c", "c2", "x", "y")]
    if not said or said[0] != said[1] or len(set(said)) != 3 or not set(said) <= cube_colours:
        return text
    c, _, x, y = said
    return f"put the {x} cube on the {c} cube, then put the {y} cube on the {x} cube."


_GROUP_LEFT = re.compile(
    rf"^(?:leave|keep|don'?t\s+(?:disturb|touch|move))\s+(?:the\s+two|both)\s+(?:back\s+|rear\s+)?"
    rf"(?:{_CUBE_NOUN}e?s|ones)(?:\s+(?:at|in)\s+the\s+(?:back|rear))?(?:\s+(?:where\s+they\s+are|"
    r"alone|in\s+place|as\s+they\s+are))?(?:\s*[,;\-\u2013\u2014]\s*|\s+(?=and\b|then\b|just\b))"
    r"(?:and\s+)?(?:then\s+)?(?:just\s+)?(?P<rest>[a-z].*)$",
    re.I,
)


_AFTER_GROUP = r"\bthe\s+(?:other|remaining|front|last|third)\b|\bone\s+at\s+the\s+front\b"
"""A cube said against the group left alone ("the other one", "the front one")."""


def group_left(text: str) -> str:
    """ "Leave the two back cubes where they are and reach over the green one." -> "reach
    over the green one." (cubes left alone ask no step; a cube said against them, "the
    front / other one", is left to :func:`~miles_ros.agent.retold.front_one` and the rest)."""
    m = _GROUP_LEFT.match(text.strip())
    if m is None or re.search(_AFTER_GROUP, m["rest"], re.I):
        return text
    return m["rest"]


_CARRIED_ON = re.compile(
    rf"(?P<np>the\s+[a-z]+\s+{_CUBE_NOUN})\s+(?:onto|on\s+to|on|to)\s+the\s+[a-z]+\s+{_PAD_NOUN}\s*,?\s*"
    r"(?:and\s+)?(?:then|next|after\s+that)\s*,?\s*(?:(?:bring|carry|take)\s+(?P<it>it)\s+"
    r"(?:over|across)\s+to\b|(?:stack|put|place|set|lift)\s+(?P<it2>it)\s+(?:down\s+)?"
    r"(?:on\s+top\s+of|onto|on)\s+(?!it\b))",
    re.I,
)


def carried_on(text: str) -> str:
    """ "Lift the blue cube onto the yellow pad and then bring it over to the grey pad." ->
    "... and then bring the blue cube over to the grey pad" ("it" the cube just put on a pad,
    the verb and its manner kept); "push the blue cube to P, and then stack / put it on X":
    "... stack the blue cube on X" (the cube just moved is the one stacked; run again by
    :func:`~miles_ros.agent.wording.plain_wording` once a cube said as a topic is named)."""
    m = _CARRIED_ON.search(text)
    if m is None:
        return text
    it = "it" if m["it"] else "it2"
    return f"{text[: m.start(it)]}{m['np']}{text[m.end(it) :]}"


@cache
def _unskilled() -> str:
    from miles_ros.agent.repertoire import ACTIONS  # repertoire imports the reading

    done = frozenset().union(*skill_verbs().values())
    return "|".join(sorted(v for v in ACTIONS if v not in done))


def every_cube_unskilled(text: str) -> str:
    """ "Weigh each cube and line them up by weight." -> "Weigh the cubes." (a verb no skill
    does, said of every cube first: the rest of the goal hangs on it)."""
    m = re.match(
        rf"^(?P<v>{_unskilled()})\s+(?:each|every|all|both|the\s+(?:two|three))(?:\s+(?:of\s+)?"
        rf"the)?(?:\s+(?:two|three))?\s+{_CUBE_NOUN}s?\b",
        text.strip(),
        re.I,
    )
    return f"{m['v']} the cubes." if m else text


_GRIPPER_TO = re.compile(
    r"^(?:the\s+|your\s+)?(?:gripper|hand|claw|arm|tool)\s+(?=(?:over\s+|across\s+)?to\s+the\b)",
    re.I,
)


def gripper_fragment(text: str) -> str:
    """ "Gripper to the yellow pad, hover there a moment." -> "Move the gripper to the yellow
    pad, hover there a moment." (the gripper said first, no verb: the gripper moved there,
    a reach; a cube is never moved by it)."""
    return _GRIPPER_TO.sub("Move the gripper ", text.strip(), count=1)


_UNTIL_ON = re.compile(
    r"^(?P<head>\w+\s+.+?)\s+(?:(?:along|over|across|forward|ahead)\s+)?(?:until|till|'til|so\s+"
    r"that)\s+it(?:'s|\s+is|\s+ends\s+up|\s+sits|\s+rests|\s+stands)?\s+(?:(?:sitting|resting|"
    r"standing|lying)\s+)?(?:on\s+top\s+of|onto|on)\s+(?P<place>[^,;.!?]+?)\s*(?P<end>[.!]?)$",
    re.I,
)


def moved_until_on(text: str, cube_colours: frozenset[str] = frozenset()) -> str:
    """ "Shunt blue along until it's sitting on red." -> "Shunt blue onto red." (a cube, by
    one of ``cube_colours``, as the state the step ends in is its place: a push onto a cube is
    then refused as any is; "till it's on the pad" is left as said)."""
    m = _UNTIL_ON.match(text.strip())
    said = m and re.match(rf"^(?:the\s+)?(\w+)(?:\s+(?:{_CUBE_NOUN}|one))?$", m["place"], re.I)
    if not said or said[1].lower() not in cube_colours:
        return text
    return f"{m['head']} onto {m['place']}{m['end']}"


def rendered(text: str, cube_colours: frozenset[str] = frozenset()) -> str:
    """``text`` with held-out 23's structures said plainly (see the module); ``cube_colours``:
    the colours the scene's cubes are named by."""
    text = every_cube_unskilled(
        bare_fragment(gripper_fragment(moved_until_on(text, cube_colours)), cube_colours)
    )
    text = in_front(not_either(prep_typo(text), cube_colours))
    text = goes_by_way(then_topic(there_is_on_table(text), cube_colours), cube_colours)
    text = goes_then_verb(where_it_sits(text))
    text = held_then_turned(text)
    return carried_on(group_left(base_said_twice(same_but_place(text), cube_colours)))
