"""Fine-tuning from logs (policies/finetune.py, policies/logs.py), without ROS: the torch
actor read back from an exported ONNX actor; logs of another skill or layout refused with
the difference named; operator marks turning a logged success into a failure; a tiny
fine-tune end to end producing a loadable card of the next version with its provenance."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
import torch

from policies.cards import load_card, sha256_file
from policies.finetune import (
    ANCHORS,
    FineTuneConfig,
    FromLogsError,
    expert_labels,
    fine_tune,
    load_logged,
    model_from_onnx,
)
from policies.finetune_sim import (
    MIN_HELD_STATES,
    MIN_OFFSET,
    SimFineTuneConfig,
    identified_calibration,
    reading_offset,
    reading_range,
    shift_estimate,
    sim_fine_tune,
)
from policies.logs import (
    MARKED_BAD_REASON,
    add_mark,
    dataset_header,
    read_dataset,
    read_marks,
    write_dataset,
)
from policies.runtime import SkillPolicy
from policies.sim_states import (
    RESTART_JOINT_NOISE,
    card_env_config,
    rehearsal_states,
    restart_states,
    visited_states,
)
from tests.runtime.skill_fixtures import shipped_reach

pytestmark = pytest.mark.skipif(shipped_reach() is None, reason="needs the shipped reach skill")


def synthetic_dataset(path, card, states: np.ndarray, outcomes: list[tuple[str, str, str]]):
    """A dataset of ``card``'s skill whose episodes (request id, trace id, state) share
    ``states`` evenly."""
    parts = np.array_split(np.arange(len(states)), len(outcomes))
    episodes = [
        {
            "id": rid,
            "trace_id": trace,
            "skill": card.name,
            "params": {"target": "red_cube"},
            "state": state,
            "reason": "" if state == "succeeded" else "timeout after 4.0 s",
            "return": -2.0,
            "steps": len(part),
        }
        for (rid, trace, state), part in zip(outcomes, parts, strict=True)
    ]
    n = len(states)
    arrays = {
        "obs": states.astype(np.float32),
        "actions": np.zeros((n, card.action_dim), np.float32),
        "commands": np.zeros((n, 7), np.float32),
        "object_pos": np.full((n, 3), np.nan, np.float32),
        "truth_object_pos": np.full((n, 3), np.nan, np.float32),
        "episode": np.concatenate([np.full(len(p), i, np.int32) for i, p in enumerate(parts)]),
    }
    return write_dataset(path, dataset_header(card, "synthetic", episodes), arrays)


def reach_states(card, n: int, seed: int = 0) -> np.ndarray:
    """Observations around the card's normalizer statistics (its training distribution)."""
    model = model_from_onnx(card.directory)
    rng = np.random.default_rng(seed)
    mean = model.normalizer.mean.numpy()
    std = np.sqrt(model.normalizer.var.numpy())
    return (mean + std * rng.standard_normal((n, card.obs_dim))).astype(np.float32)


def test_the_torch_actor_read_from_onnx_equals_the_onnx_actor():
    card = load_card(shipped_reach())
    model = model_from_onnx(card.directory)
    obs = reach_states(card, 256)
    with torch.no_grad():
        ours = model.act_deterministic(torch.as_tensor(obs)).numpy()
    theirs = SkillPolicy(card.directory).act(obs)
    assert np.abs(ours - theirs).max() < 1e-5
    assert np.abs(theirs).max() > 0.05  # the comparison saw non-trivial actions


def test_logs_of_another_skill_or_layout_are_refused_naming_the_difference(tmp_path):
    card = load_card(shipped_reach())
    states = reach_states(card, 20)
    good = synthetic_dataset(tmp_path / "ok.npz", card, states, [("r1", "t1", "succeeded")])
    assert len(load_logged([good], card).obs) == 20

    data = read_dataset(good)
    other = dict(data.header, skill="push")
    write_dataset(tmp_path / "push.npz", other, data.arrays)
    with pytest.raises(FromLogsError, match="logs of skill 'push', not 'reach'"):
        load_logged([tmp_path / "push.npz"], card)

    layout = [dict(f) for f in data.header["observation_layout"]]
    layout[1]["meaning"] = "joint velocities (deg/s)"
    from policies.logs import layout_sha256

    moved = dict(
        data.header, observation_layout=layout, observation_layout_sha256=layout_sha256(layout)
    )
    write_dataset(tmp_path / "layout.npz", moved, data.arrays)
    with pytest.raises(FromLogsError, match=r"another observation layout \(fields joint_vel\)"):
        load_logged([tmp_path / "layout.npz"], card)

    action = dict(data.header["action_layout"], mode="cartesian")
    write_dataset(tmp_path / "action.npz", dict(data.header, action_layout=action), data.arrays)
    with pytest.raises(FromLogsError, match="another action layout: mode differ"):
        load_logged([tmp_path / "action.npz"], card)


