"""Referring expressions resolved against the scene's positions and colours, before the
goal is read: "the leftmost cube", "the cube nearest to the robot", "the cube closest to
the right pad", "the middle cube", "the second cube from the left", "the yellow pad".

:func:`resolve_references` rewrites each such phrase to the name of the one thing it picks
in the planner's :class:`~miles_ros.agent.world.World` (its current positions, so the
same words pick another cube when the cubes move), refuses, with the reason, a phrase whose
referent does not exist ("the fourth cube" among three), and asks back, with the
candidates as options, when the goal does not say which thing it means: two cubes equally
far left, "the middle cube" among four, "the second cube" without a side where the two
sides differ, "the cube" or
"the pad" where the scene has several, "another cube" (one the goal does not name) where
several are left, "it" with nothing named before. A superlative picks one thing whatever
its article ("there's a cube nearest the left pad" is "the cube nearest ..."), and
"there's" / "there're" point at no place. The rest of the
planner then reads names only. :func:`follow_up` resolves the question with the answer
("the red one") in the same conversation.

Frame: the robot's base frame (x forward, y to the robot's left, m); "left" is +y,
"nearest to the robot" is the smallest distance from the base in the table plane. Colours
of places come from the scene file's RGBA (:func:`colour_name`); a cube's colour is in its
name.

One module (about 1,040 lines): every kind of phrase is one entry of ``_RULES``, a
pattern and a few-line resolver over the same ranking helpers, applied by one loop in
:func:`resolve_references`; split, each part would import the other's helpers.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from miles_ros.agent.phrases import CUBE_NOUNS, PAD_NOUNS, SKILL_PHRASES
from miles_ros.agent.vocabulary import DISTANCE
from miles_ros.agent.world import World

TIE_M = 0.01
"""Two candidates closer than this (m) in the ordering quantity are a tie: the planner
asks which one is meant."""

PALETTE = {
    "red": (0.85, 0.15, 0.15),
    "green": (0.15, 0.70, 0.20),
    "blue": (0.15, 0.30, 0.85),
    "yellow": (0.95, 0.85, 0.20),
    "orange": (0.95, 0.55, 0.10),
    "purple": (0.55, 0.25, 0.70),
    "grey": (0.60, 0.60, 0.60),
    "white": (0.95, 0.95, 0.95),
    "black": (0.10, 0.10, 0.10),
}
"""The colour names a place's RGBA is named by (nearest in RGB)."""
SYNONYMS = {"gray": "grey"}

ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6}

_CUBE = rf"(?:{'|'.join(CUBE_NOUNS)})s?"
_PAD = rf"(?:{'|'.join(PAD_NOUNS)})s?"
_A_PAD = rf"(?:{'|'.join(n for n in PAD_NOUNS if n not in ('spot', 'square'))})s?"
"""A pad's noun after "a" ("a pad", "either mat"): not "a spot" or "a square" (of the
table)."""
_PLACE = rf"(?:{_PAD}|areas?|regions?|patch(?:es)?)"
"""A place's noun, in the reference phrases: a pad's, or a region's ("the yellow area")."""
_ROBOT = r"(?:the )?(?:robot|arm|base|you|yourself|me)"
_NEAR = r"(?:nearest|closest)"
_OF_THEM = rf" of (?:(?:the |all )?(?:\w+ )?(?:{_CUBE}s|them)|(?:them )?all)"
"""Of which things a superlative picks ("the leftmost of the three cubes")."""
_REL = (
    r"(?:that is |which is |that's |is |that lies |which lies |lying |that sits |sitting |"
    r"that stands |standing |located |that is located )?"
)
"""A relative clause's opening between a cube noun and what picks it ("the cube that lies
farthest to the right")."""
_FAR = r"(?:farthest|furthest)(?: away)?"


@dataclass(frozen=True)
class Clarification:
    """A question back: which of ``options`` (names) the ``phrase`` of ``goal`` means."""

    goal: str
    phrase: str
    question: str
    options: tuple[str, ...]


@dataclass(frozen=True)
class Resolution:
    """The goal with each referring phrase replaced by a name, or the refusal, or the
    question."""

    text: str
    refusal: str | None = None
    resolved: tuple[tuple[str, str], ...] = ()
    """(phrase, name) for each phrase replaced, in the order found."""
    clarify: Clarification | None = None


class _Ambiguous(Exception):
    """A phrase that does not say which of ``options`` it means."""

    def __init__(self, question: str, options: list[str]):
        super().__init__(question)
        self.question, self.options = question, tuple(options)


def _which(what: str, names: list[str]) -> _Ambiguous:
    listed = [f"the {spoken(n)}" for n in names]
    choices = ", ".join(listed[:-1]) + " or " + listed[-1]
    return _Ambiguous(f"Which {what} do you mean: {choices}?", names)


def colour_name(rgba) -> str:
    """The :data:`PALETTE` name nearest to an RGBA (or RGB) colour."""
    rgb = tuple(float(v) for v in list(rgba)[:3])
    return min(PALETTE, key=lambda name: math.dist(PALETTE[name], rgb))


def spoken(name: str) -> str:
    """``red_cube`` -> ``red cube``."""
    return name.replace("_", " ")


def resolve_references(goal: str, world: World, bare: bool = True) -> Resolution:
    """``goal`` with its referring phrases resolved in ``world`` (see the module).
    ``bare=False``: only the phrases that say which thing they mean (by position, order or
    colour), not "the cube", "the pad" or "it" (those are asked about): what can be named
    before the goal's prohibitions are read ("don't touch the leftmost cube")."""
    text = _A_SUPERLATIVE.sub("the ", goal)  # "a cube nearest the left pad": the one
    text = _COMPARATIVE.sub(_as_relation, text)  # "further right than the red cube"
    text = _THE_PAD.sub(lambda m: _pad_again(m, world), text)  # "... onto the pad"
    resolved: list[tuple[str, str]] = []
    anchors: list[tuple[str, str]] = []  # (cube picked, the thing it was picked against)
    refusals: list[str] = []
    asked: list[Clarification] = []

    def replace(match: re.Match, pick) -> str:
        if refusals or any(match.group(0).lower() in a.phrase.lower() for a in asked):
            return match.group(0)  # a phrase asked about is not read again by a later rule
        try:
            name, refusal = pick(match, world)
        except _Ambiguous as question:
            asked.append(Clarification(goal, match.group(0), question.question, question.options))
            return match.group(0)
        if refusal is not None:
            refusals.append(refusal)
        if name is None:
            return match.group(0)
        names = name if isinstance(name, tuple) else (name,)  # "the other cubes": several
        resolved.extend((match.group(0), n) for n in names)
        anchor = match.groupdict().get("place") or match.groupdict().get("ref")
        if anchor and len(names) == 1:
            anchors.append((names[0], anchor))
        return " and ".join("the " + spoken(n) for n in names)

    for pattern, pick in _RULES if bare else _RULES[:_SAYS_WHICH]:
        text = pattern.sub(lambda m, pick=pick: replace(m, pick), text)
        if refusals:
            return Resolution(goal, refusals[0], tuple(resolved))
    if asked:
        return Resolution(goal, None, tuple(resolved), asked[0])
    text = _anchor_it(text, anchors)
    if bare and len(world.objects) > 1 and _UNNAMED_IT.search(text):
        if _unnamed_it(text, _cube_words(world)):
            question = _which("cube", sorted(world.objects))
            said = _UNNAMED_IT.search(text).group(0).lower()
            clarify = Clarification(goal, said, question.question, question.options)
            return Resolution(goal, None, tuple(resolved), clarify)
    where = _where(goal, text, world) if bare and len(world.places) > 1 else None
    if where is not None:
        return Resolution(goal, None, tuple(resolved), where)
    return Resolution(text, None, tuple(resolved))


