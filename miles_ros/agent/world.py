"""The planner's view of the scene: names, positions and a small symbolic state.

The scene comes from :func:`sims.scene.load_scene`, the one reader of the scene file.
Offline planning advances a
:class:`World` after each chosen step by the skill's declared effects
(``effects_machine`` in its card), so later steps are grounded in the state they will
meet. Coordinates are in the robot base frame (m).
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
from dataclasses import dataclass, field

from miles_ros.runtime.goals import stack_top
from sims.scene import load_scene
from sims.tasks.pick_place import CUBE_REST_Z, stack_goal

Vec3 = tuple[float, float, float]

WORKSPACE_MIN: Vec3 = (0.2, -0.6, 0.0)
"""Lower corner (m) of the box that coordinate parameters must lie in (above the table,
in front of the robot); a coarse planning check, the safety supervisor has the real one."""
WORKSPACE_MAX: Vec3 = (0.85, 0.6, 0.6)
"""Upper corner (m) of that box."""
ON_TABLE_MAX_Z = 0.06
"""A coordinate target with z above this (m) is in the air: push cannot reach it."""


@dataclass
class World:
    """Objects, places and the symbolic facts offline planning tracks."""

    objects: dict[str, Vec3]
    """Cube centres by name (m), updated when a step moves a cube."""
    places: dict[str, Vec3]
    """Pad centres by name (m)."""
    object_at: dict[str, str | Vec3 | None] = field(default_factory=dict)
    """Where each cube was put by a planned step: a place or cube name, a point, or None
    (still where the scene put it)."""
    arm_at: str | Vec3 | None = None
    """Where the arm was last sent (``home``, a name or a point); None: unknown."""
    source: str = "<scene>"
    """File the scene came from."""
    colors: dict[str, tuple[float, ...]] = field(default_factory=dict)
    """RGBA colours of the objects and places the scene gives one (referring expressions
    such as "the yellow pad": :mod:`miles_ros.agent.references`)."""
    cube_size: float = 2 * CUBE_REST_Z
    """Edge length of the cubes (m): the scene file's ``cube_size``."""
    place_sizes: dict[str, tuple[float, float]] = field(default_factory=dict)
    """Footprint (x, y extent, m) of the places the scene gives one (placements beside a
    pad: :mod:`miles_ros.agent.beside`)."""
    table_xy: tuple[float, float, float, float] | None = None
    """The table top's extent (x min, x max, y min, y max, m) from the scene file; None when
    not known ("the cube near the edge": :mod:`miles_ros.agent.reference_edge`)."""

    def __post_init__(self) -> None:
        for name in self.objects:
            self.object_at.setdefault(name, None)

    @property
    def names(self) -> list[str]:
        """Every named thing a parameter may refer to: cubes, then places."""
        return [*self.objects, *self.places]

    def position_of(self, target: str | Vec3) -> Vec3:
        """Position of a named object or place, or the point itself."""
        if isinstance(target, str):
            if target in self.objects:
                return self.objects[target]
            if target in self.places:
                return self.places[target]
            raise KeyError(f"no object or place named {target!r}; known: {self.names}")
        return tuple(float(v) for v in target)  # type: ignore[return-value]

    def copy(self) -> World:
        """An independent copy (planning mutates its copy, never the caller's)."""
        return copy.deepcopy(self)

    def signature(self) -> str:
        """A short hash of everything planning depends on (the plan cache key)."""
        data = {
            "objects": {k: [round(v, 3) for v in p] for k, p in self.objects.items()},
            "places": {k: [round(v, 3) for v in p] for k, p in self.places.items()},
            "object_at": {
                k: v if v is None or isinstance(v, str) else list(v)
                for k, v in self.object_at.items()
            },
            "colors": {k: [round(v, 3) for v in c] for k, c in self.colors.items()},
            **({"table": [round(v, 3) for v in self.table_xy]} if self.table_xy else {}),
            "arm_at": self.arm_at
            if self.arm_at is None or isinstance(self.arm_at, str)
            else list(self.arm_at),
        }
        blob = json.dumps(data, sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]

    def apply(self, effects: list[dict], params: dict) -> None:
        """Apply machine-readable effects (``$name`` refers to a step parameter):
        ``object_at`` (object, place) and ``arm_at``/``gripper_at`` (target or place)."""

        def value(v):
            if isinstance(v, str) and v.startswith("$"):
                v = params.get(v[1:])
            return tuple(v) if isinstance(v, list) else v

        for effect in effects:
            kind = effect.get("set")
            if kind == "object_at":
                obj, place = value(effect.get("object")), value(effect.get("place"))
                if obj in self.objects and place is not None:
                    self.object_at[obj] = place
                    if isinstance(place, str) and place in self.objects:  # the stack's top
                        top = self.objects[stack_top(obj, place, self.objects)]
                        self.objects[obj] = tuple(float(v) for v in stack_goal(top))
                        continue
                    above = self.position_of(place)  # a table point may give x, y only
                    z = above[2] if len(above) > 2 else CUBE_REST_Z
                    self.objects[obj] = (above[0], above[1], max(z, CUBE_REST_Z))
            elif kind in ("arm_at", "gripper_at"):
                self.arm_at = value(effect.get("target", effect.get("place", "home")))

    def holds(self, effects: list[dict], params: dict) -> bool:
        """True when every declared effect already holds (the step would change nothing)."""
        return bool(effects) and self._effects_recorded(effects, params)

    def _effects_recorded(self, effects: list[dict], params: dict) -> bool:
        for effect in effects:
            kind = effect.get("set")
            if kind == "object_at":
                obj = params.get(str(effect.get("object", "")).lstrip("$"))
                place = params.get(str(effect.get("place", "")).lstrip("$"))
                if self.object_at.get(obj) != (tuple(place) if isinstance(place, list) else place):
                    return False
            elif kind in ("arm_at", "gripper_at"):
                target = effect.get("target", effect.get("place", "home"))
                if isinstance(target, str) and target.startswith("$"):
                    target = params.get(target[1:])
                if self.arm_at != (tuple(target) if isinstance(target, list) else target):
                    return False
        return True


def in_workspace(point: Vec3) -> bool:
    """True when a point lies in the coarse planning workspace box."""
    box = zip(point, WORKSPACE_MIN, WORKSPACE_MAX, strict=True)
    return all(lo <= v <= hi for v, lo, hi in box)


def load_world(path: str | os.PathLike | None = None) -> World:
    """The scene in ``path`` (default: the project's scene, see
    :func:`sims.scene.default_scene_path`) as a :class:`World`."""
    scene = load_scene(path)
    return World(
        objects={n: tuple(o.position) for n, o in scene.objects.items()},
        places={n: tuple(p.position) for n, p in scene.places.items()},
        source=str(path or "default"),
        colors={n: tuple(t.color) for n, t in [*scene.objects.items(), *scene.places.items()]},
        cube_size=float(scene.cube_size),
        place_sizes={n: tuple(float(v) for v in p.size) for n, p in scene.places.items()},
        table_xy=tuple(
            round(c + sign * h / 2, 6)
            for c, h in zip(scene.table.center_xy, scene.table.size[:2], strict=True)
            for sign in (-1, 1)
        ),
    )