def test_operator_marks_change_the_datasets_outcomes(tmp_path):
    card = load_card(shipped_reach())
    path = synthetic_dataset(
        tmp_path / "run.npz",
        card,
        reach_states(card, 30),
        [("r1", "goal-a", "succeeded"), ("r2", "goal-b", "succeeded"), ("r3", "goal-b", "failed")],
    )
    marks = tmp_path / "feedback.jsonl"
    add_mark(marks, "r1", "bad", "grazed the cube")
    add_mark(marks, "goal-b", "good")
    with pytest.raises(ValueError, match="good, bad"):
        add_mark(marks, "r2", "meh")
    entries = read_marks(marks)
    assert [json.loads(line)["id"] for line in marks.read_text().splitlines()] == ["r1", "goal-b"]

    plain, marked = read_dataset(path), read_dataset(path, entries)
    assert [plain.failed(i) for i in range(3)] == [False, False, True]
    assert [marked.failed(i) for i in range(3)] == [True, False, True]
    assert marked.episodes[0]["reason"] == f"{MARKED_BAD_REASON}: grazed the cube"
    assert marked.episodes[0]["logged_state"] == "succeeded"
    assert [e.get("operator") for e in marked.episodes] == ["bad", "good", "good"]
    assert load_logged([path], card, entries).failed.sum() == 20  # r1 and r3: 10 states each


def test_a_tiny_fine_tune_writes_the_next_version_with_its_provenance(tmp_path):
    card = load_card(shipped_reach())
    path = synthetic_dataset(
        tmp_path / "logs" / "run.npz",
        card,
        reach_states(card, 64),
        [("r1", "t1", "failed"), ("r2", "t2", "succeeded")],
    )
    out = tmp_path / "reach_v2"
    cfg = FineTuneConfig(
        gradient_steps=30, restarts=8, restart_horizon=5, rehearsal_episodes=2, eval_episodes=2
    )
    new = fine_tune(card.directory, [path], out, cfg, command="miles train reach --from-logs x")
    assert new.version == card.version + 1 and new.name == card.name
    tune = new.provenance["fine_tune"]
    assert tune["parent"]["version"] == card.version
    assert tune["parent"]["actor_sha256"] == card.sha256["actor"]
    assert tune["data"][0]["sha256"] == sha256_file(path) and tune["data"][0]["states"] == 64
    assert tune["failed_states"] == 32 and tune["rehearsal_states"] > 0
    assert (tune["restarts"], tune["restart_states"]) == (8, 40)
    assert tune["command"] == "miles train reach --from-logs x"
    assert new.evaluation["episodes"] == 2
    assert new.observation == card.observation and new.action["scale"] == card.action["scale"]
    policy = SkillPolicy(out)
    assert policy.act(reach_states(card, 4)).shape == (4, card.action_dim)
    with pytest.raises(FromLogsError, match="exists"):
        fine_tune(card.directory, [path], out, cfg)


@pytest.mark.parametrize("skill", ["reach", "push"])
def test_restarts_begin_near_the_logged_states(skill):
    """A restart's first observation: the arm within the restart noise of the logged
    state's joints, the goal (and the cube) where they were logged."""
    import sims

    directory = shipped_reach().parent / skill
    if not directory.exists():
        pytest.skip(f"needs the shipped {skill} skill")
    card = load_card(directory)
    model = model_from_onnx(directory)
    starts = rehearsal_states(model, card, 1)[::3][:6]
    seen = restart_states(model, card, starts, horizon=3, exploration_std=0.1)
    assert seen.shape == (3 * len(starts), card.obs_dim)
    fields = sims.get_task(card.task).LAYOUT.slices
    first = seen[: len(starts)]
    moved = np.abs(first[:, fields["joint_pos"]] - starts[:, fields["joint_pos"]])
    assert moved.max() <= RESTART_JOINT_NOISE + 1e-6 and moved.max() > 0
    np.testing.assert_allclose(
        first[:, fields["goal_pos"]], starts[:, fields["goal_pos"]], atol=1e-6
    )
    if "object_pos" in fields:
        for name in ("object_pos", "object_yaw_sincos"):
            np.testing.assert_allclose(first[:, fields[name]], starts[:, fields[name]], atol=1e-5)


