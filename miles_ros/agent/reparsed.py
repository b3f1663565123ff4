"""Held-out 31's structures, said as the plain clauses the rest of the reading is written for
(:func:`miles_ros.agent.clauses.plain_clauses` runs :func:`reparsed` first, before
:func:`~miles_ros.agent.retraced.retraced`):

- nothing to do yet: "don't start / begin (on) / kick off anything" -> "don't do anything",
  a remark asking to wait before it ("hold it", "one moment") dropped; "(there's) nothing
  (that) needs doing / moving", "nothing has to be done", with a time and "just stand by /
  wait" or not, no thing named: "nothing for now" (:func:`not_yet`);
- a manner ruled out, then the request "instead": "don't slide X; pick it up and put it on P
  instead" -> "pick up X and put it on P without sliding it" (:func:`instead_of`);
- "everything / every cube / all except X stays put / where it is / in place; V X ...":
  "leave the other cubes where they are and V X ..." (X the cube the request moves);
  "I don't want the gripper / your hand near the cubes", "keep the gripper away from the
  cubes", "stay clear of the cubes", before the request: "don't touch the cubes"
  (:func:`kept_clear`);
- "that / this thing / object / item" with no cube named before it: "the cube" (asked
  which); "the outer / outermost / outside cube", "the cube on the outside": "the cube"
  (asked: two cubes are outermost); "the left / right-hand cube", "the cube on the left /
  right-hand side": "the leftmost / rightmost cube", its noun kept (asked where two stand
  level) (:func:`unnamed`);
- pronouns: "put X on P and then move it (over) to Q" -> "..., then move X to Q" (the plan
  then validated as any); "get X onto P, then stack Y on (top of) that cube" -> "... on X";
  "grab X. Now put it onto Y." (two sentences) -> "pick up X and put it onto Y"
  (:func:`pointed_back`);
- a manner hint, not a step: "Can you get X to P? You'll have to lift it over the Y one." ->
  "Can you get X to P without pushing it?" (:func:`hint_of_manner`);
- "three stops: P, Q, then home" -> "go to P, then go to Q, then go home" (:func:`stops`);
- towers: "the stack needs one more - finish it off with X", "the tower's one short - top it
  off with X" -> "put X on top of the stack"; "pile X onto Y, and Z on top of both / the two"
  -> "put X onto Y, then put Z on X" (:func:`tower_finished`).
"""

from __future__ import annotations

import re

from miles_ros.agent.clause_grammar import _CUBE_NOUN, _PAD_NOUN
from miles_ros.agent.reread import _CUBE_NP, _DASH

_SEP = rf"\s*(?:[;:,]|{_DASH})\s*"

_NOT_STARTED = re.compile(
    r"\b(?P<neg>don'?t|do\s+not)\s+(?:(?:start|begin|kick\s+off)(?:\s+on)?\s+anything|"
    r"kick\s+anything\s+off)\b",
    re.I,
)
_THING_NAMED = re.compile(rf"\b(?:{_CUBE_NOUN}|{_PAD_NOUN}|home|it|them)\b", re.I)
_NOTHING_NEEDS = re.compile(
    r"^(?:there'?s\s+)?nothing\s+(?:that\s+)?(?:needs|has)\s+(?:doing|moving|to\s+be\s+done)\b",
    re.I,
)
_WAIT_REMARK = re.compile(
    r"^(?:hold\s+it|hold\s+on|hang\s+on|one\s+moment|just\s+a\s+(?:moment|sec(?:ond)?)|"
    rf"wait\s+a\s+(?:sec(?:ond)?|moment|minute))\s*(?:[,:;!.]|{_DASH})+\s*"
    r"(?=(?:don'?t|do\s+not)\s+do\s+anything\b)",
    re.I,
)
"""A remark asking to wait before a request to do nothing ("hold it, don't ..."): dropped."""


def not_yet(text: str) -> str:
    """Nothing to do yet: the plain no-motion request (see the module)."""
    text = _NOT_STARTED.sub(lambda m: f"{m['neg']} do anything", text)
    text = _WAIT_REMARK.sub("", text.strip())
    if _NOTHING_NEEDS.match(text) and not _THING_NAMED.search(text):
        return "nothing for now."
    return text


_MANNERS = {
    "push": "pushing",
    "slide": "sliding",
    "shove": "shoving",
    "drag": "dragging",
    "nudge": "nudging",
    "lift": "lifting",
    "carry": "carrying",
}
_MANNER = (
    r"(?P<v>pushing|push|slid(?:e|ing)|shov(?:e|ing)|drag(?:ging)?|nudg(?:e|ing)|lift(?:ing)?|"
    r"carry(?:ing)?)"
)
_INSTEAD = re.compile(
    rf"^(?:don'?t|do\s+not|no)\s+{_MANNER}\s+(?P<x>{_CUBE_NP}){_SEP}(?P<rest>.+?)"
    r"\s*,?\s+instead(?P<end>\s*[.!]?)$",
    re.I,
)
_IT_UP = re.compile(r"^(?P<v>pick|lift)\s+it\s+up\b|^(?P<v2>lift|grab|take|pick)\s+it\b", re.I)


