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

Every kind of phrase is one entry of :data:`~miles_ros.agent.reference_rules._RULES` (its
pattern; the resolvers it calls are in :mod:`~miles_ros.agent.reference_picks`, over the
ranking helpers and result types of :mod:`~miles_ros.agent.reference_scene`), applied by one
loop in :func:`resolve_references`; this module holds that loop, the question asked when a
goal names no cube or no place, and :func:`follow_up`.
"""

from __future__ import annotations

import re

from miles_ros.agent.phrases import PAD_NOUNS
from miles_ros.agent.reference_rules import (
    _A_SUPERLATIVE,
    _COMPARATIVE,
    _RULES,
    _SAYS_WHICH,
    _as_relation,
)
from miles_ros.agent.reference_scene import (
    _CUBE,
    _PAD,
    _PLACING_VERBS,
    Clarification,
    Resolution,
    _Ambiguous,
    _cube_words,
    _which,
    place_named,
    spoken,
)
from miles_ros.agent.vocabulary import DISTANCE
from miles_ros.agent.world import World


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
    side = next((m for m in _TOWARD_SIDE.finditer(text) if not _turned(text, m.start())), None)
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
_CLAUSE_START = re.compile(r".*(?:[,;:]|\bthen\b|\band\b)", re.I | re.S)
_TURN_SAID = re.compile(r"\bdeg|°|\b(?:turn|rotate|twist|spin|swivel)", re.I)


def _turned(text: str, at: int) -> bool:
    """Whether the clause a side is said in (from its last comma, "then" or "and") says a
    turn ("..., then turn the red cube 25 degrees to the left"): the side is the turn's
    way, not a place."""
    before = text[:at]
    start = _CLAUSE_START.match(before)
    return bool(_TURN_SAID.search(before[start.end() if start else 0 :]))


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