_THE_PAD = re.compile(
    rf"\bthe (?:{'|'.join(PAD_NOUNS)})\b(?! (?:that|which|with|on the (?:left|right)))", re.I
)
_PAD_SAID = re.compile(rf"\b([a-z]+)[ _](?:{'|'.join(PAD_NOUNS)})\b", re.I)


def _pad_again(match: re.Match, world: World) -> str:
    """ "the pad" after the goal has named one pad and no other ("take the cube nearest the
    right pad and push it onto the pad"): that pad, as "it" would be; with none or several
    named before it, left for the question."""
    before = match.string[: match.start()]
    if re.search(rf"\b(?:both|either|other|any)\b|(?:{'|'.join(PAD_NOUNS)})s\b", before, re.I):
        return match.group(0)
    named = {place_named(f"{w} pad", world) for w in _PAD_SAID.findall(before)} - {None}
    return "the " + spoken(named.pop()) if len(named) == 1 else match.group(0)


def _anchor_it(text: str, anchors: list[tuple[str, str]]) -> str:
    """ "push the cube closest to the left pad onto it": an "it" where the cube picked goes,
    in its own clause, cannot be that cube; it is the thing the cube was picked against
    (the pad or cube its phrase named, which the phrase's name took out of the text)."""
    for name, anchor in anchors:
        text = re.sub(
            rf"(\bthe {re.escape(spoken(name))}\b[^,;.]*?\b(?:onto|on to|on top of|on|to|"
            r"into|towards?|against|next to|beside|over|above)\s+)it\b",
            lambda m, anchor=anchor: m.group(1) + "the " + anchor,
            text,
            count=1,
            flags=re.I,
        )
    return text


def _where(goal: str, text: str, world: World) -> Clarification | None:
    """The question back when a cube is moved and the goal does not say where to: "over
    there" or "somewhere" with no place named before it, "to the left" (a direction, not a
    place), a cube picked up and nothing more ("pick up the blue cube")."""
    question = _which("place", sorted(world.places))
    there = _THERE.search(text)
    if there and not _place_before(text[: there.start()], world):
        return Clarification(goal, there.group(0), question.question, question.options)
    side = _TOWARD_SIDE.search(text)
    if (
        side
        and not re.search(DISTANCE, text)
        and _PLACING_VERBS & set(re.findall(r"[a-z]+", text[: side.start()].lower()))
    ):
        return Clarification(goal, side.group("side"), question.question, question.options)
    lifted = _ONLY_LIFTED.fullmatch(text.strip())
    if lifted:
        where = f"Where should the {lifted.group('cube')} go: " + question.question.split(": ")[1]
        asked = goal.strip().rstrip(".!") + " and put it there"
        return Clarification(asked, "there", where, question.options)
    moved = _ONLY_MOVED.fullmatch(text.strip())
    if moved:  # "push the blue cube": moved, but to no place said
        if moved.group("verb").lower() == "stack":  # onto which other cube
            colour = moved.group("cube").split()[0].lower()
            others = sorted(n for n in world.objects if n.split("_")[0] != colour)
            question = _which("cube", others) if others else question
        where = f"Where should the {moved.group('cube')} go: " + question.question.split(": ")[1]
        return Clarification(
            goal.strip().rstrip(".!?") + " there", "there", where, question.options
        )
    return None


def _place_before(text: str, world: World) -> bool:
    """Whether ``text`` names a place or a point (what a later "there" points back at)."""
    words = set(re.findall(r"[a-z_]+", text.lower()))
    sides = {name.split("_")[0] for name in world.places}
    return bool(words & (set(world.places) | sides | set(PAD_NOUNS))) or bool(
        re.search(r"\d", text)
    )


def _unnamed_it(text: str, cube_words: set[str]) -> bool:
    """Whether the first "it" (or "them") of ``text`` points at no cube: none is named
    before it, nor after it past a comma ("without lifting it, turn the blue cube": a
    phrase put before the clause that names it), nor the arm's end (:data:`_ARM_END`:
    "move your gripper so it's over the green block": "it" is the gripper). "Move it next
    to the blue cube" names none."""
    it = _UNNAMED_IT.search(text)
    before = set(re.findall(r"[a-z_]+", text[: it.start()].lower()))
    if before & cube_words or (before & _ARM_END and _SUBJECT_IT.match(text, it.end())):
        return False  # "move your gripper so it's over the green block": the gripper
    after = text[it.end() :].lower()
    for word in re.findall(r"[a-z_]+|,", after):
        if word == ",":
            return not set(re.findall(r"[a-z_]+", after.split(",", 1)[1])) & cube_words
        if word in cube_words:
            return True
    return True


def _cube_words(world: World) -> set[str]:
    """The words that name a cube, of ``world`` or any ("red", "red_cube", "blocks", ...):
    an "it" after one of them refers to it (or the goal's reading refuses the cube)."""
    names = {w for name in world.objects for w in (name, *name.split("_"))}
    return names | set(CUBE_NOUNS) | {noun + "s" for noun in CUBE_NOUNS}


def follow_up(question: Clarification, answer: str, world: World) -> str | None:
    """The question's goal with its phrase replaced by the option ``answer`` picks ("the
    red one", "red", "the red cube"), or None when the answer picks no single option."""
    words = set(re.findall(r"[a-z_]+", answer.lower()))
    picked = [
        name
        for name in question.options
        if name in words or name.split("_")[0] in words or spoken(name) in answer.lower()
    ]
    if len(picked) != 1:
        return None
    phrase = re.compile(rf"\b{re.escape(question.phrase)}\b", re.I)
    said = question.phrase.lower()
    where = "to the " if _THERE.fullmatch(said) and said.split()[0] not in _POINTING else "the "
    return phrase.sub(where + spoken(picked[0]), question.goal, count=1)


def _unique(ranked: list[tuple[float, str]], what: str) -> tuple[str | None, str | None]:
    """The first of ``ranked`` (ascending key, name); :class:`_Ambiguous` (the question)
    when others tie with it."""
    if not ranked:
        return None, f"the scene has no {what}"
    ranked = sorted(ranked)
    level = [n for key, n in ranked if key - ranked[0][0] < TIE_M]
    if len(level) > 1:
        raise _which(f"cube ({what} is not one: they are level)", level)
    return ranked[0][1], None


