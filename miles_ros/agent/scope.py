"""Scope: the cubes a goal forbids touching or moving, and the goal's positive part that
the model plans.

:func:`read_scope` runs first on a goal (before the referring phrases are resolved: "all
the cubes" must not be asked back as "which cube?"). It

- expands "every cube", "all (the) cubes", "each cube", "all three cubes" (the scene's
  count) to the scene's cubes, and "every
  cube except / but / other than the blue one" to the others ("move every cube except the
  blue one to the right pad" -> "move the red cube to the right pad, then the green one",
  in the default scene; the set of cubes comes from the :class:`World`);
- records a :class:`Prohibition` for each cube the goal keeps out of the plan and takes the
  words that say so out of the text:

  ==============================================================  ==============
  words                                                           forbids
  ==============================================================  ==============
  "don't / do not / never / without / avoid" + touch, hit, bump   touching X
  (into), knock (over) X; "leave X alone / untouched"; "keep
  your hands off X"; "X mustn't be touched"
  "don't / do not / never / without / avoid" + move, shift,       moving X
  displace, relocate, disturb X; "leave / keep X where it is /
  in place / still"; "make sure X stays where it is"; "X must
  not move"; "every cube except X", "except for X, ... every
  cube"; "X, not Y" / "but not Y"; "only X" (every other cube);
  "don't push / lift X" when no other clause acts on X (else a
  manner of its step, :mod:`miles_ros.agent.reading`)
  "don't go near / approach / hover over X"; "avoid X"; "stay /   going to X
  from X"
  "don't go (back) home", "don't return to your home position"   that skill
  (a parameter-free skill's words: :data:`SKILL`)
  ==============================================================  ==============

A goal that only forbids ("leave the red cube alone") asks for no motion
(:attr:`Scope.nothing`); "every cube except" all of them is refused; an "it" whose only
antecedent is a forbidden cube ("don't move the blue cube. Put it on the left pad") is a
contradiction, refused.

The model then plans the positive part only ("don't touch the red cube, just push the
green cube to the left pad" -> "push the green cube to the left pad"): a model that still
sees "the red cube" tends to plan a step for it. A prohibition holds for the whole goal,
as English gives it ("don't touch the red cube, just push the green one" forbids the red
cube throughout), except a "without ..." phrase inside a clause whose cube another clause
acts on ("push the red cube to the left pad without touching the blue cube, then put the
blue cube on the right pad"): that one holds in its own clause only
(:attr:`Prohibition.scope` ``"clause"``; its clause names no other cube to act on, so it
constrains no step). :meth:`Prohibition.forbids` decides whether a step breaks a
goal-wide prohibition; :meth:`miles_ros.agent.reading.GoalReading.violation` applies it to
every candidate and every plan, and the reading refuses a goal whose positive part asks
for a forbidden step.

A cube is named by its colour (or a synonym the training generator uses), with or without
a noun ("the red cube", "the red one", "red", "red_cube"), or a list of them ("the red and
the blue cube"); a phrase that picks a cube by position ("the leftmost cube") is not read
here (it stays in the text, where the reading's manner constraints apply). A pronoun ("don't
lift it") is a manner of the clause's own cube: :mod:`miles_ros.agent.reading`.

The prohibitions' types are :mod:`miles_ros.agent.prohibitions`; the whole reading under
them is :func:`miles_ros.agent.negation.read_in_scope`. :func:`read_scope`'s passes mark the
words they take in one text (``_MARK``) and the later passes read those marks, so the
patterns and the scope rules stay together: that is why this is one module of over 500
lines. Its passes share the marked text, the scene's cube words and the prohibitions found,
in an order that matters (a placement is read after every other prohibition, the tower kept
before "every cube" is expanded).
"""

from __future__ import annotations

import re

from miles_ros.agent.apart import _tower
from miles_ros.agent.cube_words import CubeWords
from miles_ros.agent.goal_clauses import split_clauses
from miles_ros.agent.phrases import CUBE_NOUNS, PAD_NOUNS
from miles_ros.agent.prohibitions import AVOID, MOVE, PLACE, SKILL, TOUCH, Prohibition, Scope
from miles_ros.agent.reference_scene import spoken
from miles_ros.agent.vocabulary import PARAMLESS_WORDS
from miles_ros.agent.world import World

