"""Held-out 22's structures, said as the plain clauses the rest of the reading is written for
(:func:`miles_ros.agent.clauses.plain_clauses` runs :func:`retold` on the whole goal first,
before :func:`~miles_ros.agent.resaid.resaid`):

- going home, then staying there ("Return to the home pose and stay there."): going home
  (:func:`home_stayed`);
- a verb with two letters swapped at the start of a clause ("moev", "plcae", "psuh"): the
  verb (:func:`verb_typo`);
- a bare colour as the moved cube ("Put red on the left pad"): "the red cube", for a colour
  of the scene's cubes (:func:`bare_colour`);
- a colour said by a paraphrase ("coloured like the sky", "the colour of grass",
  "yellow-coloured", "the pad whose colour is grey"): the colour (:func:`colour_paraphrased`);
- "the cube that is neither X nor Y": the third colour of the scene's three
  (:func:`neither_nor`);
- "leave the two cubes at the back where they are and V the front one": "V the front cube"
  (the group said by position, "the front one" the remaining cube; :func:`front_one`);
- "A. Actually, do the C cube first, onto P.": "V the C cube onto P, then A" (the step put
  in front; :func:`first_after_all`);
- "bring it back onto Y": "put it on Y" (a placing onto Y, not where it was;
  :func:`brought_back`);
- "move / go to X, then lift it onto Y": "hover over X, then lift X onto Y" ("it" is X;
  :func:`went_then_lifted`);
- "one of the back cubes": "a cube" (which one is asked; :func:`one_of_group`);
- "V the C cube on it" with nothing before it for "it" to name: "on a cube" (which one is
  asked; :func:`on_it_unsaid`);
- "add another cube to the top of the tower": "... on top of the tower" (the tower reading's
  one cube more: refused on a tower three high; :func:`one_more_on_top`);
- "The C cube is alone at the front; put X on it.": "put X on the C cube" (the statement asks
  nothing; :func:`said_then_it`);
- a placing at a point, then "and hold it there": the placing (:func:`held_at_point`);
- "the cube in the middle, counting left to right,": "the cube in the middle"
  (:func:`middle_counted`).

Grammar, not goals: each pattern is a frame (a tail after going home, a
paraphrase of a colour, a group set aside by position, a step put in front with "actually",
a return onto a place, a pronoun after a visit) around noun phrase slots.
"""

from __future__ import annotations

import re

from miles_ros.agent.clause_grammar import _CUBE_NOUN, _PAD_NOUN, _lower_first, _upper_first
from miles_ros.agent.scene_colours import COLOUR

_MOVERS = r"(?:put|place|set|move|lift|push|slide|shove|nudge|stack|drop|carry|take|bring|get)"
_PREP = r"(?:on top of|onto|on to|on|over to|across to|to)"

_HOME_STAYED = re.compile(
    r"\b(?P<home>home(?:\s+(?:pose|position))?)\s*,?\s*(?:and\s+)?(?:then\s+)?"
    r"(?:stay|remain|wait|keep)(?:\s+put)?(?:\s+(?:right\s+)?there)?(?:\s*,?\s*please)?"
    r"(?=\s*[.!]?\s*$)",
    re.I,
)


def home_stayed(text: str) -> str:
    """ "Return to the home pose and stay there." -> "Return to the home pose." (staying
    where going home left the arm is no step of its own)."""
    return _HOME_STAYED.sub(lambda m: m["home"], text)


_VERBS = ("move", "place", "push", "slide", "shove", "lift", "stack", "hover", "put")
_VERB_START = re.compile(
    r"(?:^|(?<=[.;!?]\s)|(?<=\bthen\s)|(?<=\band\s))(?P<word>[a-z]{3,6})\b", re.I
)


def _swapped(word: str, verb: str) -> bool:
    """Whether ``word`` is ``verb`` with two neighbouring letters swapped, the first kept."""
    if len(word) != len(verb) or word == verb or word[0] != verb[0]:
        return False
    diff = [i for i, (a, b) in enumerate(zip(word, verb, strict=True)) if a != b]
    return (
        len(diff) == 2
        and diff[1] == diff[0] + 1
        and word[diff[0]] == verb[diff[1]]
        and (word[diff[1]] == verb[diff[0]])
    )


