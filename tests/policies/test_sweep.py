"""Evidence and robustness: the Wilson interval, the fixed command latency of the sweep,
``miles eval --sweep`` (errors before any work, a tiny sweep of the shipped reach skill
writing a valid robustness.json and its plot) and ``--record`` into a card's evidence."""

import dataclasses
import json
import shutil

import jsonschema
import numpy as np
import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

import sims
from miles_ros.commands import evaluate as miles_eval
from policies.card_content import build_card, record_evidence
from policies.cards import SHIPPED_LIBRARY, card_path, load_card, validate_card
from policies.evaluation import EvalResult, wilson_interval
from policies.sweep import (
    SWEEP_AXES,
    FixedCommandLatency,
    check_axes,
    run_sweep,
    task_axes,
    validate_robustness,
)


def idle(task: str):
    """A policy that holds still on ``task``: zero actions of its width."""
    action_dim = sims.get_task(task).CONFIG.action_dim
    return lambda obs: np.zeros((obs.shape[0], action_dim), np.float32)


@pytest.mark.parametrize(
    "successes, trials, expected",
    [
        (5, 10, (0.2366, 0.7634)),  # the textbook example
        (0, 10, (0.0, 0.2775)),  # upper bound z^2 / (n + z^2)
        (10, 10, (0.7225, 1.0)),
        (198, 200, (0.9643, 0.9973)),  # the shipped reach card's 99% at 200 episodes
        (0, 0, (0.0, 1.0)),
    ],
)
def test_wilson_interval_matches_hand_worked_values(successes, trials, expected):
    assert wilson_interval(successes, trials) == pytest.approx(expected, abs=1e-4)