_TOUCH_VERBS = (
    r"touch(?:es|ed|ing)?|hit(?:s|ting)?|bump(?:s|ed|ing)?|knock(?:s|ed|ing)?(?: over| into)?"
)
_MOVE_VERBS = (
    r"mov(?:e|es|ed|ing)|shift(?:s|ed|ing)?|displac(?:e|es|ed|ing)|relocat(?:e|es|ed|ing)|"
    r"disturb(?:s|ed|ing)?"
)
_VERBS = rf"(?:{_TOUCH_VERBS}|{_MOVE_VERBS})"
_MANNERS = (
    r"(?:push|slid|shov|nudg|lift|pick(?:ing)? up|grab|grasp|tak|carr|turn|rotat|spin|twist)"
    r"(?:e|es|s|ing|ed)?"
)
"""Verbs that are a manner when the goal moves the cube elsewhere, else a prohibition
("don't rotate the red cube": the turn skill's verbs too)."""
_NEG = r"(?:don'?t|do not|never|please don'?t|without|avoid|try not to)"
_EXCEPT = r"(?:except(?: for)?|other than|apart from|save for|excluding|not including)"
_PLACED = (
    r"(?:where (?:it|they) (?:is|are|was|were|stands?|lies?)|in (?:its |their )?place|"
    r"as (?:it is|they are|is)|still|put|alone|untouched|be|on its own)"
)


_EVERYTHING = (
    r"(?<!that's )(?<!thats )(?<!that is )(?<!it's )(?<!that'll be )(?<!that will be )"
    r"\beverything\b"
)
""""everything" as the cubes ("put everything on the left pad"), not said of the goal
itself ("that's everything for today - park the arm at home": nothing more to do)."""


_NOTHING_WITH = re.compile(
    r"\b(?:do\s+nothing|don'?t\s+do\s+anything|do\s+not\s+do\s+anything)\s+(?:at\s+all\s+)?"
    r"(?:with|to)\b(?=\s+(?:the\s+)?\w)",
    re.I,
)
""""do nothing with X (or Y)", "don't do anything to X": X (and Y) not touched, as "don't
touch X or Y" says; another clause's step stays ("...; just lift green onto P")."""


class _Cubes(CubeWords):
    """The scene's cube phrases: a pattern for one cube or a list, and its names."""

    def __init__(self, world: World):
        super().__init__(world)
        words = "|".join(sorted(map(re.escape, self.word), key=len, reverse=True))
        nouns = "|".join(CUBE_NOUNS)
        one = rf"(?:(?:the|that|this)\s+)?(?:{words})\b(?:\s+(?:{nouns}|one)s?\b)?"
        self.list = rf"{one}(?:\s*(?:,|,?\s*and|,?\s*or|,?\s*nor)\s+{one})*"
        count = len(world.objects)
        number = rf"(?:{_NUMBER_WORDS[count]}|{count})" if count < len(_NUMBER_WORDS) else "(?!)"
        self.every = (
            rf"(?:\b(?:every|each)\s+(?:single\s+)?(?:{nouns}|one)\b|"
            rf"\ball\s+(?:of\s+)?(?:the\s+)?(?:{number}\s+)?(?:{nouns})s\b|{_EVERYTHING}|"
            rf"\b(?:the|these|those)\s+{number}\s+(?:{nouns})s\b|"
            rf"\ball\s+of\s+them\b|\ball(?=\s+but\b))"
        )

    def each(self, names: list[str], after: str) -> str:
        """The cubes ``names`` in place of "every cube", then ``after`` (the rest of the
        goal): the clause's rest is said for the first cube and the others follow it as
        "then the green one" ("put every cube on the left pad" -> "put the red cube on the
        left pad, then the green one, then the blue one"), the wording the model was
        trained on for a step repeated on another cube."""
        first = "the " + names[0].replace("_", " ")
        if len(names) == 1:
            return first + after
        end = re.search(r"\s*(?:[,;:]|\.\s|[.!?]+$|\b(?:and|then|but)\b)", after)
        clause, remainder = (after[: end.start()], after[end.start() :]) if end else (after, "")
        others = "".join(f", then the {n.split('_')[0]} one" for n in names[1:])
        return first + clause + others + remainder


