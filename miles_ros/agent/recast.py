"""Held-out 19's structures, said as the plain clauses the rest of the reading is written for
(:func:`miles_ros.agent.clauses.plain_clauses` runs :func:`recast` on the whole goal first,
before :func:`~miles_ros.agent.rephrased.rephrased`):

- the arm's end moved over a thing ("then move the arm over P", "bring your gripper above
  P", "move the arm so it's over P"): "hover over P", a reach (:func:`arm_over`);
- a reach of a cube with "there" after it ("hover above the red cube over there"): the cube
  is where the arm goes, not a place asked about (:func:`reached_there`);
- a cube moved off the table ("off the table's edge", "right off the table"): said as "the
  edge of the table", a spot no skill takes (refused by the reading; :func:`off_table`);
- "that pad over there": "the pad" (which one is asked where there are several;
  :func:`that_pad_there`);
- "hold off on (doing) anything / everything": no motion (:func:`held_off`);
- "build a tower on Y: A first, then B": A onto Y, B onto A (:func:`tower_on`);
- "never mind / forget (about) / ignore the two cubes at the back; V the front / other
  one": said as "leave the two cubes at the back alone; V the other one"
  (:func:`never_mind_two`, read on by :func:`~miles_ros.agent.rephrased.two_at_back`);
- a pad ruled out in a sentence of its own, then "a pad" / "either pad" / "one of the pads":
  the other pad (:func:`other_pad_left`);
- "would you mind terribly / very much V-ing": the adverb left out (:func:`mind_adverb`);
- "don't push it; pick X up and put it on P": the lift alone (:func:`no_push_then_lift`);
- "never mind the two cubes at the back, V the red one ...": the step (:func:`never_mind_named`);
- "of the two cubes at the back, V the left one ...": "V the cube on the left of the two at
  the back ..." (:func:`of_two_at`);
- a one-word goal of going home with a typo ("hme, thanks", "homw now"): "go home", only
  where the word is one edit from "home" and no word of its own (:func:`home_alone_typo`).

Grammar, not goals: each pattern is a frame (the arm as the thing moved, a deictic after a
noun, a prohibition before the clause it restricts, a list's order after a colon) around
noun phrase slots.
"""

from __future__ import annotations

import re

from miles_ros.agent.clause_grammar import _CUBE_NOUN, _PAD_NOUN, _upper_first, verb_led, verb_of
from miles_ros.agent.rephrased import home_misspelt

_ARM_OVER = re.compile(
    r"\b(?:move|bring|put|position|get|take)\s+(?:the|your|its)\s+arm\s+"
    r"(?:(?:so\s+(?:that\s+)?it(?:'s|\u2019s|\s+is)|until\s+it(?:'s|\u2019s|\s+is))\s+)?"
    r"(?:right\s+|directly\s+)?(?:over|above)\s+(?=the\s+\w+)",
    re.I,
)


_TOOL_OVER = re.compile(
    r"^(?:(?:the|your)\s+(?:gripper|claw|hand|arm|tool)|gripper|claw|arm|tool|hand(?=\s+above))"
    r"\s+(?:right\s+|directly\s+|straight\s+)?(?:over|above)\s+(?=the(?:\s+[\w-]+){1,4}"
    r"(?:\s*,?\s*(?:pls|please|plz|thanks|thx|ta|now))*\s*[.!]?\s*$)",
    re.I,
)


def arm_over(text: str) -> str:
    """ "..., then move the arm over the left pad." -> "..., then hover over the left pad."
    (the arm moved over a thing is the reach of it, not a push of a cube; "the gripper" /
    "your hand" over a thing the rest of the reading says already); a goal that is a
    fragment with no verb, the tool over a thing ("gripper above the red block pls", "claw
    over the left pad", the whole goal), likewise ("hand over X" with no article is a handing,
    not this)."""
    return _ARM_OVER.sub("hover over ", _TOOL_OVER.sub("hover over ", text.strip()))


