"""A Rerun recording read back with Rerun's own reader (:class:`rerun.chunk.RrdReader`),
for the view's tests: per entity, its static components and its rows on the view's
timeline."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from rerun.chunk import RrdReader

from miles_ros.view.entities import TIMELINE
from sims.robots import panda


@dataclass
class Entity:
    static: dict[str, list] = field(default_factory=dict)
    """Component -> its static value (a batch)."""
    rows: list[tuple[int, dict[str, list]]] = field(default_factory=list)
    """(``ros_time`` in ns, component -> batch) in time order."""

    def column(self, component: str) -> list[tuple[int, list]]:
        """(time, batch) of the rows that carry ``component``."""
        return [(t, row[component]) for t, row in self.rows if row.get(component) is not None]


def read_recording(path: str | Path) -> dict[str, Entity]:
    """Entity path (``/cell/arm/tcp/measured``) -> :class:`Entity`."""
    out: dict[str, Entity] = defaultdict(Entity)
    for chunk in RrdReader(path).stream():
        batch = chunk.to_record_batch()
        names = [n for n in batch.schema.names if ":" in n]
        entity = out[chunk.entity_path]
        if chunk.is_static:
            for name in names:
                entity.static[name] = batch.column(name).to_pylist()[-1]
            continue
        if TIMELINE not in batch.schema.names:
            continue
        times = batch.column(TIMELINE).cast("int64").to_pylist()
        columns = {name: batch.column(name).to_pylist() for name in names}
        for k, t in enumerate(times):
            entity.rows.append((t, {name: values[k] for name, values in columns.items()}))
    for entity in out.values():
        entity.rows.sort(key=lambda row: row[0])
    return dict(out)


def pose(components: dict[str, list]) -> np.ndarray:
    """[4, 4] from a Transform3D's logged translation and mat3x3 (stored column-major)."""
    out = np.eye(4)
    out[:3, :3] = np.array(components["Transform3D:mat3x3"][0], dtype=np.float64).reshape(3, 3).T
    out[:3, 3] = components["Transform3D:translation"][0]
    return out


def assert_tcp_at_fk(recording: dict[str, Entity], arm: str = "arm") -> list[tuple[int, list]]:
    """Checks that ``arm`` has measured TCP frames, each logged with its joint positions
    (the same time) and at their forward kinematics; returns those (time, joints) rows."""
    tcps = recording[f"/cell/{arm}/tcp/measured"].rows
    logged = recording[f"/timeline/{arm}/joints"].column("Scalars:scalars")
    assert len(tcps) == len(logged) > 0
    for (t_tcp, row), (t_q, q) in zip(tcps, logged, strict=True):
        assert t_tcp == t_q
        np.testing.assert_allclose(pose(row)[:3, 3], panda.fk_tcp(np.array(q)), atol=1e-6, rtol=0)
    return logged
