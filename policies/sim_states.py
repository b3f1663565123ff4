"""The states an actor visits in simulation, which the fine-tunes from logs regress on
(:mod:`policies.finetune`, :mod:`policies.finetune_sim`): on the card's own evaluation
episodes (:func:`rehearsal_states`, against forgetting), each numbered by its episode
(:func:`visited_states`, for resampling over episodes), and restarted near logged states
(:func:`restart_states`)."""

from __future__ import annotations

import numpy as np

from policies.cards import SkillCard
from policies.ppo.networks import ActorCritic

RESTART_JOINT_NOISE = 0.02
"""rad: each arm joint of a restart differs from the logged state's by up to this much."""


def card_env_config(card: SkillCard):
    """The task config of the card's evaluation: its envelope (cube-goal distances, areas),
    tool levelling, control period, action scales and success threshold."""
    import sims
    from policies.export import _envelope_config
    from policies.ppo.env_options import levelling_fields

    noise = card.provenance.get("training_noise") or {}
    levelling = levelling_fields(noise, sims.get_task(card.task).CONFIG)
    kwargs = _envelope_config(
        card.task,
        noise.get("goal_distance") or None,
        object_region=noise.get("object_region") or None,
        goal_region=noise.get("goal_region") or None,
        levelling=levelling or None,
    )
    return card.task_config(kwargs.get("config"))


def rehearsal_states(model: ActorCritic, card: SkillCard, episodes: int) -> np.ndarray:
    """The observations the parent actor visits on the first ``episodes`` of the card's
    evaluation set (its backend, seed and envelope, one env)."""
    import sims
    from policies.export import EVAL_NUM_ENVS

    evaluation = card.evaluation or {}
    env = sims.make_env(
        card.task,
        evaluation.get("backend", "pybullet"),
        num_envs=EVAL_NUM_ENVS,
        config=card_env_config(card),
    )
    return visited_states(model, env, episodes, int(evaluation.get("seed", 1000)))[0]


class _EpisodeCounter:
    """A batched env that counts each of its envs' ended episodes."""

    def __init__(self, env) -> None:
        self.env = env
        self.ended = np.zeros(env.num_envs, dtype=np.int64)

    def __getattr__(self, name):
        return getattr(self.env, name)

    def step(self, actions):
        out = self.env.step(actions)
        self.ended += np.logical_or(out[2], out[3])
        return out


def visited_states(
    model: ActorCritic, env, episodes: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """The observations ``model``'s actor visits on ``episodes`` episodes of ``seed`` in the
    batched ``env`` (closed after), and per state the episode it belongs to (numbered per
    env, interleaved across envs): what a resampling over episodes needs."""
    from policies.evaluation import run_episodes
    from policies.ppo.checkpoints import torch_policy_fn

    counted = _EpisodeCounter(env)
    policy, seen, episode = torch_policy_fn(model), [], []
    envs = np.arange(counted.num_envs)

    def visiting(obs):
        seen.append(np.array(obs, dtype=np.float32))
        episode.append(counted.ended * counted.num_envs + envs)
        return policy(obs)

    try:
        run_episodes(counted, visiting, episodes, seed)
    finally:
        env.close()
    return np.concatenate(seen), np.concatenate(episode)


def restart_states(
    model: ActorCritic,
    card: SkillCard,
    starts: np.ndarray,
    horizon: int,
    exploration_std: float,
    seed: int = 0,
) -> np.ndarray:
    """The observations the parent actor (plus Gaussian noise of ``exploration_std``)
    visits in ``horizon`` periods of the numba simulator restarted near each logged state
    of ``starts`` [M, D]: the arm joints within :data:`RESTART_JOINT_NOISE` of the
    observation's, the cube (pose, yaw) and the goal where the observation has them, the
    fingers at its width; velocities zero."""
    import sims
    from policies.ppo.checkpoints import torch_policy_fn

    fields = sims.get_task(card.task).LAYOUT.slices
    rng = np.random.default_rng(seed)
    starts = np.asarray(starts, dtype=np.float64)
    noise = rng.uniform(-RESTART_JOINT_NOISE, RESTART_JOINT_NOISE, (len(starts), 7))
    state = {
        "joint_pos": starts[:, fields["joint_pos"]] + noise,
        "goal_pos": starts[:, fields["goal_pos"]],
    }
    if "object_pos" in fields:
        state["object_pos"] = starts[:, fields["object_pos"]]
        sin, cos = starts[:, fields["object_yaw_sincos"]].T  # of 4 * yaw
        state["object_yaw"] = np.arctan2(sin, cos) / 4.0
    if "finger_width" in fields:
        state["finger_width"] = starts[:, fields["finger_width"]].reshape(-1)
    env = sims.make_env(
        card.task, "numba", num_envs=len(starts), seed=seed, config=card_env_config(card)
    )
    policy, seen = torch_policy_fn(model), []
    try:
        obs = env.set_state(**state)
        for _ in range(horizon):
            seen.append(np.array(obs, dtype=np.float32))
            actions = policy(obs) + rng.normal(0.0, exploration_std, (len(obs), model.action_dim))
            obs = env.step(np.clip(actions, -1.0, 1.0).astype(np.float32))[0]
    finally:
        env.close()
    return np.concatenate(seen) if seen else np.zeros((0, model.obs_dim), np.float32)