def read_scope(goal: str, world: World) -> Scope:
    """``goal``'s prohibitions and its positive part in ``world`` (see the module)."""
    text = _NOTHING_WITH.sub("don't touch", goal.replace("\u2019", "'"))
    if not world.objects:
        return Scope(goal)
    cubes = _Cubes(world)
    found: list[tuple[str, str, str, str | None]] = []  # (cube, what, phrase, marker)
    kept_pads = _PADS_KEPT.search(text)
    if kept_pads and not re.search(_A_PAD_SAID, _PADS_KEPT.sub(" ", text), re.I):
        text = _PADS_KEPT.sub(" ", text)  # "don't go near the pads; just hover over ..."
        text = re.sub(r"^[\s,;.]*(?:(?:and|but)\b\s*)?", "", text, flags=re.I)
    text = _stack_kept(text, world, cubes, found)
    text, refusal = _expand_every(text, cubes, found)
    if refusal:
        return Scope(goal, refusal=refusal)
    lead = r"(?:,?\s*\b(?:and|but)\s+)?"
    while_you = r"(?:\s*,?\s*\b(?:while|as|when) you\b)?"
    rules = [
        (
            rf"{lead}\b(?P<neg>{_NEG})\s+(?:ever\s+)?(?:go\s+)?(?P<verb>{_VERBS}(?:\s+or\s+{_VERBS})?)"
            rf"(?:\s+(?:into|against|over|with))?\s+(?P<list>{cubes.list}){while_you}",
            None,
        ),
        (
            rf"{lead}\b(?P<neg>{_NEG})\s+(?:(?:go|come|get|move)\s+(?:near|close to|towards?|"
            rf"over to|to)|approach|reach(?: for)?|hover (?:over|above))\s+"
            rf"(?P<list>{cubes.list}){while_you}",
            AVOID,
        ),
        (
            rf"{lead}\b(?:(?:stay|keep|steer)\s+(?:well\s+)?(?:away|clear)\s+(?:from|of)|"
            rf"avoid(?:ing)?)\s+(?P<list>{cubes.list})",
            AVOID,
        ),
        (
            rf"{lead}\b(?:keep\s+(?:your\s+)?(?:hands?|gripper|fingers)\s+off|hands off)\s+"
            rf"(?P<list>{cubes.list})",
            TOUCH,
        ),
        (
            rf"{lead}\b(?:leave|keep|let)\s+(?P<list>{cubes.list})\s+(?P<how>{_PLACED})\b",
            None,
        ),
        (
            rf"{lead}(?:\b(?:make sure|ensure|see to it)\s+(?:that\s+)?)?(?P<list>{cubes.list})"
            rf"\s+(?:stays?|remains?|is left|(?:must|should|has to)\s+(?:stay|remain))\s+"
            rf"(?P<how>{_PLACED})\b",
            None,
        ),
        (
            rf"{lead}(?P<list>{cubes.list})\s+(?:must|should|may|can|is to)(?:\s+not|n'?t)\s+"
            rf"(?:be\s+)?(?P<verb>{_VERBS})\b",
            None,
        ),
        (
            rf",\s*(?:but\s+)?not\s+(?P<list>{cubes.list})\s*,?|\s(?:but\s+)?not\s+"
            rf"(?P<list2>{cubes.list})",
            MOVE,
        ),
        (  # "hover over any cube except the red one" (not "every cube except": read above)
            rf"\s*,?\s*\b{_EXCEPT}\s+(?P<list>{cubes.list})\s*,?",
            MOVE,
        ),
    ]
    for pattern, what in rules:
        text = re.sub(
            pattern,
            lambda m, what=what: _prohibit(m, what, cubes, found),
            text,
            flags=re.I,
        )
    for skill, words in PARAMLESS_WORDS.items():  # "don't go home"
        text = re.sub(
            rf"{lead}\b(?P<neg>{_NEG})\s+(?:(?:go|return|come|head|move|get|drive)(?:ing)?\s+"
            rf"(?:back\s+)?(?:to\s+)?(?:the\s+|your\s+|its\s+)?(?:{'|'.join(words)})|"
            rf"{skill}(?:ing)?)\b(?:\s+(?:pose|position))?(?:\s+(?:yet|now|first))?",
            lambda m, skill=skill: _skill_banned(m, skill, found),
            text,
            flags=re.I,
        )
    text = re.sub(  # "don't push the blue one": a prohibition unless a manner of a cube
        rf"{lead}\b(?P<neg>{_NEG})\s+(?:ever\s+)?(?:go\s+)?(?P<verb>{_MANNERS})\s+(?P<list>{cubes.list})",
        lambda m: _prohibit(m, MOVE, cubes, found) if _only_here(m, cubes) else m.group(0),
        text,
        flags=re.I,
    )
    text = re.sub(
        # "only then / after that the red cube": an order word, not a restriction
        rf"\bonly\s+(?=(?:(?!the\b|{_ORDER_WORD}\b)[a-z]+\s+)?(?P<list>{cubes.list}))",
        lambda m: _only(m, cubes, found),
        text,
        flags=re.I,
    )
    text, placements = _placements_banned(text, world, cubes)
    if not found:
        return Scope(_tidy(text), placements) if placements else Scope(text)
    refusal = _forbidden_antecedent(found, text, cubes)
    if refusal:
        return Scope(goal, refusal=refusal)
    prohibitions = _scoped(found, text, cubes) + placements
    return Scope(_tidy(re.sub(rf"{_MARK}\d+{_MARK}", " ", text)), prohibitions)