def test_the_parent_anchor_keeps_what_the_parent_does_where_it_succeeded(tmp_path):
    """On logged states of succeeded episodes only: anchored to the parent, the new version
    acts as the parent did there; anchored to the expert, it moves towards the expert."""
    card = load_card(shipped_reach())
    states = reach_states(card, 256, seed=3)
    path = synthetic_dataset(
        tmp_path / "logs" / "run.npz", card, states, [("r1", "t1", "succeeded")]
    )
    parent = SkillPolicy(card.directory).act(states)
    expert = expert_labels(card, states)
    moved = {}
    for anchor in ANCHORS:
        cfg = FineTuneConfig(
            gradient_steps=200, restarts=0, rehearsal_episodes=0, eval_episodes=1, anchor=anchor
        )
        new = fine_tune(card.directory, [path], tmp_path / anchor, cfg)
        assert new.provenance["fine_tune"]["anchor"] == anchor
        acts = SkillPolicy(tmp_path / anchor).act(states)
        moved[anchor] = (np.abs(acts - parent).mean(), np.abs(acts - expert).mean())
    assert np.abs(parent - expert).mean() > 0.05  # the two teachers disagree here
    assert moved["parent"][0] < 0.25 * moved["expert"][0]
    assert moved["expert"][1] < np.abs(parent - expert).mean()
    with pytest.raises(ValueError, match="anchor"):
        FineTuneConfig(anchor="teacher")


def held_obs(n: int, width: float, held: bool, rng) -> np.ndarray:
    """pick_place observations: the cube lifted at the TCP (held) or resting away from it,
    the fingers reading ``width`` (m)."""
    import sims
    from sims.tasks.push import CUBE_REST_Z

    f = sims.get_task("pick_place").LAYOUT.slices
    obs = np.zeros((n, sims.get_task("pick_place").LAYOUT.dim), np.float32)
    tcp = np.column_stack([rng.uniform(0.3, 0.6, n), rng.uniform(-0.2, 0.2, n), np.full(n, 0.2)])
    obs[:, f["tcp_pos"]] = tcp
    cube = (
        tcp + [0.0, 0.0, -0.01] if held else np.column_stack([tcp[:, :2] + 0.1, [CUBE_REST_Z] * n])
    )
    obs[:, f["object_pos"]] = cube
    obs[:, f["finger_width"]] = (width + rng.normal(0.0, 0.001, n))[:, None]
    return obs


def test_the_reading_offset_is_identified_from_held_cubes_only():
    """Held states (cube lifted at the TCP) give the offset; a cube resting away from the
    hand does not count; too few held states give none."""
    rng = np.random.default_rng(0)
    reference = np.concatenate([held_obs(60, 0.042, True, rng), held_obs(60, 0.08, False, rng)])
    logged = np.concatenate([held_obs(80, 0.051, True, rng), held_obs(200, 0.0, False, rng)])
    found = reading_offset(logged, reference, "pick_place")
    assert found["offset"] == pytest.approx(0.009, abs=0.0005)
    assert found["interval"][0] <= found["offset"] <= found["interval"][1]
    assert (found["logged_held_states"], found["reference_held_states"]) == (80, 60)
    few = held_obs(MIN_HELD_STATES - 1, 0.06, True, rng)
    assert reading_offset(few, reference, "pick_place")["offset"] is None
    assert reading_offset(logged, reference, "reach")["offset"] is None  # no finger reading


def test_the_shift_follows_two_modes_where_the_medians_jump_between_them():
    """Held readings come in modes (the cube's face or its edge between the pads): when
    one side's mix tips the other way, each median lands in another mode and their
    difference is far off the cell's offset; the pairwise shift stays on it."""
    rng = np.random.default_rng(1)

    def two_modes(n_low: int, n_high: int, shift: float) -> np.ndarray:
        return (
            np.concatenate([rng.normal(0.042, 5e-4, n_low), rng.normal(0.054, 5e-4, n_high)])
            + shift
        )

    reference, logged = two_modes(520, 480, 0.0), two_modes(480, 520, 0.009)
    assert abs(np.median(logged) - np.median(reference) - 0.009) > 0.005
    assert shift_estimate(logged, reference) == pytest.approx(0.009, abs=0.001)


