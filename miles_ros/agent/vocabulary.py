"""The English vocabulary the symbolic reading (:mod:`miles_ros.agent.reading`) judges a
goal's words against: colours, object kinds and places a scene may lack, position
qualifiers, placements relative to another thing, and the words that ask for a
parameter-free skill. Word lists of the language, not lists of goals: the scene's own
names and the training generator's synonyms decide what is known."""

from __future__ import annotations

COLOURS = frozenset(
    "red green blue yellow orange purple violet pink magenta cyan teal turquoise white black "
    "grey gray brown silver gold golden beige maroon indigo olive khaki lavender amber "
    "bronze copper ivory coral salmon mauve ochre ruby emerald sapphire jade navy lime "
    "crimson scarlet azure aqua fuchsia lilac burgundy charcoal rainbow transparent".split()
)
"""English colour words (a colour the scene lacks makes a goal unknown)."""
THINGS = frozenset(
    "ball sphere cylinder cone pyramid cup mug glass bottle jar bowl plate dish spoon "
    "fork knife pen pencil book phone laptop keyboard mouse apple banana pear lemon fruit "
    "egg toy doll car truck key coin screw bolt nut hammer screwdriver wrench tool sponge "
    "towel cloth paper bag basket bin tray shelf drawer cabinet cupboard door window fridge "
    "sink floor wall ceiling chair sofa couch kitchen room garden moon sun star sky ocean "
    "sea river mountain house store shop cat dog person human baby child sandwich coffee "
    "tea water lights lamp television tv rocket plane airplane bicycle bike "
    "shoe sock hat bucket pot pan tomato potato carrot pizza cake bread flower plant tree "
    "stone rope wire cable".split()
)
"""Object kinds and places a scene may lack (plural ``-s`` accepted)."""
POSITIONS = frozenset(
    "middle center centre front back rear top bottom upper lower central inner outer".split()
)
"""Qualifiers that pick a pad or cube by position."""
RELATIONS = (
    "next to",
    "beside",
    "besides",
    "behind",
    "in front of",
    "underneath",
    "under",
    "below",
    "beneath",
    "between",
    "left of",
    "right of",
    "inside",
    "alongside",
    "around",
    "near",
    "close to",
)
"""Placements relative to another thing: no skill takes such a parameter (refused when
the clause moves a cube; "hover near the red cube" is a reach)."""
PARAMLESS_WORDS = {
    "home": ("home", "rest", "resting", "park", "start", "initial", "retract", "reset")
}
"""Words that ask for a parameter-free skill (default: its name)."""
DISTANCE = (
    r"\b(?:\d+(?:\.\d+)?\s*(?:cm|centimet(?:er|re)s?|mm|millimet(?:er|re)s?|inch(?:es)?|"
    r"met(?:er|re)s?)|(?:(?:half|a quarter of) an?|an?|one|two|three|four|five|ten|twenty|"
    r"thirty|a few|several)\s+(?:centimet(?:er|re)s?|millimet(?:er|re)s?|inch(?:es)?|"
    r"met(?:er|re)s?|foot|feet))\b"
)
"""A distance said in units, in digits or words ("10 cm", "half a metre"): how far to move
a cube, which no skill takes."""