def place_named(phrase: str, world: World) -> str | None:
    """The place a phrase like "right pad", "left_pad" or "yellow pad" names."""
    words = phrase.replace("_", " ").split()
    head = words[0] if words else ""
    for name in world.places:
        if name.split("_")[0] == head or spoken(name) == " ".join(words):
            return name
    colour = SYNONYMS.get(head, head)
    matches = [n for n, c in place_colours(world).items() if c == colour]
    return matches[0] if len(matches) == 1 else None


def place_colours(world: World) -> dict[str, str]:
    """Each place's colour name (places the scene gives a colour)."""
    return {n: colour_name(rgba) for n, rgba in world.colors.items() if n in world.places}


def _side(match, world):
    groups = ("side", "side2", "side3", "side4")
    side = next(match.group(g) for g in groups if match.group(g)).lower()
    sign = 1.0 if side == "left" else -1.0
    ranked = [(-sign * p[1], n) for n, p in _cubes(match, world).items()]
    return _unique(ranked, f"the {side}most cube")


def _depth(match, world):
    """ "the cube furthest back" / "at the back" / "the backmost cube": the largest x of the
    base frame (farthest along the table's depth from the robot's base); "furthest forward",
    "at the front", "nearest the front", "the frontmost cube": the smallest."""
    said = next(g for g in (match.group(f"end{i}") for i in ("", 2, 3, 4)) if g).lower()
    back = said in {"back", "rear", "backmost", "rearmost"}
    ranked = [((-1.0 if back else 1.0) * p[0], n) for n, p in _cubes(match, world).items()]
    return _unique(ranked, f"the cube furthest {'back' if back else 'forward'}")


def _nth(ranked: list[tuple[float, str]], nth: str | None, what: str):
    """The ``nth`` (an :data:`ORDINALS` word; None: the first) of ``ranked`` (ascending
    key, name): refused when there are fewer, asked when a neighbour in the order ties
    with it."""
    if not nth:
        return _unique(ranked, "the " + what)
    k = ORDINALS[nth.lower()]
    if k > len(ranked):
        return None, f"the scene has {len(ranked)} cubes to rank: there is no {nth} {what}"
    ranked = sorted(ranked)
    key = ranked[k - 1][0]
    level = [n for value, n in ranked if abs(value - key) < TIE_M]
    if len(level) > 1:
        raise _which(f"cube (the {nth} {what} is not one: they are level)", level)
    return ranked[k - 1][1], None


def _how_said(how: str) -> str:
    """ "closest" -> "closest to", "furthest" -> "furthest from" (as said before "the")."""
    if re.fullmatch(_NEAR, how):
        return how + " to"
    return how + " from" if re.fullmatch(_FAR, how) else how


def _either(match: re.Match, name: str) -> str | None:
    """A group a rule says two ways ("the cube second nearest to the robot", "the second
    nearest cube to the robot"): ``name`` or ``name2``, whichever matched."""
    groups = match.groupdict()
    return groups.get(name) or groups.get(name + "2") or groups.get(name + "3")


def _robot_distance(match, world):
    how = _either(match, "how").lower()
    sign = 1.0 if re.match(_NEAR, how) else -1.0
    ranked = [(sign * math.hypot(p[0], p[1]), n) for n, p in _cubes(match, world).items()]
    return _nth(ranked, _either(match, "nth"), f"cube {_how_said(how)} the robot")


def _moved_there(match, world):
    """ "move the closest block to the grey pad": after a placing verb, with no other
    place said after it, the pad is where the cube goes and "closest" is to the robot;
    else left to the rule of distances from a place ("hover over the nearest cube to the
    left pad")."""
    before = re.findall(r"[a-z]+", match.string[: match.start()].lower())
    after = match.string[match.end() :].lower()
    place = re.match(r" (?:to|onto|on|into) the [a-z_]+(?: [a-z_]+)?", after)
    rest = re.split(r"[,;.]|\b(?:and|then)\b", after[place.end() :] if place else after)[0]
    if not before or before[-1] not in _PLACING_VERBS or re.search(_DESTINATION, rest):
        return None, None
    return _robot_distance(match, world)


_DESTINATION = r"\b(?:on|onto|to|into|at|over|above|in|toward|towards)\b"


def _place_distance(match, world):
    """A cube by its distance from a place or from another cube ("the cube nearest the
    green cube": of the others); "next to", "beside" and "near" a thing: the nearest."""
    if _placed_beside(match):
        return None, None
    said = match.group("place").lower()
    what = place_named(said, world)
    if what is None and re.search(rf"\b(?:{_CUBE}|one)$", said):
        what = _colour_cube(said.split()[0], world)
    if what is None:
        return None, f"the scene has no {match.group('place')}"
    how = _either(match, "how").lower()
    sign = -1.0 if re.match(_FAR, how) else 1.0
    px, py = world.position_of(what)[:2]
    if how in {"next to", "beside"} and not _either(match, "nth") and what in world.objects:
        _one_beside(world, what)
    ranked = [
        (sign * math.hypot(p[0] - px, p[1] - py), n)
        for n, p in _cubes(match, world).items()
        if n != what
    ]
    return _nth(ranked, _either(match, "nth"), f"cube {_how_said(how)} the {spoken(what)}")


def _one_beside(world, what: str) -> None:
    """Asks which cube "the cube next to / beside X" is when X has a cube on each side
    along the table's width (by more than :data:`TIE_M`), the farther of the two no more
    than twice as far from X as the nearer: both are next to it."""
    p = world.objects[what]
    sides = [_beyond(world, what, 1, sign) for sign in (1.0, -1.0)]
    if not all(sides):
        return
    near = [min((math.dist(p[:2], world.objects[n][:2]), n) for _, n in side) for side in sides]
    (d1, a), (d2, b) = sorted(near)
    if d2 <= 2.0 * d1:
        raise _which(f"cube (two are next to the {spoken(what)})", sorted([a, b]))


def _underneath(match, world):
    """ "the cube underneath / beneath / under X": the cube X stands on (within :data:`TIE_M`
    in the table's plane, lower); refused when X stands on the table."""
    ref = _colour_cube(match.group("ref"), world)
    if ref is None:
        return None, f"the scene has no {match.group('ref').lower()} cube"
    p = world.objects[ref]
    below = [
        (p[2] - q[2], n)
        for n, q in world.objects.items()
        if n != ref and math.dist(p[:2], q[:2]) < 2 * TIE_M and q[2] < p[2] - TIE_M
    ]
    if not below:
        return None, f"no cube is underneath the {spoken(ref)}: it stands on the table"
    return min(below)[1], None


def _on_its_own(match, world):
    """ "the cube on its own / by itself": the cube whose nearest other cube is farther than
    1.3 times every other cube's nearest; asked which when none is."""
    cubes = world.objects
    if len(cubes) < 3:
        return None, "no cube is on its own: the scene has fewer than three cubes"
    alone = {
        n: min(math.dist(p[:2], q[:2]) for m, q in cubes.items() if m != n)
        for n, p in cubes.items()
    }
    first, *rest = sorted(alone, key=lambda n: -alone[n])
    if all(alone[first] > 1.3 * alone[n] for n in rest):
        return first, None
    raise _which("cube (none stands apart from the others)", sorted(cubes))


