"""The words and phrases the training data generator (:mod:`miles_ros.agent.datagen`)
says goals with: synonyms for the scene's colours, cubes and pads, and the phrases per
skill. The planner's reading (the verb repertoire, the vocabulary of cubes and pads) reads
the same lists, so what the model was trained on and what the reading accepts agree (but
for turn's phrases, :data:`TURN_TEMPLATES`, which the generator does not draw yet)."""

from __future__ import annotations

import re

COLOR_WORDS = {
    "red": ["red", "crimson", "scarlet"],
    "green": ["green", "lime"],
    "blue": ["blue", "navy", "azure"],
}
CUBE_NOUNS = ["cube", "block", "box", "brick"]
SIDE_WORDS = {"left": ["left"], "right": ["right"]}
PAD_NOUNS = ["pad", "target", "mat", "square", "spot", "marker", "tile", "zone", "platform"]
HOME_PHRASES = (
    "go home",
    "return home",
    "go back home",
    "head home",
    "move home",
    "go to the home position",
    "return to the home pose",
    "go back to home",
    "move the arm home",
    "return to your home position",
    "park the arm",
    "send the arm home",
    "go back to the start pose",
    "reset to home",
    "return to the rest position",
    "retract to home",
    "home the arm",
    "go back to where you started",
    "bring the arm back home",
)
"""Ways to say ``home``."""
REACH_TEMPLATES = (
    "reach {where}",
    "reach for {where}",
    "reach over to {where}",
    "go to {where}",
    "move to {where}",
    "move the gripper to {where}",
    "move your hand over {where}",
    "hover over {where}",
    "hover above {where}",
    "point at {where}",
    "point to {where}",
    "position the gripper above {where}",
    "bring the end effector over {where}",
    "approach {where}",
    "put your hand above {where}",
    "go over to {where}",
    "head to {where}",
    "move the arm above {where}",
    "place the gripper over {where}",
    "get the gripper over {where} without touching it",
    "move over {where} but don't touch it",
    "go and hover over {where}",
    "tap {where}",
    "poke {where}",
    "give {where} a tap",
    "poke at {where} with the gripper",
)
"""Ways to say ``reach``: ``{where}`` is the target."""
PUSH_TEMPLATES = (
    "push {o} {to} {where}",
    "slide {o} {to} {where}",
    "shove {o} {to} {where}",
    "nudge {o} {to} {where}",
    "scoot {o} {to} {where}",
    "drag {o} along the table {to} {where}",
    "push {o} along the table {to} {where}",
    "slide {o} across the table to {where}",
    "move {o} {to} {where} by pushing it",
    "move {o} {to} {where} without lifting it",
    "get {o} {to} {where} without picking it up",
    "bring {o} {to} {where} by sliding it",
    "shift {o} {to} {where} by pushing",
    "keep {o} on the table and push it {to} {where}",
    "without lifting it, move {o} {to} {where}",
    "push {o} so that it ends up at {where}",
    "slide {o} {to} {where} keeping it on the table",
    "move {o} {to} {where} by sliding it",
    "give {o} a push {to} {where}",
    "move {o} {to} {where}, don't lift it",
    "move {o} {to} {where} but do not pick it up",
    "get {o} {to} {where} without grasping it",
)
"""Ways to say ``push``: ``{o}`` the cube, ``{to}`` a preposition, ``{where}`` the target."""
PICK_PLACE_TEMPLATES = (
    "put {o} {on} {where}",
    "place {o} {on} {where}",
    "set {o} {on} {where}",
    "move {o} {on} {where}",
    "move {o} {to} {where}",
    "carry {o} {to} {where}",
    "pick up {o} and put it {on} {where}",
    "pick {o} up and place it {on} {where}",
    "grab {o} and drop it {on} {where}",
    "lift {o} {on} {where}",
    "lift {o} over to {where}",
    "take {o} {to} {where}",
    "transfer {o} {to} {where}",
    "relocate {o} {to} {where}",
    "move {o} {to} {where} by picking it up",
    "move {o} {to} {where} by lifting it",
    "pick up {o} and carry it {to} {where}",
    "grasp {o} and set it down {on} {where}",
    "bring {o} {to} {where} by picking it up",
    "drop {o} {on} {where}",
    "pick {o} and place it {on} {where}",
    "get {o} {on} {where}",
    "lift {o} up and put it down {on} {where}",
)
"""Ways to say ``pick_place``: ``{on}`` / ``{to}`` prepositions."""
STACK_TEMPLATES = (
    "stack {o} on {where}",
    "stack {o} on top of {where}",
    "put {o} on top of {where}",
    "pile {o} onto {where}",
)
"""More ways to say ``pick_place`` when the target is a cube."""


TURN_TEMPLATES = (
    "turn {o} by {angle}",
    "rotate {o} by {angle}",
    "twist {o} {angle}",
    "spin {o} by {angle}",
    "rotate {o} so a face points at the robot",
    "turn {o} to face the robot",
)
"""Ways to say ``turn``: ``{angle}`` in degrees ("45 degrees", "30 degrees clockwise").
The adapter was trained before turn existed and the generator does not draw these yet:
they give the reading its turn verbs whatever the turn card's description says
(:mod:`miles_ros.agent.turns`)."""


SKILL_PHRASES = {
    "home": HOME_PHRASES,
    "reach": REACH_TEMPLATES,
    "push": PUSH_TEMPLATES,
    "pick_place": PICK_PLACE_TEMPLATES + STACK_TEMPLATES,
    "turn": TURN_TEMPLATES,
}
"""The phrases each skill is worded with (the generator draws all but turn's)."""


def skill_verbs() -> dict[str, frozenset[str]]:
    """The verbs the generator words each skill with: the imperatives of its phrases (the
    first word, and each word after "and " or ", ": "pick up {o} and put it ...")."""
    out: dict[str, frozenset[str]] = {}
    for skill, phrases in SKILL_PHRASES.items():
        verbs = set()
        for phrase in phrases:
            for match in re.finditer(r"(?:^|\band |, )([a-z]+)", phrase):
                verbs.add(match.group(1))
        out[skill] = frozenset(verbs)
    return out