_REACHED_THERE = re.compile(
    rf"\b(?P<head>(?:hover|reach)(?:\s+(?:over|above))?\s+the\s+\w+\s+{_CUBE_NOUN})"
    r"\s+(?:over\s+|right\s+)?there\b",
    re.I,
)


def reached_there(text: str) -> str:
    """ "Hover above the red cube over there." -> "Hover above the red cube." ("there" says
    where the cube is; a cube moved "over there" is still asked where)."""
    return _REACHED_THERE.sub(lambda m: m["head"], text)


_OFF_TABLE = re.compile(
    r"\b(?P<head>(?:push|shove|slide|knock|nudge|drag|sweep|move|tip)\s+(?:the|that|this|it)\b"
    r"[^,;.!?]*?)\s+(?:right\s+)?(?:off|over)\s+(?:the\s+)?(?:table'?s\s+edge|table\s+edge|"
    r"edge(?:\s+of\s+the\s+table)?|table)(?=\s*(?:[,.!?;]|$|\s+please\b))",
    re.I,
)


def off_table(text: str) -> str:
    """ "Push the red cube over the table's edge." -> "Push the red cube off the edge of the
    table." (a cube moved off the table, the clause ending there: no place on the table, the
    spot the reading refuses); "lift it off the table", "pushing is off the table" stay."""
    return _OFF_TABLE.sub(lambda m: f"{m['head']} off the edge of the table", text)


_THAT_PAD_THERE = re.compile(
    rf"\b(?:that|this)\s+(?P<n>{_PAD_NOUN})\s+(?:over\s+|right\s+|up\s+)?there\b", re.I
)


def that_pad_there(text: str) -> str:
    """ "Put the red cube on that pad over there." -> "... on the pad." (pointed at, not
    said: which pad is asked where the scene has several)."""
    return _THAT_PAD_THERE.sub(lambda m: f"the {m['n']}", text)


_HELD_OFF = re.compile(
    r"^(?:(?:wait|hang on|hold on|ok(?:ay)?|please|just)\b[\s,.!\-\u2013\u2014:]*)*"
    r"hold\s+off(?:\s+on)?(?:\s+doing)?\s+(?:anything|everything|it all)\b[^.;!?]*[.!]?$",
    re.I,
)


def held_off(text: str) -> str:
    """ "Wait, hold off on everything for a bit." -> "Don't do anything." (no motion)."""
    return "Don't do anything." if _HELD_OFF.match(text.strip()) else text


_COLOUR_NP = rf"(?:the\s+)?(?P<{{g}}>[a-z]+)(?:\s+(?:one|{_CUBE_NOUN}))?"
_TOWER_ON = re.compile(
    r"^(?:(?:please|now|ok(?:ay)?)[,\s]+)*(?:build|make|put up|start|stack)\s+"
    r"(?:(?:a|the)\s+(?:tower|stack|pile)\s+)?(?:on|onto)(?:\s+top\s+of)?\s+"
    rf"the\s+(?P<y>[a-z]+)\s+{_CUBE_NOUN}\s*(?::|,|;|\s[-\u2013\u2014]+)\s*"
    + _COLOUR_NP.format(g="a")
    + r"\s+first\s*,?\s+(?:and\s+)?(?:then\s+)?"
    + _COLOUR_NP.format(g="b")
    + r"(?:\s+(?:after it|after that|next|last|on top|second))?\s*[.!]?$",
    re.I,
)


def tower_on(text: str, cube_colours: frozenset[str]) -> str:
    """ "Build a tower on the blue cube: red first, then green." -> "put the red cube on the
    blue cube, then put the green cube on the red cube." (three colours of the scene's
    cubes, each once)."""
    m = _TOWER_ON.match(text.strip())
    if m is None:
        return text
    y, a, b = (m[g].lower() for g in ("y", "a", "b"))
    if len({y, a, b}) != 3 or not {y, a, b} <= cube_colours:
        return text
    return f"put the {a} cube on the {y} cube, then put the {b} cube on the {a} cube."


