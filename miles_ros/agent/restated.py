"""Goals that say a thing once and then restate it, said as the plain clauses the rest of the
reading is written for (:func:`miles_ros.agent.clauses.plain_clauses` runs
:func:`restated` first, on the whole goal):

- a place corrected after a dash, a comma or dots, with its preposition said again ("put X
  on Q - no wait, sorry, on P", "onto Q, hang on, no: onto P"): the place said last, one
  step (:func:`place_fixed`);
- a point said with its coordinates' names ("x=0.6, y=-0.2, z=0.1", "x 0.6 y -0.2 z 0.1",
  "x: 0.6, y: ..."): "x 0.6, y -0.2, z 0.1", and "go to" it a move of the gripper
  (:func:`point_plain`);
- a list of places, then one verb for each ("First P, then Q, then R - hover over each",
  "P first, next Q: go above each of them"): the verb said with each, in the order listed
  (:func:`each_listed`);
- the order said by a correction ("A, then B - no, do B first", where B is said again or
  as "the X one" of B): "B, then A" (:func:`order_fixed`); "before that though" as
  "before that"; "Start by / begin by doing A" as "First, do A";
- two clauses, then "but do the X one first": the clause on X first (:func:`done_first`);
  a thing said by colour, then again in a dash apposition ("the green cube - the one at the
  bottom there - on ..."): the colour (:func:`apposed`);
- "VERB every cube except X, Y first": the verb on Y, then on the cube left
  (:func:`all_but_first`; the scene's three cube colours given).

Grammar, not goals: each pattern is built from prepositions, determiners, order words and
the marks of a change of mind, with a noun phrase slot.
"""

from __future__ import annotations

import re

from miles_ros.agent.clause_grammar import _upper_first, then_said, verb_of
from miles_ros.agent.scene_colours import COLOUR

_PREP = r"(?:on top of|onto|on to|on|into|over to|across to|to|over|above)"
_DET_NP = r"(?:the|that|this)\s+[^,;:.!?\u2013\u2014]+?"
_MARK_WORD = (
    r"(?:no+|nope|wait|sorry|oops|actually|hang on|hold on|i mean|i meant|or rather|rather|"
    r"my mistake|my bad|make (?:that|it)|scratch that)"
)
_MARKS = rf"{_MARK_WORD}(?:(?:\s*[,:]\s*|\s+|\s[-\u2013\u2014]+\s*){_MARK_WORD})*"
_PLACE_FIXED = re.compile(
    rf"\b{_PREP}\s+{_DET_NP}(?:\s*(?:,|\.{{2,}}|\u2026)\s*|\s[-\u2013\u2014]+\s*){_MARKS}"
    rf"(?:\s*[,:]\s*|\s[-\u2013\u2014]+\s*|\s+)(?P<prep>{_PREP})\s+(?=(?:the|that|this)\s)",
    re.I,
)


def place_fixed(text: str) -> str:
    """A place corrected with its preposition said again: "Put the red cube on the green
    cube - no wait, sorry, on the blue cube." -> "Put the red cube on the blue cube."."""
    return _PLACE_FIXED.sub(lambda m: f"{m['prep']} ", text)


_NUMBER = r"([-+]?\d*\.?\d+)"
_NAMED_POINT = re.compile(
    rf"\bx\s*(?:=|:|is)?\s*{_NUMBER}\s*,?\s*(?:and\s+)?y\s*(?:=|:|is)?\s*{_NUMBER}\s*,?\s*"
    rf"(?:and\s+)?z\s*(?:=|:|is)?\s*{_NUMBER}(?!\d|\.\d)",
    re.I,
)


_GO_TO_POINT = re.compile(
    r"\b(?:go|head|travel|come|get|move)(?:\s+(?:over|up|down|across))?\s+to\s+(?:the\s+)?"
    r"(?:(?:position|point|spot|location|coordinates?)\s+(?:at\s+|of\s+)?)?(?=x [-+]?\d*\.?\d)",
    re.I,
)


_POINT_NOUN = re.compile(
    r"\b(?:the\s+)?(?:position|point|spot|location|coordinates?)\s+(?:at\s+|of\s+)?"
    r"(?=x [-+]?\d*\.?\d)",
    re.I,
)


def point_plain(text: str) -> str:
    """A point said with its coordinates' names the way the dev sets say it: "x=0.6, y=-0.2,
    z=0.1", "x: 0.6 y: -0.2 z: 0.1" -> "x 0.6, y -0.2, z 0.1"; "go to (the position) <it>"
    -> "move the gripper to <it>" (going to a point is a reach, never going home); a noun
    before the named point is left out ("at the spot x 0.5, ..." -> "at x 0.5, ...")."""
    text = _NAMED_POINT.sub(lambda m: f"x {m[1]}, y {m[2]}, z {m[3]}", text)
    return _POINT_NOUN.sub("", _GO_TO_POINT.sub("move the gripper to ", text))


