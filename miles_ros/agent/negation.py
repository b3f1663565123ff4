"""Negation and scope: the whole symbolic reading of a goal under its prohibitions.

:func:`read_plainly` reads a goal in order (plain wording, towers, references named, then
the prohibitions: :func:`miles_ros.agent.scope.read_scope`, the steps in order, the
questions back, then :func:`~miles_ros.agent.reading.read_goal`); :func:`read_in_scope`
turns a question back whose every answer would be refused into that refusal.
"""

from __future__ import annotations

from dataclasses import replace

from miles_ros.agent.beside import place_beside
from miles_ros.agent.described import described
from miles_ros.agent.discourse import said_in_order
from miles_ros.agent.identified import seat_named
from miles_ros.agent.prohibitions import PLACE
from miles_ros.agent.reading import (
    GoalReading,
    asks_nothing,
    place_moved,
    read_goal,
)
from miles_ros.agent.reference_scene import Clarification, Resolution, spoken
from miles_ros.agent.reference_stacked import seat_checked
from miles_ros.agent.references import follow_up, resolve_references
from miles_ros.agent.registry import SkillRegistry
from miles_ros.agent.scope import read_scope
from miles_ros.agent.towers import read_tower
from miles_ros.agent.turns import turn_text
from miles_ros.agent.wording import lift_then_place, plain_wording
from miles_ros.agent.wording_pointed import introduced
from miles_ros.agent.wording_verbs import tap_as_reach
from miles_ros.agent.world import World


def _allowed_only(references: Resolution, prohibitions, world: World) -> Resolution:
    """A question asked only among the things the goal allows: the options a goal-wide
    prohibition keeps out of the plan ("put a cube on the left pad, but not the red one or
    the blue one") are dropped; one left is the answer, several a narrower question, none a
    refusal (every answer is forbidden)."""
    asks = references.clarify
    kept = tuple(
        o
        for o in asks.options
        if not any(p.cube == o and p.scope == "goal" and p.what != PLACE for p in prohibitions)
    )
    if not kept:  # "hover over any cube except the red, the green and the blue one"
        ruled_out = ", ".join(spoken(o) for o in asks.options)
        why = f"the goal rules out all that {asks.phrase!r} could mean ({ruled_out})"
        return replace(references, refusal=why, clarify=None)
    if kept == asks.options:
        return references
    if len(kept) > 1:
        question = (
            asks.question.split(":")[0] + ": " + ", ".join(f"the {spoken(o)}" for o in kept[:-1])
        )
        return replace(
            references,
            clarify=replace(asks, question=f"{question} or the {spoken(kept[-1])}?", options=kept),
        )
    answered = follow_up(asks, spoken(kept[0]), world)
    return resolve_references(answered, world) if answered else references


def read_in_scope(
    goal: str, registry: SkillRegistry, world: World
) -> tuple[str, GoalReading, Clarification | None]:
    """:func:`read_plainly`, but a question back whose every answer the reading would
    refuse is a refusal ("pick up the cup and put it on the right pad": whichever cube
    "it" is, the scene has no cup): asking which one is meant is no use when none can be
    done. The reason is the answers' own when they agree, else the first answer's, naming
    the phrase asked about."""
    text, reading, asks = read_plainly(goal, registry, world)
    if asks is None or not asks.options:
        return text, reading, asks
    reasons = []
    for option in asks.options:
        answered = follow_up(asks, option, world)
        refusal = answered and read_plainly(answered, registry, world)[1].refusal
        if not refusal:
            return text, reading, asks
        reasons.append(refusal)
    if len(set(reasons)) > 1:
        return goal, GoalReading(refusal=f"{reasons[0]} (whichever {asks.phrase!r} means)"), None
    return goal, GoalReading(refusal=reasons[0]), None


def read_plainly(
    goal: str, registry: SkillRegistry, world: World
) -> tuple[str, GoalReading, Clarification | None]:
    """The whole symbolic reading of ``goal``, in order: the goal said plainly (typos,
    a lift then a placing, "put it there", tower words:
    :func:`~miles_ros.agent.wording.plain_wording`); a tower in words becomes its
    stacking steps (:func:`~miles_ros.agent.towers.read_tower`); a pad or the table moved
    is refused (:func:`~miles_ros.agent.reading.place_moved`); the phrases that pick a
    thing by position, order or colour are named (so a prohibition can name one: "don't
    touch the leftmost cube"); then the prohibitions ("all the cubes" is not a cube to ask
    about); then the steps in the order they are done, cubes said together one per step and
    the pronouns that point back at a cube named
    (:func:`~miles_ros.agent.discourse.said_in_order`); then "the cube", "the pad" and "it"
    where the scene has several (asked about); then a cube put next to, beside or near a
    thing as a move to a table point at its side (:func:`~miles_ros.agent.beside.place_beside`);
    then :func:`read_goal` on what is left. Returns the text the model plans (the goal's
    positive part, references named, turns said as the plan says them:
    :func:`~miles_ros.agent.turns.turn_text`; the goal itself when it only forbids or is
    refused),
    its reading, and the question back when the goal does not say which thing it means."""
    goal = described(seat_named(goal, world), world)  # "C's on top of D. ..." (described.py)
    goal, wrong = seat_checked(goal, world)  # "the C cube sitting on D": is it?
    if wrong:
        return goal, GoalReading(refusal=wrong), None
    goal = plain_wording(goal, world)
    if asks_nothing(goal):
        return goal, GoalReading(nothing=True), None
    tower = read_tower(goal, world)
    if tower.refusal:
        return goal, GoalReading(refusal=tower.refusal), None
    moved = place_moved(tower.text, world)
    if moved:
        return goal, GoalReading(refusal=moved), None
    named = resolve_references(tower.text, world, bare=False)
    if named.refusal or named.clarify:
        return named.text, GoalReading(refusal=named.refusal), named.clarify
    scope = read_scope(introduced(named.text), world)  # "see the cube closest to you? ..."
    ordered = said_in_order(scope.text, world)
    if ordered != scope.text:  # a lift then a placing said in order ("X after picking it up")
        ordered = lift_then_place(ordered)
    references = resolve_references(ordered, world)
    if scope.refusal or scope.nothing:  # the goal's own words stay in the plan
        return goal, GoalReading(refusal=scope.refusal, nothing=not scope.refusal), None
    if references.clarify:
        references = _allowed_only(references, scope.prohibitions, world)
    if references.refusal or references.clarify:
        return references.text, GoalReading(refusal=references.refusal), references.clarify
    placed = place_beside(references.text, registry, world)
    if placed.refusal:
        return references.text, GoalReading(refusal=placed.refusal), None
    reading = read_goal(placed.text, registry, world, scope.prohibitions)
    text = placed.text if reading.refusal else tap_as_reach(turn_text(placed.text, registry))
    return text, reading, None