def verb_typo(text: str) -> str:
    """ "moev the blue cube to the right pad" -> "move the blue cube ..." (a clause's first
    word that is a moving verb with two neighbouring letters swapped, its first letter kept:
    no English word is such a swap of these verbs)."""

    def fix(m: re.Match) -> str:
        word = m["word"]
        verb = next((v for v in _VERBS if _swapped(word.lower(), v)), None)
        if verb is None:
            return word
        return verb.capitalize() if word[0].isupper() else verb

    return _VERB_START.sub(fix, text)


def bare_colour(text: str, cube_colours: frozenset[str]) -> str:
    """ "Put red on the left pad" -> "Put the red cube on the left pad" (a colour of the
    scene's cubes said alone as a moving verb's object)."""
    if not cube_colours:
        return text
    colours = "|".join(sorted(cube_colours))
    return re.sub(
        rf"\b(?P<v>{_MOVERS}) (?P<c>{colours}) (?P<p>{_PREP}) (?=the\b)",
        lambda m: f"{m['v']} the {m['c']} cube {m['p']} ",
        text,
        flags=re.I,
    )


_LIKE = {
    "blue": r"(?:the\s+)?(?:sky|sea|ocean)",
    "green": r"(?:the\s+)?(?:grass|leaves|a\s+leaf|leaf|lime)",
    "red": r"(?:a\s+)?(?:tomato|strawberr(?:y|ies)|blood|cherr(?:y|ies)|fire\s+engine)",
    "yellow": r"(?:a\s+|the\s+)?(?:banana|lemon|sun)",
    "grey": r"(?:the\s+)?(?:ash|slate|concrete|stone)",
}
_NOUN = rf"(?:{_CUBE_NOUN}|{_PAD_NOUN}|one)"
_REL = r"(?:\s+(?:that's|that\s+is|which\s+is|which's))?"
_COLOURED = r"colou?red"
_SOME = r"(?:(?:a|an|the)\s+)?(?:(?!colou?r\b)[a-z]+\s+){0,2}?"  # "a ripe ", "fresh spring "


def colour_paraphrased(text: str) -> str:
    """ "the cube coloured like the sky" -> "the blue cube"; "the block that's the colour of
    grass" -> "the green block"; "the yellow-coloured pad", "the pad whose colour is grey",
    "the mat (that's) coloured grey" -> the colour before the noun."""
    for colour, like in _LIKE.items():
        said = rf"(?:{_COLOURED}\s+like|the\s+colou?r\s+of)\s+{_SOME}{like}"
        text = re.sub(
            rf"\bthe\s+(?P<n>{_NOUN}){_REL}\s+{said}\b",
            lambda m, c=colour: f"the {c} {m['n']}",
            text,
            flags=re.I,
        )
        text = re.sub(
            rf"\bthe\s+{like}[\s-]{_COLOURED}\s+(?P<n>{_NOUN})\b",
            lambda m, c=colour: f"the {c} {m['n']}",
            text,
            flags=re.I,
        )
    text = re.sub(
        rf"\bthe\s+(?P<c>{COLOUR})[\s-]{_COLOURED}\s+(?P<n>{_NOUN})\b",
        lambda m: f"the {m['c']} {m['n']}",
        text,
        flags=re.I,
    )
    return re.sub(
        rf"\bthe\s+(?P<n>{_NOUN})(?:\s+whose\s+colou?r\s+is|{_REL}\s+{_COLOURED})\s+"
        rf"(?P<c>{COLOUR})\b",
        lambda m: f"the {m['c']} {m['n']}",
        text,
        flags=re.I,
    )


