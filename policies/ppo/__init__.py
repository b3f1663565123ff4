"""PPO split as rsl_rl does it: algorithm (the update), storage (the rollout buffer),
runner (the training loop), with what the loop calls beside it: rollout (env interaction),
physics_eval, progress (logs), record and checkpoints (the run's state and files),
distributed; stage_config and stages (staged training). GAE runs in a numba kernel."""

from policies.ppo.config import PPOConfig, RunnerConfig, TrainConfig, default_train_config

__all__ = ["PPOConfig", "RunnerConfig", "TrainConfig", "default_train_config"]