def _placed_beside(match: re.Match) -> bool:
    """Whether "the cube next to / beside / near X" is where a placing verb puts the cube
    ("put the cube next to the blue cube": which cube is asked), not which cube it is
    ("put the cube next to the blue cube on the left pad")."""
    how = (_either(match, "how") or "").lower()
    if re.match(rf"{_NEAR}|{_FAR}", how):
        return False
    before = re.findall(r"[a-z]+", match.string[: match.start()].lower())
    if not before or before[-1] not in _PLACING_VERBS:
        return False
    after = re.split(r"[,;.]|\b(?:and|then)\b", match.string[match.end() :].lower())[0]
    return not re.search(r"\b(?:on|onto|to|into|at|over|above|in|toward|towards)\b", after)


def _middle(match, world):
    cubes = sorted((p[1], n) for n, p in world.objects.items())
    k = len(cubes) // 2
    if len(cubes) % 2 == 0:
        raise _which(f"cube (of {len(cubes)}, none is in the middle)", [n for _, n in cubes])
    gaps = [cubes[k][0] - cubes[k - 1][0], cubes[k + 1][0] - cubes[k][0]] if k else []
    if gaps and min(gaps) < TIE_M:
        raise _which("cube (two are level in the middle)", [n for _, n in cubes])
    return cubes[k][1], None


def _height(match, world):
    """ "the highest / topmost cube", "the lowest cube": the largest / smallest height of
    a cube's centre (a cube on another is higher); asked when two are level."""
    sign = 1.0 if re.match(r"(?:high|top|upper)", match.group("how"), re.I) else -1.0
    ranked = [(-sign * p[2], n) for n, p in world.objects.items()]
    return _unique(ranked, f"{match.group('how').lower()} cube")


def _ordinal(match, world):
    nth = match.group("nth").lower()
    k, cubes = ORDINALS[nth], world.objects
    if k > len(cubes):
        return None, f"the scene has {len(cubes)} cubes: there is no {nth} cube"
    side = (match.group("side") or "").lower()
    if not side:  # from the left, from the right or from the robot: asked where they differ
        by_y = [n for _, n in sorted((-p[1], n) for n, p in cubes.items())]
        by_reach = [n for _, n in sorted((math.hypot(p[0], p[1]), n) for n, p in cubes.items())]
        options = sorted({by_y[k - 1], by_y[-k], by_reach[k - 1]})
        if len(options) == 1:
            return options[0], None
        raise _which(f"cube (the {nth} from the left, from the right or from the robot?)", options)
    sign = 1.0 if side == "left" else -1.0
    ranked = sorted((-sign * p[1], n) for n, p in cubes.items())
    keys = [key for key, _ in ranked]
    if any(b - a < TIE_M for a, b in zip(keys, keys[1:], strict=False)):
        raise _which(f"cube (the {nth} from the {side}: some are level)", sorted(cubes))
    return ranked[k - 1][1], None


def _container(match, world):
    """ "put the green cube in the box": a cube noun with no colour after "in" / "into" is
    a container, and the scene has none (a target is a pad, a cube to stack on or a
    point): refused, not asked which cube."""
    noun = match.group("noun").lower()
    return None, f"the scene has no {noun} to put things in: a cube goes on a pad or a cube"


def _counted(match, world):
    """ "all four cubes" among three: refused; the scene's own count is every cube
    (:func:`~miles_ros.agent.negation.read_scope`)."""
    said = match.group("n").lower()
    n = int(said) if said.isdigit() else _COUNTS.index(said)
    if n == len(world.objects):
        return None, None
    return None, f"the scene has {len(world.objects)} cubes, not {said}"


def _coloured_cube(match, world):
    """ "the cube that is red": the red cube; else left alone (the reading refuses a colour
    no cube has)."""
    return _colour_cube(match.group("colour"), world), None


def _coloured_place(match, world, said_as_place: bool = True):
    """The one place of that colour. A place said with a colour only a cube has ("the blue
    pad") is refused; else left alone (the goal's reading
    refuses a colour the scene lacks)."""
    colour = (match.group("colour") or match.groupdict().get("colour2")).lower()
    colour = SYNONYMS.get(colour, colour)
    colours = place_colours(world)
    named = [n for n, c in colours.items() if c == colour]
    if not named and said_as_place and colours and _colour_cube(colour, world):
        return None, f"the scene has no {colour} {match.group(0).split()[-1]}"
    return (named[0] if len(named) == 1 else None), None


def _colour_alone(match, world):
    """ "onto the grey", "to the yellow one" after a preposition: the one place of that
    colour, when no cube has it (else left alone: "put the red one on the blue one")."""
    before = re.findall(r"[a-z]+", match.string[: match.start()].lower())
    colour = match.group("colour").lower()
    if not before or before[-1] not in _PREPOSITIONS or _colour_cube(colour, world):
        return None, None
    return _coloured_place(match, world, said_as_place=False)


_PREPOSITIONS = frozenset("on onto to into over above toward towards at of".split())


def _colour_cube(word: str, world: World) -> str | None:
    """The cube a colour word names ("red" -> ``red_cube``), or None."""
    word = SYNONYMS.get(word.lower(), word.lower())
    return next((n for n in world.objects if n.split("_")[0] == word), None)


def _cubes(match, world) -> dict:
    """The cubes a superlative or an ordinal ranks: every cube of ``world`` but the one a
    restriction said after the phrase leaves out ("the leftmost cube that isn't green",
    "the nearest cube other than the red one": group ``but``)."""
    said = (match.groupdict().get("but") or "").lower()
    left_out = _colour_cube(said, world) if said else None
    return {n: p for n, p in world.objects.items() if n != left_out}


def _beside(match, world):
    """ "the cube (to the) left of the blue one": of the cubes on that side of it (by y,
    more than :data:`TIE_M` beyond it), the nearest in y; refused when none is."""
    side, ref = match.group("side").lower(), _colour_cube(match.group("ref"), world)
    if ref is None:
        return None, f"the scene has no {match.group('ref').lower()} cube"
    ranked = _beyond(world, ref, 1, 1.0 if side == "left" else -1.0)
    if not ranked:
        return None, f"no cube is to the {side} of the {spoken(ref)}"
    return _unique(ranked, f"the cube {side} of the {spoken(ref)}")


def _beyond(world, ref: str, axis: int, sign: float) -> list[tuple[float, str]]:
    """The other cubes beyond cube ``ref`` along ``axis`` (0: x, 1: y of the base frame)
    in the direction of ``sign``, by more than :data:`TIE_M`, each with that distance."""
    start = world.objects[ref][axis]
    ranked = [(sign * (p[axis] - start), n) for n, p in world.objects.items() if n != ref]
    return [(d, n) for d, n in ranked if d > TIE_M]


def _before_or_behind(match, world):
    """ "the cube in front of / behind the blue one", seen from the robot: of the cubes
    nearer to / farther from the base along x (by more than :data:`TIE_M`), the nearest in
    x; refused when none is."""
    side, ref = match.group("side").lower(), _colour_cube(match.group("ref"), world)
    if ref is None:
        return None, f"the scene has no {match.group('ref').lower()} cube"
    ranked = _beyond(world, ref, 0, -1.0 if side == "in front of" else 1.0)
    if not ranked:
        return None, f"no cube is {side} the {spoken(ref)} (seen from the robot)"
    return _unique(ranked, f"the cube {side} the {spoken(ref)}")