_ORDER_WORD = r"(?:first(?:ly)?|then|next|after that|and then|and finally|finally|lastly|and)"
_EACH_VERB = (
    r"(?P<verb>hover (?:over|above)|go (?:over|above|to)|stop (?:over|above|at)|visit|reach|"
    r"(?:move|take|bring|put) (?:your|the) (?:gripper|hand) (?:over|above|to))"
)
_EACH = re.compile(
    rf"^(?P<list>[^.;:!?]+?)\s*(?:[-\u2013\u2014:,]|\s[-\u2013\u2014]+)\s*(?:and\s+|then\s+|now\s+)?"
    rf"{_EACH_VERB}\s+(?:each(?:\s+one|\s+of\s+them)?|every\s+one(?:\s+of\s+them)?|them\s+all|"
    r"all\s+of\s+them|all\s+three|both(?:\s+of\s+them)?|them(?:\s+each)?)(?:\s+in\s+turn)?"
    r"(?:\s*,?\s*please)?\s*(?P<end>[.!]?)$",
    re.I,
)
_ITEM = re.compile(
    rf"^(?:{_ORDER_WORD}\s*,?\s+)*(?P<np>{_DET_NP})(?:\s*,?\s+{_ORDER_WORD})*$", re.I
)


def each_listed(text: str) -> str:
    """A list of places, then one verb for each: "First the left pad, then the right pad,
    then the red cube - hover over each." -> "hover over the left pad, then hover over the
    right pad, then hover over the red cube."; two to four noun phrases, each opening with a
    determiner, with order words and commas between them."""
    m = _EACH.match(text.strip())
    if m is None:
        return text
    items = re.split(
        r"\s*,\s*|(?<!\band)\s+(?=(?:and\s+)?(?:then|next|finally|lastly)\b)", m["list"]
    )
    nps = []
    for item in (i.strip() for i in items if i.strip()):
        said = _ITEM.match(item)
        if said is None or re.search(r"\b(?:and|then)\b", said["np"], re.I):
            return text
        nps.append(said["np"])
    if not 2 <= len(nps) <= 4:
        return text
    verb = m["verb"].lower()
    said = ", then ".join(f"{verb} {np}" for np in nps)
    return _upper_first(said) + (m["end"] or ".")


_THEN_FIXED = re.compile(
    r"^(?P<a>[^,;.!?]+?)(?:\s*,\s*(?:and\s+)?then|\s+and\s+then|\s+then)\s+(?P<b>[^,;.!?]+?)"
    rf"(?:\s*[,;.]\s*|\s[-\u2013\u2014]+\s*){_MARKS}\s*[,:]?\s*(?:(?:do|go for|start with)\s+)?"
    r"(?P<c>[^,;.!?]+?)\s+first\s*(?P<end>[.!]?)$",
    re.I,
)


def _with_verb_of(a: str, b: str) -> str | None:
    """Clause ``b`` with clause ``a``'s verb (and preposition) before it when ``b`` opens with
    a determiner ("hover above the blue cube", "the green one" -> "hover above the green
    one"); ``b`` as said otherwise; None when ``a`` has no determiner to cut at."""
    if not re.match(r"(?:the|that|this)\b", b, re.I):
        return b
    head = re.match(r"^(?P<head>.+?)\b(?:the|that|this)\b", a, re.I)
    return head["head"] + b if head else None


_THAT_ONE = re.compile(r"\b(?:the|that|this)\s+(\w+)\s+(?:one|cube|block)\b", re.I)


def order_fixed(text: str) -> str:
    """The order changed by a correction: "Hover above the blue cube and then the green one
    - no, do the green one first." -> "Hover above the green one, then hover above the blue
    cube."; "A, then B - no, hold on, B first" -> "B, then A". The thing said first must be
    the second clause again, or its "the X one"."""
    m = _THEN_FIXED.match(text.strip())
    if m is None:
        return text
    a, b, c = (m[k].strip() for k in "abc")
    same = c.lower() == b.lower()
    if not same:
        cs, bs = _THAT_ONE.fullmatch(c), _THAT_ONE.search(b)
        same = bool(cs and bs and cs[1].lower() == bs[1].lower())
    if not same:
        return text
    if re.match(r"(?:the|that|this)\b", a, re.I):
        return text
    b = _with_verb_of(a, b)  # "A and then the green one": A's verb
    if b is None:
        return text
    return then_said(b, a, m["end"] or ".")