def test_the_offsets_interval_resamples_episodes_not_states():
    """Each episode reads with its own bias (how the cube sits in the hand): resampling
    whole episodes gives an interval about the true offset that is wider than treating
    every state as an independent draw, which would overstate what the logs know."""
    rng = np.random.default_rng(2)

    def episodes(n: int, width: float) -> tuple[np.ndarray, np.ndarray]:
        obs, episode = [], []
        for e in range(n):
            obs.append(held_obs(40, width + rng.normal(0.0, 0.003), True, rng))
            episode.append(np.full(40, e))
        return np.concatenate(obs), np.concatenate(episode)

    logged, logged_ep = episodes(30, 0.051)
    reference, reference_ep = episodes(20, 0.042)
    by_episode = reading_offset(logged, reference, "pick_place", logged_ep, reference_ep)
    by_state = reading_offset(logged, reference, "pick_place")
    assert (by_episode["logged_episodes"], by_episode["reference_episodes"]) == (30, 20)
    low, high = by_episode["interval"]
    assert low < 0.009 < high
    assert by_episode["spread"] > 2 * by_state["spread"]
    assert high - low > 2 * (by_state["interval"][1] - by_state["interval"][0])


def test_an_episode_that_holds_the_cube_long_counts_once():
    """Two requests that hesitate with the cube in the hand (many held periods, another
    reading) outnumber the other 30 requests' held states; by episode they are two of 32
    and the offset stays the cell's."""
    rng = np.random.default_rng(3)
    lengths = [10] * 30 + [600, 600]
    widths = [0.051] * 30 + [0.047, 0.047]
    logged = np.concatenate(
        [held_obs(n, w, True, rng) for n, w in zip(lengths, widths, strict=True)]
    )
    logged_ep = np.repeat(np.arange(len(lengths)), lengths)
    reference = held_obs(200, 0.042, True, rng)
    reference_ep = np.repeat(np.arange(20), 10)
    found = reading_offset(logged, reference, "pick_place", logged_ep, reference_ep)
    assert found["offset"] == pytest.approx(0.009, abs=0.0005)
    assert reading_offset(logged, reference, "pick_place")["offset"] < 0.007  # by state


def test_the_training_range_reaches_from_the_original_cell_to_the_interval_s_far_end():
    """0 (the original cell) to the far end of the interval, on the offset's side, within
    the simulators' range; nothing for an offset too small or none."""
    from sims.tasks.base import FINGER_READING_RANGE

    assert reading_range({"offset": 0.0073, "interval": [0.006, 0.0104]}) == [0.0, 0.0104]
    assert reading_range({"offset": -0.003, "interval": [-0.004, -0.002]}) == [-0.004, 0.0]
    assert reading_range({"offset": 0.018, "interval": [0.015, 0.03]}) == [
        0.0,
        FINGER_READING_RANGE[1],
    ]
    assert reading_range({"offset": 0.009}) == [0.0, 0.009]  # no interval: the estimate
    assert reading_range({"offset": MIN_OFFSET / 2, "interval": [0.0, 0.004]}) == []
    assert reading_range({"offset": None}) == []


def test_a_recalibrated_version_trains_around_what_the_interval_leaves():
    """With the estimate taken out of the reading (the new version's calibration), the
    training range is the interval less the estimate, within the simulators' range; the
    calibration carries the estimate and its interval, and nothing under MIN_OFFSET."""
    from sims.tasks.base import FINGER_READING_RANGE

    identified = {"offset": 0.008, "interval": [0.0047, 0.0102], "logged_episodes": 37}
    assert reading_range(identified, 0.008) == [-0.0033, 0.0022]
    assert reading_range(identified, 0.004) == [0.0007, 0.0062]
    wide = {"offset": 0.002, "interval": [-0.01, 0.004]}
    assert reading_range(wide, 0.002)[0] == FINGER_READING_RANGE[0]
    assert reading_range({"offset": MIN_OFFSET / 2}, 0.001) == []
    block = identified_calibration(identified)["finger_width"]
    assert (block["offset_m"], block["interval_m"]) == (0.008, [0.0047, 0.0102])
    assert "identified_m" not in block and "37" in block["source"]
    half = identified_calibration(identified, 0.5)["finger_width"]
    assert (half["offset_m"], half["identified_m"]) == (0.004, 0.008)
    assert identified_calibration(identified, 0.0) == {}
    assert identified_calibration({"offset": MIN_OFFSET / 2}) == {}
    assert identified_calibration({"offset": None}) == {}
    with pytest.raises(ValueError, match="share"):
        SimFineTuneConfig(calibrate=1.5)


