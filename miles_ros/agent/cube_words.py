"""The scene's cubes by the words that name them, and the generator's verbs: what the
goal's sequence (:mod:`miles_ros.agent.discourse`), its pointing back
(:mod:`miles_ros.agent.pointing`) and its prohibitions (:mod:`miles_ros.agent.negation`)
read cubes and steps with."""

from __future__ import annotations

import re

from miles_ros.agent.phrases import COLOR_WORDS, CUBE_NOUNS, skill_verbs
from miles_ros.agent.world import World

_IRREGULAR = {
    "put": "put",
    "putting": "put",
    "set": "set",
    "setting": "set",
    "slid": "slide",
    "gone": "go",
    "going": "go",
    "went": "go",
    "took": "take",
    "taken": "take",
    "brought": "bring",
    "got": "get",
    "gotten": "get",
    "getting": "get",
    "dropping": "drop",
    "dropped": "drop",
}
_NOUN = rf"(?:{'|'.join(CUBE_NOUNS)}|one)"


def _verbs() -> frozenset[str]:
    """The imperatives the training generator words steps with (every skill's)."""
    verbs = set().union(*skill_verbs().values())
    return frozenset(verbs - {"don", "without", "keep", "home"})


VERBS = _verbs()


def imperative(word: str) -> str:
    """``pushed`` / ``pushing`` / ``placed`` / ``slid`` -> ``push`` / ``push`` / ``place`` /
    ``slide`` for the generator's verbs; any other word as it is."""
    low = word.lower()
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    for suffix in ("ing", "ed"):
        if low.endswith(suffix):
            stem = low[: -len(suffix)]
            for base in (stem, stem + "e", stem[:-1] if stem[-2:-1] == stem[-1:] else ""):
                if base in VERBS:
                    return base
    return word


class CubeWords:
    """The world's cubes by the words that name them ("red", "crimson", "red_cube"); the
    prohibitions' reading (:mod:`miles_ros.agent.negation`) builds on it too."""

    def __init__(self, world: World):
        self.names = list(world.objects)
        self.word: dict[str, str] = {}
        for name in self.names:
            head = name.split("_")[0]
            for w in (name, head, *COLOR_WORDS.get(head, [])):
                self.word.setdefault(w, name)

    def name(self, phrase: str) -> str | None:
        """The first cube a phrase names (None: none)."""
        for w in re.findall(r"[a-z_]+", phrase.lower()):
            if w in self.word:
                return self.word[w]
        return None

    def named(self, phrase: str) -> list[str]:
        """The cubes a phrase names, in order, once each."""
        out: list[str] = []
        for w in re.findall(r"[a-z_]+", phrase.lower()):
            name = self.word.get(w)
            if name and name not in out:
                out.append(name)
        return out


class CubePhrases(CubeWords):
    """:class:`CubeWords` with the patterns of one cube said by colour, and where each is."""

    def __init__(self, world: World):
        super().__init__(world)
        words = "|".join(sorted(map(re.escape, self.word), key=len, reverse=True)) or "(?!)"
        self.colour = rf"(?:{words})"
        self.one = rf"(?:the\s+)?{self.colour}\b(?:\s+{_NOUN}s?\b)?"
        self.positions = dict(world.objects)