_SIDES = {
    "left": (1, 1.0),
    "right": (1, -1.0),
    "back": (0, 1.0),
    "front": (0, -1.0),
}
"""A side of a cube and the base frame's axis and sign it lies along (as seen from the
robot: left +y, behind +x)."""


def _from_base(p) -> float:
    """A position's distance from the robot's base in the table's plane (m)."""
    return math.hypot(p[0], p[1])


def holds(world: World, cube: str, relation: str, ref: str) -> bool | None:
    """Whether cube ``cube`` is beyond cube ``ref`` on ``relation`` (``left``, ``right``,
    ``back``, ``front``, ``near``: closer to the robot, ``far``): True beyond it by more
    than :data:`TIE_M`, False short of it by more than that, None when the two tie or a
    cube is not in the scene (the relations :func:`_beside`, :func:`_before_or_behind` and
    :func:`_than_cube` rank by)."""
    if cube not in world.objects or ref not in world.objects or cube == ref:
        return None
    if relation in _SIDES:
        axis, sign = _SIDES[relation]
        if cube in {n for _, n in _beyond(world, ref, axis, sign)}:
            return True
        return False if cube in {n for _, n in _beyond(world, ref, axis, -sign)} else None
    p, q = world.objects[cube], world.objects[ref]
    gap = (_from_base(q) - _from_base(p)) * (1.0 if relation == "near" else -1.0)
    return None if abs(gap) <= TIE_M else gap > 0


def _than_cube(match, world):
    """ "the cube closer to you / further from you than the red one": of the cubes nearer
    to / farther from the base than it (by more than :data:`TIE_M`), the nearest to it in
    that distance, as "to the left of" picks; refused when none is."""
    ref = _colour_cube(match.group("ref"), world)
    if ref is None:
        return None, f"the scene has no {match.group('ref').lower()} cube"
    sign = -1.0 if match.group("near") else 1.0
    start = _from_base(world.objects[ref])
    ranked = [(sign * (_from_base(p) - start), n) for n, p in world.objects.items() if n != ref]
    ranked = [(d, n) for d, n in ranked if d > TIE_M]
    said = "closer to the robot" if sign < 0 else "farther from the robot"
    if not ranked:
        return None, f"no cube is {said} than the {spoken(ref)}"
    return _unique(ranked, f"the cube {said} than the {spoken(ref)}")


def _pad_than(match, world):
    """ "whichever pad is farther from / closer to the red cube": of the places, the one
    farthest from / nearest to that cube; asked when two are level."""
    ref = _colour_cube(match.group("ref"), world)
    if ref is None:
        return None, f"the scene has no {match.group('ref').lower()} cube"
    sign = 1.0 if match.group("near") else -1.0
    at = world.objects[ref][:2]
    ranked = [(sign * math.dist(p[:2], at), n) for n, p in world.places.items()]
    said = "nearer to" if sign > 0 else "farther from"
    return _unique(ranked, f"the place {said} the {spoken(ref)}")


def _between(match, world):
    """ "the cube between the red and the blue cube": a cube whose centre projects inside
    the segment between theirs (in the table plane), the nearest to that segment; refused
    when none does."""
    a, b = (_colour_cube(match.group(k), world) for k in ("a", "b"))
    for cube, said in ((a, match.group("a")), (b, match.group("b"))):
        if cube is None:
            return None, f"the scene has no {said.lower()} cube"
    if a == b:
        return None, f"a cube cannot be between the {spoken(a)} and itself"
    ranked = _on_segment(world, a, b)
    if not ranked:
        return None, f"no cube is between the {spoken(a)} and the {spoken(b)}"
    return _unique(ranked, f"the cube between the {spoken(a)} and the {spoken(b)}")


def _on_segment(world, a: str, b: str) -> list[tuple[float, str]]:
    """The other cubes whose centre projects inside the segment between cubes ``a`` and
    ``b`` (table plane), each with its distance from that segment."""
    (ax, ay), (bx, by) = world.objects[a][:2], world.objects[b][:2]
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    ranked = []
    for name, p in world.objects.items():
        if name in (a, b) or length2 == 0.0:
            continue
        t = ((p[0] - ax) * dx + (p[1] - ay) * dy) / length2
        if 0.0 < t < 1.0:
            ranked.append((abs((p[0] - ax) * dy - (p[1] - ay) * dx) / math.sqrt(length2), name))
    return ranked


def _between_others(match, world):
    """ "the cube between the other two": among three cubes, the one inside the circle
    whose diameter joins the other two (the angle they make at it is obtuse: at most one
    cube of three); asked when the scene has not three cubes, refused when no cube lies
    between the others (their triangle has no obtuse angle)."""
    cubes = sorted(world.objects)
    if len(cubes) != 3:
        raise _which(f'cube (of {len(cubes)}, "the other two" is not two)', cubes)
    for name in cubes:
        x, y = world.objects[name][:2]
        (ax, ay), (bx, by) = (world.objects[c][:2] for c in cubes if c != name)
        if (ax - x) * (bx - x) + (ay - y) * (by - y) < 0.0:
            return name, None
    return None, "no cube lies between the other two"


def _pointed_at(match, world):
    """ "that cube" / "this one" with no cube named before it, or "that" / "this" moved
    ("move that to the right pad"): which one is asked; after a named cube, left as it is
    (it points back at that one)."""
    before = match.string[: match.start()].lower()
    if match.group(0).lower() in ("that", "this"):
        words = re.findall(r"[a-z]+", before)
        if not words or words[-1] not in _PLACING_VERBS:
            return None, None
    if set(re.findall(r"[a-z_]+", before)) & _cube_words(world) - set(CUBE_NOUNS):
        return None, None
    return _bare("cube")(match, world)


def _named_cubes(text: str, world) -> set[str]:
    """The cubes ``text`` names: by their scene name or by their colour."""
    return {
        name
        for word in re.findall(r"[a-z_]+", text.lower())
        if (name := (word if word in world.objects else _colour_cube(word, world)))
    }


def _others(match, world):
    """ "the other cubes", "the others", "the rest of the cubes": every cube the goal does
    not name."""
    named = _named_cubes(match.string, world)
    others = tuple(n for n in world.objects if n not in named)
    if not named or not others:
        return None, None
    return others, None


def _other(match, world):
    """ "the other cube", "another cube": the one cube the goal does not name; asked among
    them when it leaves several ("lift the green cube and put it on another cube"). "The
    other pad": the one place the goal does not name; "the other one" is a place when no
    single cube is left and the goal names one place of two."""
    text = match.string.lower()
    named = _named_cubes(text, world)
    others = sorted(set(world.objects) - named)
    said_places = {n for n in world.places if n in text or spoken(n) in text}
    other_places = sorted(set(world.places) - said_places)
    noun = match.group(0).lower().split()[-1]
    is_pad = noun != "one" and re.fullmatch(_PAD, noun) is not None
    one = noun == "one" and len(others) != 1 and said_places and len(other_places) == 1
    if is_pad or one:
        if len(other_places) == 1 and said_places:
            return other_places[0], None
        if not other_places:
            return None, "the goal names every place: there is no other one"
        raise _which("other place", other_places)
    if len(others) == 1:
        return others[0], None
    if not others:
        return None, "the goal names every cube: there is no other one"
    raise _which("other cube", others)


