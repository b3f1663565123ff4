"""Stalls in an evaluation (policies.evaluation.StallCounter) and the selection rule that
prefers the checkpoint with the fewest (select's ``stall_steps``, policies.ppo.stages)."""

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from policies import evaluation
from policies.evaluation import FROZEN, EvalResult, StallCounter, run_episodes
from policies.ppo import checkpoints, envs, stages
from policies.ppo.stage_config import SelectRule, StageConfigError, parse_staged_config
from tests.policies.test_stages import _staged_config


class CountingEnv:
    """Episodes of ``length`` steps on ``num_envs`` envs; the observation is the step
    within the episode and the env's index, success always."""

    def __init__(self, num_envs: int, length: int):
        self.num_envs, self.length = num_envs, length
        self.t = np.zeros(num_envs, dtype=np.int64)
        self.episode = np.zeros(num_envs, dtype=np.int64)

    def _obs(self):
        return np.stack([self.t, np.arange(self.num_envs), self.episode], axis=1).astype(
            np.float32
        )

    def reset(self, seed=None):
        self.t[:] = 0
        self.episode[:] = 0
        return self._obs(), {}

    def step(self, actions):
        self.t += 1
        ended = self.t >= self.length
        self.t[ended] = 0
        self.episode[ended] += 1
        n = self.num_envs
        info = {"success": np.ones(n, dtype=bool)}
        return self._obs(), np.zeros(n), ended, np.zeros(n, dtype=bool), info


def _policy(still: dict[tuple[int, int], tuple[int, int]], scale: float = 0.5):
    """Moves (norm 1) except env ``i``'s episode ``e`` between steps ``[a, b)`` of
    ``still[(i, e)]``, where its action is ``scale * FROZEN``."""

    def act(obs):
        out = np.ones((len(obs), 3), dtype=np.float32) / np.sqrt(3.0)
        for k, (t, i, e) in enumerate(obs.astype(int)):
            a, b = still.get((i, e), (0, 0))
            if a <= t < b:
                out[k] = scale * FROZEN / np.sqrt(3.0)
        return out

    return act


@pytest.mark.parametrize("steps, expected", [(4, 3), (5, 2), (6, 2), (7, 1), (10, 1), (11, 0)])
def test_episodes_held_still_for_the_steps_are_counted(steps, expected):
    # env 0 episode 0 still for 6 steps, env 1 episode 1 for 10, env 1 episode 0 for 4
    still = {(0, 0): (2, 8), (1, 1): (5, 15), (1, 0): (10, 14)}
    stalls = StallCounter(2, steps)
    result = run_episodes(CountingEnv(2, 20), _policy(still), 4, seed=0, stalls=stalls)
    assert result.episodes == 4 and stalls.stalled == expected


def test_an_action_at_the_threshold_moves_and_stalls_outside_the_set_do_not_count():
    # at FROZEN exactly the arm moves: no stall
    stalls = StallCounter(1, 3)
    run_episodes(CountingEnv(1, 10), _policy({(0, 0): (0, 10)}, 1.0), 2, 0, stalls=stalls)
    assert stalls.stalled == 0
    # env 0's third episode is not in a 2-episode set: its stall is not counted, and a
    # run does not carry across an episode's end (4 + 4 steps never make a run of 5)
    still = {(0, 2): (0, 10), (0, 0): (6, 10), (0, 1): (0, 4)}
    stalls = StallCounter(1, 5)
    run_episodes(CountingEnv(1, 10), _policy(still), 2, 0, stalls=stalls)
    assert stalls.stalled == 0
    with pytest.raises(ValueError):
        StallCounter(1, 0)


def test_stall_steps_parse_and_are_checked():
    data = _staged_config()
    data["stages"][1]["select"]["stall_steps"] = 50
    assert parse_staged_config(data).stages[1].select.stall_steps == 50
    data["stages"][1]["select"]["stall_steps"] = -1
    with pytest.raises(StageConfigError, match="stall_steps >= 0"):
        parse_staged_config(data)
    data["stages"][1]["select"] = {"rule": "last", "stall_steps": 5}
    with pytest.raises(StageConfigError, match="best_eval_success option"):
        parse_staged_config(data)
    assert parse_staged_config(_staged_config()).stages[1].select.stall_steps == 0


@pytest.mark.parametrize(
    "stall_steps, picked", [(0, "model_000003.pt"), (50, "model_000002.pt")], ids=["off", "on"]
)
def test_the_fewest_stalls_win_before_success(tmp_path, monkeypatch, stall_steps, picked):
    ckpt_dir = tmp_path / checkpoints.CHECKPOINT_DIR
    ckpt_dir.mkdir()
    # per checkpoint: (success, stalled episodes); of the last 3, 3 succeeds most and 2 and
    # 4 stall least, 2 succeeding more (1 stalls less still, but is not among the last 3)
    outcomes = {1: (0.5, 0), 2: (0.7, 1), 3: (0.9, 3), 4: (0.6, 1)}
    for k in outcomes:
        (ckpt_dir / f"model_{k:06d}.pt").write_text("")
    env = SimpleNamespace(num_envs=2, close=lambda: None)
    monkeypatch.setattr(envs, "make_env", lambda *a, **k: env)
    monkeypatch.setattr(envs, "evaluation_task_config", lambda cfg: None)
    monkeypatch.setattr(checkpoints, "load_policy", lambda p: (int(Path(p).stem[6:]), None))
    monkeypatch.setattr(checkpoints, "torch_policy_fn", lambda model: model)

    def fake_run(env_, policy, episodes, seed, stalls=None):
        success, stalled = outcomes[policy]
        if stalls is not None:
            assert stalls.steps == stall_steps
            stalls.stalled = stalled
        n = round(success * episodes)
        return EvalResult(success, (0.0, 1.0), 0.0, 0.0, episodes, n)

    monkeypatch.setattr(evaluation, "run_episodes", fake_run)
    runner = SimpleNamespace(
        run_dir=tmp_path,
        cfg=SimpleNamespace(runner=SimpleNamespace(eval_backend="numba", eval_num_envs=2)),
        motor_filters=None,
    )
    rule = SelectRule("best_eval_success", 10, 3000, 3, stall_steps)
    sel = stages.select_checkpoint(runner, rule)
    assert Path(sel["checkpoint"]).name == picked
    assert [e["checkpoint"] for e in sel["evaluations"]] == [
        f"model_{k:06d}.pt" for k in (2, 3, 4)
    ]
    if stall_steps:
        assert sel["stalled"] == 1 and sel["stall_steps"] == stall_steps
        assert [e["stalled"] for e in sel["evaluations"]] == [1, 3, 1]
    else:
        assert "stalled" not in sel and "stalled" not in sel["evaluations"][0]
