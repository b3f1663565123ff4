"""The clauses of a goal as the symbolic reading (:mod:`miles_ros.agent.reading`) needs
them: the scene's words (:class:`_Vocabulary`), the goal split at its connectors
(:func:`split_clauses`) and, per clause, the cubes it names and the cube it moves
(:func:`_parse`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from miles_ros.agent.phrases import COLOR_WORDS, CUBE_NOUNS, PAD_NOUNS
from miles_ros.agent.world import World

_CLAUSES = re.compile(
    r",? (?:and )?then |, and |\band\b|;|\. |, after that|, next|, followed by|, but first|"
    r",\s(?![-+]?\d)|\bbefore you\b|\bafter you\b|\bonce you\b|\bafterwards\b"
)
_MOVE_VERBS = frozenset(
    "put place set move moving push slide shove nudge scoot drag pick lift grasp grab carry "
    "bring take drop stack pile transfer relocate get shift give hold raise lower tuck slip "
    "wedge stuff".split()
)
_TARGET_PREP = re.compile(
    r"\b(?:on top of|onto|on to|on|atop|against|to|toward|towards|at|touches|touching|touch)\s+"
    r"(?:the |that |this )?(?:(?:very |self)?same )?([a-z_]+)(?:\s+([a-z_]+))?"
)
"""A target after its preposition: its first word and the next ("onto the red cube"; "the
(very) same red cube" is the red cube, so a cube put onto "the very same" cube is put on
itself)."""
_NEGATED = re.compile(r"(?:don'?t|do not|never|not|without) \w+(?: it)?(?: up)?")
_SKIP = frozenset({"up", "the", "that", "this", "a", "an"})


class _Vocabulary:
    """The scene's words: colours and sides to names, and the nouns it knows."""

    def __init__(self, world: World):
        self.word_to_name: dict[str, str] = {}
        self.cube_words: set[str] = set(CUBE_NOUNS)
        self.place_words: set[str] = set(PAD_NOUNS)
        for name in world.objects:
            head, _, kind = name.partition("_")
            self.cube_words.add(kind or name)
            for word in [head, name, *COLOR_WORDS.get(head, [])]:
                self.word_to_name.setdefault(word, name)
        for name in world.places:
            head, _, kind = name.partition("_")
            self.place_words.add(kind or name)
            for word in (head, name, head + "most"):
                self.word_to_name.setdefault(word, name)
        self.objects, self.places = set(world.objects), set(world.places)
        self.known_nouns = self.cube_words | self.place_words | {"table", "tabletop"}


def split_clauses(text: str) -> list[str]:
    """The goal split at connectors; a clause that starts with "but" qualifies the one
    before it and stays with it."""
    out: list[str] = []
    for part in _CLAUSES.split(text):
        part = part.strip()
        if out and part.startswith("but ") and not part.startswith("but first"):
            out[-1] += " " + part
        elif part:
            out.append(part)
    return out


def _cube_at(words: list[str], vocab: _Vocabulary) -> str | None:
    for w in words:
        if w in _SKIP:
            continue
        name = vocab.word_to_name.get(w)
        return name if name in vocab.objects else None
    return None


@dataclass
class _Clause:
    """One clause of a goal, as far as the reading needs it."""

    text: str
    cubes: list[str]
    """Cubes it mentions, in order."""
    places: bool
    """It mentions a pad or a point."""
    moved: str | None
    """The cube it moves (after a moving verb, "it" for the previous cube, or the cube an
    elided clause starts with: "..., then the red one to the left pad")."""


def _parse(text: str, vocab: _Vocabulary) -> list[_Clause]:
    out: list[_Clause] = []
    prev: str | None = None
    for part in split_clauses(text):
        words = re.findall(r"[a-z_]+", part)
        cubes = [
            vocab.word_to_name[w] for w in words if vocab.word_to_name.get(w) in vocab.objects
        ]
        places = any(vocab.word_to_name.get(w) in vocab.places for w in words) or bool(
            re.search(r"\d", part)
        )
        free = _NEGATED.sub(" ", part).split()  # "don't pick it up" moves nothing
        moved = None
        for i, w in enumerate(free):
            if w in _MOVE_VERBS:
                rest = [x for x in free[i + 1 :] if x not in _SKIP]
                moved = _cube_at(rest[:1], vocab) or (prev if rest[:1] == ["it"] else None)
                if moved:
                    break
        lead = [
            w
            for w in words
            if w not in _SKIP | {"first", "then", "next", "lastly", "finally", "also"}
        ]
        if moved is None and lead and not (set(words) & _MOVE_VERBS) and _TARGET_PREP.search(part):
            moved = _cube_at(lead[:1], vocab)
        out.append(_Clause(part, cubes, places, moved))
        prev = cubes[-1] if cubes else (moved or prev)
    return out
