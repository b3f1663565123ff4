"""A move said once, however many clauses say it (:func:`miles_ros.agent.wording.plain_wording`
runs :func:`said_once` on the goal first). Grammar, not goals; each rule is a frame and what it
means:

- a participle clause closing a clause that moves a cube to a place (", lifting it (over /
  clear of X)", ", picking it up first", ", carrying it over the X one", "by lifting it")
  says HOW that move is done, never a second move: ", by lifting it" (the lift; ", sliding
  it" the push). X after "over / clear of" is what the lift passes, never a target;
- "lift / raise / pick / hoist X (up / off the table) and lower / set / put / place / drop
  it (down) onto P" is one placing ("pick up X and put it onto P");
- "the top / upper / bottom ... cube, the C one," names the cube twice: "the C cube";
- a clause that restates the placing just said adds nothing: "(-|,|;) stack / pile / put
  them (up) like that / that way / like so", ", C (up) on top / at the top", "; C goes at
  the top", ", so C ends up on top", where C is the cube that placing puts on top;
- a pad said by its colour with "one", a demonstrative or "-wards", C a pad's colour and no
  cube's: "the C one" after a preposition of place or in a contrast with a pad ("not the Q
  pad(,) (but) the C one", "the C one, not the Q pad") -> "the C pad"; "that / this
  C pad" -> "the C pad"; "C-pad-wards" -> "towards the C pad"; the contrast fronted ("the C
  one, not the Q pad - V X there") said as "not the Q pad, the C pad - ...";
- "the cube (out / way out) on / at the far left / right (side / end)" is "the leftmost /
  rightmost cube";
- "don't put X on a / any pad; V it ..." is "V X ..." (the negated placing's "a pad" names
  no pad: the clause after it says where X goes); "not onto a pad - V X ..." likewise;
- "C cube over there" heading a goal: "over there" only points at the cube named;
- "stack / pile them (all) (up): B at the bottom, X on B, Y on X" is the placings said
  after the colon ("them all" is every cube; the order is the one given).
"""

from __future__ import annotations

import re

from miles_ros.agent.phrases import CUBE_NOUNS, PAD_NOUNS
from miles_ros.agent.scene_colours import cube_colours, pad_colours
from miles_ros.agent.world import World