_NEVER_MIND_TWO = re.compile(
    r"^(?:never\s+mind|forget(?:\s+about)?|ignore)\s+(?P<two>the\s+two\s+"
    rf"{_CUBE_NOUN}e?s\s+(?:at|in)\s+the\s+(?:back|rear))\s*(?P<sep>[;,:]|\s[-\u2013\u2014]+|"
    r"\s+and\b)\s*(?P<verb>\w+)\s+the\s+(?:front|other|remaining|third)\s+"
    rf"(?P<n>one|{_CUBE_NOUN})\b",
    re.I,
)


def never_mind_two(text: str) -> str:
    """ "Never mind the two cubes at the back; push the front one onto P" -> "leave the two
    cubes at the back alone; push the other one onto P" (the group set aside, then the one
    cube not in it)."""
    m = verb_led(_NEVER_MIND_TWO, text)
    if m is None:
        return text
    rest = text.strip()[m.end() :]
    return f"leave {m['two']} alone; {m['verb']} the other {m['n']}{rest}"


_PAD_RULED_OUT = re.compile(
    r"^(?:(?:don'?t|do not)\s+use|leave|avoid|not|keep away from|stay off)\s+the\s+"
    rf"(?P<q>[a-z]+)\s+{_PAD_NOUN}(?:\s+out(?:\s+of\s+(?:it|this))?)?(?:[,\s]+please)?\s*"
    r"(?:[.;:!]|\s[-\u2013\u2014]+|,)\s*(?P<rest>.+)$",
    re.I,
)
_A_PAD = re.compile(rf"\b(?:a|either|any)\s+{_PAD_NOUN}\b|\bone\s+of\s+the\s+{_PAD_NOUN}s\b", re.I)


def other_pad_left(text: str, places: tuple[tuple[str, ...], ...]) -> str:
    """ "Don't use the right pad. Put the red cube on a pad." -> "Put the red cube on the
    left pad." (``places``: each place's words; of two, the one not ruled out)."""
    m = _PAD_RULED_OUT.match(text.strip())
    if m is None or len(places) != 2 or not _A_PAD.search(m["rest"]):
        return text
    q = m["q"].lower()
    left = [words for words in places if q not in words]
    if len(left) != 1:
        return text
    rest = _A_PAD.sub(f"the {left[0][0]} pad", m["rest"], count=1)
    return _upper_first(rest)


_MIND_ADVERB = re.compile(
    r"\b(?P<head>(?:would|do|will)\s+you\s+mind)\s+(?:terribly|awfully|very\s+much|much|"
    r"at\s+all|so\s+much|too\s+much)\s+(?=\w+ing\b)",
    re.I,
)


def mind_adverb(text: str) -> str:
    """ "Would you mind terribly moving X ..." -> "Would you mind moving X ..." (an adverb
    of the polite frame, which the frame's reading then takes off)."""
    return _MIND_ADVERB.sub(lambda m: m["head"] + " ", text)


_NO_PUSH_FIRST = re.compile(
    r"^(?:don'?t|do\s+not|no)\s+(?:push|slid|slide|drag|shove|nudg|nudge)(?:e|ing|ging)?\s+it"
    r"(?:[\s,]+please)?\s*(?:[;:,.]|\s[-\u2013\u2014]+)\s*"
    r"(?P<rest>(?:just\s+)?(?:pick|lift|grab|raise|take)(?:\s+up)?\s+the\s+.+)$",
    re.I,
)


def no_push_then_lift(text: str) -> str:
    """ "Don't push it; pick the green cube up and put it on P." -> "pick the green cube up
    and put it on P." (a prohibition said before the cube it is about, of a push, where the
    clause after it lifts the cube it names: nothing in it is a push; "don't push it, lift it:
    X goes onto P" stays)."""
    m = _NO_PUSH_FIRST.match(text.strip())
    return m["rest"] if m else text


