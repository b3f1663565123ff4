"""Infeasible and no-op goals for adapter training (part of the data set that
:data:`miles_ros.agent.datagen.GENERATOR_VERSION` names).

An infeasible goal's target plan is the single line ``refuse``; a goal that asks for no
motion ("do nothing") has the empty plan (``done`` first). Kinds drawn:

- unknown colours (:data:`TRAIN_COLOURS`) and objects (:data:`TRAIN_THINGS`) in the
  wording of real skills; unknown places (:data:`TRAIN_PLACES`);
- relations no skill offers: a cube placed relative to another thing ("next to",
  "behind", ...); placing a cube on a cube when the registry's schemas accept no cube as a
  target is turned into a refusal by the generator itself;
- nonsense requests (:data:`TRAIN_NONSENSE`) and contradictions ("... without moving it").

The hand-written refusal set (``eval_refusals.yaml``) uses none of these words lists' colours,
objects or requests, so it measures generalisation, not recall.
"""

from __future__ import annotations

TRAIN_COLOURS = ["purple", "yellow", "orange", "pink", "white", "black", "brown", "grey"]
"""Colours no default-scene cube has (training only)."""
TRAIN_THINGS = [
    "ball",
    "cup",
    "bottle",
    "apple",
    "pen",
    "book",
    "sphere",
    "can",
    "banana",
    "phone",
    "cylinder",
    "plate",
]
"""Objects the default scene does not have (training only)."""
TRAIN_PLACES = ["the shelf", "the drawer", "the bin", "the box on the floor", "the middle pad"]
"""Places the default scene does not have (training only)."""
TRAIN_NONSENSE = [
    "fly to the moon",
    "make me a sandwich",
    "sing a song",
    "dance for me",
    "open the door",
    "turn on the lights",
    "what is the weather like",
    "paint the wall blue",
    "jump",
    "write a poem about cubes",
    "feed the cat",
    "drive to the store",
    "clean the kitchen",
    "tell me a joke",
]
"""Requests no skill can serve (training only)."""
RELATIONS = ["under", "underneath", "inside", "beneath"]
"""Placements relative to one other thing that no skill makes (a cube put next to, beside,
near, left or right of, in front of or behind a thing is a move to a table point beside
it: :mod:`miles_ros.agent.beside`)."""
NOTHING = [
    "do nothing",
    "don't do anything",
    "stay where you are",
    "stay still",
    "don't move",
    "never mind",
    "nothing for now",
    "just wait",
]
"""Goals that ask for no motion: the empty plan, not a refusal."""


def infeasible_goal(gen) -> str:
    """One infeasible goal, worded with ``gen``'s (a :class:`~miles_ros.agent.datagen.
    Generator`) verbs, synonyms and decoration."""
    r = gen.rng
    kind = r.choices(
        ["colour", "thing", "place", "relation", "nonsense", "contradiction"],
        weights=[3, 3, 1, 2, 2, 1],
    )[0]
    pad = gen.pad(r.choice(gen.pads))
    cube = gen.cube(r.choice(gen.cubes))
    if kind == "colour":
        noun = r.choice(["cube", "block", "box", "one"])
        thing = f"the {r.choice(TRAIN_COLOURS)} {noun}"
    elif kind == "thing":
        colour = r.choice(["", "", r.choice(TRAIN_COLOURS) + " ", "red ", "blue "])
        thing = f"the {colour}{r.choice(TRAIN_THINGS)}"
    if kind in ("colour", "thing"):
        body = r.choice(
            [
                f"put {thing} on {pad}",
                f"pick up {thing}",
                f"push {thing} to {pad}",
                f"move {thing} to {pad}",
                f"slide {thing} over to {pad}",
                f"hover over {thing}",
                f"reach for {thing}",
                f"place {thing} onto {pad}",
                f"grab {thing} and put it on {pad}",
                f"put {cube} on {pad}, then pick up {thing}",
            ]
        )
    elif kind == "place":
        body = r.choice(
            [f"put {cube} in {r.choice(TRAIN_PLACES)}", f"move {cube} to {r.choice(TRAIN_PLACES)}"]
        )
    elif kind == "relation":
        other = gen.thing(r.choice(gen.cubes + gen.pads))
        verb = r.choice(["put", "place", "move", "set"])
        body = f"{verb} {cube} {r.choice(RELATIONS)} {other}"
    elif kind == "nonsense":
        body = r.choice(TRAIN_NONSENSE)
    else:
        body = r.choice(
            [
                f"move {cube} to {pad} without moving it",
                f"pick up {cube} without touching it",
                f"push {cube} to {pad} but don't move it",
                f"put {cube} on {pad} and keep it where it is",
            ]
        )
    return gen._decorate(body)


def nothing_goal(gen) -> str:
    """A goal that asks for no motion."""
    return gen._decorate(gen.rng.choice(NOTHING))
