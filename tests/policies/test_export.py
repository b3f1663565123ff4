"""ONNX export parity with torch, and SkillPolicy's checks."""

import hashlib

import numpy as np
import onnx
import pytest
import torch

from policies.card_content import build_card, main
from policies.cards import SkillCardError, write_card
from policies.export import ONNX_OPSET, export_onnx
from policies.ppo.networks import ActorCritic
from policies.runtime import ObservationShapeError, SkillPolicy
from sims.tasks import reach


def _trained_like_model(obs_dim=23, action_dim=7):
    torch.manual_seed(1)
    model = ActorCritic(obs_dim, action_dim)
    # A non-trivial normalizer, so the export must really bake it in.
    model.normalizer.update(torch.randn(500, obs_dim) * 3.0 + 1.5)
    with torch.no_grad():
        for p in model.actor.parameters():
            p.add_(0.3 * torch.randn_like(p))
    return model.eval()


@pytest.fixture(scope="module")
def skill_dir(tmp_path_factory):
    model = _trained_like_model()
    out = tmp_path_factory.mktemp("skill")
    paths = export_onnx(model, out)
    sha = {k: hashlib.sha256(p.read_bytes()).hexdigest() for k, p in paths.items()}
    write_card(build_card("reach", "reach", sha, {"task": "reach"}, {"episodes": 0}), out)
    return out, model


def test_onnx_actor_and_critic_match_torch(skill_dir):
    out, model = skill_dir
    policy = SkillPolicy(out)
    obs = np.random.default_rng(0).normal(scale=2.0, size=(64, 23)).astype(np.float32)
    with torch.no_grad():
        ref_act = model.act_deterministic(torch.from_numpy(obs)).numpy()
        ref_val = model.value(torch.from_numpy(obs)).numpy()
    np.testing.assert_allclose(policy.act(obs), ref_act, atol=1e-5, rtol=0)
    np.testing.assert_allclose(policy.value(obs), ref_val, atol=1e-5, rtol=0)
    # single observation: [D] -> [A] and a float value
    assert policy.act(obs[0]).shape == (7,)
    for i in range(3):  # the pre-bound single-observation path gives the same numbers
        np.testing.assert_allclose(policy.act(obs[i]), ref_act[i], atol=1e-5, rtol=0)
    with pytest.raises(ValueError, match="non-finite"):
        policy.act(np.full(23, np.nan, dtype=np.float32))
    assert isinstance(policy.value(obs[0]), float)
    assert np.all(np.abs(policy.act(obs)) <= 1.0)


def test_onnx_files_are_self_contained_with_named_io(skill_dir):
    out, _ = skill_dir
    for name, output in (("actor", "actions"), ("critic", "value")):
        m = onnx.load(str(out / f"{name}.onnx"))
        onnx.checker.check_model(m)
        assert [i.name for i in m.graph.input] == ["obs"]
        assert [o.name for o in m.graph.output] == [output]
        assert m.opset_import[0].version == ONNX_OPSET
        assert not list(out.glob("*.data"))


def test_skill_policy_rejects_a_tampered_actor(skill_dir, tmp_path):
    out, _ = skill_dir
    for f in out.iterdir():
        (tmp_path / f.name).write_bytes(f.read_bytes())
    data = bytearray((tmp_path / "actor.onnx").read_bytes())
    data[-10] ^= 0xFF
    (tmp_path / "actor.onnx").write_bytes(bytes(data))
    with pytest.raises(SkillCardError, match="sha256"):
        SkillPolicy(tmp_path)


def test_skill_policy_rejects_a_missing_file_and_a_missing_card(skill_dir, tmp_path):
    out, _ = skill_dir
    with pytest.raises(SkillCardError, match="no skill card"):
        SkillPolicy(tmp_path)
    for f in out.iterdir():
        if f.name != "critic.onnx":
            (tmp_path / f.name).write_bytes(f.read_bytes())
    with pytest.raises(SkillCardError, match="critic.onnx is missing"):
        SkillPolicy(tmp_path)


def test_skill_policy_rejects_wrong_observation_shapes(skill_dir):
    out, _ = skill_dir
    policy = SkillPolicy(out)
    for bad in (np.zeros(22), np.zeros((3, 24)), np.zeros((2, 3, 23))):
        with pytest.raises(ObservationShapeError, match="expects observations of shape"):
            policy.act(bad)
    with pytest.raises(ObservationShapeError):
        policy.value(np.zeros(reach.LAYOUT.dim + 1))


def test_card_for_the_wrong_task_is_rejected(skill_dir, tmp_path):
    out, _ = skill_dir
    for f in out.iterdir():
        (tmp_path / f.name).write_bytes(f.read_bytes())
    text = (tmp_path / "skill.yaml").read_text().replace("task: reach", "task: push")
    (tmp_path / "skill.yaml").write_text(text)
    with pytest.raises(SkillCardError, match="observation dim"):
        SkillPolicy(tmp_path)


def test_the_exported_card_carries_the_tasks_envelope(skill_dir):
    out, _ = skill_dir
    card = SkillPolicy(out).card
    assert card.envelope is not None
    assert card.envelope.target_region.low == tuple(reach.GOAL_LOW)
    assert card.envelope.target_region.high == tuple(reach.GOAL_HIGH)
    assert card.envelope_violations(None, [5.0, 5.0, 5.0])
    assert card.envelope_violations(None, list((reach.GOAL_LOW + reach.GOAL_HIGH) / 2)) == []


def test_refresh_envelope_rewrites_only_that_block(skill_dir, tmp_path):
    out, _ = skill_dir
    for f in out.iterdir():
        (tmp_path / f.name).write_bytes(f.read_bytes())
    original = (tmp_path / "skill.yaml").read_text()
    stale = original.replace("    - 0.45\n", "    - 0.95\n")  # z high of the target region
    assert stale != original
    (tmp_path / "skill.yaml").write_text(stale)
    assert main(["refresh-envelope", str(tmp_path)]) == 0
    assert (tmp_path / "skill.yaml").read_text() == original
    SkillPolicy(tmp_path)  # the sha256 of both ONNX files still hold