_CUBE = rf"(?:{'|'.join(CUBE_NOUNS)})"
_PAD = rf"(?:{'|'.join(PAD_NOUNS)})"
_LIFTING = r"(?:lifting|picking|raising|carrying|hoisting|grabbing|grasping)"
_SLIDING = r"(?:sliding|pushing|shoving|nudging|dragging)"
_PASSED = (
    r"(?:\s+(?:over|above|across|clear\s+of|past)\s+(?:the\s+(?:top\s+of\s+(?:the\s+)?)?)?[a-z]+"
    rf"(?:\s+(?:one|{_CUBE}))?)?"
)
_MANNER = re.compile(
    rf"\s*,\s*(?:(?:by|while|just)\s+)?(?P<way>{_LIFTING}|{_SLIDING})\s+it(?:\s+up)?"
    rf"(?:\s+(?:off\s+the\s+table|along(?:\s+the\s+table)?))?{_PASSED}"
    r"(?:\s+(?:up\s+)?(?:first|to\s+do\s+so|on\s+the\s+way|as\s+you\s+go))?(?=\s*(?:[.!;]|$))",
    re.I,
)
"""A participle clause of manner closing the clause ("..., lifting it over red")."""
_MOVED_TO = re.compile(r"\b(?:on|onto|to|on\s+top\s+of|over\s+to|across\s+to|towards?)\b", re.I)
_BY_MANNER = re.compile(
    rf"\s+by\s+(?P<way>{_LIFTING}|{_SLIDING})\s+it(?:\s+up)?{_PASSED}(?=\s*(?:[.!;,]|$))", re.I
)
_LIFT_LOWER = re.compile(
    r"\b(?:lift|raise|pick|hoist|grab)\s+(?:up\s+)?(?P<np>(?:the\s+)?[a-z]+(?:\s+(?:one|"
    rf"{_CUBE}))?)(?:\s+(?:up|off\s+the\s+table))?\s*,?\s*(?:and\s+)?(?:then\s+)?"
    r"(?:lower|set|put|place|drop|lay|rest)\s+it(?:\s+(?:back\s+)?down)?\s+"
    r"(?P<prep>onto|on\s+top\s+of|on|to)\b",
    re.I,
)
_APPOSITIVE = re.compile(
    rf"\bthe\s+(?:top|upper|uppermost|topmost|bottom|lower|lowest|left|right|front|back|near|far)"
    rf"\s+(?:{_CUBE}|one)\s*(?:,|\s[-\u2013\u2014]+)\s*the\s+(?P<c>[a-z]+)\s+(?:one|{_CUBE})"
    r"\s*(?:,|\s[-\u2013\u2014]+)\s*",
    re.I,
)
_RESTATED = re.compile(
    r"\s*(?:,|;|\s[-\u2013\u2014]+)\s*(?:and\s+|so\s+)?(?:stack|pile|put|set|place|arrange)\s+them"
    r"(?:\s+up)?\s+(?:like\s+(?:that|so|this)|that\s+way|this\s+way)(?=\s*(?:[.!;,]|$))",
    re.I,
)
_ON_TOP = (
    r"\s*(?:,|;|\s[-\u2013\u2014]+)\s*(?:so\s+(?:that\s+)?)?(?:with\s+)?(?:the\s+)?(?P<c>[a-z]+)(?:\s+(?:one|"
    rf"{_CUBE}))?\s+(?:(?:goes|sits|ends\s+up|is|should\s+be)\s+)?(?:up\s+(?:(?:on|at)\s+(?:the\s+)?)?|"
    r"(?:on|at)\s+(?:the\s+)?)(?:very\s+)?top(?=\s*(?:[.!;]|$))"
)
_PLACED_ON = r"\b(?:the\s+)?(?P<a>[a-z]+)(?:\s+(?:one|{cube}))?\s+(?:goes\s+|on(?:to)?\b|atop\b)"
_FAR_SIDE = re.compile(
    rf"\bthe\s+(?P<n>{_CUBE}|one)\s+(?:(?:out|over|way\s+out|way\s+over)\s+)?(?:on|at|to)\s+the\s+"
    r"(?:far|very|extreme)\s+(?P<s>left|right)(?:(?:\s+|-)(?:hand\s+)?(?:side|end|edge))?\b",
    re.I,
)
_NOT_ON_A_PAD = re.compile(
    rf"^\s*(?:please\s+)?(?:don'?t|do\s+not|never)\s+(?:put|place|set|move|lift|push|drop)\s+"
    rf"(?P<np>(?:the\s+)?[a-z]+(?:\s+(?:one|{_CUBE}))?)\s+(?:on|onto|to|on\s+top\s+of)\s+"
    rf"(?:a|any|either)\s+{_PAD}s?(?:\s+at\s+all)?\s*(?:[;,:]|\s[-\u2013\u2014]+)\s*"
    r"(?:(?:just|instead|rather|but)\s*,?\s+)?(?P<verb>[a-z]+)\s+it\b",
    re.I,
)
_NOT_ONTO_A_PAD = re.compile(
    rf"^\s*not\s+(?:on|onto|to)\s+(?:a|any|either)\s+{_PAD}s?\s*(?:[;,:]|\s[-\u2013\u2014]+)\s*",
    re.I,
)
_STACK_ALL = re.compile(
    r"^\s*(?:please\s+)?(?:stack|pile|tower)\s+(?:them|them\s+all|all\s+of\s+them|(?:all|every)\s+"
    rf"(?:the\s+)?(?:{_CUBE}e?s?|one))(?:\s+up)?\s*(?::|;|\s[-\u2013\u2014]+)\s*(?:the\s+)?"
    rf"(?P<b>[a-z]+)(?:\s+(?:one|{_CUBE}))?\s+(?:at|on|goes\s+(?:at|on))\s+the\s+bottom\s*,\s*"
    r"(?:then\s+)?(?=(?:the\s+)?(?P<a>[a-z]+)\s+(?:\w+\s+)?on\s+(?:top\s+of\s+)?(?:the\s+)?(?P=b)\b)",
    re.I,
)


def said_once(goal: str, world: World) -> str:
    """``goal`` with each move said once (see the module)."""
    cubes = cube_colours(world)
    pads = {c for _, c in pad_colours(world) if c} - cubes
    text = _manner(goal)
    text = _LIFT_LOWER.sub(
        lambda m: (
            f"pick up {m['np']} and put it {m['prep']}" if _names_cube(m["np"], cubes) else m[0]
        ),
        text,
    )
    text = _APPOSITIVE.sub(
        lambda m: f"the {m['c']} cube " if m["c"].lower() in cubes else m[0], text
    )
    text = _restated(text, cubes)
    text = _pad_by_colour(text, pads)
    text = _FAR_SIDE.sub(lambda m: f"the {m['s'].lower()}most {m['n']}", text)
    text = _NOT_ON_A_PAD.sub(
        lambda m: f"{m['verb']} {m['np']}" if _names_cube(m["np"], cubes) else m[0], text
    )
    text = _NOT_ONTO_A_PAD.sub("", text)
    text = _over_there(text, cubes)
    return _STACK_ALL.sub(lambda m: "" if m["b"].lower() in cubes else m[0], text)