def _not_coloured(match, world):
    """ "the pad that isn't yellow", "the non-red cube": of that kind, the things of
    another colour; asked when several are left, refused when none is."""
    colour = SYNONYMS.get(match.group("colour").lower(), match.group("colour").lower())
    kind = "place" if re.fullmatch(_PLACE, match.group("kind").lower()) else "cube"
    if kind == "place":
        left = sorted(n for n, c in place_colours(world).items() if c != colour)
    else:
        left = sorted(n for n in world.objects if n.split("_")[0] != colour)
    if not left:
        return None, f"every {kind} in the scene is {colour}"
    if len(left) > 1:
        raise _which(f"{kind} (more than one is not {colour})", left)
    return left[0], None


def _same_colour(match, world):
    """ "the pad of the same colour (as it / as the blue cube)": the thing of that kind
    with the colour of the thing said (or else of the cube named last before the phrase);
    refused when none has it."""
    kind = "place" if re.fullmatch(_PLACE, match.group("kind").lower()) else "cube"
    said = (match.group("ref") or "").lower()
    ref = None
    if said and said != "it":
        ref = place_named(said, world) or _colour_cube(said.split()[0], world)
    else:
        before = match.string[: match.start()].lower()
        colours = re.findall(rf"\b({_COLOUR_WORDS}) (?:{_CUBE}|one)\b", before)
        said = f"{colours[-1]} cube" if colours else ""
        ref = _colour_cube(colours[-1], world) if colours else None
    if ref is None:
        return None, f"the scene has no {said}" if said else None
    colours = {**{n: n.split("_")[0] for n in world.objects}, **place_colours(world)}
    colour = colours.get(ref)
    pool = world.places if kind == "place" else world.objects
    same = sorted(n for n in pool if n != ref and colours.get(n) == colour)
    if not same:
        what = "pad" if kind == "place" else "other cube"
        return None, f"no {what} in the scene is {colour} (the colour of the {spoken(ref)})"
    if len(same) > 1:
        raise _which(f"{kind} (more than one is {colour})", same)
    return same[0], None


class _Groups:
    """A match whose group ``name`` falls back on another (a rule said two ways)."""

    def __init__(self, match: re.Match, **fallbacks: str):
        self.match, self.fallbacks, self.string = match, fallbacks, match.string

    def group(self, name: str | int = 0):
        got = self.match.group(name)
        if got is None and name in self.fallbacks:
            return self.match.group(self.fallbacks[name])
        return got

    def start(self) -> int:
        return self.match.start()


def _bare(kind: str):
    def pick(match, world):
        names = sorted(world.objects if kind == "cube" else world.places)
        if len(names) == 1:
            return names[0], None
        if not names:
            return None, None
        raise _which(kind, names)

    return pick


_PLACING_VERBS = frozenset(
    phrase.split()[0] for skill in ("push", "pick_place") for phrase in SKILL_PHRASES[skill]
)
"""The first words of the phrases the training generator says a cube moved with."""
_UNNAMED_IT = re.compile(r"\b(?:it|them)\b", re.I)
_ARM_END = frozenset("gripper grippers hand claw arm effector tool fingers tcp".split())
"""Words for the arm's end: an "it" after one of them (and no cube) that is the subject of
its clause (:data:`_SUBJECT_IT`) is the arm's end."""
_SUBJECT_IT = re.compile(
    r"(?:['\u2019]s|\s+(?:is|sits|hangs|rests|hovers|stays|points|ends up|gets|lies|will be|"
    r"should be|can be))\b",
    re.I,
)
"""After "it": a verb whose subject it is ("so it's over", "so that it hangs above"), not
the object of a step ("use the gripper to pick it up": which cube is still asked)."""
_TOWARD_SIDE = re.compile(
    rf"\b(?:to|toward|towards|over to)\s+(?P<side>the\s+(?:left|right))\b(?!-| hand| {_PAD}| "
    rf"{_CUBE}| one| of| side of)(?!.*\bdeg)",
    re.I,
)
"""A direction said where a place is expected ("move the red cube to the left")."""
_ONLY_MOVED = re.compile(
    rf"(?:(?:please|could you|can you|would you|now|just|ok|okay)[, ]+)*(?P<verb>push|move|slide|"
    rf"shove|nudge|drag|shift|put|place|set|stack|bring)\s+the (?P<cube>[a-z]+ {_CUBE})"
    r"(?:\s+(?:a (?:bit|little|touch|tad)(?: bit)?|slightly|somewhat|(?:over|along|across)"
    r"(?: a (?:bit|little|touch|tad))?|nearer|closer|elsewhere))?"
    rf"(?:[, ]+(?:please|for me|now))*[.!?]*",
    re.I,
)
"""A cube moved and nothing more: where to is asked (a place of the scene)."""
_ONLY_LIFTED = re.compile(
    rf"(?:(?:please|could you|can you|would you|now|just|ok|okay|hey(?: robot)?|go ahead and)"
    rf"[, ]+)*(?:pick up|pick|lift|grab|grasp|raise|take hold of|take)\s+(?:up\s+)?"
    rf"the (?P<cube>[a-z]+ {_CUBE})(?:\s+up)?(?:[, ]+(?:please|for me|now|real quick|real fast|"
    rf"quickly|would you|will you|right now|for a (?:sec|second|moment)))*[.!?]*",
    re.I,
)
"""A cube picked up and nothing more: where it goes is asked."""
_COUNTS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_THERE = re.compile(
    r"\b(?:(?:over |right |up |down )?there\b(?! (?:is|are|was|were|will)\b|['\u2019](?:s|re)\b)|"
    r"(?:somewhere|anywhere)(?: else)?\b|"
    r"(?:that|this|the same) (?:spot|place|position|location|point)\b"
    r"(?! (?:of|on|at|in|where)\b))",
    re.I,
)
"""A place pointed at ("put the red cube over there", "move it to that spot"): asked about
when none is named before it."""
_POINTING = frozenset({"that", "this", "the"})
"""The first words of a place pointed at as a noun ("that spot"): an answer replaces it
with the place's name, not with "to the" and the name (as it does "there")."""
_COLOUR_WORDS = "|".join([*PALETTE, *SYNONYMS])
_A_SUPERLATIVE = re.compile(
    rf"\ban? (?=(?:{_CUBE}|one) {_REL}(?:the )?(?:{_NEAR}|{_FAR}|(?:left|right)(?:-| )?most)\b|"
    rf"(?:{_NEAR}|{_FAR}|(?:left|right)(?:-| )?most) (?:{_CUBE}|one)\b)",
    re.I,
)
"""An indefinite article before a superlative ("there's a cube nearest the left pad", "a
leftmost block"): a superlative picks one thing, so it reads as "the"."""
_COMPARATIVE = re.compile(
    r"\b(?:that'?s |that is |which is )?(?:(?:further|farther|more)(?: to the)? "
    r"(?P<side>left|right)|(?P<depth>further back|farther back|further forward|farther forward|"
    r"further out|farther out|further in|farther in))(?:wards)? than\b",
    re.I,
)
"""A comparative of place against another thing ("the cube further right than the red
one", "farther back than the blue cube"): the relation on that side of it, said as the
relative phrases are ("to the right of", "behind", "in front of" seen from the robot)."""