_BEFORE_THOUGH = re.compile(
    r"\b(before|prior to)\s+(that|this)\s*,?\s+(?:though|mind you|however)\b", re.I
)
_START_BY = re.compile(
    r"(?P<lead>[.;!]\s+)(?:start|begin)(?:\s+off)?\s+by\s+(?P<verb>[a-z]+ing)\b", re.I
)


def _order_words(text: str) -> str:
    """ "before that though" -> "before that"; "A. Start by stacking X" -> "A. First, stack
    X" (a sentence after another: "start by" opening the goal is read as it was)."""
    text = _BEFORE_THOUGH.sub(lambda m: f"{m[1]} {m[2]}", text)

    def start(m: re.Match) -> str:
        verb = verb_of(m["verb"])
        if verb is None:
            return m[0]
        return f"{m['lead']}First, {verb}"

    return _START_BY.sub(start, text)


_ALL_BUT = re.compile(
    r"^(?P<verb>[^,;.!?]+?)\s+(?:every|each|all(?:\s+of)?\s+the|all)\s+(?:cube|block)s?\s+"
    r"(?:except(?:\s+for)?|but|apart\s+from|other\s+than|besides)\s+the\s+(?P<x>\w+)"
    r"(?:\s+(?:one|cube|block))?\s*,\s*(?:(?:starting|beginning)\s+with\s+)?(?:the\s+)?(?P<y>\w+)"
    r"(?:\s+(?:one|cube|block))?(?:\s+first)?\s*(?P<end>[.!]?)$",
    re.I,
)


def all_but_first(text: str, colours: frozenset[str]) -> str:
    """ "Hover over every cube except the red one, green first" -> "Hover over the green
    cube, then hover over the blue cube" (the scene's three cube colours: the one neither
    set aside nor said first is last); anything else unchanged."""
    m = _ALL_BUT.match(text.strip())
    if m is None or len(colours) != 3:
        return text
    x, y = m["x"].lower(), m["y"].lower()
    if x == y or not {x, y} <= colours:
        return text
    (z,) = colours - {x, y}
    verb = m["verb"]
    return f"{verb} the {y} cube, then {verb[:1].lower()}{verb[1:]} the {z} cube{m['end'] or '.'}"


def restated(text: str, colours: frozenset[str] = frozenset()) -> str:
    """``text`` with each structure of the module said plainly (``colours``: the scene's
    cube colours)."""
    text = point_plain(place_fixed(others_still(of_the_n(related(text)))))
    text = all_but_first(order_fixed(each_listed(done_first(apposed(text)))), colours)
    return _order_words(text)


# -- referents said by a relation, "of the three", "only X moving" (scene-free) -------------
_REL_NOUN = r"(?:cube|block|box|brick|one)"
_PARTICIPLE = (
    r"(?:sitting|standing|resting|lying|placed|parked|that'?s|that is|which is|which'?s|"
    r"that sits|that stands)"
)
_RELATED = re.compile(
    rf"\b(?:(?:the|that|this)\s+(?P<noun>{_REL_NOUN})\s+{_PARTICIPLE}\s+|(?:that|this)\s+"
    rf"(?P<noun2>{_REL_NOUN})\s+)(?:(?P<adv>just|directly|immediately)\s+|right\s+)?"
    r"(?P<rel>to the (?:left|right) of|on the (?:left|right) of|"
    r"(?:left|right) of|behind|in front of|(?:in )?between)\s+(?=the\s)",
    re.I,
)
_BETWEEN_ONES = re.compile(
    r"\bbetween the (?P<a>\w+)(?: (?:cube|block|one))? and (?:the )?(?P<b>\w+) "
    r"(?:cubes|blocks|ones)\b",
    re.I,
)


def related(text: str) -> str:
    """A cube named by its relation to another, as the referent: "that block sitting to the
    right of the green one" -> "the block to the right of the green one" (a participle or
    "that" before the relation; "just / directly / immediately" kept before a side, where it
    picks the nearest; "the one between ..." as said); "between the
    green and blue ones" -> "between the green one and the blue one"."""
    text = _BETWEEN_ONES.sub(lambda m: f"between the {m['a']} one and the {m['b']} one", text)

    def said(m: re.Match) -> str:
        rel = m["rel"].lower()
        rel = "between" if rel.endswith("between") else rel
        noun = m["noun"] or m["noun2"]
        noun = "cube" if noun.lower() == "one" else noun
        if m["adv"] and rel.endswith(("left of", "right of")):  # "just left of": the nearest
            rel = f"{m['adv'].lower()} {rel}"
        return f"the {noun} {rel} "

    return _RELATED.sub(said, text)


