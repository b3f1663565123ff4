"""The planner's grounding uses a card's envelope (the region its policy was trained for)
as a hard mask: a call outside it has affordance 0 and is never chosen; a card without the
block (the fixture cards, older exports) is not masked."""

from pathlib import Path

from miles_ros.agent.grounding import IMPOSSIBLE, Affordance, Step, ground_candidates
from miles_ros.agent.registry import SkillRegistry

SHIPPED = Path(__file__).resolve().parents[2] / "policies" / "skills"
FAR = [("red_cube", "left_pad"), ("green_cube", "right_pad"), ("blue_cube", "right_pad")]
NEAR = [("red_cube", "right_pad"), ("green_cube", "left_pad"), ("blue_cube", "left_pad")]


def test_out_of_envelope_candidates_are_masked(world):
    registry = SkillRegistry.load([SHIPPED], interface_cards=False)
    aff = Affordance(registry)
    for skill in ("push", "pick_place"):
        assert registry[skill].card.envelope is not None
        for obj, pad in FAR:
            step = Step(skill, {"object": obj, "target": pad})
            assert aff.precondition(registry[skill], step.params, world) == IMPOSSIBLE
            assert aff(step, world) == IMPOSSIBLE  # the critic never overrules the mask
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
    assert aff.precondition(registry["push"], params, world) == 1.0