_PUT_VERBS = (
    r"(?:put|plac|set|stack|lay|drop|lower|bring|carr|lift|rais|push|slid|shov|nudg|mov|tak)"
    r"(?:s|es|e|ed|ing|ting|ying|ies|ied)?"
)
_ONTO = r"(?:on(?:to)?|in(?:to)?|to|on\s+top\s+of|over\s+to|down\s+on)"


def _placements_banned(
    text: str, world: World, cubes: _Cubes
) -> tuple[str, tuple[Prohibition, ...]]:
    """The placements the goal forbids, read after every other prohibition (so "don't move
    the red cube onto the left pad" stays a prohibition on moving it): "(whatever happens,)
    don't / never (go) put / place / set / stack (-ing) X on / onto P", "I / we don't want
    (you to put) X on P" -> a :data:`PLACE` prohibition (X may still go elsewhere). Their
    words leave the text; a first "it" after them with no cube named before it is X ("I
    don't want the red cube on the left pad; lift it onto the right one")."""
    place = "|".join(  # "the left pad / tile / mat" for the scene's left_pad
        rf"(?:the\s+)?{re.escape(name.split('_')[0])}\s+(?:{'|'.join(PAD_NOUNS)})\b"
        for name in world.places
        if len(name.split("_")) == 2 and name.endswith("_pad")
    )
    where = rf"(?P<target>{place}|{cubes.list})" if place else rf"(?P<target>{cubes.list})"
    pattern = (
        r"(?:,?\s*\b(?:and|but)\s+)?\b(?:(?:(?:i|we)\s+)?(?:don'?t|do\s+not)\s+want\s+"
        rf"(?:(?:you|anyone|anybody)\s+(?:to\s+)?{_PUT_VERBS}\s+)?|(?:{_NEG})\s+(?:ever\s+)?"
        rf"(?:go\s+)?{_PUT_VERBS}\s+)(?P<list>{cubes.list})\s+(?:(?:back|down|up)\s+)?"
        rf"{_ONTO}\s+{where}"
    )
    banned: list[Prohibition] = []

    def ban(m: re.Match) -> str:
        said = m.group("target")
        pad = re.match(r"(?:the\s+)?([a-z]+)\s", said, re.I)
        target = next(
            (n for n in world.places if pad and n.split("_")[0] == pad.group(1).lower()), None
        )
        named = cubes.named(said)
        target = target or (named[0] if len(named) == 1 else None)
        if target is None:
            return m.group(0)
        for cube in cubes.named(m.group("list")):
            banned.append(Prohibition(cube, PLACE, m.group(0).strip(" ,;"), target=target))
        return " "

    text = re.sub(pattern, ban, text, flags=re.I)
    if len({p.cube for p in banned}) == 1:  # "...; lift it onto the right pad"
        it = re.search(r"\bit\b", text, re.I)
        if it and not cubes.named(text[: it.start()]):
            text = text[: it.start()] + "the " + spoken(banned[0].cube) + text[it.end() :]
    return text, tuple(banned)