def _gerund(verb: str) -> str:
    verb = verb.lower()
    return verb if verb.endswith("ing") else _MANNERS[verb]


def instead_of(text: str) -> str:
    """ "don't slide X; pick it up and put it on P instead": "pick up X and put it on P
    without sliding it" (the manner ruled out, the request kept)."""
    m = _INSTEAD.match(text.strip())
    if not m or not re.match(r"^[a-z]+\s+it\b", m["rest"], re.I):
        return text
    x = m["x"]
    rest = _IT_UP.sub(lambda n: f"{n['v'] or n['v2']} up {x}", m["rest"], count=1)
    if rest == m["rest"]:
        rest = re.sub(r"^(?P<v>[a-z]+)\s+it\b", lambda n: f"{n['v']} {x}", rest, count=1)
    return f"{rest} without {_gerund(m['v'])} it{m['end'] or '.'}"


_ALL_BUT = re.compile(
    r"^(?:everything|every\s+(?:cube|block|box)|all(?:\s+the\s+(?:cubes|blocks|boxes))?|"
    r"all\s+of\s+them)\s+(?:except(?:\s+for)?|but|apart\s+from|other\s+than|save)\s+"
    rf"(?P<x>{_CUBE_NP})\s+(?:stays?|remains?|is\s+to\s+stay)\s+(?:put|where\s+(?:it\s+is|"
    rf"they\s+are)|in\s+place|still){_SEP}(?P<rest>.+)$",
    re.I,
)
_CLEAR = re.compile(
    r"^(?:i\s+don'?t\s+want\s+(?:the\s+gripper|your\s+hand|the\s+hand|the\s+arm|you)\s+"
    r"(?:anywhere\s+)?near|keep\s+(?:the\s+gripper|your\s+hand|the\s+arm|the\s+hand)\s+"
    r"(?:well\s+)?away\s+from|stay\s+(?:well\s+)?(?:clear|away)\s+(?:of|from))\s+"
    rf"(?:any\s+of\s+)?the\s+(?:{_CUBE_NOUN})e?s{_SEP}(?P<rest>.+)$",
    re.I,
)


def _colour(np: str) -> str:
    return np.split()[1].lower()


def kept_clear(text: str) -> str:
    """The others kept still while one cube moves, and the cubes kept clear of, said as the
    rest of the reading reads them (see the module)."""
    m = _ALL_BUT.match(text.strip())
    if m and re.search(rf"\b{_colour(m['x'])}\b", m["rest"], re.I):
        return f"leave the other cubes where they are and {m['rest']}"
    m = _CLEAR.match(text.strip())
    if m:
        return f"don't touch the cubes; {m['rest']}"
    return text


_THING = re.compile(r"\b(?:that|this)\s+(?:thing|object|item)\b", re.I)
_NAMED = re.compile(rf"\b(?:{_CUBE_NOUN}|{_PAD_NOUN})s?\b|\bit\b", re.I)
_OUTER = re.compile(
    rf"\bthe\s+(?:outer|outermost|outside)\s+(?:{_CUBE_NOUN}|one)\b|"
    rf"\bthe\s+(?:{_CUBE_NOUN}|one)\s+on\s+the\s+outside\b",
    re.I,
)
_HAND = re.compile(
    rf"\bthe\s+(?P<s>left|right)-hand\s+(?P<n>{_CUBE_NOUN})\b|"
    rf"\bthe\s+(?P<n2>{_CUBE_NOUN})\s+(?:(?:that'?s|that\s+is|which\s+is)\s+)?on\s+the\s+"
    r"(?P<s2>left|right)-hand\s+side\b",
    re.I,
)


def unnamed(text: str) -> str:
    """A cube said by nothing ("that thing"), "the outer cube": "the cube" (asked which); "the
    right-hand cube": "the rightmost cube" (asked where two stand level)."""
    m = _THING.search(text)
    if m and not _NAMED.search(text[: m.start()]):
        text = f"{text[: m.start()]}the cube{text[m.end() :]}"
    text = _OUTER.sub("the cube", text)
    return _HAND.sub(lambda m: f"the {(m['s'] or m['s2']).lower()}most {_noun(m)}", text)


def _noun(m: re.Match) -> str:
    return m["n"] or m["n2"]


