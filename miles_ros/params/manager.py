"""Parameters of ``manager_node`` as a typed dataclass (defaults mirrored in
config/manager.yaml; tests/test_launch_files.py keeps the two in step; names from
:mod:`miles_ros.interfaces`) and the check its on-set callback runs. ROS-free: the node
declares them with :func:`miles_ros.ros.params.declare_params`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from miles_ros import interfaces
from miles_ros.agent.dispatch import CELL_CLEARANCE


@dataclass(frozen=True)
class ManagerNodeParams:
    """Parameters of ``manager_node`` (defaults mirrored in config/manager.yaml)."""

    mode: str = "grounded"
    """Planning mode: 'grounded' (likelihood x affordance scoring) or 'generate'
    (schema-constrained JSON)."""
    model: str = ""
    """Local Hugging Face model directory ('' = the embedded Gemma 3 270M)."""
    adapter: str = "default"
    """LoRA adapter directory, 'default' (the shipped one) or 'none'."""
    endpoint: str = ""
    """OpenAI-compatible server URL (vLLM, llama.cpp, Ollama); '' = a local model."""
    endpoint_model: str = "default"
    """Model name at the endpoint."""
    cache_dir: str = ""
    """Model cache directory ('' = $MILES_CACHE_DIR or ~/.cache/miles)."""
    threads: int = 0
    """torch threads for planning (0 = automatic)."""
    lm_process: bool = True
    """Run a local model in a child process. In a one-process graph (`miles up`) the
    nodes' threads and the model's forward passes share one GIL: plans took ~25x longer
    (66 s instead of 2.5 s) and the nodes stalled. Off: the model loads in this process."""
    affordance_weight: float = 1.0
    """Weight of log(affordance) against the language model's log-likelihood."""
    fallback: bool = False
    """Allow the rule-based fallback planner (labelled in every plan it makes)."""
    skill_library: str = ""
    """Skill library the planner plans with, one folder per skill (its active version:
    docs/skills.md; '' = policies/skills)."""
    scene_file: str = ""
    """Scene YAML used until the first object poses arrive ('' = config/scene.yaml)."""
    memory_db: str = ""
    """SQLite memory file ('' = memory.sqlite in the model cache; ':memory:' = not kept)."""
    memory_embedder: str = "minilm"
    """Sentence embedder of the semantic memory: 'minilm' or 'hash' (no model)."""
    max_replans: int = 2
    """Replans after failed steps before a goal fails."""
    cell_clearance: float = CELL_CLEARANCE
    """In a cell (a scene with ``arms:``): two tasks whose cubes or targets lie closer
    than this (m) do not run on two arms at once (the dispatcher's shared space,
    :data:`miles_ros.agent.dispatch.CELL_CLEARANCE`); 0 lets them."""
    step_timeout_s: float = 60.0
    """A skill request with no final status after this long (s) fails (and is cancelled)."""
    ack_timeout_s: float = 5.0
    """A skill request with no status at all after this long (s) fails (no skill node)."""
    status_period_s: float = 1.0
    """Heartbeat of /miles/manager/status (s); 0 = only on changes."""
    goal_topic: str = interfaces.GOAL
    """std_msgs/String in: a goal in natural language."""
    plan_topic: str = interfaces.PLAN
    """std_msgs/String JSON out: the current plan with its trace id (transient-local)."""
    status_topic: str = interfaces.MANAGER_STATUS
    """std_msgs/String JSON out: the manager's state (reliable, transient-local)."""
    request_topic: str = interfaces.SKILL_REQUEST
    """std_msgs/String JSON out: {id, skill, params, trace_id} or {id, cancel: true}."""
    skill_status_topic: str = interfaces.SKILL_STATUS
    """std_msgs/String JSON in: {id, skill, state, progress, reason}."""
    safety_state_topic: str = interfaces.SAFETY_STATE
    """std_msgs/String JSON in: the supervisor's state {estop, mode, ...}."""
    safety_events_topic: str = interfaces.SAFETY_EVENTS
    """std_msgs/String JSON in: one object per safety intervention (counted per goal)."""
    objects_topic: str = interfaces.SCENE_OBJECTS
    """std_msgs/String JSON in: object and pad poses, the world the planner plans in."""


def check_param(name: str, value: Any) -> str | None:
    """Why a parameter value is refused, or None."""
    if name == "mode" and value not in ("grounded", "generate"):
        return "mode must be 'grounded' or 'generate'"
    if name == "memory_embedder" and value not in ("minilm", "hash"):
        return "memory_embedder must be 'minilm' or 'hash'"
    if name in ("max_replans", "threads") and value < 0:
        return f"{name} must be >= 0"
    if name in ("step_timeout_s", "ack_timeout_s") and not value > 0:
        return f"{name} must be > 0"
    if name == "status_period_s" and value < 0:
        return "status_period_s must be >= 0"
    if name == "cell_clearance" and not 0.0 <= value <= 2.0:
        return "cell_clearance must be in [0, 2] m"
    return None