def neither_nor(text: str, cube_colours: frozenset[str]) -> str:
    """ "the cube that is neither red nor blue" -> "the green cube" (the one colour of the
    scene's cubes left; kept when that is not one)."""

    def third(m: re.Match) -> str:
        left = sorted(cube_colours - {m["x"].lower(), m["y"].lower()})
        if len(left) != 1 or not {m["x"].lower(), m["y"].lower()} <= cube_colours:
            return m[0]
        noun = m["n"] if m["n"].lower() != "one" else "cube"
        return f"the {left[0]} {noun}"

    return re.sub(
        rf"\bthe\s+(?P<n>{_CUBE_NOUN}|one){_REL}\s+neither\s+(?:the\s+)?(?P<x>\w+)\s+nor\s+"
        rf"(?:the\s+)?(?P<y>\w+)(?:\s+(?:one|{_CUBE_NOUN}))?\b",
        third,
        text,
        flags=re.I,
    )


def _group(k: str) -> str:
    """ "the two cubes at the back", "both back blocks" (the end in groups ``e1k``/``e2k``)."""
    return (
        rf"(?:the\s+two|both)\s+(?:(?P<e1{k}>back|front|rear)\s+)?(?:{_CUBE_NOUN}s?|ones)"
        rf"(?:\s+(?:at|in)\s+the\s+(?P<e2{k}>back|front|rear))?"
    )


_FRONT_ONE = re.compile(
    rf"^(?:(?:leave|keep)\s+{_group('a')}(?:\s+(?:where\s+they\s+are|in\s+place|alone|as\s+"
    rf"they\s+are|be))?|{_group('b')}\s+(?:stay|remain)(?:\s+put|\s+where\s+they\s+are)?)\s*"
    r"[,;:\-]?\s*(?:and\s+|but\s+)?(?:then\s+)?(?:just\s+|only\s+)?(?P<v>\w+)\s+the\s+"
    r"(?:(?P<at1>front|back)\s+one|one\s+(?:at|in)\s+the\s+(?P<at2>front|back))\b",
    re.I,
)


def front_one(text: str) -> str:
    """ "Leave the two cubes at the back where they are and put the front one on P." -> "put
    the front cube on P." (the group said by one end of the table, the cube named by the
    other end: the remaining cube, which the depth adjective names)."""
    m = _FRONT_ONE.match(text.strip())
    if m is None:
        return text
    end = next((m[g] for g in ("e1a", "e2a", "e1b", "e2b") if m[g]), "").lower()
    at = (m["at1"] or m["at2"]).lower()
    if not end or (end == "front") == (at == "front"):
        return text
    return f"{m['v']} the {at} cube{text.strip()[m.end() :]}"


_FIRST_AFTER_ALL = re.compile(
    r"^(?P<a>(?P<v>put|place|set|move|push|slide|shove|stack|lift)\b[^.;!?]+?)\s*[.;!]\s*"
    r"(?:(?:wait|no|hang\s+on|hold\s+on)\s*[,\-\u2013\u2014]?\s*)?actually\s*[,\-\u2013\u2014]?\s*"
    r"(?:(?:start|begin)\s+with\s+(?=the\s+\w+\s+(?:"
    + _CUBE_NOUN
    + r"|one)\b)|do\s+(?=.*\bfirst\b)|(?=.*\bfirst\b))(?P<c>the\s+\w+\s+(?:"
    + _CUBE_NOUN
    + r"|one))(?:\s+first)?\s*,?\s*(?P<p>"
    + _PREP
    + r")\s+(?P<q>the\s+\w+\s+\w+)\s*[.!]?$",
    re.I,
)


def first_after_all(text: str) -> str:
    """ "Put the red cube on the left pad. Actually, do the blue cube first, onto the right
    pad." -> "Put the blue cube onto the right pad, then put the red cube on the left pad."
    (the step brought in front, said with the first step's verb)."""
    m = _FIRST_AFTER_ALL.match(text.strip())
    if m is None:
        return text
    v, a = m["v"].lower(), _lower_first(m["a"])
    return f"{v.capitalize()} {m['c']} {m['p'].lower()} {m['q']}, then {a}."


