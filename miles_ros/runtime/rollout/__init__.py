"""Shadow mode and canary rollout of candidate skill versions (no ROS).

- :mod:`.shadow`: a candidate beside the active version, never sent; its per-episode
  record and the supervisor's maths run offline on its commands;
- :mod:`.canary`: a seeded share of requests to the candidate, decided by
  :mod:`.sprt` (promote, rollback, continue) with every decision's evidence;
- :mod:`.drift`: the active version's live success tested against its card's (the same
  SPRT) and a per-request signal against its first requests' (a CUSUM of ranks), a
  decision record per outcome;
- :mod:`.core`: :class:`Rollout`, the executor's seams, the per-request fallback and the
  ``shadow`` / ``canary`` parameters of skill_node.
"""

from miles_ros.runtime.rollout.canary import Canary, CanaryConfig, DecisionLog, card_success
from miles_ros.runtime.rollout.core import (
    RequestRollout,
    Rollout,
    load_candidate,
    parse_canary,
    parse_drift,
    parse_shadow,
    rollout_from_config,
    rollout_params,
)
from miles_ros.runtime.rollout.drift import Drift, DriftConfig
from miles_ros.runtime.rollout.shadow import OfflineSupervisor, ShadowEpisode
from miles_ros.runtime.rollout.sprt import (
    Thresholds,
    bernoulli_llr,
    hypotheses,
    sprt_decision,
    sprt_thresholds,
)

__all__ = [
    "Canary",
    "CanaryConfig",
    "DecisionLog",
    "Drift",
    "DriftConfig",
    "OfflineSupervisor",
    "RequestRollout",
    "Rollout",
    "ShadowEpisode",
    "Thresholds",
    "bernoulli_llr",
    "card_success",
    "hypotheses",
    "load_candidate",
    "parse_canary",
    "parse_drift",
    "parse_shadow",
    "rollout_from_config",
    "rollout_params",
    "sprt_decision",
    "sprt_thresholds",
]