_NEVER_MIND_NAMED = re.compile(
    r"^(?:never\s+mind|forget(?:\s+about)?|ignore)\s+the\s+two\s+"
    rf"{_CUBE_NOUN}e?s\s+(?:at|in)\s+the\s+(?:back|rear|front|left|right)\s*(?:[;,:]|\s[-\u2013\u2014]+)"
    r"\s*(?P<rest>(?P<verb>\w+)\s+the\s+(?P<c>[a-z]+)\s+(?:one|"
    rf"{_CUBE_NOUN})\b.*)$",
    re.I,
)


def never_mind_named(text: str, cube_colours: frozenset[str]) -> str:
    """ "Never mind the two cubes at the back, slide the red one onto P." -> "slide the red
    one onto P." (the group set aside, then a cube named by its colour: the step on it)."""
    m = verb_led(_NEVER_MIND_NAMED, text)
    if m is None or m["c"].lower() not in cube_colours:
        return text
    return m["rest"]


_OF_TWO_AT = re.compile(
    r"^(?:(?:out\s+)?of\s+|between\s+)?the\s+(?:two|pair\s+of)\s+(?:(?P<adj>front|back|rear|"
    rf"near(?:er)?|clos(?:er|est)|far(?:ther|thest)?|further|furthest)\s+)?(?:{_CUBE_NOUN}e?s)"
    r"(?:\s+(?P<at>(?:at|in)\s+the\s+(?:back|rear|front)))?\s*(?:,|;|:|\s[-\u2013\u2014]+)\s*"
    rf"(?P<verb>\w+)\s+the\s+(?:(?:one|{_CUBE_NOUN})\s+(?:(?:further|farther|more)\s+"
    r"(?:to\s+the\s+)?|on\s+the\s+)(?P<s>left|right)|(?P<s2>left|right)(?:-hand)?\s+"
    rf"(?:one|{_CUBE_NOUN}))\b",
    re.I,
)
_BACK_WORD = re.compile(r"back|rear|far|further|furthest", re.I)


def of_two_at(text: str) -> str:
    """ "Of the two cubes at the back, push the left one onto P." -> "push the cube on the
    left of the two at the back onto P." (the group said first, by where it stands or as the
    front / nearer / back two, then one of it by a side; read by
    :func:`~miles_ros.agent.reference_stacked._side_of_two`)."""
    m = _OF_TWO_AT.match(text.strip())
    if m is None or not (m["at"] or m["adj"]) or not verb_of(m["verb"]):
        return text
    at = m["at"] or f"at the {'back' if _BACK_WORD.match(m['adj']) else 'front'}"
    side = (m["s"] or m["s2"]).lower()
    rest = text.strip()[m.end() :]
    return f"{m['verb']} the cube on the {side} of the two {at}{rest}"


_HOME_ALONE = re.compile(
    r"^(?P<word>[a-z]+)(?:[\s,]+(?:now|please|pls|plz|thanks|thx|again))*\s*[.!]*$", re.I
)


def home_alone_typo(text: str) -> str:
    """ "hme, thanks" -> "go home" (a goal of one word one edit from "home", its first letter
    kept, and no word of its own: "hope" stays)."""
    m = _HOME_ALONE.match(text.strip())
    return "go home" if m is not None and home_misspelt(m["word"]) else text


def recast(
    text: str,
    cube_colours: frozenset[str] = frozenset(),
    places: tuple[tuple[str, ...], ...] = (),
) -> str:
    """``text`` with held-out 19's structures said plainly (see the module);
    ``cube_colours``: the colours the scene's cubes are named by; ``places``: each place's
    words, its side then its colour."""
    text = home_alone_typo(held_off(mind_adverb(text)))
    text = no_push_then_lift(never_mind_named(of_two_at(text), cube_colours))
    text = tower_on(never_mind_two(other_pad_left(text, places)), cube_colours)
    text = that_pad_there(off_table(reached_there(arm_over(text))))
    return text
