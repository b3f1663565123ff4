"""The colours the reading knows and the scene's own, in one place; and a thing's colour said
in any noun phrase, said as "the C N" (:func:`colour_said`, which
:func:`miles_ros.agent.clauses.plain_clauses` runs on the whole goal first).

The words: every colour a scene's thing is named by (:data:`~miles_ros.agent.reference_scene.
PALETTE`, a place's colour the nearest of them to its RGBA), their spellings
(:data:`~miles_ros.agent.reference_scene.SYNONYMS`), the generator's words for the cubes'
(:data:`~miles_ros.agent.phrases.COLOR_WORDS`) and English's
(:data:`~miles_ros.agent.vocabulary.COLOURS`): :data:`COLOUR` matches any of them, and
:data:`CUBE_COLOUR` the cubes' colours the generator says. Which of
them the scene has is the world's: :func:`cube_colours` (its cubes' names) and
:func:`pad_colours` (each place's side word and colour), which the reading passes to the
modules that check a colour against the scene.

A colour in a noun phrase (grammar, not goals: a noun, a colour word and the frames that
attach one to the other):

- "the N with the / a C colour", "the N that has a C colour", "the N of (a) C colour", "the N
  in C": "the C N" (N a cube's or a place's noun);
- "the N (that has / with) the same colour as X", "the N that matches the colour of X": "the N
  coloured like X" (read by :func:`~miles_ros.agent.retold.colour_paraphrased`);
- a pad said by its side, then by its colour ("the pad on the left, the yellow one", "the
  right mat - the grey one"): "the C N" when the scene's pad on that side is C (else kept);
- a pad's colour and noun after a preposition with the article left out ("onto yellow pad"),
  or at the head of a fragment of a terse list ("Red, grey pad, by pushing."; at the goal's
  start, after a comma, colon, semicolon or dash): "the yellow pad" (a colour of the scene's
  places; not a subject, "grey pad is ...");
- a question naming a pad by its colour, then a request ("Which pad is grey? Put the red
  cube there.", "which one is the yellow mat? ..."): "The grey pad: ..." (:func:`_which_is`).

A shade of a scene colour (:func:`shades_said`, run on the whole goal first, where the world
is known): a compound whose head is the colour ("sky-blue", "silver-grey", "lime-green",
"blood red") or a shade word before it ("light grey", "pale yellow", "dark green"), said as
the colour itself: English names a shade by its last word, and the scene has one thing of
each colour; a colour said approximately ("bluish", "greenish", "reddish", "greyish")
is said as the colour, for the same reason (a shade word before a colour stays a shade:
"bluish green" is green).
"""

from __future__ import annotations

import re

from miles_ros.agent.phrases import COLOR_WORDS, CUBE_NOUNS, PAD_NOUNS
from miles_ros.agent.reference_scene import PALETTE, SYNONYMS, place_colours
from miles_ros.agent.vocabulary import COLOURS
from miles_ros.agent.world import World

COLOUR_WORDS = tuple(
    sorted({*COLOURS, *PALETTE, *SYNONYMS, *(w for words in COLOR_WORDS.values() for w in words)})
)
"""Every word the reading takes as a colour."""
CUBE_COLOUR = rf"(?:{'|'.join(COLOR_WORDS)})"
"""A colour the generator names the cubes by ("red", "green", "blue"), as a regex fragment:
where a cube, not a pad, is said by its colour alone."""
COLOUR = rf"(?:{'|'.join(sorted(COLOUR_WORDS, key=len, reverse=True))})"
"""A colour word, as a regex fragment (no group)."""
SIDE = r"(?:left|right)"
SHADES = (
    "light dark pale bright deep vivid pastel dusty muted rich hot neon baby sky navy royal "
    "cobalt ocean sea lime forest grass olive emerald mint apple jade ash slate steel silver "
    "silvery charcoal dove pearl lemon golden gold mustard canary butter sunflower blood "
    "cherry fire brick ruby wine bluish greenish reddish yellowish greyish grayish"
).split()
"""Words that name a shade before a colour ("light grey", "navy blue", "lime green")."""
_NOT_A_SHADE = frozenset({"non", "not", "un", "off"})
"""Hyphenated words before a colour that are no shade of it ("the non-yellow pad")."""


def cube_colours(world: World) -> frozenset[str]:
    """The colours the scene's cubes are named by ("red" for ``red_cube``)."""
    return frozenset(name.split("_")[0] for name in world.objects)


def pad_colours(world: World) -> tuple[tuple[str, str], ...]:
    """Each place's side word and colour name ("left", "yellow"); "" where it has none."""
    colours = place_colours(world)
    return tuple((name.split("_")[0], colours.get(name, "")) for name in world.places)