def brought_back(text: str) -> str:
    """ "Take the blue cube to the grey pad, then bring it back onto the red cube." -> "...,
    then put the blue cube on the red cube" (back onto a place said: a placing there, not
    where the cube was; "it" the cube said last before, kept when none is)."""

    def put(m: re.Match) -> str:
        cubes = re.findall(rf"\bthe\s+\w+\s+{_CUBE_NOUN}\b", text[: m.start()], re.I)
        it = cubes[-1] if cubes and m["it"].lower() == "it" else m["it"]
        return f"put {_lower_first(it)} on "

    return re.sub(
        r"\bbring\s+(?P<it>it|them)\s+back\s+(?:and\s+(?:set|put|place|stack)\s+(?:it|them)\s+)?"
        r"(?:onto|on\s+top\s+of|on\s+to|on)\s+(?=the\b)",
        put,
        text,
        flags=re.I,
    )


def went_then_lifted(text: str) -> str:
    """ "Move to the green cube and then lift it onto the blue cube." -> "Hover over the green
    cube and then lift the green cube onto the blue cube." ("it" is the cube gone to)."""
    return re.sub(
        rf"\b(?:move|go|head|travel)(?:\s+over|\s+across)?\s+to\s+(?P<np>the\s+\w+\s+"
        rf"{_CUBE_NOUN})(?:\s+first)?(?P<sep>\s*,?\s*(?:and\s+)?(?:then\s+)?)(?P<v>lift|put|"
        r"place|set|stack|move)\s+it\s+(?P<p>onto|on\s+top\s+of|on)\b",
        lambda m: (
            f"{'H' if m[0][0].isupper() else 'h'}over over {m['np']}{m['sep']}{m['v']} "
            f"{m['np']} {m['p']}"
        ),
        text,
        flags=re.I,
    )


def one_of_group(text: str) -> str:
    """ "one of the back cubes", "one of the (two) cubes at the back" -> "a cube" (which one
    is asked)."""
    return re.sub(
        rf"\bone\s+of\s+the\s+(?:two\s+)?(?:(?:back|front|rear)\s+{_CUBE_NOUN}s|{_CUBE_NOUN}s\s+"
        r"(?:at|in)\s+the\s+(?:back|front|rear))\b",
        "a cube",
        text,
        flags=re.I,
    )


_ON_IT = re.compile(
    r"^(?P<head>(?:(?:now|then|next|so|and|ok(?:ay)?|right|also|finally|after\s+that)\s*,?\s+)*"
    rf"(?:(?:could|can|would)\s+you\s+)?{_MOVERS}\s+the\s+\w+\s+{_CUBE_NOUN}\s+"
    r"(?:on\s+top\s+of|onto|on))\s+it(?P<tail>\s*,?\s*(?:please)?\s*[.!?]?)$",
    re.I,
)


def on_it_unsaid(text: str) -> str:
    """ "Put the red cube on it.", "Now put the red cube on it." (the whole goal, after a
    word that only says it comes next: nothing before for "it" to name) -> "Put the red cube
    on a cube." (which one is asked)."""
    return _ON_IT.sub(lambda m: f"{m['head']} a cube{m['tail']}", text.strip())


def one_more_on_top(text: str) -> str:
    """ "Add another cube to the top of the tower." -> "Add another cube on top of the
    tower." (one cube more on the tower standing, as the tower reading says it: the cube left
    off it, or refused a level too many; not "the top of the tower" named as a cube)."""
    return re.sub(
        rf"\b(?P<head>(?:add|put|place|stack|set)\s+(?:one\s+more|another|an\s+extra|a\s+"
        rf"further)\s+{_CUBE_NOUN})\s+(?:to|onto|on)\s+the\s+(?:very\s+)?top\s+of\s+"
        r"(?P<t>the|this|that)\s+(?P<n>tower|stack|pile)\b",
        lambda m: f"{m['head']} on top of {m['t']} {m['n']}",
        text,
        flags=re.I,
    )