_OF_THE_N = re.compile(
    r"(?P<lead>^|[.;!?]\s+)(?:out\s+)?of\s+(?:all\s+(?:of\s+)?)?(?:the|all|these|those)\s+"
    r"(?:(?:two|three|four|"
    r"\d)\s+)?(?:cubes|blocks|boxes|bricks)(?:\s+(?:here|there|on the table))?\s*,"
    r"(?!\s*(?:which|what)\b)\s*",
    re.I,
)


def of_the_n(text: str) -> str:
    """ "Of the three cubes, the one furthest back - ..." -> "the one furthest back - ...":
    the set the cube is picked from is every cube of the scene (a question "of the three,
    which ...?" is left to the question's reading)."""
    return _OF_THE_N.sub(lambda m: m["lead"], text)


_OTHERS_STAY = re.compile(
    r"(?:\s*[,;:.]\s*|\s+[-\u2013\u2014]+\s+)(?:and\s+|but\s+)?(?:the others|the rest|the "
    r"other (?:two |ones?|cubes?|blocks?)(?:cubes|blocks)?|everything else|all the others)\s+"
    r"(?:should |must |will |can |need to |have to |are to )?(?:stay|remain|be left|are staying|"
    r"keep still|stays)\s+(?:exactly |right |just )?(?:put|still|where they are|in place|as "
    r"they are|untouched|alone)(?:\s+(?:today|for now|please))*(?=\s*(?:[,;:.!]|\s[-\u2013\u2014]"
    r"|$))",
    re.I,
)
_ONLY = re.compile(r"\bonly\b", re.I)


def others_still(text: str) -> str:
    """ "I only want the red cube moving - the others stay exactly where they are - so put
    it ..." -> "I only want the red cube moving - so put it ...": with "only" said, the
    others staying is what "only" already says, and "it" then points at the cube said."""
    if not _ONLY.search(text):
        return text
    return _OTHERS_STAY.sub("", text)


# -- a cube named by the one it stands on, the next one down (the scene's towers) ----------
_STANDS = r"(?:sitting|standing|resting|stacked|perched|lying|placed)"
_ON_CUBE = re.compile(
    rf"\b(?:the|that|this)\s+{_REL_NOUN}\s+(?:(?:that'?s|that is|which is)\s+(?:{_STANDS}\s+)?|"
    rf"(?:that|which)\s+(?:sits|stands|rests)\s+|{_STANDS}\s+)(?:on top of|on|upon|atop)\s+"
    rf"the\s+(?P<colour>\w+)\s+{_REL_NOUN}\b",
    re.I,
)
_ON_TOP = re.compile(
    rf"\b(?:the|that|this)\s+{_REL_NOUN}\s+(?:on\s+top\s+of|atop)\s+the\s+(?P<colour>\w+)\s+"
    rf"{_REL_NOUN}\b",
    re.I,
)
"""A cube named by the cube it stands on with no "that is" or "sitting" ("the cube on top of
the blue one"): a name where it opens the goal or another place follows in its clause."""
_WAS_ON = re.compile(
    rf"\bthe\s+{_REL_NOUN}\s+(?:(?:that|which)\s+)?(?:it|the\s+(?P<c>\w+)\s+{_REL_NOUN})\s+"
    rf"(?:was|had\s+been|used\s+to\s+be)\s+(?:(?:just|still)\s+)?(?:{_STANDS}\s+)?"
    r"(?:on\s+top\s+of|on|upon|atop)\b",
    re.I,
)
"""The cube another stood on when the goal was said ("the cube it was sitting on", "the block
the red one had been resting on"): the one under it in the scene's tower ("it": the last
cube named before, one that stands on another)."""
_NAMED_CUBE = re.compile(r"\bthe\s+(\w+)\s+(?:cube|block|box|brick)\b", re.I)
_PLACE_AFTER = re.compile(r"\b(?:onto|on\s+to|on|to|into|over\s+to|across\s+to)\s+the\b", re.I)
_TOP = re.compile(
    r"\bthe\s+(?:top|topmost|uppermost|highest)\s+(?:cube|block|one|brick)\b|\bthe\s+(?:cube|"
    r"block|one)\s+(?:at|on)\s+the\s+top\b",
    re.I,
)
_NEXT_DOWN = re.compile(
    r"\bthe\s+next\s+(?:one|cube|block)(?:\s+(?:down|below|under(?:neath)?|beneath))?\b|"
    r"\bthe\s+(?:one|cube|block)\s+(?:below|under(?:neath)?|beneath)\s+(?:it|that(?:\s+one)?)\b",
    re.I,
)


