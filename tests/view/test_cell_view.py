"""CellView to a Rerun recording, read back with Rerun's reader: the logged TCP is the FK
of the joint states it was given (1e-6 m, in the cell frame, for the single arm and for
both arms of the dual cell at their mounts), the link transforms compose to it, the
commanded TCP follows the joint command, a link named by a safety event turns red, the
joint states' periods and perceived cubes are logged, an arm that holds still is drawn
once."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import rerun as rr

from miles_ros.runtime.frames import base_to_world
from miles_ros.view.arm_state import STILL_RAD
from miles_ros.view.cell_view import CellView
from miles_ros.view.entities import BOUND_COLOR, arm_path
from sims.robots import panda, panda_spheres
from sims.scene import load_scene
from tests.view.rrd_reader import pose, read_recording

ROOT = Path(__file__).resolve().parents[2]
SCENES = {"single": None, "dual": ROOT / "config" / "scene_dual.yaml"}
NAMES = list(panda.JOINT_NAMES) + list(panda.FINGER_JOINT_NAMES)
TOL = 1e-6


def random_configurations(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.uniform(panda.joint_position_min, panda.joint_position_max, size=(n, 7))


def entity_path(path: str) -> str:
    return "/" + path


@pytest.mark.parametrize("scene_key", sorted(SCENES))
def test_logged_tcp_is_the_fk_of_the_joint_states(tmp_path, scene_key):
    scene = load_scene(SCENES[scene_key])
    rng = np.random.default_rng()
    path = tmp_path / "view.rrd"
    view = CellView([rr.FileSink(path)], scene)
    fed: dict[str, list[np.ndarray]] = {m.name: [] for m in scene.arms}
    commanded: dict[str, list[np.ndarray]] = {m.name: [] for m in scene.arms}
    for k in range(8):
        t = 100.0 + 0.05 * k
        for mount in scene.arms:
            (q_arm,) = random_configurations(rng, 1)
            view.joint_state(mount.name, NAMES, [*q_arm, 0.01, 0.03], t)
            q_cmd = np.clip(q_arm + 0.1, panda.joint_position_min, panda.joint_position_max)
            view.joint_command(mount.name, list(panda.JOINT_NAMES), list(q_cmd), t)
            fed[mount.name].append(q_arm)
            commanded[mount.name].append(q_cmd)
        view.tick()
    view.close()

    recording = read_recording(path)
    for mount in scene.arms:
        base = arm_path(mount.name)
        mount_pose = pose(recording[entity_path(base)].static)
        tcp_rows = recording[entity_path(f"{base}/tcp/measured")].rows
        assert len(tcp_rows) == len(fed[mount.name])
        for (_, row), q in zip(tcp_rows, fed[mount.name], strict=True):
            world = (mount_pose @ pose(row))[:3, 3]
            expected = base_to_world(mount, panda.fk_tcp(q))
            np.testing.assert_allclose(world, expected, atol=TOL, rtol=0)
        # The links compose to the same TCP: the flange is link 7 moved along its z by the
        # flange offset, the TCP is the hand moved along its z by flange_to_tcp.
        link7 = recording[entity_path(f"{base}/links/panda_link7")].rows
        hand = recording[entity_path(f"{base}/links/panda_hand")].rows
        for (_, l7), (_, h), (_, tcp) in zip(link7, hand, tcp_rows, strict=True):
            flange = pose(l7) @ np.array([0.0, 0.0, panda.dh_d[7], 1.0])
            np.testing.assert_allclose(pose(h)[:3, 3], flange[:3], atol=TOL, rtol=0)
            tip = pose(h) @ np.array([0.0, 0.0, panda.flange_to_tcp, 1.0])
            np.testing.assert_allclose(tip[:3], pose(tcp)[:3, 3], atol=TOL, rtol=0)
            np.testing.assert_allclose(pose(h)[:3, :3], pose(tcp)[:3, :3], atol=1e-6, rtol=0)
        commands = recording[entity_path(f"{base}/tcp/commanded")].rows
        assert len(commands) == len(commanded[mount.name])
        for (_, row), q in zip(commands, commanded[mount.name], strict=True):
            np.testing.assert_allclose(pose(row)[:3, 3], panda.fk_tcp(q), atol=TOL, rtol=0)


def test_a_state_without_every_arm_joint_is_not_drawn(tmp_path):
    path = tmp_path / "view.rrd"
    view = CellView([rr.FileSink(path)])
    view.joint_state("", list(panda.JOINT_NAMES[:6]), [0.0] * 6, 1.0)
    view.joint_state("", list(panda.JOINT_NAMES), [float("nan")] * 7, 1.0)
    view.tick()
    view.close()
    assert "/cell/arm/tcp/measured" not in {p for p, e in read_recording(path).items() if e.rows}


def test_the_link_a_safety_event_names_turns_red_and_periods_are_logged(tmp_path):
    path = tmp_path / "view.rrd"
    view = CellView([rr.FileSink(path)])
    q = panda.home_joint_positions
    detail = (
        "request shaped to the limits: nearest boundary: panda_hand at zone robot_base "
        "(ball +0.1 mm, point +12.0 mm)"
    )
    view.joint_state("", NAMES, [*q, 0.04, 0.04], 10.0, periods=[0.004, 0.006])
    view.tick()
    view.safety_event(
        "", {"kind": "velocity_limit", "joint": "panda_joint1", "detail": detail}, 10.1
    )
    view.joint_state("", NAMES, [*q, 0.04, 0.04], 10.2)
    view.tick()
    view.close()

    recording = read_recording(path)
    spheres = recording["/cell/arm/safety/spheres"].column("Ellipsoids3D:colors")
    assert len(spheres) == 2
    red = int.from_bytes(bytes(BOUND_COLOR), "big")
    hand = panda_spheres.link_mask(["panda_hand"])
    before, after = (np.array(colors) for _, colors in spheres)
    assert not (before == red).any()
    assert (after[hand] == red).all() and not (after[~hand] == red).any()
    ((_, periods),) = recording["/timeline/arm/joint_states_period_ms"].column("Scalars:scalars")
    np.testing.assert_allclose(periods, [5.0, 6.0])
    lines = [row["TextLog:text"][0] for _, row in recording["/timeline/safety"].rows]
    assert any("velocity_limit panda_joint1" in line for line in lines)


def test_perceived_cubes_are_drawn_beside_the_ground_truth(tmp_path):
    path = tmp_path / "view.rrd"
    view = CellView([rr.FileSink(path)])
    truth = {"red_cube": {"position": [0.5, 0.1, 0.02], "orientation": [0, 0, 0, 1]}}
    seen = {"red_cube": {"position": [0.51, 0.1, 0.02], "source": "camera"}}
    view.objects({"objects": {**truth}}, 1.0)
    view.objects({"objects": seen}, 1.1)
    view.close()
    recording = read_recording(path)
    ((_, truth_centres),) = recording["/cell/objects/truth"].column("Boxes3D:centers")
    ((_, seen_centres),) = recording["/cell/objects/perceived"].column("Boxes3D:centers")
    np.testing.assert_allclose(truth_centres, [[0.5, 0.1, 0.02]], atol=1e-6)
    np.testing.assert_allclose(seen_centres, [[0.51, 0.1, 0.02]], atol=1e-6)


def test_an_arm_that_has_not_moved_is_not_drawn_again(tmp_path):
    path = tmp_path / "view.rrd"
    view = CellView([rr.FileSink(path)])
    q = panda.home_joint_positions.copy()
    for dq in (0.0, 0.0, 0.1 * STILL_RAD, 10 * STILL_RAD):
        view.joint_state("", NAMES, [*(q + dq), 0.04, 0.04], 1.0 + dq)
        view.tick()
    view.close()
    rows = read_recording(path)["/cell/arm/tcp/measured"].rows
    assert len(rows) == 2  # the first state and the one that moved