def _names_cube(np: str, cubes: frozenset[str]) -> bool:
    words = np.lower().split()
    words = words[1:] if words[0] == "the" else words
    return words[0] in cubes


def _manner(text: str) -> str:
    """ ", lifting it (over X)" closing a clause that moves a cube to a place: " by lifting it"
    (", sliding it": " by pushing it"); "by lifting it over X": "by lifting it"."""

    def way(m: re.Match) -> str:
        head = text[: m.start()]
        clause = re.split(r"[.;!?]|\bthen\b", head)[-1]
        if not _MOVED_TO.search(clause):
            return m[0]
        lifts = re.match(_LIFTING, m["way"], re.I)
        return " by lifting it" if lifts else " by pushing it"

    text = _MANNER.sub(way, text)
    return _BY_MANNER.sub(
        lambda m: " by lifting it" if re.match(_LIFTING, m["way"], re.I) else " by pushing it",
        text,
    )


def _restated(text: str, cubes: frozenset[str]) -> str:
    """A clause restating the placing before it ("stack them like that", "red up top")
    dropped where that placing puts the same cube on top."""
    text = _RESTATED.sub("", text)
    on_top = re.compile(_ON_TOP, re.I)

    def top(m: re.Match) -> str:
        c = m["c"].lower()
        if c not in cubes:
            return m[0]
        head = text[: m.start()]
        placed = re.compile(_PLACED_ON.format(cube=_CUBE), re.I)
        firsts = [p["a"].lower() for p in placed.finditer(head)]
        put = re.search(
            rf"\b(?:put|place|set|stack|pile|lift|move)\s+(?:the\s+)?{c}\b", head, re.I
        )
        return "" if (firsts and firsts[0] == c) or put else m[0]

    return on_top.sub(top, text)


def _pad_by_colour(text: str, pads: set[str]) -> str:
    """A pad said by its colour with "one", a demonstrative or "-wards" (see the module):
    ``pads`` the pads' colours no cube has."""
    if not pads:
        return text
    c = "|".join(sorted(pads, key=len, reverse=True))
    text = re.sub(
        rf"\b(?P<c>{c})-(?P<n>{_PAD})-?wards?\b",
        lambda m: f"towards the {m['c']} {m['n']}",
        text,
        flags=re.I,
    )
    text = re.sub(
        rf"\b(?:that|this)\s+(?P<c>{c})\s+(?P<n>{_PAD})\b",
        lambda m: f"the {m['c']} {m['n']}",
        text,
        flags=re.I,
    )
    text = re.sub(rf"\bthe\s+(?P<c>{c})\s+one\b", lambda m: _one_as_pad(m, text), text, flags=re.I)
    return re.sub(
        rf"^\s*the\s+(?P<c>{c})\s+(?P<n>{_PAD})\s*,?\s+(?:and\s+)?not\s+the\s+(?P<d>[a-z]+)\s+"
        rf"(?:one|{_PAD})(?P<b>\s*(?::|;|,|\s[-\u2013\u2014]+)\s*)",
        lambda m: f"Not the {m['d']} {m['n']}, the {m['c']} {m['n']}{m['b']}",
        text,
        flags=re.I,
    )


def _one_as_pad(m: re.Match, text: str) -> str:
    """ "the C one" as "the C pad", but not as a predicate ("which mat's / is the grey one?":
    the question's own noun, read by its rules)."""
    before = text[: m.start()]
    contrast = re.search(
        rf"\bnot\s+the\s+[a-z]+\s+{_PAD}\s*(?:,|;|\s[-\u2013\u2014]+)?\s*(?:but\s+)?$",
        before,
        re.I,
    )
    placed = re.search(
        r"\b(?:on|onto|to|towards?|over|above|into|on\s+top\s+of)\s+$", before, re.I
    )
    after = re.match(rf"\s*,?\s+(?:and\s+)?not\s+the\s+[a-z]+\s+{_PAD}\b", text[m.end() :], re.I)
    return f"the {m['c']} pad" if contrast or placed or after else m[0]


def _over_there(text: str, cubes: frozenset[str]) -> str:
    """ "C cube over there" heading a goal: the cube named; "over there" points at it."""
    if not cubes:
        return text
    c = "|".join(sorted(cubes, key=len, reverse=True))
    return re.sub(
        rf"^(?P<np>\s*(?:the\s+)?(?:{c})\s+(?:{_CUBE}|one))\s+(?:over\s+)?there\b",
        lambda m: m["np"],
        text,
        flags=re.I,
    )