_CUBE_NOUN = rf"(?:{'|'.join(CUBE_NOUNS)})"
_PAD_NOUN = rf"(?:{'|'.join(PAD_NOUNS)})"
_NOUN = rf"(?:{_CUBE_NOUN}|{_PAD_NOUN})"
_WITH_COLOUR = re.compile(
    rf"\bthe\s+(?P<n>{_NOUN})\s+(?:with\s+(?:the|a)|(?:that|which)\s+(?:has|is)\s+(?:the|a)|"
    rf"having\s+(?:the|a)|of\s+(?:a\s+|the\s+)?)\s*(?P<c>{COLOUR})\s+colou?r\b"
    rf"|\bthe\s+(?P<n2>{_NOUN})\s+in\s+(?P<c2>{COLOUR})\b(?!\s+(?:{_NOUN}|one)\b)",
    re.I,
)
_SAME_AS = re.compile(
    rf"\bthe\s+(?P<n>{_NOUN}|one)\s+(?:(?:that|which)\s+(?:has|is|'s)\s+|that's\s+|with\s+|"
    r"having\s+)?(?:the\s+)?same\s+colou?r\s+as\b|\bthe\s+(?P<n2>"
    rf"{_NOUN}|one)\s+(?:that|which)\s+match(?:es)?\s+(?:the\s+)?colou?r\s+of\b",
    re.I,
)
_SIDE_THEN_COLOUR = re.compile(
    rf"\bthe\s+(?:(?P<s>{SIDE})(?:-hand)?\s+(?P<n>{_PAD_NOUN})|(?P<n2>{_PAD_NOUN})\s+on\s+the\s+"
    rf"(?P<s2>{SIDE})(?:-hand\s+side|\s+side)?)\s*(?:,|[-\u2013\u2014]+)\s*the\s+"
    rf"(?P<c>{COLOUR})\s+one\b",
    re.I,
)
_PREP = r"(?:on\s+top\s+of|onto|on|to|into|over|above|towards?|at)"


def shades_said(text: str, world: World) -> str:
    """``text`` with a shade of a colour of the scene's things said as that colour ("the
    sky-blue cube" -> "the blue cube", "the light grey mat" -> "the grey mat"), and any
    colour said approximately as the colour ("bluish" -> "blue", "purplish" -> "purple"; see
    the module)."""
    colours = set(cube_colours(world)) | {c for _, c in pad_colours(world) if c}
    words = {w for c in colours for w in (c, *COLOR_WORDS.get(c, ()))}
    words |= {a for a, c in SYNONYMS.items() if c in colours}
    if words:
        said = "|".join(sorted(words, key=len, reverse=True))
        shades = "|".join(SHADES)

        def colour(m: re.Match) -> str:
            if m["m"] and m["m"].lower() in _NOT_A_SHADE:
                return m[0]
            return m["c"]

        text = re.sub(
            rf"(?<![\w-])(?:(?P<m>[a-z]+)-|(?:{shades})\s+)(?P<c>{said})\b(?!-)",
            colour,
            text,
            flags=re.I,
        )
    return _ISH.sub(lambda m: _ISH_OF[m["c"].lower()], text)


def _ish(colour: str) -> set[str]:
    """A colour said approximately ("bluish", "blue-ish", "reddish", "greyish"): English's
    "-ish" on the colour word, the final "e" dropped or the final consonant doubled as it
    is spelled."""
    c = colour.lower()
    return {f"{c}ish", f"{c}-ish", f"{c.removesuffix('e')}ish", f"{c}{c[-1]}ish"}


def colour_said(text: str, places: tuple[tuple[str, str], ...] = ()) -> str:
    """``text`` with a thing's colour said in another noun phrase said as "the C N" (see the
    module); ``places``: each place's side word and colour (:func:`pad_colours`)."""
    text = _WITH_COLOUR.sub(
        lambda m: f"the {(m['c'] or m['c2']).lower()} {m['n'] or m['n2']}", text
    )
    text = _SAME_AS.sub(lambda m: f"the {m['n'] or m['n2']} coloured like", text)

    def side_colour(m: re.Match) -> str:
        side, colour = (m["s"] or m["s2"]).lower(), m["c"].lower()
        if (side, SYNONYMS.get(colour, colour)) not in places:
            return m[0]
        return f"the {colour} {m['n'] or m['n2']}"

    text = _SIDE_THEN_COLOUR.sub(side_colour, text)
    said = sorted({w for s, c in places for w in (s, c) if w}, key=len, reverse=True)
    said += [a for a, c in SYNONYMS.items() if any(c == p for _, p in places)]
    if not said:
        return text
    text = _which_is(text, places)
    return re.sub(
        rf"(?:\b(?P<p>{_PREP})\s+|(?P<b>^\s*|[,;:]\s*|\s[-\u2013\u2014]+\s*))"
        rf"(?P<np>(?:{'|'.join(said)})\s+{_PAD_NOUN})\b(?!\s+(?:is|was|has)\b)",
        lambda m: f"{m['p']} the {m['np']}" if m["p"] else f"{m['b']}the {m['np']}",
        text,
        flags=re.I,
    )


_WHICH_IS = re.compile(
    rf"^\s*which\s+(?:(?P<n>{_PAD_NOUN})|one|of\s+the\s+(?P<n2>{_PAD_NOUN})s)\s+is\s+"
    rf"(?:the\s+)?(?P<c>{COLOUR})(?:\s+(?:one|(?P<n3>{_PAD_NOUN})))?\s*\?\s*(?=\S)",
    re.I,
)


def _which_is(text: str, places: tuple[tuple[str, str], ...]) -> str:
    """ "Which pad is grey? Put the red cube there." -> "The grey pad: Put the red cube
    there." (a question naming a pad by its colour, then a request: the question points the
    pad out, the request's "there" or "it" is that pad); only a colour one of the scene's
    places has (else kept, and refused as a colour the scene lacks)."""
    m = _WHICH_IS.match(text)
    if m is None:
        return text
    colour = m["c"].lower()
    noun = m["n"] or m["n2"] or m["n3"]
    if noun is None or SYNONYMS.get(colour, colour) not in {c for _, c in places}:
        return text
    return f"The {colour} {noun.lower()}: {text[m.end() :]}"


_ISH_OF = {f: w for w in COLOUR_WORDS for f in _ish(w)}
"""Each colour said approximately, and the colour."""
_ISH = re.compile(
    rf"(?<![\w-])(?P<c>{'|'.join(sorted(_ISH_OF, key=len, reverse=True))})\b(?!-)", re.I
)