def stacked_said(text: str, towers: list[list[str]]) -> str:
    """A cube named by the cube it stands on ("the cube sitting on the green one" -> "the red
    cube" where the red cube stands on the green one; left as said when none or several
    do; "the cube on top of the green one" where it opens the goal or another place follows
    in its clause, not "put the cube on top of the green one"; "the cube it / the red one
    was sitting on" -> the cube under that one, "it" the last cube named that stands on
    another), and "the next one (down)" after the top cube of the one tower standing -> the
    cube under that top cube ("the middle one" too, where that tower has three). ``towers``:
    the scene's towers, bottom first, by name."""
    above = {t[i]: t[i + 1] for t in towers for i in range(len(t) - 1)}

    def on(m: re.Match) -> str:
        name = above.get(f"{m['colour'].lower()}_cube")
        return f"the {name.split('_')[0]} cube" if name else m[0]

    text = _ON_CUBE.sub(on, text)

    def on_top(m: re.Match) -> str:  # "the cube on top of the blue one", no "that is"
        after = re.split(r"[,;.!?]|\b(?:then|and)\b", text[m.end() :], maxsplit=1)[0]
        if m.start() != len(text) - len(text.lstrip()) and not _PLACE_AFTER.search(after):
            return m[0]  # "put the cube on top of the blue one": where it goes
        return on(m)

    text = _ON_TOP.sub(on_top, text)
    under = {t[i + 1]: t[i] for t in towers for i in range(len(t) - 1)}

    def was_on(m: re.Match) -> str:  # "the cube it was sitting on": the one under it
        said = m["c"] or next(
            (
                c
                for c in reversed(_NAMED_CUBE.findall(text[: m.start()]))
                if f"{c.lower()}_cube" in under
            ),
            None,
        )
        name = said and under.get(f"{said.lower()}_cube")
        return f"the {name.split('_')[0]} cube" if name else m[0]

    text = _WAS_ON.sub(was_on, text)
    top = _TOP.search(text)
    if top is None or len(towers) != 1 or len(towers[0]) < 2:
        return text
    below = towers[0][-2].split("_")[0]
    head, tail = text[: top.end()], text[top.end() :]
    if len(towers[0]) == 3:  # "the top cube ..., then the middle one": the tower's middle
        tail = _MIDDLE.sub(f"the {below} cube", tail, count=1)
    return head + _NEXT_DOWN.sub(f"the {below} cube", tail, count=1)


_MIDDLE = re.compile(r"\bthe\s+middle\s+(?:one|cube|block)\b(?!\s+of\b)", re.I)


_DO_FIRST = re.compile(
    r"^(?P<a>[^,;.!?]+?)(?:\s*,\s*(?:and\s+)?|\s+and\s+)(?:then\s+)?(?P<b>[^,;.!?]+?)\s*"
    r"(?:,\s*|\s[-\u2013\u2014]+\s*|;\s*|\.\s+)(?:but|and|oh|though)?\s*,?\s*(?:do|start with|"
    r"begin with|handle|deal with|take care of|go for)\s+the\s+(?P<x>\w+)\s+(?:one|cube|block)\s+"
    r"first\s*(?P<end>[.!]?)$",
    re.I,
)


def done_first(text: str) -> str:
    """Two clauses, then one of them said first by its cube: "Put the red cube on the left
    pad and the green cube on the right pad, but do the green one first." -> "put the green
    cube on the right pad, then put the red cube on the left pad" (a clause said without
    its verb takes the first clause's)."""
    m = _DO_FIRST.match(text.strip())
    if m is None:
        return text
    a, b, x = m["a"].strip(), m["b"].strip(), m["x"].lower()
    said = [bool(re.search(rf"\b{re.escape(x)}\b", c, re.I)) for c in (a, b)]
    if said != [False, True]:
        return text
    b = _with_verb_of(a, b)  # "... and the green cube on the right pad"
    if b is None:
        return text
    return then_said(b, a, m["end"] or ".")


_APPOSED = re.compile(
    rf"\b(?P<np>the\s+{COLOUR}\s+{_REL_NOUN})\s+[-\u2013\u2014]+"
    r"\s+the\s+one\s+[^-\u2013\u2014,;.!?]+?\s+[-\u2013\u2014]+\s+",
    re.I,
)


def apposed(text: str) -> str:
    """A thing said by its colour, then again in a dash apposition ("the green cube - the one
    at the bottom there - on the left pad"): the colour names it, the apposition is left
    out."""
    return _APPOSED.sub(lambda m: f"{m['np']} ", text)