def test_a_calibrated_version_is_not_relabelled_on_its_raw_logs(tmp_path):
    """Its networks read calibrated observations and the logs hold raw ones: --method
    relabel refuses it, naming the calibration (--method sim takes it)."""
    import shutil

    from policies.cards import SHIPPED_LIBRARY, SkillCard, validate_card, write_card

    parent = SHIPPED_LIBRARY / "pick_place" / "versions" / "1"
    skill = tmp_path / "v2"
    shutil.copytree(parent, skill)
    data = validate_card(parent).to_dict()
    data["calibration"] = {"finger_width": {"offset_m": 0.008}}
    write_card(SkillCard.from_dict(data, skill / "skill.yaml"), skill)
    card = validate_card(skill)
    states = np.zeros((8, card.obs_dim), np.float32)
    path = synthetic_dataset(tmp_path / "run.npz", card, states, [("r1", "t1", "failed")])
    with pytest.raises(FromLogsError, match="calibration"):
        fine_tune(skill, [path], tmp_path / "v3", FineTuneConfig(gradient_steps=1))


def test_the_training_env_draws_the_reading_and_the_unidentified_cube_parameters():
    """The DAgger stage runs the parent's training environment with the reading range and
    the fine-tune's mass and friction ranges where the task has a cube; empty ones leave
    the parent's."""
    from policies.finetune_sim import sim_train_config

    card = load_card(shipped_reach())
    cube = dataclasses.replace(card, task="pick_place")
    cfg = SimFineTuneConfig(object_mass_scale=(0.8, 3.0), friction_scale=(0.5, 1.3))
    env = sim_train_config(cube, [0.0, 0.0102], cfg).env
    assert (env.finger_reading, env.object_mass_scale, env.friction_scale) == (
        (0.0, 0.0102),
        (0.8, 3.0),
        (0.5, 1.3),
    )
    plain = SimFineTuneConfig(object_mass_scale=(), friction_scale=())
    env = sim_train_config(cube, [], plain).env
    assert (env.finger_reading, env.object_mass_scale, env.friction_scale) == ((), (), ())
    env = sim_train_config(card, [], cfg).env  # reach: no cube
    assert (env.object_mass_scale, env.friction_scale) == ((), ())


def test_the_training_regression_takes_the_fine_tune_s_loss():
    """The DAgger stage regresses with the fine-tune's loss and floor (the recipe's default
    unless set); a loss the training would refuse is refused when the stage is built."""
    from policies.finetune_sim import sim_train_config
    from policies.ppo.imitation_config import ImitationConfig

    card = dataclasses.replace(load_card(shipped_reach()), task="pick_place")
    default = sim_train_config(card, [], SimFineTuneConfig()).imitation
    assert (default.loss, default.loss_floor) == (ImitationConfig.loss, ImitationConfig.loss_floor)
    # pick_place's close gate reads joint_vel: the scaled states are labelled as seen
    assert default.augment_fields == ("joint_vel",) and default.label_augmented
    cfg = SimFineTuneConfig(loss="relative", loss_floor=0.3)
    imitation = sim_train_config(card, [], cfg).imitation
    assert (imitation.loss, imitation.loss_floor) == ("relative", 0.3)
    with pytest.raises(ValueError, match="imitation.loss"):
        sim_train_config(card, [], SimFineTuneConfig(loss="huber"))
    with pytest.raises(ValueError, match="loss_floor"):
        sim_train_config(card, [], SimFineTuneConfig(loss="relative", loss_floor=0.0))


def test_from_logs_passes_the_loss_to_the_sim_fine_tune(tmp_path, monkeypatch):
    """``miles train SKILL --from-logs DIR --loss relative --loss-floor F`` reaches the sim
    fine-tune's config; without them it is the config's default; so is the calibration's
    share (``--calibrate`` alone: all of the offset; 0: none)."""
    from miles_ros.commands import train_logs
    from policies.finetune import FromLogsError

    seen = []

    def capture(skill_dir, files, out, cfg, **kwargs):
        seen.append(cfg)
        raise FromLogsError("captured")

    monkeypatch.setattr(train_logs, "sim_fine_tune", capture)
    monkeypatch.setattr(train_logs, "datasets", lambda *args: [])
    base = ["reach", "--from-logs", str(tmp_path), "--skill-dir", str(shipped_reach())]
    argv = [*base, "--out", str(tmp_path / "a"), "--loss", "relative", "--loss-floor", "0.3"]
    assert train_logs.main(argv) == 2
    assert train_logs.main([*base, "--out", str(tmp_path / "b")]) == 2
    assert train_logs.main([*base, "--out", str(tmp_path / "c"), "--calibrate"]) == 2
    assert train_logs.main([*base, "--out", str(tmp_path / "d"), "--calibrate", "0.5"]) == 2
    assert [(c.loss, c.loss_floor) for c in seen[:2]] == [
        ("relative", 0.3),
        (SimFineTuneConfig.loss, SimFineTuneConfig.loss_floor),
    ]
    assert [c.calibrate for c in seen] == [0.5, 0.5, 1.0, 0.5]
    assert train_logs.main([*base, "--out", str(tmp_path / "e"), "--calibrate", "0"]) == 2
    assert seen[-1].calibrate == 0.0 and seen[-1].steps == 0