def _as_relation(match: re.Match) -> str:
    if match["side"]:
        return f"to the {match['side'].lower()} of"
    back = re.search(r"back|out", match["depth"], re.I)
    return "behind" if back else "in front of"


_ORDINAL = "|".join(ORDINALS)
_BUT = (
    r"(?P<comma>,)? (?:(?:that|which) (?:is not|isn'?t|'s not|is no) (?:the )?|(?:other than|"
    rf"except(?: for)?|apart from|but not|besides|excluding) the )(?P<but>{_COLOUR_WORDS})"
    rf"(?: one| {_CUBE})?\b(?(comma),?)"
)
"""A restriction said after a superlative ("the leftmost cube that isn't green", "the
nearest cube other than the red one"): the cube it names is not ranked (:func:`_cubes`)."""
_RULES = [
    (
        re.compile(
            rf"\bthe {_CUBE} (?:that'?s |that is |which is |sitting |standing |lying )?(?:(?:off |"
            r"out )?on its own|by itself|all alone|apart from the others)\b",
            re.I,
        ),
        _on_its_own,  # "the cube on its own", "the block sitting by itself"
    ),
    (
        re.compile(
            rf"\bthe (?P<colour>{_COLOUR_WORDS}) {_PLACE}\b|"
            rf"\b(?:the {_PLACE} (?:(?:that|which) ?(?:is|'s) (?:painted|coloured|colored)|"
            rf"that is|which is|that's|coloured|colored|painted|whose colou?r is|"
            rf"(?:that|which) (?:has|is in) the colou?r)|"
            rf"(?:whichever|whatever) {_PLACE} (?:is|'s)(?: painted| coloured| colored)?) "
            rf"(?P<colour2>{_COLOUR_WORDS})\b",
            re.I,
        ),
        _coloured_place,  # "the yellow pad", "whichever pad is yellow", "the mat painted grey"
    ),
    (
        re.compile(
            rf"\bthe (?P<colour>{_COLOUR_WORDS})(?: one)?\b(?!\s*(?:-|{_CUBE}\b|{_PLACE}\b))", re.I
        ),
        _colour_alone,
    ),
    (
        re.compile(
            rf"\bthe {_PAD} (?:that is |which is )?(?:on|at|to) the (?P<side>left|right)"
            r"(?:(?:-| )hand)?(?: side)?\b(?! of)",
            re.I,
        ),
        lambda m, w: (place_named(m.group("side"), w), None),
    ),
    (
        re.compile(
            rf"\bthe (?P<kind>{_PLACE}|{_CUBE}) (?:that|which) (?:is not|isn'?t|'?s not) "
            rf"(?:the )?(?P<colour>{_COLOUR_WORDS})(?: one)?\b|"
            rf"\bthe non-?(?P<colour2>{_COLOUR_WORDS}) (?P<kind2>{_PLACE}|{_CUBE})\b",
            re.I,
        ),
        lambda m, w: _not_coloured(_Groups(m, colour="colour2", kind="kind2"), w),
    ),
    (
        re.compile(
            rf"\bthe (?:same[- ]colou?red |matching )(?P<kind2>{_PLACE}|{_CUBE})\b|"
            rf"\bthe (?P<kind>{_PLACE}|{_CUBE}) (?:(?:of|with|in|that is|which is|that's) )?"
            rf"(?:the )?(?:same colou?r|matching colou?r)(?: as (?:the )?"
            rf"(?P<ref>it|[a-z_]+(?: {_CUBE}| {_PAD}| one)?))?",
            re.I,
        ),
        lambda m, w: _same_colour(_Groups(m, kind="kind2"), w),
    ),
    (
        re.compile(
            rf"\b(?:all\s+(?:of\s+)?(?:the\s+)?|the\s+|these\s+|those\s+)"
            rf"(?P<n>{'|'.join(_COUNTS[2:])}|\d+)\s+{_CUBE}\b",
            re.I,
        ),
        _counted,
    ),
    (  # "one of the others": one cube of them, not all (before "the others" below)
        re.compile(
            rf"\b(?:one|either|any|some) of the (?:other (?:{_CUBE}s|ones|two)|others|"
            rf"rest(?: of the {_CUBE}s)?|remaining (?:{_CUBE}s|ones|two))\b",
            re.I,
        ),
        _other,
    ),
    (
        re.compile(
            rf"(?<!between )(?<!among )\bthe (?:(?:other|remaining) (?:(?:two|2) )?"
            rf"(?:{_CUBE}s|ones)|(?:other|remaining) (?:two|2)|others|"
            rf"rest(?: of the {_CUBE}s)?)\b",
            re.I,
        ),
        _others,
    ),
    (
        re.compile(
            rf"\bthe {_CUBE} (?:that is|which is|that's|coloured|colored) (?P<colour>[a-z]+)\b",
            re.I,
        ),
        _coloured_cube,
    ),
    (
        re.compile(
            rf"(?:\bthe (?P<side>left|right)(?:-| )?most"
            rf"(?: (?:{_CUBE}|one)(?:{_OF_THEM})?|{_OF_THEM})\b|"
            rf"\bthe {_CUBE} {_REL}(?:(?:on|at|to) the (?:far|very) |"
            rf"(?:on|at) the )(?P<side2>left|right)(?:(?:-| )hand)?(?: side| end)?\b"
            rf"(?! {_PAD}| of| {_CUBE})|\bthe (?:far|very)[- ](?P<side3>left|right) {_CUBE}\b|"
            rf"\bthe {_CUBE} {_REL}(?:the )?(?:farthest|furthest|most|the most) "
            rf"(?:to the )?(?P<side4>left|right)\b(?! of))(?:{_BUT})?",
            re.I,
        ),
        _side,
    ),
    (  # along the table's depth, from the robot's base: "the cube furthest back"
        re.compile(
            rf"(?:\bthe (?P<end>back|rear|front)most (?:{_CUBE}|one)\b|"
            rf"\bthe {_CUBE} {_REL}(?:the )?(?:farthest|furthest|most) (?:to the )?"
            rf"(?P<end2>back|forward|front)\b(?! of)|"
            rf"\bthe {_CUBE} {_REL}(?:(?:at|in) the (?:very )?(?P<end3>back|front|rear)|"
            rf"(?:nearest|closest)(?: to)? the (?P<end4>front|back))\b(?! of))(?:{_BUT})?",
            re.I,
        ),
        _depth,
    ),
    (
        re.compile(
            rf"\bthe (?:(?P<nth>{_ORDINAL}) )?(?P<how>{_NEAR}|{_FAR}) {_CUBE}"
            r"(?= (?:to|onto|on|into) the )",
            re.I,
        ),
        _moved_there,
    ),
    (
        re.compile(
            rf"(?:\b(?:the|whichever|whatever) (?:{_CUBE} {_REL}(?:the )?"
            rf"(?:(?P<nth>{_ORDINAL}) )?(?P<how>{_NEAR} to|{_FAR} from|{_NEAR}|{_FAR})|"
            rf"(?:(?P<nth2>{_ORDINAL}) )?"
            rf"(?P<how2>{_NEAR}|{_FAR}) {_CUBE} (?:to|from)) {_ROBOT}\b|"
            rf"\bthe (?:(?P<nth3>{_ORDINAL}) )?(?P<how3>{_NEAR}|{_FAR}) (?:{_CUBE}|one)\b"
            r"(?!\s+(?:to|from)\b))"
            rf"(?:{_BUT})?",
            re.I,
        ),
        _robot_distance,
    ),
    (
        re.compile(
            rf"\b(?:the|whichever|whatever) (?:{_CUBE} {_REL}(?:the )?"
            rf"(?:(?P<nth>{_ORDINAL}) )?(?P<how>{_NEAR}(?: to)?|{_FAR}(?: from)?|next to|beside|"
            rf"near(?: to)?|close to)|(?:(?P<nth2>{_ORDINAL}) )?(?P<how2>{_NEAR}|{_FAR}) "
            rf"{_CUBE} (?:to|from)) the (?P<place>[a-z_]+(?: {_PAD}| {_CUBE}| one)?)"
            rf"(?:{_BUT})?",
            re.I,
        ),
        _place_distance,
    ),
    (
        re.compile(
            rf"\bthe {_CUBE} (?:that is |which is )?(?:(?:directly|just|immediately) )?"
            rf"(?:to the |on the )?(?P<side>left|right) of (?:the )?(?P<ref>{_COLOUR_WORDS})"
            rf"(?: {_CUBE}| one)?\b",
            re.I,
        ),
        _beside,
    ),
    (
        re.compile(
            rf"\bthe {_CUBE} (?:that is |which is |that's |sitting |resting |lying )?"
            r"(?:(?:directly|just|right|immediately) )?(?:underneath|beneath|under|below) "
            r"(?:the )?"
            rf"(?P<ref>{_COLOUR_WORDS})(?: {_CUBE}| one)?\b",
            re.I,
        ),
        _underneath,  # "the cube underneath the green one": the cube it stands on
    ),
    (
        re.compile(
            rf"\bthe {_CUBE} (?:that is |which is )?(?:(?:directly|just|right) )?"
            rf"(?P<side>in front of|behind|beyond) (?:the )?(?P<ref>{_COLOUR_WORDS})"
            rf"(?: {_CUBE}| one)?\b",
            re.I,
        ),
        _before_or_behind,
    ),
    (
        re.compile(
            rf"\b(?:the|whichever|whatever) {_CUBE} (?:that is |which is |that's |is )?"
            rf"(?:(?P<near>closer|nearer)|(?:further|farther)(?: away| out)?)"
            rf"(?: to| from)?(?: {_ROBOT})? than (?:the )?(?P<ref>{_COLOUR_WORDS})"
            rf"(?: {_CUBE}| one)?\b",
            re.I,
        ),
        _than_cube,
    ),
    (
        re.compile(
            rf"\b(?:the|whichever|whatever) {_PAD} (?:that is |which is |that's |is )?"
            rf"(?:(?P<near>closer|nearer)|(?:further|farther)(?: away)?) (?:to|from) "
            rf"(?:the )?(?P<ref>{_COLOUR_WORDS})(?: {_CUBE}| one)\b",
            re.I,
        ),
        _pad_than,
    ),
    (
        re.compile(
            rf"\bthe {_CUBE} (?:that is |which is |lying |standing )?between the "
            rf"(?P<a>{_COLOUR_WORDS})(?: {_CUBE}| one)? and the (?P<b>{_COLOUR_WORDS})"
            rf"(?: {_CUBE}s?| ones?)?\b",
            re.I,
        ),
        _between,
    ),
    (
        re.compile(
            rf"\bthe {_CUBE} (?:that is |which is |that's |lying |standing |sitting )?"
            r"(?:in )?between the (?:other|remaining) (?:two|ones|cubes|blocks)\b|"
            rf"\bthe {_CUBE} (?:that is |which is )?between the others\b",
            re.I,
        ),
        _between_others,
    ),
    (
        re.compile(
            rf"\bthe (?P<how>highest|topmost|uppermost|lowest|bottommost) (?:{_CUBE}|one)\b",
            re.I,
        ),
        _height,
    ),
    (
        re.compile(
            rf"\bthe (?:(?:middle|center|centre|central) {_CUBE}|{_CUBE} in the "
            r"(?:middle|center|centre))\b",
            re.I,
        ),
        _middle,
    ),
    (
        re.compile(
            rf"\b(?:the|an?) (?P<nth>{'|'.join(ORDINALS)}) {_CUBE}"
            rf"(?: from the (?P<side>left|right))?\b|"
            rf"\bthe (?:{_CUBE}|one) {_REL}(?:the )?(?P<nth2>{'|'.join(ORDINALS)}) "
            r"(?:one )?from the (?P<side2>left|right)\b",
            re.I,
        ),
        lambda m, w: _ordinal(_Groups(m, nth="nth2", side="side2"), w),
    ),
    (
        re.compile(rf"\b(?:in|into|inside(?: of)?) (?:the|a|an) (?P<noun>{_CUBE})\b", re.I),
        _container,
    ),
    # "the other cube", "the cube" / "the pad" / "that cube" with nothing that says which
    # (run last: the rules above have replaced the phrases that do say it; _SAYS_WHICH
    # counts the rules above)
    (
        re.compile(rf"\b(?:the other|another) (?:{_CUBE}|{_PAD}|one)\b", re.I),
        _other,
    ),
    (
        re.compile(
            rf"\b(?:a|an|one|any)\s+(?:single\s+)?{_CUBE}\b"
            r"(?!\s+(?:of|that|which|with|from|nearest|closest|farthest|furthest|high|tall))",
            re.I,
        ),
        _bare("cube"),
    ),
    (
        re.compile(
            rf"\b(?:(?:a|an|any|either)\s+{_A_PAD}|one of the {_A_PAD})\b"
            r"(?!\s+(?:of|that|which|with|on|in|position|point|nearest|closest))",
            re.I,
        ),
        _bare("pad"),
    ),
    (
        re.compile(
            rf"\bthe {_CUBE}\b(?! (?:that|which|with|from|nearest|closest|farthest))", re.I
        ),
        _bare("cube"),
    ),
    (
        re.compile(rf"\bthe {_PAD}\b(?! (?:that|which|with|on the (?:left|right)))", re.I),
        _bare("pad"),
    ),
    (
        re.compile(
            rf"\b(?:that|this) (?:{_CUBE}|one)\b|"
            r"\b(?:that|this)(?= (?:on|onto|to|into|over|across)\b)",
            re.I,
        ),
        _pointed_at,
    ),
]
_SAYS_WHICH = len(_RULES) - 6
"""The rules before the six for "the other cube", "a cube", "a pad", "the cube", "the pad"
and "that cube" with nothing that says which."""
