"""What the manager is built from, as its parameters say: the planner, the memory and its
embedder, and the planner's world from a ``/miles/scene/objects`` message. ROS-free."""

from __future__ import annotations

from pathlib import Path

from miles_ros.agent.world import World
from miles_ros.params.manager import ManagerNodeParams


def build_embedder(params: ManagerNodeParams):
    """The semantic memory's sentence embedder (MiniLM loads here, not mid-goal)."""
    from miles_ros.agent.memory import HashEmbedder, default_embedder

    return HashEmbedder() if params.memory_embedder == "hash" else default_embedder()


def build_memory(params: ManagerNodeParams, embedder=None):
    """The agent's memory (episodic + semantic SQLite) as the parameters say."""
    from miles_ros.agent.memory import Memory
    from miles_ros.agent.models import cache_dir

    path = params.memory_db or str(cache_dir(params.cache_dir or None) / "memory.sqlite")
    return Memory(path, embedder=embedder or build_embedder(params))


def build_planner(params: ManagerNodeParams):
    """The planner as ``miles plan`` builds it, from the node's parameters (its memory is
    attached later, on the thread that uses it)."""
    from miles_ros.agent.planner import Planner, PlannerConfig
    from miles_ros.agent.registry import SkillRegistry
    from miles_ros.agent.world import load_world

    config = PlannerConfig(
        mode=params.mode, fallback=params.fallback, affordance_weight=params.affordance_weight
    )
    adapter = None if params.adapter == "none" else (params.adapter or "default")
    return Planner.from_options(
        registry=SkillRegistry.load(
            [Path(params.skill_library)] if params.skill_library else None
        ),
        world=load_world(params.scene_file or None),
        model=params.model or None,
        adapter=adapter,
        endpoint=params.endpoint or None,
        endpoint_model=params.endpoint_model,
        cache_dir=params.cache_dir or None,
        threads=params.threads or None,
        config=config,
        process=params.lm_process,
    )


def world_from_objects(message: dict) -> World:
    """The planner's world from a ``/miles/scene/objects`` message
    (``{"objects": {name: {"position"}}, "places": {name: {"position"}}}``)."""
    objects = {
        str(n): tuple(float(v) for v in o["position"]) for n, o in message["objects"].items()
    }
    places = {
        str(n): tuple(float(v) for v in p["position"])
        for n, p in (message.get("places") or {}).items()
    }
    if not objects and not places:
        raise ValueError("no objects and no places")
    return World(objects=objects, places=places, source="scene topic")  # type: ignore[arg-type]