_PAD_WORDS = "|".join(PAD_NOUNS)
_PADS_KEPT = re.compile(
    r"(?:,?\s*\b(?:and|but)\s+)?\b(?:(?:don'?t|do not|never)\s+(?:(?:go|come|get|move)\s+"
    r"(?:near|close to|towards?|over to|to)|touch|approach|hit|bump into|knock)|"
    r"(?:stay|keep|steer)\s+(?:well\s+)?(?:away|clear)\s+(?:from|of)|avoid(?:ing)?)\s+"
    rf"(?:the\s+(?:two\s+)?(?:{_PAD_WORDS})s|both\s+(?:(?:of\s+)?the\s+)?(?:{_PAD_WORDS})s|"
    rf"either\s+(?:{_PAD_WORDS})|any\s+(?:of\s+the\s+)?(?:{_PAD_WORDS})s?)\b",
    re.I,
)
"""Every pad kept clear ("don't go near the pads", "stay away from both pads", "don't touch
either pad"): no step of a goal that names no pad besides goes to one, so it is dropped
(not a question about which pad)."""
_A_PAD_SAID = rf"\b(?:{_PAD_WORDS})s?\b|_pad\b"
_ALL_KEPT = re.compile(
    r"\b(?:(?:leave|keep|let)\s+(?:it all|things|the (?:table|scene|workspace)|the "
    rf"(?:{'|'.join(CUBE_NOUNS)})(?:s|es))\s+"
    rf"(?:{_PLACED})|(?:don'?t|do not|never)\s+(?:touch|move|disturb|hit|bump into|knock)\s+"
    rf"(?:anything|any\s+(?:of\s+the\s+)?(?:{'|'.join(CUBE_NOUNS)})(?:s|es)?|any of them|"
    rf"(?:all\s+)?the\s+(?:{'|'.join(CUBE_NOUNS)})(?:s|es)))\b"
    rf"(?!\s*,?\s*(?:{_EXCEPT}|but|other than)\b)",
    re.I,
)
"""Every cube kept as it is, said without "every" ("leave the cubes alone", "don't touch
anything", "don't touch any of the cubes": "any" under a negation is every one): a
prohibition on each (not a question about which cube)."""


_STACK_KEPT = re.compile(
    r"(?:,?\s*\b(?:and|but)\s+)?\b(?:(?:leave|keep|let)\s+(?:the|that|this|your)\s+(?:stack|tower|pile)"
    rf"\s+(?:{_PLACED})|(?:don'?t|do not|never)\s+(?:go\s+)?(?:touch(?:ing)?|mov(?:e|ing)|"
    r"disturb(?:ing)?|hit(?:ting)?|bump(?:ing)? into|knock(?:ing)?(?:\s+over)?|toppl(?:e|ing))"
    r"\s+(?:the|that|this|your)\s+(?:stack|tower|pile)"
    r"(?:\s+(?:over|down))?)\b",
    re.I,
)
"""The stacked cubes kept as they are ("leave the stack alone", "don't touch the tower")."""


def _stack_kept(text: str, world: World, cubes: _Cubes, found: list) -> str:
    """A prohibition on touching each cube of the scene's tower (:func:`~miles_ros.agent.apart.
    _tower`) where the goal keeps "the stack / tower / pile" as it is; its words leave the text
    (another clause's motion stays: "leave the stack alone and hover over the green cube").
    Unchanged when the scene has no tower."""
    kept = _STACK_KEPT.search(text)
    tower = _tower(world) if kept else []
    if not tower:
        return text
    found.extend((name, TOUCH, kept.group(0).strip(" ,"), None) for name in tower)
    rest = text[: kept.start()] + text[kept.end() :]
    return re.sub(r"^[\s,;.]*(?:(?:and|but)\b\s*)?", "", rest, flags=re.I)