_PLACE_NP = rf"the\s+[a-z]+\s+(?:{_PAD_NOUN}|{_CUBE_NOUN}|one)"
_PUT = r"(?:put|place|set|move|get|bring|take|stack|pile|lay)"
_THEN = r"(?:\s*[,;]\s*|\s+)(?:and\s+)?(?:then|after\s+that|afterwards)\s*,?\s+"
_MOVED_ON = re.compile(
    rf"^(?P<head>{_PUT}\s+(?P<x>{_CUBE_NP})\s+(?:on\s+top\s+of|onto|on|to|over\s+to)\s+"
    rf"{_PLACE_NP}{_THEN}(?P<v>move|shift|carry|take|bring|slide|push|put|set|place|lift))\s+it\b"
    r"(?=\s+(?:over\s+|across\s+|on\s+)?(?:to|onto)\b)",
    re.I,
)
_THAT_CUBE = re.compile(
    rf"^(?P<head>{_PUT}\s+(?P<x>{_CUBE_NP})\s+(?:on\s+top\s+of|onto|on|to|over\s+to)\s+"
    rf"{_PLACE_NP}{_THEN}(?:(?:put|place|set|stack|pile|lay)\s+)?{_CUBE_NP}"
    rf"\s+(?:on\s+top\s+of|onto|on))\s+that\s+(?:same\s+)?(?:{_CUBE_NOUN}|one)\b",
    re.I,
)
"""A placing of X, then a cube put on "that cube": X (the cube the first clause moved)."""
_GRAB_THEN_IT = re.compile(
    rf"^(?:grab|pick\s+up|take\s+hold\s+of|get\s+hold\s+of|lift(?:\s+up)?|pick)\s+"
    rf"(?P<x>{_CUBE_NP})(?:\s+up)?\s*[.!]\s*(?:(?:now|next|then|and\s+then)\s*,?\s+)?"
    r"(?P<v>put|place|set|drop|stack|lay)\s+it\s+(?:down\s+)?"
    r"(?P<rest>(?:on\s+top\s+of|onto|on)\s+.+)$",
    re.I,
)


def pointed_back(text: str) -> str:
    """ "it" and "that cube" pointing back at a cube placed before (see the module)."""
    text = _MOVED_ON.sub(lambda m: f"{m['head']} {m['x']}", text.strip())
    text = _THAT_CUBE.sub(lambda m: f"{m['head']} {m['x']}", text)
    m = _GRAB_THEN_IT.match(text)
    if m:
        return f"pick up {m['x']} and put it {m['rest']}"
    return text


_HINT = re.compile(
    rf"(?P<ask>.+?)\s*(?P<q>\?)?(?:\s+|{_SEP})you(?:'ll|\s+will)?\s+(?:have|need|must)"
    r"(?:\s+to)?\s+(?:lift|carry|pick)\s+it(?:\s+up)?\s+over\s+(?:the\s+[a-z]+\s+(?:one|"
    rf"{_CUBE_NOUN})|it|them)\s*[.!]?$",
    re.I,
)


def hint_of_manner(text: str) -> str:
    """ "Can you get X to P? You'll have to lift it over the Y one.": the hint is how, not a
    step: "Can you get X to P without pushing it?"."""
    m = _HINT.match(text.strip())
    if not m or not re.search(_CUBE_NP, m["ask"], re.I):
        return text
    return f"{m['ask'].rstrip(' .!,;')} without pushing it{m['q'] or '.'}"


_STOP = rf"(?:{_PLACE_NP}|(?:back\s+)?home)"
_STOPS = re.compile(
    r"^(?:two|three|four)\s+(?:stops|places(?:\s+to\s+go)?|waypoints|spots)"
    rf"{_SEP}(?P<list>{_STOP}(?:(?:\s*,\s*|\s+)(?:and\s+)?(?:then\s+)?{_STOP})+)\s*[.!]?$",
    re.I,
)


def stops(text: str) -> str:
    """ "three stops: P, Q, then home": "go to P, then go to Q, then go home"."""
    m = _STOPS.match(text.strip())
    if not m:
        return text
    said = re.findall(_STOP, m["list"], re.I)
    steps = ["go home" if s.lower().endswith("home") else f"go to {s}" for s in said]
    return ", then ".join(steps) + "."


_STACK = r"(?:stack|tower|pile)"
_ONE_MORE = re.compile(
    rf"^(?:the\s+{_STACK}(?:'s|\s+is)\s+one\s+short|the\s+{_STACK}\s+needs\s+one\s+more"
    rf"(?:\s+(?:{_CUBE_NOUN}))?|one\s+more\s+on\s+the\s+{_STACK}){_SEP}(?:finish|top|complete|"
    rf"cap)\s+it(?:\s+off)?\s+with\s+(?P<x>{_CUBE_NP})\s*[.!]?$",
    re.I,
)
_ON_BOTH = re.compile(
    rf"^(?P<first>{_PUT}\s+(?P<x>{_CUBE_NP})\s+(?:on\s+top\s+of|onto|on)\s+{_CUBE_NP})"
    rf"\s*,?\s+(?:and|with)\s+(?:(?:put|place|set|stack)\s+)?(?P<z>{_CUBE_NP})\s+on\s+top\s+of\s+"
    r"(?:both(?:\s+of\s+them)?|the\s+two|them\s+both)\s*[.!]?$",
    re.I,
)


def tower_finished(text: str) -> str:
    """A stack finished with one more cube; a cube "on top of both" (on the upper one)."""
    m = _ONE_MORE.match(text.strip())
    if m:
        return f"put {m['x']} on top of the stack."
    m = _ON_BOTH.match(text.strip())
    if m:
        return f"{m['first']}, then put {m['z']} on {m['x']}."
    return text


def reparsed(text: str) -> str:
    """Held-out 31's structures said plainly (see the module)."""
    text = kept_clear(instead_of(not_yet(text)))
    text = pointed_back(unnamed(text))
    return tower_finished(stops(hint_of_manner(text)))
