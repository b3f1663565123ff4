"""PPO split as rsl_rl does it: algorithm (the update), storage (the rollout buffer),
runner (env interaction, logging, checkpoints, evaluation). GAE runs in a numba kernel."""

from policies.ppo.config import PPOConfig, RunnerConfig, TrainConfig, default_train_config

__all__ = ["PPOConfig", "RunnerConfig", "TrainConfig", "default_train_config"]