def _expand_every(text: str, cubes: _Cubes, found: list) -> tuple[str, str | None]:
    kept = _ALL_KEPT.search(text)
    if kept:
        what = TOUCH if re.search(r"touch|alone|untouched", kept.group(0), re.I) else MOVE
        found.extend((name, what, kept.group(0), None) for name in cubes.names)
        text = text[: kept.start()] + text[kept.end() :]
    every = re.search(cubes.every, text, re.I)
    if every is None:
        return text, None
    rest = text[every.end() :]
    kept_as_is = re.search(r"\b(?:leave|keep|let)\s+$", text[: every.start()], re.I)
    placed = re.match(rf"\s+(?:{_PLACED})\b", rest, re.I)
    if kept_as_is and placed:  # "leave everything as it is": every cube stays
        end = every.end() + placed.end()
        but = re.match(
            rf"\s*,?\s*(?:{_EXCEPT}|but(?:\s+not)?)\s+(?P<list>{cubes.list})", text[end:], re.I
        )
        excepted = cubes.named(but.group("list")) if but else []
        after = text[end + but.end() :] if but else text[end:]
        if len(excepted) == 1:  # "... except the green cube; that one / it goes on the pad"
            after = re.sub(
                r"^(\s*[,;:.\-\u2013\u2014]*\s*(?:(?:and|but|so)\s+)?(?:just\s+)?)(?:that\s+one|"
                r"it|this\s+one)\b",
                lambda m: m.group(1) + "the " + spoken(excepted[0]),
                after,
                flags=re.I,
            )
        phrase = text[kept_as_is.start() : end + (but.end() if but else 0)]
        found.extend((name, MOVE, phrase, None) for name in cubes.names if name not in excepted)
        if excepted and len(excepted) == len(cubes.names):
            return text, f"every cube except {', '.join(excepted)} leaves no cube to keep"
        return text[: kept_as_is.start()] + after, None
    but = re.match(
        rf"\s*,?\s*(?:{_EXCEPT}|but(?:\s+not)?)\s+(?P<list>{cubes.list})\s*,?", rest, re.I
    )
    tail = None if but else re.search(rf"\s*,?\s*{_EXCEPT}\s+(?P<list>{cubes.list})", rest, re.I)
    front = None
    if not (but or tail):  # "except for the red cube, put every cube ..."
        front = re.search(
            rf"(?:^|\b)(?:{_EXCEPT}|but for)\s+(?P<list>{cubes.list})\s*,?\s*",
            text[: every.start()],
            re.I,
        )
    cut = but or tail or front
    excepted = cubes.named(cut.group("list")) if cut else []
    kept = [n for n in cubes.names if n not in excepted]
    if not kept:
        return text, f"every cube except {', '.join(excepted)} leaves no cube to act on"
    for name in excepted:
        found.append((name, MOVE, (every.group(0) + " " + cut.group(0).strip(" ,")), None))
    before, after = text[: every.start()], rest
    if front is not None:
        before = before[: front.start()] + before[front.end() :]
    elif cut is not None:
        after = rest[: cut.start()] + (" " if but else "") + rest[cut.end() :]
    them = re.match(r"\s*,?\s*and\s+(?:then\s+)?(?P<verb>[a-z]+)\s+them\b", after, re.I)
    if them:  # "pick up every cube and place them on the pad": "place" each cube there
        starts = [m.end() for m in re.finditer(r"[,;:.!?]\s*|\b(?:and|then)\s+", before)]
        before = before[: max(starts, default=0)] + them.group("verb") + " "
        after = after[them.end() :]
    return before + cubes.each(kept, after), None


def _prohibit(match: re.Match, what: str | None, cubes: _Cubes, found: list) -> str:
    """Records the cubes ``match`` forbids; returns a marker where its words stood (the
    clause they stood in decides a "without" phrase's scope)."""
    groups = match.groupdict()
    phrase = match.group(0).strip(" ,")
    verb, how = (groups.get("verb") or "").lower(), (groups.get("how") or "").lower()
    if what is None:
        touch = re.match(rf"(?:{_TOUCH_VERBS})", verb) or how in ("alone", "untouched")
        what = TOUCH if touch else MOVE
    without = (groups.get("neg") or "").lower() == "without"
    marker = f" {_MARK}{len(found)}{_MARK} "
    for name in cubes.named(groups.get("list") or groups.get("list2") or ""):
        found.append((name, what, phrase, marker.strip() if without else None))
    words = match.group(0).strip()
    return marker + ("," if words.endswith(",") and not words.startswith(",") else "")


def _skill_banned(match: re.Match, skill: str, found: list) -> str:
    """Records a parameter-free skill the goal forbids ("don't go home; hover over the
    green cube instead"); its words leave the text the model plans."""
    found.append((skill, SKILL, match.group(0).strip(" ,"), None))
    return f" {_MARK}{len(found) - 1}{_MARK} "