def test_visited_states_are_numbered_by_episode():
    """The states an actor visits, each labelled with its episode: as many labels as
    episodes, in order, and the same states as the rehearsal's on the card's episodes."""
    import sims

    card = load_card(shipped_reach())
    model = model_from_onnx(card.directory)
    env = sims.make_env(card.task, "pybullet", num_envs=1, config=card_env_config(card))
    obs, episode = visited_states(model, env, 3, int(card.evaluation["seed"]))
    assert len(obs) == len(episode)
    assert set(episode.tolist()) == {0, 1, 2} and np.all(np.diff(episode) >= 0)
    np.testing.assert_array_equal(obs, rehearsal_states(model, card, 3))


def test_logged_episodes_are_numbered_across_datasets(tmp_path):
    card = load_card(shipped_reach())
    outcomes = [("r1", "t1", "succeeded"), ("r2", "t2", "failed")]
    paths = [
        synthetic_dataset(tmp_path / f"run{i}.npz", card, reach_states(card, 10, i), outcomes)
        for i in range(2)
    ]
    logged = load_logged(paths, card)
    assert logged.episode.tolist() == [0] * 5 + [1] * 5 + [2] * 5 + [3] * 5
    assert logged.failed.tolist() == ([False] * 5 + [True] * 5) * 2


def test_a_tiny_fine_tune_in_sim_starts_from_the_parent_and_writes_the_next_version(tmp_path):
    """DAgger in the parent's training backend from its weights and its normalizer's
    statistics: at a learning rate of 0 the new version acts as the parent did (a fresh
    network or fresh statistics would not); its card is the next version and says how it
    was made."""
    card = load_card(shipped_reach())
    states = reach_states(card, 64)
    path = synthetic_dataset(
        tmp_path / "logs" / "run.npz", card, states, [("r1", "t1", "succeeded")]
    )
    cfg = SimFineTuneConfig(
        steps=1,
        num_envs=2,
        rollout_steps=4,
        learning_rate=0.0,
        reference_episodes=1,
        eval_episodes=1,
    )
    new = sim_fine_tune(card.directory, [path], tmp_path / "v2", cfg, command="x")
    assert new.version == card.version + 1
    tune = new.provenance["fine_tune"]
    assert tune["parent"]["actor_sha256"] == card.sha256["actor"]
    assert tune["identified"]["offset"] is None and tune["env_finger_reading"] == []
    assert new.calibration == {}  # nothing identified: reads as its parent
    assert tune["backend"] == card.provenance["backend"] and tune["command"] == "x"
    acts = SkillPolicy(tmp_path / "v2").act(states)
    np.testing.assert_allclose(acts, SkillPolicy(card.directory).act(states), atol=1e-3)


def test_a_calibration_alone_keeps_the_parent_s_networks(tmp_path):
    """``steps`` 0: no training, the parent's networks exported again (acting as the parent
    to float precision), the next version; reach has no finger reading, so nothing is
    identified and no calibration is written."""
    card = load_card(shipped_reach())
    states = reach_states(card, 32)
    path = synthetic_dataset(
        tmp_path / "logs" / "run.npz", card, states, [("r1", "t1", "succeeded")]
    )
    cfg = SimFineTuneConfig(
        steps=0, num_envs=2, rollout_steps=4, reference_episodes=1, eval_episodes=1, calibrate=1.0
    )
    new = sim_fine_tune(card.directory, [path], tmp_path / "v2", cfg, command="x")
    assert new.version == card.version + 1 and new.calibration == {}
    acts = SkillPolicy(tmp_path / "v2").act(states)
    np.testing.assert_allclose(acts, SkillPolicy(card.directory).act(states), atol=1e-5)