@given(st.integers(1, 2000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_interval_brackets_the_rate_and_narrows_with_more_episodes(pair):
    k, n = pair
    lo, hi = wilson_interval(k, n)
    assert 0.0 <= lo <= k / n <= hi <= 1.0
    lo4, hi4 = wilson_interval(4 * k, 4 * n)
    assert hi4 - lo4 < hi - lo


def test_fixed_command_latency_delays_every_command_by_k_periods_per_episode():
    """The wrapped env sees [idle] * k + the commands, restarted at each episode."""
    cfg = dataclasses.replace(sims.get_task("pick_place").CONFIG, episode_steps=5)
    k, steps = 2, 8
    rng = np.random.default_rng(0)
    actions = rng.uniform(-1, 1, size=(steps, 2, cfg.action_dim))
    idle = np.zeros(cfg.action_dim)
    idle[-1] = 1.0  # fingers open
    wrapped = FixedCommandLatency(sims.make_env("pick_place", "numba", 2, config=cfg), k)
    plain = sims.make_env("pick_place", "numba", 2, config=cfg)
    wrapped.reset(seed=4)
    plain.reset(seed=4)
    expected = []
    for t in range(steps):
        start = 0 if t < 5 else 5  # the episode this step belongs to
        expected.append(actions[t - k] if t - k >= start else np.tile(idle, (2, 1)))
    for t in range(steps):
        obs_w, _, term_w, trunc_w, _ = wrapped.step(actions[t])
        obs_p, _, term_p, trunc_p, _ = plain.step(expected[t])
        np.testing.assert_array_equal(obs_w, obs_p)
        assert np.array_equal(term_w | trunc_w, term_p | trunc_p)
        assert np.all(term_w | trunc_w) == (t == 4)  # one episode boundary, after step 5
    with pytest.raises(ValueError, match="does not fit an episode of 5"):
        FixedCommandLatency(sims.make_env("pick_place", "numba", 1, config=cfg), 5)


def test_axes_not_listed_by_the_card_are_refused():
    assert check_axes(None, ["command_latency"]) == ["command_latency"]
    with pytest.raises(ValueError, match="friction_scale is not among the card's axes"):
        check_axes(["friction_scale"], task_axes("reach"))
    with pytest.raises(ValueError, match="lists no robustness axes"):
        check_axes(["command_latency"], None)
    assert "friction_scale" not in task_axes("reach") and "friction_scale" in task_axes("push")


@pytest.mark.parametrize("name", ["reach", "push", "pick_place"])
def test_shipped_cards_list_the_axes_build_card_writes(name):
    card = load_card(SHIPPED_LIBRARY / name)
    built = build_card(card.name, str(card.task), card.sha256, card.provenance, card.evaluation)
    assert card.data["robustness"] == built.data["robustness"]
    assert set(card.data["robustness"]["axes"]) <= set(SWEEP_AXES)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["reach", "--sweep", "gravity"], "gravity is not among the card's axes"),
        (["reach", "--sweep", "friction_scale"], "friction_scale is not among"),
        (["reach", "--sweep", "--video", "x.gif"], "--video does not go with --sweep"),
        (["reach", "--sweep", "--episodes", "0"], "--episodes and --num-envs must be >= 1"),
        (["reach", "--record", "--episodes", "20"], "--record needs --episodes >= 200"),
        (["reach", "--record", "--backend", "numba"], "on the pybullet or isaac backend"),
        (["reach", "--out", "x"], "--out goes with --sweep"),
    ],
)
def test_bad_sweep_and_record_requests_fail_before_any_work(tmp_path, capsys, argv, message):
    out = ["--out", str(tmp_path / "o")] if "--sweep" in argv else []
    assert miles_eval.main([*argv, *out]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_sweep_of_the_shipped_reach_skill_writes_a_valid_robustness_json(tmp_path, capsys):
    out = tmp_path / "sweep"
    assert (
        miles_eval.main(["reach", "--sweep", "--episodes", "2", "--out", str(out), "--json"]) == 0
    )
    printed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    doc = json.loads((out / "robustness.json").read_text())
    validate_robustness(doc)
    assert printed["axes"] == doc["axes"]
    assert [a["name"] for a in doc["axes"]] == task_axes("reach")
    assert doc["skill"] == "reach" and doc["episodes"] == 2 and doc["supervised"] is False
    for axis in doc["axes"]:
        assert axis["status"] == "ok"
        assert [p["value"] for p in axis["points"]] == list(SWEEP_AXES[axis["name"]].values)
        assert all(p["episodes"] == 2 for p in axis["points"])
        behind = axis["name"] == "joint_limit_scale"
        assert all(p["supervised"] is behind for p in axis["points"])
    assert (out / "robustness.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # the nominal points are plain `miles eval` on the same seeded episodes
    assert miles_eval.main(["reach", "--episodes", "2", "--json"]) == 0
    plain = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    for name in ("command_latency", "observation_noise"):
        nominal = next(a for a in doc["axes"] if a["name"] == name)["points"][0]
        assert nominal["successes"] == plain["successes"]
        assert nominal["mean_return"] == pytest.approx(plain["mean_return"], abs=1e-3)


def test_an_axis_that_cannot_run_is_reported_unavailable_not_estimated():
    doc = run_sweep(
        idle("reach"),
        "reach",
        ["cube_mass_scale", "joint_limit_scale", "observation_noise"],
        episodes=2,
        backend="numba",
    )
    validate_robustness(doc)
    status = {a["name"]: (a["status"], a.get("reason", "")) for a in doc["axes"]}
    assert status["cube_mass_scale"] == ("unavailable", "task reach has no cube")
    assert status["joint_limit_scale"][0] == "unavailable"
    assert "safety supervisor" in status["joint_limit_scale"][1]
    assert status["observation_noise"][0] == "ok"
    broken = json.loads(json.dumps(doc))
    broken["axes"][2]["points"][0]["ci95"] = [0.9, 1.0]
    broken["axes"][2]["points"][0]["success"] = 0.0
    with pytest.raises(jsonschema.ValidationError):
        validate_robustness(broken)
    broken["axes"][2]["points"] = []
    with pytest.raises(jsonschema.ValidationError):
        validate_robustness(broken)


def test_the_finger_reading_axis_runs_where_the_backend_can_express_it():
    """pick_place's finger_reading axis runs every point on numba (the expert, 2 episodes
    each); isaac cannot randomize the reading and reports it unavailable, naming both,
    without building an env; a task without a gripper reports that."""
    from policies.experts import pick_place as expert
    from policies.sweep import _point_config

    cfg = sims.get_task("pick_place").CONFIG
    assert "finger_reading" in task_axes("pick_place")
    assert "finger_reading" not in task_axes("push") + task_axes("reach")
    assert _point_config(cfg, "finger_reading", 0.009).randomization.finger_reading == (
        0.009,
        0.009,
    )
    assert _point_config(cfg, "finger_reading", 0.0) == cfg  # the nominal is the base config

    def policy(obs):
        return expert.act(obs, cfg)

    doc = run_sweep(policy, "pick_place", ["finger_reading"], episodes=2, backend="numba")
    validate_robustness(doc)
    (axis,) = doc["axes"]
    assert axis["status"] == "ok"
    assert [p["value"] for p in axis["points"]] == list(SWEEP_AXES["finger_reading"].values)
    assert all(p["episodes"] == 2 for p in axis["points"])
    doc = run_sweep(policy, "pick_place", ["finger_reading"], episodes=2, backend="isaac")
    validate_robustness(doc)
    assert doc["axes"][0]["status"] == "unavailable"
    assert doc["axes"][0]["reason"] == (
        "the isaac backend cannot randomize finger_reading: its fingers report their own opening"
    )
    doc = run_sweep(idle("push"), "push", ["finger_reading"], episodes=1, backend="numba")
    assert (doc["axes"][0]["status"], doc["axes"][0]["reason"]) == (
        "unavailable",
        "task push has no gripper",
    )


def test_a_points_failed_episodes_are_the_episode_sets_failures_in_order():
    """Every point lists the episodes that failed, by index in the seeded episode set, so
    two points pair episode by episode: the nominal point's are those of a plain
    evaluation of the same episodes; a policy that never moves fails them all."""
    from policies.evaluation import run_episodes
    from policies.experts import reach as expert

    cfg = sims.get_task("reach").CONFIG

    def noisy_expert(obs):  # the expert, its action reversed in two of the four envs
        act = np.asarray(expert.act(obs, cfg), np.float32)
        act[1::2] = -act[1::2]
        return act

    for policy in (noisy_expert, idle("reach")):
        doc = run_sweep(policy, "reach", ["observation_noise"], episodes=8, num_envs=4,
                        backend="numba")  # fmt: skip
        validate_robustness(doc)
        points = doc["axes"][0]["points"]
        for p in points:
            assert len(p["failed_episodes"]) == p["episodes"] - p["successes"]
            assert p["failed_episodes"] == sorted(set(p["failed_episodes"]))
            assert all(0 <= i < p["episodes"] for i in p["failed_episodes"])
        env = sims.make_env("reach", "numba", num_envs=4)
        try:
            plain = run_episodes(env, policy, 8, 1000).per_episode_success
        finally:
            env.close()
        assert points[0]["failed_episodes"] == [i for i, ok in enumerate(plain) if not ok]
    assert points[0]["failed_episodes"] == list(range(8))  # idle: every one


def test_recorded_evidence_keeps_the_rest_of_the_card(tmp_path):
    skill = tmp_path / "reach"
    shutil.copytree(SHIPPED_LIBRARY / "reach", skill)
    before = {k: v for k, v in load_card(skill).to_dict().items() if k != "evidence"}
    result = EvalResult(0.99, wilson_interval(198, 200), -1.7, 9.5, 200, 198, "pybullet", 1000)
    record_evidence(skill, "pybullet", {"success_rate": result.success, "ci95": result.ci95})
    record_evidence(skill, "supervised", {"success_rate": 0.97})
    card = validate_card(skill)  # files and their sha256 untouched
    data = yaml.safe_load(card_path(skill).read_text())
    shipped = set(load_card(SHIPPED_LIBRARY / "reach").data.get("evidence") or {})
    assert set(data["evidence"]) == shipped | {"pybullet", "supervised"}  # others kept
    assert data["evidence"]["pybullet"]["success_rate"] == 0.99
    assert {k: v for k, v in card.to_dict().items() if k != "evidence"} == before
    keys = list(data)
    assert keys.index("evidence") == keys.index("evaluation") + 1


def test_a_variant_evaluation_records_its_own_evidence_entry():
    """``--variant stack --supervised --record`` fills ``evidence.supervised_stack``, never
    the pads' ``evidence.supervised``."""
    from types import SimpleNamespace

    from miles_ros.commands.evaluate import evidence_kind

    def args(**kw):
        return SimpleNamespace(
            **{"backend": "pybullet", "supervised": False, "variant": None, **kw}
        )

    assert evidence_kind(args()) == "pybullet"
    assert evidence_kind(args(supervised=True)) == "supervised"
    assert evidence_kind(args(supervised=True, variant="stack")) == "supervised_stack"
    # on perceived poses: its own entry, never the exact poses' evidence.supervised
    assert evidence_kind(args(supervised=True, perception=True)) == "perceived"
    assert evidence_kind(args(supervised=True, perception=True, variant="stack")) == (
        "perceived_stack"
    )
    assert evidence_kind(args(variant="pads")) == "pybullet_pads"
    assert evidence_kind(args(backend="isaac", variant="stack")) == "isaac_stack"
    assert evidence_kind(args(backend="numba")) is None


def _flat(nested):
    return np.hstack([np.ravel(np.asarray(x, dtype=float)) for x in nested])


def test_the_sweep_runs_the_cards_envelope_as_plain_eval_does(tmp_path, capsys, monkeypatch):
    """``--sweep`` on the shipped push skill: every point's episodes are the card's envelope
    (cube-goal distance and areas, not the task's default 0.10-0.25 m), robustness.json
    records them, and the nominal point is plain ``miles eval`` on the same episodes."""
    import policies.sweep

    card = load_card(SHIPPED_LIBRARY / "push")
    envelope = card.envelope
    wanted = (
        (envelope.object_target_distance_xy.min, envelope.object_target_distance_xy.max),
        (envelope.object_region.low[:2], envelope.object_region.high[:2]),
        (envelope.target_region.low[:2], envelope.target_region.high[:2]),
    )
    default = sims.get_task("push").CONFIG
    assert wanted != (default.goal_distance_range, default.object_xy_range, default.goal_xy_range)
    seen = []
    make_env = sims.make_env

    def spy(task, backend, num_envs=1, **kwargs):
        seen.append(kwargs["config"])
        return make_env(task, backend, num_envs=num_envs, **kwargs)

    monkeypatch.setattr(policies.sweep.sims, "make_env", spy)
    out = tmp_path / "sweep"
    argv = ["push", "--sweep", "command_latency", "--episodes", "1", "--out", str(out)]
    assert miles_eval.main([*argv, "--json"]) == 0
    capsys.readouterr()
    assert len(seen) == len(SWEEP_AXES["command_latency"].values)
    for cfg in seen:
        ran = (cfg.goal_distance_range, cfg.object_xy_range, cfg.goal_xy_range)
        np.testing.assert_allclose(_flat(ran), _flat(wanted))
    doc = json.loads((out / "robustness.json").read_text())
    validate_robustness(doc)
    recorded = doc["episode_set"]
    keys = ("goal_distance", "object_region", "goal_region")
    np.testing.assert_allclose(_flat([recorded[k] for k in keys]), _flat(wanted))
    assert "card's envelope" in recorded["source"]
    monkeypatch.undo()
    assert miles_eval.main(["push", "--episodes", "1", "--json"]) == 0
    plain = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert plain["goal_distance"] == pytest.approx(list(wanted[0]))
    nominal = doc["axes"][0]["points"][0]
    assert nominal["value"] == 0 and nominal["successes"] == plain["successes"]
    assert nominal["mean_return"] == pytest.approx(plain["mean_return"], abs=1e-6)


def test_a_sweep_flag_outside_the_task_or_card_fails_before_any_work(tmp_path, capsys):
    out = tmp_path / "o"
    for argv, message in (
        (["reach", "--sweep", "--goal-distance", "0.1", "0.2"], "push/pick_place option"),
        (["push", "--sweep", "--goal-distance", "0.3", "0.1"], "0 <= lo <= hi"),
        (["push", "--sweep", "--variant", "stack"], "does not list variant 'stack'"),
    ):
        assert miles_eval.main([*argv, "--out", str(out)]) == 2
        assert message in capsys.readouterr().err
        assert not out.exists()


def test_plain_eval_with_one_env_runs_exports_episodes(tmp_path, monkeypatch, capsys):
    """Export evaluates on ``EVAL_NUM_ENVS`` envs over the run's envelope; ``miles eval`` of
    the exported skill (``--num-envs 1``, what ``--record`` writes with it) builds the same
    episode config from the card, so both run the same seeded episodes."""
    from policies.commands import evaluate as base
    from policies.export import EVAL_NUM_ENVS, export_run
    from tests.policies.tiny_runs import push_run, stopped_evaluations

    region = ((0.30, -0.30), (0.65, 0.30))
    push_run(tmp_path / "run", 4, 16, goal_distance=(0.1, 0.45), object_region=region)
    seen = stopped_evaluations(monkeypatch, "stop once the episodes are known")
    with pytest.raises(RuntimeError, match="stop once"):
        export_run(tmp_path / "run", tmp_path / "skill", eval_episodes=8)
    with pytest.raises(RuntimeError, match="stop once"):  # the provisional card is written
        base.main([str(tmp_path / "skill"), "--episodes", "8", "--num-envs", "1"])
    exported, evaluated = seen
    assert exported["num_envs"] == EVAL_NUM_ENVS == evaluated["num_envs"] == 1
    assert exported["seed"] == evaluated["seed"] and exported["episodes"] == evaluated["episodes"]
    assert exported["config"] == evaluated["config"]
    assert exported["config"].goal_distance_range == (0.1, 0.45)
    assert exported["config"] != sims.get_task("push").CONFIG
    config, extra = base.episode_config(str(tmp_path / "skill"), "push")
    assert config == exported["config"] and extra["goal_distance"] == [0.1, 0.45]


def test_cube_size_axis_runs_the_cube_of_each_point():
    """Each point's episodes draw that edge only; the task's own edge runs the base
    config unchanged (the nominal point is plain `miles eval`); isaac keeps its cube."""
    from policies.sweep import _point_config

    base = sims.get_task("push").CONFIG
    assert "cube_size" in task_axes("push") and "cube_size" not in task_axes("reach")
    for value in SWEEP_AXES["cube_size"].values:
        cfg = _point_config(base, "cube_size", value)
        if value == SWEEP_AXES["cube_size"].nominal:
            assert cfg == base
        else:
            assert cfg.randomization.cube_size == (value, value)
    doc = run_sweep(idle("push"), "push", ["cube_size"], episodes=2, backend="isaac")
    assert doc["axes"][0]["status"] == "unavailable"
    assert "scene's cube" in doc["axes"][0]["reason"]