def _only_here(match: re.Match, cubes: _Cubes) -> bool:
    """The cubes ``match`` names are named nowhere else in its goal ("push the red cube to
    the left pad but don't push the blue one"; not "don't lift the red cube, push it
    ...", where the words are a manner of the red cube's own step, nor one an "it" after
    them may refer to)."""
    before, after = match.string[: match.start()], match.string[match.end() :]
    if re.search(r"\bit\b", after, re.I):
        return False  # "don't lift the blue cube, push it ..."
    return not set(cubes.named(match.group("list"))) & set(cubes.named(before + " " + after))


_onto_it = re.compile(r"\b(?:on top of|onto|on|atop|against|next to|beside)\s*$", re.I)


def _forbidden_antecedent(found: list, marked: str, cubes: _Cubes) -> str | None:
    """A contradiction when the first "it" of the positive part can only mean a cube the
    goal forbids ("don't move the blue cube. Put it on the left pad"): no cube is named
    before it but the forbidden ones (and, where "it" is where a cube is put, the cubes its
    own clause moves: "don't touch the green cube, but put the red cube on top of it")."""
    it = re.search(r"\bit\b", marked, re.I)
    if it is None:
        return None
    before = marked[: it.start()]
    marks = [
        int(m)
        for m in re.findall(rf"{_MARK}(\d+){_MARK}", before)
        if int(m) >= len(found) or found[int(m)][1] != SKILL
    ]
    said = re.sub(rf"{_MARK}\d+{_MARK}", " ", before)
    onto = bool(_onto_it.search(said))
    if onto:  # "put the red cube on top of it": not the cube put there
        said = " ".join(re.split(r"[,;.]|\b(?:and|then|but)\b", said)[:-1])
    if not marks or cubes.named(said):
        return None
    cube, what, phrase, _ = found[max(marks)] if max(marks) < len(found) else found[-1]
    if onto and what == MOVE:  # a cube may be put on one that must not move
        return None
    return f"contradictory goal: it asks to act on {cube} ('it') and forbids it ({phrase!r})"


def _only(match: re.Match, cubes: _Cubes, found: list) -> str:
    named = cubes.named(match.group("list"))
    for name in cubes.names:
        if name not in named:
            found.append((name, MOVE, "only " + match.group("list"), None))
    return ""


_ORDER_WORD = r"(?:then|after|afterwards|once|when|later|now|next)"
"""A word after "only" that says when ("only then the red cube"), not which cube."""


_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight")
"""Number words: "all three cubes" is every cube when the scene has three."""
_MARK = "\u00a7"
"""Marks where a prohibition's words stood until the scope is decided."""


def _scoped(found: list, marked: str, cubes: _Cubes) -> tuple[Prohibition, ...]:
    """Prohibitions, each once (touching over moving). A "without ..." phrase whose cube
    the positive part acts on in another clause than the one the phrase qualifies (its
    own, or the next when it stands alone before it) holds in its own clause only; one
    whose cube its own clause acts on is goal-wide (the reading refuses the
    contradiction)."""
    clauses = split_clauses(marked.lower())
    out: dict[str, Prohibition] = {}
    for cube, what, phrase, marker in found:
        scope = "goal"
        if marker is not None:
            at = next((i for i, c in enumerate(clauses) if marker in c), None)
            if at is not None:
                rest = re.sub(rf"{_MARK}\d+{_MARK}", " ", clauses[at])
                if not re.search(r"[a-z0-9]", rest) and at + 1 < len(clauses):
                    at += 1  # "without touching the blue cube, put ...": the next clause
                own = cube in cubes.named(clauses[at])
                others = [c for i, c in enumerate(clauses) if i != at]
                if not own and any(cube in cubes.named(c) for c in others):
                    scope = "clause"
        old = out.get(cube)
        if old is None or old.scope == "clause" or (old.what == MOVE and what == TOUCH):
            out[cube] = Prohibition(cube, what, phrase, scope)
    return tuple(out.values())


def _tidy(text: str) -> str:
    text = re.sub(r"\s+([,.;:!?])", r"\1", text)
    text = re.sub(r"([,;:])(?:\s*[,;:])+", r"\1", text)
    text = " ".join(text.split())
    lead = r"^(?:[\s,;:.-]|\b(?:and|but|then|just|so|also|instead)\b)+"
    text = re.sub(lead, "", text, flags=re.I)
    trail = r"(?:[\s,;:-]|\b(?:and|but|then|while|just)\b)+(?=[.!?]*$)"
    return re.sub(trail, "", text, flags=re.I).strip()
