"""Towers: goals that ask for several cubes stacked one on another, said as a tower.

:func:`read_tower` runs first on a goal (before the prohibitions and the referring
phrases) and turns a tower in words into the stacking steps the model was trained on, one
pair a clause, bottom first:

- "stack all three cubes", "stack the cubes on top of each other", "build a tower of
  (all) the cubes", "put the cubes in a tower": the planner chooses the order and says it
  in the text it plans ("stack all three cubes" -> "put the blue cube on the green cube,
  then put the red cube on the blue cube" in the default scene). A tower already standing
  in the world is built on (its cubes keep their order); otherwise the base is the cube
  closest to the others (the shortest carries), and each next cube the nearest of those
  left to the one below it;
- "build a tower: blue, then green, then red on top", "a tower with blue at the bottom,
  then green, then red" (a size word may stand before the noun: "a three-cube tower", "a
  tall stack"), "... from the top: red, green, blue": the cubes in the order the
  goal names them (bottom first, or top first when it says "from the top" / "top to
  bottom", or says each on the next: "stack everything into one tower, green on top of red on
  top of blue").

A tower of more cubes than :data:`~sims.tasks.pick_place.TOWER_LEVELS` is refused with
the reason, and so is a tower said with a height over it ("a 4-level tower", "a tower five
blocks high": :func:`_too_tall`). Everything else about a stack (a named cube that has
cubes on it means the top of its stack; a fourth level; a cube that is held) is the goal
resolver's rule (:func:`miles_ros.runtime.goals.stack_target_error`), which the reading and
the validator apply to every step against the planner's world. Goals that name each pair
("put green on blue and red on green") need no rewriting: the model plans them as they are.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from miles_ros.agent.phrases import COLOR_WORDS, CUBE_NOUNS
from miles_ros.agent.reference_scene import spoken
from miles_ros.agent.world import World
from miles_ros.runtime.goals import rests_on, tower_level
from sims.tasks.pick_place import TOWER_LEVELS

_NOUNS = "|".join(CUBE_NOUNS)
_ALL = (
    rf"(?:(?:all\s+(?:of\s+)?)?(?:the\s+)?(?:three\s+|3\s+)?(?:{_NOUNS}|one)s\b"
    rf"|(?:every|each)\s+(?:{_NOUNS})\b|everything\b|all\s+three\b)"
)
"""All the cubes: "all three cubes", "all the blocks", "the cubes", "every cube",
"everything", "all three"."""
_SIZE = (
    rf"(?:(?:tall|small|little|short|neat|simple|single|new|(?:two|three|2|3)(?:[- ]?(?:{_NOUNS}|"
    r"level|stor(?:e?y))s?)?(?:[- ](?:high|tall))?)[- ,]+)*"
)
"""Words that size or qualify a tower between its article and its noun ("a three-cube
tower", "a tall stack", "a 3-level pile")."""
_ANY_ORDER = [
    rf"\b(?:stack|pile)\s+(?:up\s+)?{_ALL}(?:\s+(?:up|together))?"
    rf"(?:\s+(?:on\s+(?:top\s+of\s+)?(?:each\s+other|one\s+another)|into\s+(?:a|one)\s+"
    rf"{_SIZE}(?:tower|stack|pile))|(?=\s*(?:$|[,.;:!?]|\b(?:and|then|with|so)\b|"
    rf"(?:on|onto|atop|upon)\s+(?:top\s+of\s+)?the\s+[a-z]+\s+(?:{_NOUNS})\b)))",
    rf"\b(?:build|make|form|stack|put|arrange)\s+(?:up\s+)?(?:a|one)\s+(?:tower|stack|pile)\s+"
    rf"(?:of|from|with|out\s+of|using)\s+{_ALL}",
    rf"\b(?:put|place|arrange|set)\s+{_ALL}\s+(?:in|into)\s+(?:a|one)\s+(?:tower|stack|pile)",
    rf"\b(?:put|place|stack|set)\s+{_ALL}\s+on\s+(?:top\s+of\s+)?(?:each\s+other|one\s+another)",
    rf"\b(?:build|make|form|stack)\s+(?:up\s+)?(?:a|one)\s+(?:tower|stack|pile)\s+(?:of\s+)?"
    rf"(?:three|3)\s+(?:{_NOUNS}|levels?|stor(?:ey|y|ies|eys))s?\s+(?:high|tall)\b",
]
"""A tower of all the cubes, the order left to the planner."""
_ORDERED = re.compile(
    rf"\b(?:build|make|form|stack|erect)\s+(?:up\s+)?(?:a|one|the)\s+{_SIZE}"
    r"(?:tower|stack|pile)\b(?P<rest>.*)",
    re.I | re.S,
)
"""A tower whose cubes follow in the goal's words."""
_TOWER_FIRST = re.compile(
    rf"^\W*(?:(?:a|one|the)\s+)?{_SIZE}(?:tower|stack|pile)\b(?:\s+of\s+(?:the\s+)?"
    rf"(?:{_NOUNS})s)?(?:,?\s*please)?\s*(?=[:\u2013\u2014-]|,)(?P<rest>.*)",
    re.I | re.S,
)
"""A tower said first with no verb, its cubes after a colon, dash or comma ("Three-high
tower: green, red, blue from the bottom up", "A tower of the blocks - blue, red and
green")."""
ADD_ONE = re.compile(
    rf"\b(?:add|put|place|stack|set)\s+(?:one\s+more|another|a|one|an\s+extra|a\s+further)\s+"
    rf"(?:{_NOUNS})\s+(?:to|on(?:to)?|on\s+top\s+of|atop)\s+(?:the|this|that)\s+"
    r"(?:tower|stack|pile)\b",
    re.I,
)
"""One cube more on the tower standing: the one cube left off it, or a level too many."""
_TOP_FIRST = re.compile(
    r"\bfrom\s+the\s+top\b|\btop\s+(?:to|down\s+to)\s+(?:the\s+)?bottom\b", re.I
)


@dataclass(frozen=True)
class TowerReading:
    """What :func:`read_tower` found."""

    text: str
    """The goal the model plans: the tower as stacking steps, bottom first (the goal
    itself when it asks for no tower)."""
    order: tuple[str, ...] = ()
    """The tower's cubes, bottom first (empty: no tower asked for)."""
    refusal: str | None = None
    """Why the tower cannot be built (None: it can, or no tower)."""


_COUNTS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
_SIZED = re.compile(
    rf"\b(?P<n>{'|'.join(_COUNTS)}|\d+)[- ](?:{_NOUNS}|level|layer|tier|stor(?:e?y|ey))s?"
    r"(?:[- ](?:high|tall))?[- ](?:tower|stack|pile)\b"
    rf"|\b(?:tower|stack|pile)\s+(?:of\s+)?(?P<m>{'|'.join(_COUNTS)}|\d+)\s+"
    rf"(?:{_NOUNS}|level|layer|tier|stor(?:e?y|ey|ies))s?(?:\s+(?:high|tall))?\b"
    r"|\b(?:until|till|so\s+that|so)\s+(?:it|the\s+(?:tower|stack|pile))\s+(?:is|'s|stands|gets|"
    rf"becomes|reaches)\s+(?P<k>{'|'.join(_COUNTS)}|\d+)\s+(?:{_NOUNS}|level|layer|tier|"
    r"stor(?:e?y|ey|ies))s?\s+(?:high|tall)\b",
    re.I,
)
"""A tower said with its height as a count ("a 4-level tower", "a five-block stack", "a
tower four cubes high", "(add to the stack) until it is four cubes high")."""


def _too_tall(goal: str) -> str | None:
    """Why a tower said with a height over :data:`TOWER_LEVELS` cannot be built ("Make a
    4-level tower out of the cubes."): it asks for a level a tower may not have, whichever
    cubes it takes."""
    m = _SIZED.search(goal)
    said = m and (m["n"] or m["m"] or m["k"]).lower()
    n = said and (_COUNTS[said] if said in _COUNTS else int(said))
    if not n or n <= TOWER_LEVELS:
        return None
    return f"a tower is at most {TOWER_LEVELS} cubes high: the goal asks for {n} levels ({m[0]!r})"


def read_tower(goal: str, world: World) -> TowerReading:
    """``goal``'s tower in ``world``, rewritten as stacking steps (see the module)."""
    too_tall = _too_tall(goal)
    if too_tall:
        return TowerReading(goal, (), too_tall)
    words = _cube_words(world)
    for pattern in _ANY_ORDER:
        match = re.search(pattern, goal, re.I)
        if match:
            listed = _listed(goal[match.end() :])
            said = said_order(listed, words, fill=tuple(world.objects))
            if len(said) >= 2:  # "a tower of all three cubes with blue at the bottom, ..."
                end = match.end() + len(listed)
                return _rewritten(goal, match.start(), end, tuple(said), world)
            base = _ON_ONE.fullmatch(listed.strip(" .!"))
            if len(said) == 1 and base:  # "stack all three cubes on the green cube"
                end = match.end() + len(listed)
                return _rewritten(goal, match.start(), end, chosen_order(world, said[0]), world)
            order = chosen_order(world)
            return _rewritten(goal, match.start(), match.end(), order, world)
    added = ADD_ONE.search(goal)
    towers = standing_towers(world) if added else []
    if len(towers) == 1:
        left = [c for c in world.objects if c not in towers[0]]
        if len(towers[0]) >= TOWER_LEVELS:
            n = len(towers[0])
            return TowerReading(
                goal,
                tuple(towers[0]),
                f"the tower already has {n} cubes ({', '.join(towers[0])}), the most a tower "
                f"may have: a cube more would be level {n + 1}",
            )
        if len(left) == 1:
            return _rewritten(goal, added.start(), added.end(), (*towers[0], *left), world)
    ordered = _ORDERED.search(goal) or _TOWER_FIRST.match(goal)
    if ordered:
        rest = ordered.group("rest")
        listed = _listed(rest)
        order = said_order(listed, words)
        if len(order) >= 2:
            cut = ordered.end("rest") - len(rest) + len(listed)
            return _rewritten(goal, ordered.start(), cut, tuple(order), world)
    return TowerReading(goal)


def _listed(rest: str) -> str:
    """The part of a goal after its tower's noun that lists the tower's cubes: up to the
    sentence's end or a step after the tower ("then go home")."""
    end = re.search(r"(?:\.\s|;|\bthen\s+(?:go|return|move\s+home|head)\b)", rest, re.I)
    return rest[: end.start()] if end else rest


_LEVEL_WORDS = (
    (
        re.compile(
            r"^\s*(?:at|on|as|for)\s+the\s+(?:bottom|base|foot)\b|^\s*(?:at\s+)?bottom\b", re.I
        ),
        0,
    ),
    (
        re.compile(
            r"^\s*(?:in\s+the\s+(?:middle|centre|center)|in\s+between|(?:as\s+)?the\s+"
            r"middle\s+(?:one|level|layer)|second|next)\b",
            re.I,
        ),
        1,
    ),
    (
        re.compile(
            r"^\s*(?:on|at)\s+(?:the\s+)?top\b(?!\s+of\b)|^\s*(?:as\s+)?the\s+top\b|^\s*last\b",
            re.I,
        ),
        2,
    ),
)
"""Words after a cube that give its level in a tower: the bottom, the middle, the top."""


_BUILT_ON = re.compile(r"\b(?:on|onto|upon|atop|on\s+top\s+of)\s+(?:the\s+)?$", re.I)
"""The words before the cube a tower stands on ("a tower on the red cube", "stack all
three blocks on top of the blue block"): its bottom level."""


_SAID_ON = re.compile(r"\b(?:on|onto|upon|atop|on\s+top\s+of|above|over)\s+(?:the\s+)?$", re.I)
"""The words before a cube a later cube goes on ("then blue on top of / above the green")."""


_ON_ONE = re.compile(
    rf"(?:on|onto|atop|upon)\s+(?:top\s+of\s+)?(?:the\s+)?[a-z_]+(?:\s+(?:{_NOUNS}|one))?",
    re.I,
)
"""A tower of all the cubes said to stand on one of them, and nothing more."""


def said_order(listed: str, words: dict[str, str], fill: tuple[str, ...] = ()) -> list[str]:
    """The cubes ``listed`` names for a tower, bottom first: by the level said after each
    ("red on top, green in the middle and blue at the bottom") when every cube named has
    one, else in the order named (top first when it says "from the top" / "top to
    bottom"). ``fill``: the cubes the tower is of ("all three cubes"): a cube it leaves
    unsaid takes the one level the others leave free ("green at the bottom and blue on
    top": red in the middle). A cube named again as the one a later cube goes on ("first
    green, then blue on top of the green") is the one said before, counted once."""
    found = []
    for m in re.finditer(r"[a-z_]+", listed, re.I):
        word = m.group(0).lower()
        if word not in words:
            continue
        if words[word] in (words[w] for w, _, _ in found) and _SAID_ON.search(listed[: m.start()]):
            continue  # "then blue on top of the green": the green one said before
        found.append((word, m.start(), m.end()))
    order = [words[w] for w, _, _ in found]
    levels = []
    for _, start, end in found:
        after = listed[end:]
        after = re.sub(rf"^\s+(?:{_NOUNS}|one)s?\b", "", after, flags=re.I)
        level = next((n for pattern, n in _LEVEL_WORDS if pattern.search(after)), None)
        if level is None and _BUILT_ON.search(listed[:start]):
            level = 0  # "all three cubes into one tower on the red cube": red at the bottom
        levels.append(level)
    if len(order) >= 2 and None not in levels and len(set(levels)) == len(levels):
        unsaid = [c for c in fill if c not in order]
        free = [level for level in range(len(fill)) if level not in levels]
        if len(unsaid) == 1 and len(free) == 1 and len(fill) == len(_LEVEL_WORDS):
            order, levels = [*order, unsaid[0]], [*levels, free[0]]
        return [cube for _, cube in sorted(zip(levels, order, strict=True))]
    if _TOP_FIRST.search(listed) or _chain(listed, found):
        order.reverse()
        return order
    return _pairs_bottom_first(listed, found, order)


def _pairs_bottom_first(
    listed: str, found: list[tuple[str, int, int]], order: list[str]
) -> list[str]:
    """``order`` (the cubes as named) with each run of cubes said on the next ("green cube
    on the red cube, blue cube on top": green on red, then blue) put bottom first: the run
    reversed in its place ([red, green], then blue)."""
    runs: list[list[str]] = []
    for i, cube in enumerate(order):
        if i and _ON_NEXT.match(listed[found[i - 1][2] : found[i][1]]):
            runs[-1].append(cube)
        else:
            runs.append([cube])
    return [cube for run in runs for cube in reversed(run)]


_ON_NEXT = re.compile(
    rf"^(?:\s+(?:{_NOUNS}|one))?\s*,?\s*(?:on\s+top\s+of|on|onto|atop|upon|above|over)\s+"
    r"(?:the\s+)?$",
    re.I,
)
"""The words between two cubes of a tower said top down ("green on top of red", "red atop
the blue")."""


def _chain(listed: str, found: list[tuple[str, int, int]]) -> bool:
    """Whether ``found`` (cube words of ``listed`` and their spans) are said top down, each on
    the next ("green on top of red on top of blue")."""
    return len(found) >= 2 and all(
        _ON_NEXT.match(listed[a[2] : b[1]]) for a, b in zip(found, found[1:], strict=False)
    )


def chosen_order(world: World, base: str | None = None) -> tuple[str, ...]:
    """The planner's order for a tower of all the world's cubes, bottom first: on ``base``
    when the goal names it ("stack all three cubes on the green cube"), else on the
    highest tower already standing (its order kept), else on the cube closest to the
    others; then each next cube the nearest to the one below it, of those with no cube left
    on them (a stack is taken apart from the top)."""
    cubes = list(world.objects)
    standing = standing_towers(world)
    if base is not None:
        order = [base]
    elif standing:
        order = max(standing, key=len)
    else:
        base = min(cubes, key=lambda c: sum(_xy_distance(world, c, o) for o in cubes))
        order = [base]
    left = [c for c in cubes if c not in order]
    while left:
        free = [
            c for c in left if not any(rests_on(world.objects[o], world.objects[c]) for o in left)
        ]
        nearest = min(free or left, key=lambda c: _xy_distance(world, order[-1], c))
        order.append(nearest)
        left.remove(nearest)
    return tuple(order)


def standing_towers(world: World) -> list[list[str]]:
    """Stacks of two cubes or more standing in ``world``, bottom first."""
    towers = []
    for cube in world.objects:
        if tower_level(cube, world.objects) != 1:
            continue
        order = [cube]
        while above := [
            c
            for c in world.objects
            if c not in order and rests_on(world.objects[c], world.objects[order[-1]])
        ]:
            order.append(above[0])
        if len(order) >= 2:
            towers.append(order)
    return towers


def _xy_distance(world: World, a: str, b: str) -> float:
    pa, pb = world.objects[a], world.objects[b]
    return math.hypot(pa[0] - pb[0], pa[1] - pb[1])


def _rewritten(
    goal: str, start: int, end: int, order: tuple[str, ...], world: World
) -> TowerReading:
    """The goal with the tower said as its stacking steps, bottom first; a cube already
    resting on the one below it in ``world`` (a tower already standing) is no step."""
    if len(order) > TOWER_LEVELS:
        return TowerReading(
            goal,
            order,
            f"a tower is at most {TOWER_LEVELS} cubes high: the goal asks for "
            f"{len(order)} ({', '.join(order)})",
        )
    steps = ", then ".join(
        f"put the {spoken(upper)} on the {spoken(lower)}"
        for lower, upper in zip(order, order[1:], strict=False)
        if not rests_on(world.objects[upper], world.objects[lower])
    )
    if not steps:
        standing = ", ".join(order)
        return TowerReading(
            goal, order, f"the tower already stands ({standing}): nothing to stack"
        )
    before, after = goal[:start], goal[end:]
    after = re.sub(r"^\s*(?:on\s+top|at\s+the\s+top)\b", "", after, flags=re.I)
    text = re.sub(r"\s+([,.;:!?])", r"\1", " ".join(f"{before} {steps} {after}".split()))
    return TowerReading(text, order)


def _cube_words(world: World) -> dict[str, str]:
    """Words naming each cube of ``world``: its name, its colour and the colour's synonyms."""
    words: dict[str, str] = {}
    for name in world.objects:
        head = name.split("_")[0]
        for word in (name, head, *COLOR_WORDS.get(head, [])):
            words.setdefault(word.lower(), name)
    return words


def _named(text: str, words: dict[str, str]) -> list[str]:
    """The cubes ``text`` names, in order; a cube named twice counts twice (a tower cannot
    hold it twice: the validator refuses the plan)."""
    return [words[w] for w in re.findall(r"[a-z_]+", text.lower()) if w in words]
