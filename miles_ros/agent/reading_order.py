"""What a goal's earlier clauses change for the checks on its later ones
(:func:`miles_ros.agent.reading.read_goal`): a push said of one cube leaves another clause's
placing verb its lift (:func:`unpushed`), and a cube an earlier clause moved no longer stands
where the scene first had it (:func:`stacking_after`)."""

from __future__ import annotations

from miles_ros.agent.grounding import stacking_error


def unpushed(
    placing: list[tuple[str, str]], forbid: list[tuple[str, str | None]]
) -> list[tuple[str, str]]:
    """The placings (("grasps", cube) asked by a placing verb) whose cube no push or
    no-lift clause of the goal names: "First push X onto P, then put Y on Q" keeps Y's
    lift (each clause's verb is its own); "Move X to P. Slide it." drops X's. When a push
    is said of no cube ("using a push, ..."), no placing is kept."""
    pushed = {c for p, c in forbid if p == "grasps"}
    return [(p, c) for p, c in placing if c not in pushed] if pushed else []


def stacking_after(obj: str, target: str, world, moved_before: set[str]) -> str | None:
    """Why ``obj`` cannot go onto the cube ``target`` after the goal's earlier clauses moved
    ``moved_before`` (:func:`~miles_ros.agent.grounding.stacking_error` in the scene without
    them), or None. A target an earlier clause moved stands where that clause put it, which
    the plan's validation checks step by step ("Move the green cube onto the grey pad, then
    the blue cube onto the green cube": green is no longer the tower's third level)."""
    if target in moved_before:
        return None
    gone = moved_before - {obj, target}
    if gone:
        world = world.copy()
        for name in gone:
            world.objects.pop(name, None)
    return stacking_error({"object": obj, "target": target}, world)
