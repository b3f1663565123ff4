"""Skill directories for the runtime and node tests.

``shipped_or_exported_reach`` gives the shipped reach skill when it exists (the trained
policy), otherwise one exported here from ``runs/reach-*`` if a local training run is
there; None when neither exists. ``random_skill`` exports an untrained (random) network
with a valid card: enough for loading, hashing, refusals, preemption and e-stops;
``make_executor`` runs a library of them (tests/runtime/conftest.py's ``library_dir``).
"""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

import numpy as np

from miles_ros.params.skill import SkillNodeParams, skill_executor
from miles_ros.runtime.observation import JointReading, ObjectPose
from miles_ros.runtime.skills import SkillExecutor, SkillLibrary
from policies.card_content import build_card
from policies.cards import write_card
from policies.library import is_skill_folder
from sims.robots import panda
from sims.scene import load_scene

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "policies" / "skills"
SCENE = load_scene()
OBJECTS = {n: ObjectPose(np.array(o.position), 0.0) for n, o in SCENE.objects.items()}
"""The default scene's cubes where it puts them."""


def make_executor(library_dir: Path, q=None, **kw) -> SkillExecutor:
    """An executor of the skills in ``library_dir`` (``kw``: its arguments) in the default
    scene, the arm still at ``q`` (home), the cubes at :data:`OBJECTS`."""
    params = dataclasses.replace(SkillNodeParams(), **kw)
    ex = skill_executor(SkillLibrary.load(library_dir), SCENE, params)
    q = panda.home_joint_positions.copy() if q is None else q
    ex.on_joint_state(JointReading(q, np.zeros(7), 0.0, 0.0), 0.0)
    ex.on_objects(OBJECTS)
    return ex


def random_skill(out: Path, task: str = "reach", seed: int = 1) -> Path:
    """Export an untrained ActorCritic for ``task`` with a card into ``out/<task>``."""
    import torch

    import sims
    from policies.export import export_onnx
    from policies.ppo.networks import ActorCritic

    module = sims.get_task(task)
    torch.manual_seed(seed)
    model = ActorCritic(module.LAYOUT.dim, module.CONFIG.action_dim).eval()
    skill_dir = out / task
    paths = export_onnx(model, skill_dir)
    sha = {k: hashlib.sha256(p.read_bytes()).hexdigest() for k, p in paths.items()}
    write_card(build_card(task, task, sha, {"task": task}, {"episodes": 0}), skill_dir)
    return skill_dir


def shipped_reach() -> Path | None:
    """The shipped reach skill's folder (versioned: :mod:`policies.library`), when it is
    there."""
    path = SHIPPED / "reach"
    return path if is_skill_folder(path) else None


def linear_reach_skill(out: Path, gain: float = 0.5) -> Path:
    """A scripted reach skill as ONNX: ``actions = clip(W obs)``, where W maps the
    observation's ``goal_rel_tcp`` through the damped pseudo-inverse of the TCP Jacobian at
    the home pose (a fixed linear controller, good near home). Deterministic, needs no
    training, and has the real skill's card, so the node runs it like any other skill."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    from policies.cards import sha256_file
    from sims.robots import panda
    from sims.tasks import reach

    cfg, layout = reach.CONFIG, reach.LAYOUT
    _, jac = panda.tcp_jacobian(panda.home_joint_positions)
    pinv = jac.T @ np.linalg.inv(jac @ jac.T + cfg.ik_damping**2 * np.eye(3))
    joint_step = cfg.joint_action_scale * panda.joint_velocity_limits * cfg.control_dt
    weights = np.zeros((layout.dim, cfg.action_dim), dtype=np.float32)
    rel = layout.slices["goal_rel_tcp"]
    weights[rel, :] = (gain * pinv / joint_step[:, None]).T
    skill_dir = out / "reach"
    skill_dir.mkdir(parents=True, exist_ok=True)
    obs = helper.make_tensor_value_info("obs", TensorProto.FLOAT, ["batch", layout.dim])
    for role, output, w, nodes in (
        (
            "actor",
            "actions",
            weights,
            [
                helper.make_node("MatMul", ["obs", "w"], ["raw"]),
                helper.make_node("Clip", ["raw", "lo", "hi"], ["actions"]),
            ],
        ),
        (
            "critic",
            "value",
            np.zeros((layout.dim, 1), np.float32),
            [
                helper.make_node("MatMul", ["obs", "w"], ["raw"]),
                helper.make_node("Reshape", ["raw", "shape"], ["value"]),
            ],
        ),
    ):
        dim = [cfg.action_dim] if role == "actor" else []
        out_info = helper.make_tensor_value_info(output, TensorProto.FLOAT, ["batch", *dim])
        inits = [numpy_helper.from_array(w, "w")]
        if role == "actor":
            inits += [
                numpy_helper.from_array(np.array(-1.0, np.float32), "lo"),
                numpy_helper.from_array(np.array(1.0, np.float32), "hi"),
            ]
        else:
            inits.append(numpy_helper.from_array(np.array([-1], np.int64), "shape"))
        graph = helper.make_graph(nodes, f"linear_reach_{role}", [obs], [out_info], inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
        onnx.checker.check_model(model)
        onnx.save(model, str(skill_dir / f"{role}.onnx"))
    sha = {r: sha256_file(skill_dir / f"{r}.onnx") for r in ("actor", "critic")}
    card = build_card(
        "reach", "reach", sha, {"task": "reach", "policy": "linear (scripted)"}, {"episodes": 0}
    )
    write_card(card, skill_dir)
    return skill_dir
