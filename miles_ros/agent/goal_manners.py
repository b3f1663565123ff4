"""The manners of the symbolic reading (:mod:`miles_ros.agent.reading`): the words that rule
out or ask for lifting a cube, touching or moving it, and the constraints they put on each
clause's cube (:func:`_constraints`), with the goal-wide prohibitions a clause breaks
(:func:`_forbidden`)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from miles_ros.agent.goal_clauses import _Clause
from miles_ros.agent.reading_order import unpushed

if TYPE_CHECKING:
    from miles_ros.agent.reading import GoalReading

_NOT_BY = (
    r"(?:without|(?:(?:don'?t|do not|never|not|no)(?: by)?|instead of|rather than)(?: just)?)"
)
"""Words that rule out the manner after them ("without", "not by", "rather than", "no
lifting")."""
_NO_GRASP = re.compile(
    rf"{_NOT_BY} (?:lift|pick|grasp|grab|rais|carr)\w*(?: it)?(?: up)?|"
    r"keep(?:ing)? it on the table|"
    r"(?<!without )(?<!not )(?<!no )(?<!n't )(?<!never )(?<!not by )(?<!instead of )"
    r"(?<!rather than )"
    r"(?<!not just )(?<!n't just )\b(?:push|slid|shov|nudg|scoot|drag)\w*"
)
_GRASP = re.compile(
    r"\b(?:pick|lift|grasp|grab|carr|hold)\w*|"
    rf"(?:\b{_NOT_BY}|n't(?: by)?(?: just)?) (?:push|slid|shov|nudg|scoot|drag)\w*"
)
"""A clause that asks to lift its cube, or not to push it ("without pushing it", "but not
by pushing it", "rather than sliding it")."""
_LIFTS = r"(?:lift|pick|grasp|grab|rais|carr)"
_PUSHES = r"(?:push|slid|shov|nudg|scoot|drag)"
_NEITHER_WAY = re.compile(
    rf"(?P<neg>\b{_NOT_BY}|n't(?: by)?(?: just)?|\bneither(?: by)?)\s+(?:(?:a|any)\s+)?"
    rf"(?P<a>(?:{_LIFTS}|{_PUSHES})\w*(?:\s+(?:it|them))?(?:\s+up)?)\s*,?\s+(?:or|nor)\s+"
    rf"(?:(?:by|without|a|any)\s+)?(?P<b>(?:{_LIFTS}|{_PUSHES})\w*)",
    re.I,
)
"""Two ways of moving a cube ruled out by one negation over an "or" / "nor" ("without
pushing or lifting it", "don't slide it or pick it up", "neither pushing nor lifting it"):
the negation covers each way ("or" under "not" is "and not" each, :func:`_each_ruled_out`)."""
_NEGATION_FIRST = re.compile(
    r"^\W*(?:(?:please|just|and|but|so)\W+)*(?:don'?t|do not|never|neither|without|no)\b", re.I
)
"""A clause that opens with its negation ("don't push or lift the red cube"): a
prohibition, not a manner of the clause's own move."""


_WAY_AS_NOUN = re.compile(
    rf"\b(?P<neg>{_NOT_BY}|n't(?: by)?)\s+(?:a\s+single|a|an|any|(?<!\bno\s)one|single)\s+"
    rf"(?=(?:{_LIFTS}|{_PUSHES})\w*\b)"
)
"""A way of moving ruled out as a noun ("without a lift", "not a single nudge", "without any
lifting", "without a shove"; "no one" is nobody, no article): read as its verb ruled out
("without lift"), so :data:`_NO_GRASP` and
:data:`_GRASP` see the negation (before, the article hid it and "a lift" read as the manner)."""


def _way_as_verb(text: str) -> str:
    """``text`` with a way ruled out as a noun said as the verb ruled out (see
    :data:`_WAY_AS_NOUN`)."""
    return _WAY_AS_NOUN.sub(lambda m: m["neg"] + " ", text)


def _lifts(word: str) -> bool:
    return bool(re.match(_LIFTS, word, re.I))


def _each_ruled_out(text: str) -> str:
    """``text`` with a negation said once over two words of one way ("without pushing or
    shoving it") said over each ("without pushing it and without shoving it"); over both ways
    left as said."""

    def each(m: re.Match) -> str:
        if _lifts(m["a"]) != _lifts(m["b"]):
            return m.group(0)  # both ways: refused where the clause moves the cube
        neg = m["neg"].strip().lower()
        again = "without" if neg.startswith("neither") else "don't" if neg == "n't" else neg
        head = m.group(0)[: m.start("a") - m.start()]
        head = re.sub(r"\bneither\b", "without", head, flags=re.I)
        return f"{head}{m['a']} and {again} {m['b']}"

    return _NEITHER_WAY.sub(each, text)


_KEPT_THERE = re.compile(r"\b(?:leave|keep) it (?:there|in place)\b")
"""After a clause that moves the cube, where that clause put it (not a contradiction);
"where it is" is where it stands now, so moving it and keeping it where it is contradict
each other (as the training generator's refusals say)."""
_PLACING = re.compile(
    r"(?:(?:please|kindly|now|then|and|first|next|finally|lastly|also|just)[, ]+)*"
    r"(?:move|put|place|set|carry|take|transfer|relocate|drop|bring)\b"
)
"""A clause opening with a verb the training phrases say only a pick and place with, unless a
manner on its cube says otherwise ("... by pushing it" forbids grasping; "bring X to P by
sliding it" is their only push said with "bring"; the eval sets: "bring X to P" lifts)."""
_NO_TOUCH = re.compile(r"without touching(?: it)?|(?:don'?t|do not|never) touch(?: it)?")
_VISIT = re.compile(
    r"(?:(?:please|first|now|then|and|just)[, ]+)*(?:hover|reach|point|tap|poke|approach|go)\b"
)
"""A clause that goes to a thing (a reach): it moves no cube."""
_TAP = re.compile(r"\b(?:tap|taps|tapping|tapped|poke|pokes|poking|poked)\b")
_NO_MOVE = re.compile(
    r"without moving (?:it|the)|(?:don'?t|do not|never) move (?:it|the)|keep it where it is|"
    r"leave it (?:where it is|alone|there)|keep (?:it|the \w+ \w+) (?:where it is|still|in place)"
)


def _rules_out_grasping(text: str) -> bool:
    """The clause moves its cube without lifting it ("push", "slide", "nudge", "without
    lifting ...") and nowhere asks to lift it."""
    text = _way_as_verb(text)
    stripped = _NO_GRASP.sub(" ", text)
    return stripped != text and not _GRASP.search(stripped)


def _every_mover_ruled_out(forbid, require, moved: set[str], mentions: dict) -> str | None:
    """Why a cube the goal moves cannot be moved when its manners rule out both ways of
    moving it ("get the red cube onto the right pad, but don't pick it up and don't push
    it"): no lifting forbids the skills that grasp, no pushing those that do not, and a
    skill that moves a cube either grasps it or does not. Only for a cube one clause
    speaks of (in two clauses, each manner is its own clause's)."""
    for cube in sorted(moved):
        if mentions.get(cube) == 1 and ("grasps", cube) in forbid and ("grasps", cube) in require:
            return (
                f"the goal moves {cube} but rules out lifting it and pushing it: every skill "
                "that moves a cube either lifts it or pushes it"
            )
    return None


def _forbidden(clauses: list[_Clause], prohibitions) -> str | None:
    """Why a clause asks for what a goal-wide prohibition forbids: moving the cube,
    putting another cube on one it forbids to touch, or going to one it forbids to go
    near."""
    rules = {p.cube: p for p in prohibitions if p.scope == "goal" and p.what != "place"}
    for clause in clauses:
        rule = rules.get(clause.moved)
        if rule is not None:
            return (
                f"contradictory goal: it asks to move {rule.cube} and forbids it ({rule.phrase!r})"
            )
        for cube in clause.cubes:
            rule = rules.get(cube)
            if rule is not None and rule.what == "avoid":
                return (
                    f"contradictory goal: it asks to go to {cube} and forbids it ({rule.phrase!r})"
                )
            if clause.moved and rule is not None and rule.what == "touch":
                return (
                    f"the goal asks to put {clause.moved} on or against {cube} and forbids "
                    f"touching {cube} ({rule.phrase!r}): every plan for it is forbidden"
                )
    return None


def _constraints(clauses: list[_Clause], reading: GoalReading) -> str | None:
    prev: str | None = None
    moved: set[str] = set()
    kept: set[str] = set()
    visited: set[str] = set()
    manner_moved: set[str] = set()
    mentions: dict[str, int] = {}
    acting: dict[str, int] = {}  # the clauses that may act on each cube (not a hover)
    forbid: list[tuple[str, str]] = []
    require: list[tuple[str, str]] = []
    placing: list[tuple[str, str]] = []
    pending = ""
    for clause in clauses:
        text = _way_as_verb((pending + " " + clause.text).strip())  # a manner-only clause
        # qualifies the next; a way ruled out as a noun is its verb ruled out
        both_ways = _NEITHER_WAY.search(text)
        text = _each_ruled_out(text)
        pronoun = bool(re.search(r"\b(?:it|one)\b", clause.text))
        stripped = _NO_GRASP.sub(" ", text)
        no_grasp, grasp = stripped != text, bool(_GRASP.search(stripped))
        bare = not clause.cubes and clause.moved is None and not clause.places
        fronted = re.match(
            r"(?:without|using|by|with|instead of|rather than)\b", clause.text
        )  # qualifies the next
        if bare and fronted and (no_grasp or grasp) and clause is not clauses[-1]:
            pending = text  # "using a push, bring the blue cube ...": carry on
            continue
        pending = ""
        subject = clause.moved or (clause.cubes[0] if clause.cubes else None)
        if subject is None and pronoun and not clause.places:
            subject = prev
        for cube in {*clause.cubes, *([clause.moved] if clause.moved else [])}:
            mentions[cube] = mentions.get(cube, 0) + 1
        if not _VISIT.match(clause.text):  # a clause that may act on the cube with a skill
            for cube in {*clause.cubes, *([clause.moved] if clause.moved else [])}:
                acting[cube] = acting.get(cube, 0) + 1
        prev = clause.cubes[-1] if clause.cubes else (clause.moved or prev)
        if clause.moved:
            moved.add(clause.moved)
        visited |= set(clause.cubes) - {clause.moved}
        if subject is None:
            continue
        tap = bool(_TAP.search(text))
        no_touch, no_move = bool(_NO_TOUCH.search(text)), bool(_NO_MOVE.search(text))
        if no_move and clause.moved != subject and subject in moved and _KEPT_THERE.search(text):
            continue  # "..., and leave it there": where an earlier clause put it
        if (
            both_ways
            and clause.moved == subject
            and not _NEGATION_FIRST.match(text)
            and _lifts(both_ways["a"]) != _lifts(both_ways["b"])
        ):
            return (
                f"the goal moves {subject} but rules out lifting it and pushing it: every skill "
                "that moves a cube either lifts it or pushes it"
            )
        if no_grasp and grasp:
            return f"contradictory goal: it asks to lift {subject} and not to lift it"
        if (no_move or no_touch) and (clause.moved == subject or grasp):
            what = "touching" if no_touch else "moving"
            return f"contradictory goal: it asks to move {subject} without {what} it"
        if no_move:
            kept.add(subject)
        if no_grasp:
            forbid.append(("grasps", subject))
        elif grasp:
            require.append(("grasps", subject))
        elif clause.moved == subject and _PLACING.match(clause.text):
            placing.append(("grasps", subject))
        if (no_grasp or grasp) and clause.moved == subject:
            manner_moved.add(subject)
        if tap or no_touch or no_move:
            forbid.append(("contact", subject))
    both = sorted(kept & moved)
    if both:
        return f"contradictory goal: it asks to move {both[0]} and to leave it where it is"
    ruled_out = _every_mover_ruled_out(forbid, require, moved, mentions)
    if ruled_out:
        return ruled_out
    stated = {c for _, c in forbid + require}
    if any(_NO_GRASP.search(clause.text) for clause in clauses):
        placing = unpushed(placing, forbid)  # "move X to Y" lifts unless a push names X
    # a manner can be placed on its cube only when one clause speaks of that cube; "move X
    # to Y" also when the others only hover over it ("hover over the red cube, then move it
    # to the left pad") and none says how
    single = {c for c, n in mentions.items() if n == 1}
    reading.forbid = [(p, c) for p, c in forbid if c in single]
    reading.require = [(p, c) for p, c in require if c in single] + [
        (p, c) for p, c in placing if c in single or (acting.get(c) == 1 and c not in stated)
    ]
    reading.moved = (manner_moved - visited) & single
    return None
