"""The planner's grounding uses a card's envelope (the region its policy was trained for)
as a hard mask: a call outside it has affordance 0 and is never chosen; a card without the
block (the fixture cards, older exports) is not masked."""

from pathlib import Path

from miles_ros.agent.grounding import IMPOSSIBLE, Affordance, Step, ground_candidates
from miles_ros.agent.registry import SkillRegistry

SHIPPED = Path(__file__).resolve().parents[2] / "policies" / "skills"
FAR = [("red_cube", "left_pad"), ("green_cube", "right_pad"), ("blue_cube", "right_pad")]
NEAR = [("red_cube", "right_pad"), ("green_cube", "left_pad"), ("blue_cube", "left_pad")]
FAR_CUBES = {
    "red_cube": (0.65, -0.28, 0.02),
    "green_cube": (0.35, 0.28, 0.02),
    "blue_cube": (0.65, 0.28, 0.02),
}
"""Cubes in corners of the shipped cards' cube area (x 0.30-0.65, |y| <= 0.30 m), each
0.54-0.57 m from its FAR pad: beyond the 0.10-0.45 m the skills were trained on (every
pair of the scene itself lies inside it)."""


def far(world):
    """``world`` with the cubes moved to :data:`FAR_CUBES`."""
    out = world.copy()
    out.objects.update(FAR_CUBES)
    return out


def alone(world, obj):
    """``world`` with ``obj`` its only cube: no other cube on a push's path (in the scene
    red's push to the left pad passes green, blue's to the right pad passes red)."""
    out = world.copy()
    out.objects = {obj: world.objects[obj]}
    return out


def test_out_of_envelope_candidates_are_masked(world):
    registry = SkillRegistry.load([SHIPPED], interface_cards=False)
    aff = Affordance(registry)
    for skill in ("push", "pick_place"):
        assert registry[skill].card.envelope is not None
        for obj, pad in FAR:
            step = Step(skill, {"object": obj, "target": pad})
            assert aff.precondition(registry[skill], step.params, far(world)) == IMPOSSIBLE
            assert aff(step, far(world)) == IMPOSSIBLE  # the critic never overrules the mask
            assert aff.precondition(registry[skill], step.params, alone(world, obj)) == 1.0
        for obj, pad in NEAR:
            params = {"object": obj, "target": pad}
            assert aff.precondition(registry[skill], params, world) == 1.0
    reach = registry["reach"]
    assert aff.precondition(reach, {"target": "red_cube"}, world) == 1.0
    # inside the planner's coarse workspace box, outside reach's trained target box
    assert aff.precondition(reach, {"target": [0.75, 0.0, 0.3]}, world) == IMPOSSIBLE
    assert aff.precondition(reach, {"target": [0.5, 0.0, 0.01]}, world) == IMPOSSIBLE
    cands = ground_candidates(registry, world, "go to 0.75, 0, 0.3")
    scores = dict(zip([c.key() for c in cands], aff.batch(cands, world), strict=True))
    assert scores["reach [0.75, 0, 0.3]"] == 0.0 and scores["reach red_cube"] > 0.0


def test_cards_without_the_block_are_not_masked(registry, world):
    aff = Affordance(registry)
    assert registry["push"].card.envelope is None
    params = {"object": "red_cube", "target": "left_pad"}
    # far: beyond the shipped card's envelope, with no cube on the path (in the scene
    # green stands on it, which the goal resolver refuses whatever the card)
    assert aff.precondition(registry["push"], params, far(world)) == 1.0


def _planner(world, wanted, mode="grounded"):
    from miles_ros.agent.lm import FakeLanguageModel
    from miles_ros.agent.planner import Planner, PlannerConfig
    from tests.agent.conftest import keyword_scorer

    registry = SkillRegistry.load([SHIPPED], interface_cards=False)
    config = PlannerConfig(mode=mode, fallback=False)
    return Planner(registry, world, FakeLanguageModel(keyword_scorer(wanted)), config)


def test_a_goal_asking_for_a_step_outside_the_envelope_is_refused_not_substituted(world):
    """The model wants push blue_cube right_pad (0.54 m apart in the far world; push was
    trained for 0.10-0.45 m): the planner refuses and names the step and the violated
    range, instead of pushing another cube or going home."""
    planner = _planner(far(world), ["push blue right"])  # plan lines use the prompt aliases
    plan = planner.plan("slide the blue cube to the right pad", use_cache=False)
    assert plan.refused and plan.steps == []
    assert "push blue_cube right_pad" in plan.reason
    assert "object_target_distance_xy" in plan.reason and "[0.100, 0.450]" in plan.reason


def test_a_later_step_outside_the_envelope_refuses_the_whole_goal(world):
    planner = _planner(far(world), ["push red right", "pick green right"])
    goal = "push the red cube to the right pad, then put the green cube on the right pad"
    plan = planner.plan(goal, use_cache=False)
    assert plan.refused and plan.steps == [] and plan.reason.startswith("step 2: ")


def test_steps_inside_the_envelope_still_plan(world):
    for obj, pad in NEAR:
        line = f"pick {obj.split('_')[0]} {pad.split('_')[0]}"
        planner = _planner(world, [line])
        plan = planner.plan(f"put the {obj.split('_')[0]} cube on the {pad}", use_cache=False)
        assert not plan.refused and [s.key() for s in plan.steps] == [f"pick_place {obj} {pad}"]


def test_plan_validation_reports_a_step_outside_the_envelope(world):
    from miles_ros.agent.grounding import OUTSIDE_ENVELOPE
    from miles_ros.agent.validation import validate_plan

    registry = SkillRegistry.load([SHIPPED], interface_cards=False)
    outside = [Step("pick_place", {"object": "red_cube", "target": "left_pad"})]
    near = [Step("pick_place", {"object": "red_cube", "target": "right_pad"})]
    assert any(OUTSIDE_ENVELOPE in e for e in validate_plan(outside, registry, far(world)))
    assert validate_plan(outside, registry, world) == []  # the scene's own pair: inside
    assert validate_plan(near, registry, world) == []
