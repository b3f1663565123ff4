"""Grounded candidates and affordances (precondition checks and critic values)."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from miles_ros.agent.grounding import (
    IMPOSSIBLE,
    REDUNDANT,
    Affordance,
    Step,
    build_observation,
    goal_points,
    ground_candidates,
)
from miles_ros.agent.registry import SkillRegistry
from sims.tasks import reach


def test_candidates_cover_every_skill_and_scene_name(registry, world):
    cands = ground_candidates(registry, world)
    keys = {c.key() for c in cands}
    assert "pick_place red_cube left_pad" in keys
    assert "push blue_cube left_pad" in keys
    assert "push blue_cube green_cube" not in keys  # the card's schema: pads or a point
    assert "reach right_pad" in keys and "home" in keys and "done" in keys
    assert "pick_place red_cube red_cube" in keys  # grounded; the affordance rules it out
    # reach: 5 names; pick_place: 3 cubes x 5 names; push: 3 cubes x 2 pads; home; done
    assert len(cands) == 5 + 3 * 5 + 3 * 2 + 1 + 1


def test_goal_coordinates_become_candidates(registry, world):
    assert goal_points("go to x=0.5, y=-0.1, z=0.3 now") == [(0.5, -0.1, 0.3)]
    assert goal_points("reach (45, 10, 20) cm") == [(0.45, 0.1, 0.2)]
    assert goal_points("put the red cube on the left pad") == []
    keys = {c.key() for c in ground_candidates(registry, world, "reach 0.4 0.2 0.3")}
    assert "reach [0.4, 0.2, 0.3]" in keys
    assert "push red_cube [0.4, 0.2, 0.3]" in keys


def test_precondition_affordance(registry, world):
    aff = Affordance(registry)
    pick = Step("pick_place", {"object": "red_cube", "target": "left_pad"})
    assert aff(pick, world) == 1.0
    assert (
        aff(Step("pick_place", {"object": "red_cube", "target": "red_cube"}), world) == IMPOSSIBLE
    )
    assert (
        aff(Step("push", {"object": "red_cube", "target": [0.5, 0.0, 0.3]}), world) == IMPOSSIBLE
    )  # a push cannot reach a point in the air
    assert aff(Step("reach", {"target": [2.0, 0.0, 0.3]}), world) == IMPOSSIBLE
    moved = world.copy()
    moved.apply(registry["pick_place"].effects_machine, pick.params)
    assert moved.objects["red_cube"][:2] == world.places["left_pad"][:2]
    assert aff(pick, moved) == REDUNDANT  # already there: the step would change nothing
    assert aff(Step("done"), world) == 1.0


def _linear_critic(path, dim: int, weights: np.ndarray, bias: float) -> None:
    w = helper.make_tensor("w", TensorProto.FLOAT, [dim, 1], weights.astype(np.float32))
    b = helper.make_tensor("b", TensorProto.FLOAT, [1], [bias])
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["obs", "w"], ["m"]),
            helper.make_node("Add", ["m", "b"], ["value"]),
        ],
        "critic",
        [helper.make_tensor_value_info("obs", TensorProto.FLOAT, [None, dim])],
        [helper.make_tensor_value_info("value", TensorProto.FLOAT, [None, 1])],
        [w, b],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 9  # what every onnxruntime of the last years reads
    onnx.save(model, path)


def test_critic_value_is_the_affordance(tmp_path, world):
    pytest.importorskip("onnxruntime")
    import yaml

    from tests.agent.conftest import FIXTURES

    card = yaml.safe_load((FIXTURES / "skills" / "reach" / "skill.yaml").read_text())
    card["observation"] = {"dim": reach.LAYOUT.dim, "layout": reach.LAYOUT.describe()}
    card["affordance"] = {"center": 0.0, "scale": 0.05}
    (tmp_path / "reach").mkdir()
    (tmp_path / "reach" / "skill.yaml").write_text(yaml.safe_dump(card))
    # value = goal y: targets on the left (y > 0) are "easy", on the right "hard"
    goal_y = reach.LAYOUT.slices["goal_pos"].start + 1
    weights = np.zeros(reach.LAYOUT.dim)
    weights[goal_y] = 1.0
    _linear_critic(str(tmp_path / "reach" / "critic.onnx"), reach.LAYOUT.dim, weights, 0.0)
    reg = SkillRegistry.load([tmp_path], interface_cards=False)
    assert reg["reach"].critic is not None
    obs = build_observation(reg["reach"], {"target": "left_pad"}, world)
    assert obs.shape == (reach.LAYOUT.dim,)
    assert obs[goal_y] == pytest.approx(world.places["left_pad"][1])
    aff = Affordance(reg)
    left = aff(Step("reach", {"target": "left_pad"}), world)
    right = aff(Step("reach", {"target": "right_pad"}), world)
    assert left > 0.99 and right < 0.01
    batch = aff.batch(
        [
            Step("reach", {"target": "left_pad"}),
            Step("reach", {"target": "right_pad"}),
            Step("home"),
        ],
        world,
    )
    assert batch[0] == pytest.approx(1.0) and batch[1] < 0.01 and batch[2] == 1.0
    # one critic run for the step's reach candidates, each as the single call gives it
    assert batch[1] == pytest.approx(right / left, rel=1e-5)
