"""The planner in a cell (config/scene_dual.yaml, the world frame): the cards' envelopes
(an arm's base frame) are dropped as the cell's manager drops them, and everything derived
from the registry follows the swap; `miles plan --scene` on a cell plans the same way."""

from __future__ import annotations

import json

import pytest

from miles_ros.agent.lm import FakeLanguageModel
from miles_ros.agent.planner import Planner
from miles_ros.agent.registry import SkillRegistry
from miles_ros.agent.world import load_world
from miles_ros.manager.cell import cell_registry
from tests.agent.conftest import keyword_scorer

DUAL = "config/scene_dual.yaml"
GOAL = "put the red cube on the left pad and the blue cube on the right pad"
BOTH = ["pick_place red_cube left_pad", "pick_place blue_cube right_pad"]


def shipped_registry() -> SkillRegistry:
    registry = SkillRegistry.load()
    card = registry["pick_place"].card if "pick_place" in registry else None
    if card is None or card.envelope is None:
        pytest.skip("needs the shipped pick_place card with its envelope")
    return registry


def wants_both() -> FakeLanguageModel:
    return FakeLanguageModel(keyword_scorer(["pick red left", "pick blue right"]))


def test_swapping_the_registry_renews_the_affordance_cache_and_grammars():
    registry = shipped_registry()
    planner = Planner(registry, load_world(DUAL), wants_both())
    before = planner.plan(GOAL)  # the world frame lies outside every arm-frame envelope
    assert before.refused and "envelope" in before.reason and not before.steps
    planner.grammar(planner.world)
    old_cache = planner.cache
    # what manager_node does in a cell; the affordance used to keep the old registry, whose
    # envelopes masked every pick_place and push: the plan was `home` alone
    planner.registry = cell_registry(planner.registry)
    assert planner.affordance.registry is planner.registry
    assert not planner._grammars and planner.cache is not old_cache
    plan = planner.plan(GOAL)
    assert not plan.refused and plan.valid, (plan.reason, plan.errors)
    assert [s.key() for s in plan.steps] == BOTH


def test_a_planner_built_on_the_cell_registry_plans_both_tasks():
    planner = Planner(cell_registry(shipped_registry()), load_world(DUAL), wants_both())
    assert [s.key() for s in planner.plan(GOAL).steps] == BOTH


@pytest.mark.parametrize("scene, cell", [(DUAL, True), ("config/scene.yaml", False)])
def test_miles_plan_plans_a_cell_without_the_cards_envelopes(scene, cell, monkeypatch, capsys):
    registry = shipped_registry()
    used = []

    def from_options(cls, registry=None, world=None, **_):
        used.append(registry)
        return cls(registry, world, wants_both())

    monkeypatch.setattr(Planner, "from_options", classmethod(from_options))
    from miles_ros.commands import plan as plan_command

    code = plan_command.main([GOAL, "--scene", scene, "--json"])
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    (got,) = used
    assert got.names == registry.names
    assert all(s.card.envelope is None for s in got) is cell
    if cell:
        assert code == 0 and [(s["skill"], *s["params"].values()) for s in out["steps"]] == [
            ("pick_place", "red_cube", "left_pad"),
            ("pick_place", "blue_cube", "right_pad"),
        ]
    else:  # the single arm's scene keeps the envelopes: red -> left_pad (0.36 m) is
        # refused when it lies outside pick_place's, planned when inside
        world = load_world(scene)
        red, pad = world.objects["red_cube"], world.places["left_pad"]
        card = registry["pick_place"].card
        if card.envelope_violations(red, (pad[0], pad[1], red[2])):
            assert code == 3 and out["refused"] and "envelope" in out["reason"]
        else:
            assert code == 0 and not out.get("refused")
            assert ("pick_place", "red_cube", "left_pad") in [
                (s["skill"], *s["params"].values()) for s in out["steps"]
            ]