_SAID_THEN_IT = re.compile(
    rf"^(?P<np>(?:the\s+\w+|{COLOUR})\s+{_CUBE_NOUN})(?:\s+(?:is|sits|stands|lies)|'s)\s+"
    r"(?:all\s+|off\s+|out\s+|over\s+)?(?:alone|on\s+its\s+own|by\s+itself|(?:at|in)\s+the\s+"
    r"(?:front|back|rear|middle)|(?:on|at|to)\s+(?:the|your)\s+(?:far\s+)?(?:left|right)|"
    r"(?P<far>(?:(?:much|way|a\s+bit|slightly)\s+)?too\s+far(?:\s+(?:out\s+)?(?:to|over\s+(?:on|to))"
    r"\s+the)?\s+(?:left|right|forward|back|away|out)))\b[^;:.!?\-\u2013\u2014]*"
    r"(?:[;:.]|\s[-\u2013\u2014]+|(?(far),(?:\s*so\b)?|(?!)))\s*"
    rf"(?P<cmd>(?:{_MOVERS}|hover|reach)\b[^.;!?]*?\bit\b.*)$",
    re.I,
)


def said_then_it(text: str) -> str:
    """ "The green cube is alone at the front; put the blue cube on it." -> "put the blue
    cube on the green cube." (a sentence saying where a cube stands - alone, at the front /
    back / middle, on the / your left / right, "the red cube's over on the right - ", too far
    left / right / back (then a comma too) - then a command whose "it" is that cube: the
    statement asks nothing; other statements, "the X cube is the base", keep their words)."""
    m = _SAID_THEN_IT.match(text.strip())
    if m is None:
        return text
    np = _lower_first(m["np"])
    np = np if np.startswith("the ") else f"the {np}"  # "Red cube is too far left. Move it ..."
    cmd = re.sub(r"\bit\b", np, m["cmd"], count=1)
    return _upper_first(cmd)


_NUMBER = r"(?:[xyz]\s*[=:]?\s*)?-?\d+(?:\.\d+)?"  # "0.4", "x 0.4", "z = 0.15"
_POINT = rf"{_NUMBER}\s*,\s*{_NUMBER}\s*,\s*{_NUMBER}"


def held_at_point(text: str) -> str:
    """ "Take the red cube up to 0.4, 0.0, 0.15 and hold it there." -> "... 0.15." (held where
    the placing puts it: no step of its own)."""
    return re.sub(
        rf"(?P<pt>{_POINT})\s*,?\s*(?:and\s+)?(?:then\s+)?(?:hold|keep)\s+it\s+(?:right\s+)?"
        r"there(?:\s+for\s+a\s+(?:bit|moment|while|second))?(?=\s*[.!]?\s*$)",
        lambda m: m["pt"],
        text,
        flags=re.I,
    )


def middle_counted(text: str) -> str:
    """ "the cube in the middle, counting left to right," -> "the cube in the middle" (the
    middle of three is the same counted from either side)."""
    return re.sub(
        rf"\b(?P<np>the\s+(?:middle\s+{_CUBE_NOUN}|{_CUBE_NOUN}\s+in\s+the\s+middle))\s*,\s*"
        r"counting\s+(?:from\s+)?(?:the\s+)?(?:left|right)(?:\s+to\s+(?:the\s+)?(?:right|left))?"
        r"\s*,",
        lambda m: m["np"],
        text,
        flags=re.I,
    )


def retold(text: str, cube_colours: frozenset[str] = frozenset()) -> str:
    """``text`` with held-out 22's structures said plainly (see the module); ``cube_colours``:
    the colours the scene's cubes are named by."""
    text = home_stayed(verb_typo(text))
    text = colour_paraphrased(bare_colour(text, cube_colours))
    text = front_one(neither_nor(text, cube_colours))
    text = went_then_lifted(brought_back(first_after_all(text)))
    text = middle_counted(held_at_point(said_then_it(text)))
    return one_more_on_top(on_it_unsaid(one_of_group(text)))
