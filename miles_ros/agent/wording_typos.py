"""Typos put right: a word one slip from a scene word in its slot, said as that word
(:func:`corrected`, run by :func:`~miles_ros.agent.wording.plain_wording`; :func:`one_slip`
is also the repertoire's check of a verb said with a slip).

==========================================================  ================================
the goal says                                               the reading gets
==========================================================  ================================
"the gren cube", "the rigth pad", "the red cueb"            "the green cube", "the right
(one letter added, dropped, changed or two swapped, in a    pad", "the red cube"
colour, side or noun slot; words of four letters or more)
==========================================================  ================================

A typo is corrected only where one scene word is one slip away and the word is no colour
or thing of the vocabulary (:mod:`miles_ros.agent.vocabulary`): "the purple cube" stays
unknown and is refused.
"""

from __future__ import annotations

import re

from miles_ros.agent.cube_words import CubeWords
from miles_ros.agent.phrases import CUBE_NOUNS, PAD_NOUNS
from miles_ros.agent.reference_scene import SYNONYMS, place_colours
from miles_ros.agent.vocabulary import COLOURS, POSITIONS, THINGS
from miles_ros.agent.world import World

MIN_TYPO_LETTERS = 4
"""Shorter words are not corrected: too many words are one slip from "red" or "pad"."""


def corrected(goal: str, world: World) -> str:
    """``goal`` with each word one slip away from a scene word in that slot put right: a
    word before a cube noun against the cubes' colours, before a pad noun against the pads'
    sides and colours, after one of those against the nouns."""
    cube_words, pad_words = _modifiers(world)
    cube_nouns = set(CUBE_NOUNS) | {n + "s" for n in CUBE_NOUNS}
    pad_nouns = set(PAD_NOUNS) | {n + "s" for n in PAD_NOUNS}
    known = cube_words | pad_words | cube_nouns | pad_nouns | COLOURS | THINGS | POSITIONS
    tokens = re.split(r"([A-Za-z]+)", goal)
    lower = [w.lower() for w in tokens[1::2]]
    for i, word in enumerate(lower):
        if len(word) < MIN_TYPO_LETTERS or word in known:
            continue
        after = lower[i + 1] if i + 1 < len(lower) else ""
        before = lower[i - 1] if i else ""
        if after in cube_nouns or _fix(after, cube_nouns):
            pool = cube_words
        elif after in pad_nouns or _fix(after, pad_nouns):
            pool = pad_words
        elif before in cube_words:
            pool = cube_nouns
        elif before in pad_words:
            pool = pad_nouns
        else:
            continue
        fixed = _fix(word, pool)
        if fixed:
            tokens[2 * i + 1] = fixed
            lower[i] = fixed
    return "".join(tokens)


def _modifiers(world: World) -> tuple[set[str], set[str]]:
    """The words that say which cube (the cubes' colours and their synonyms) and which pad
    (the pads' sides and colours)."""
    cubes = set(CubeWords(world).word) - set(world.objects)  # words, not the names
    pads = {name.split("_")[0] for name in world.places}
    colours = set(place_colours(world).values())
    pads |= colours | {alias for alias, colour in SYNONYMS.items() if colour in colours}
    return cubes, pads


def _fix(word: str, pool: set[str]) -> str | None:
    """The one word of ``pool`` one slip from ``word`` (None: none, or several)."""
    if word in pool or len(word) < MIN_TYPO_LETTERS:
        return None
    near = [w for w in pool if one_slip(word, w)]
    return near[0] if len(near) == 1 else None


def one_slip(a: str, b: str) -> bool:
    """One letter added, dropped or changed, or two neighbours swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 1:
            return True
        i = diff[0]
        return len(diff) == 2 and diff[1] == i + 1 and a[i] == b[i + 1] and a[i + 1] == b[i]
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))
