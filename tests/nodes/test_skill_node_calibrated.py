"""skill_node with a version whose card has the cell measure its finger offset
(``calibration.finger_width.measure: closed_gripper``), over real rclpy on loopback (its
own ROS domain), in the graph sim_node (PyBullet) -> safety_node -> skill_node, the sim's
gripper reading 12 mm wide (the scene's ``gripper.finger_reading``):

- the scene measured by ``miles calibrate gripper`` (``gripper.calibration``): the skill
  loads, reads its finger width through the measured offset, and a request runs;
- the scene not measured and the node's ``measure_gripper`` off: the request is refused
  before any motion, the reason naming ``miles calibrate gripper`` (with it on, the default,
  the node measures at bring-up: tests/nodes/test_skill_node_measures_gripper.py).

The library side (routed and swapped-in versions, a card without the key bit-identical):
tests/runtime/test_measured_skills.py.
"""

from __future__ import annotations

import numpy as np
import pytest
import yaml

rclpy = pytest.importorskip("rclpy")

from miles_ros.commands import calibrate  # noqa: E402
from miles_ros.interfaces import EXIT_OK  # noqa: E402
from policies.runtime import SkillPolicy  # noqa: E402
from sims.scene import default_scene_path  # noqa: E402
from sims.tasks.base import calibrated_finger_width  # noqa: E402
from tests.nodes.graph_harness import skill_graph  # noqa: E402
from tests.policies.test_observation_calibration import (  # noqa: E402
    MEASURED,
    PARENT,
    WIDTH,
    calibrated_copy,
    held_states,
)

READING = 0.012
"""How much wider than it is the sim's gripper reads (m)."""


@pytest.fixture(scope="module")
def cell(tmp_path_factory):
    """A library whose pick_place measures its finger offset; the scene with the sim's
    gripper reading :data:`READING` wide, and that scene calibrated by the command."""
    tmp = tmp_path_factory.mktemp("cell")
    root = tmp / "library"
    root.mkdir()
    calibrated_copy(tmp, MEASURED).rename(root / "pick_place")
    data = yaml.safe_load(default_scene_path().read_text(encoding="utf-8"))
    data["gripper"] = {"finger_reading": READING}
    scene = tmp / "scene.yaml"
    scene.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    measured = tmp / "calibrated.yaml"
    assert calibrate.main(["gripper", "--scene", str(scene), "--out", str(measured)]) == EXIT_OK
    return root, scene, measured


def test_a_calibrated_scene_runs_the_measuring_skill_on_the_corrected_reading(cell):
    library, _, measured = cell
    graph = skill_graph(library, scene=measured)
    try:
        assert graph.nodes[0].world.change.finger_reading == READING  # the scene's, in sim
        node_library = graph.nodes[2].skills.library
        assert node_library.errors == {}
        skill = node_library.skills["pick_place"]
        assert skill.policy.measured == {"finger_width": pytest.approx(READING, abs=1e-4)}
        offset = skill.policy.measured["finger_width"]
        # what it acts on: the reading through the measured offset, as the plain version
        # would act on the calibrated reading (closed readings, where the map moves them)
        obs = held_states(16, 6)
        fixed = obs.copy()
        fixed[:, WIDTH] = calibrated_finger_width(obs[:, WIDTH], offset)
        plain = SkillPolicy(PARENT)
        np.testing.assert_array_equal(skill.policy.act(obs), plain.act(fixed))
        assert not np.array_equal(skill.policy.act(obs), plain.act(obs))
        # and it runs: the request is accepted and commands go toward the robot
        acted = []
        act = skill.policy.act
        skill.policy.act = lambda o: acted.append(np.array(o)) or act(o)
        graph.request("p", "pick_place", object="red_cube", target="left_pad")
        graph.wait(lambda: len(acted) >= 3, what="the measuring skill acting")
        graph.cancel("p")
        final = graph.final("p")
        assert final["state"] == "aborted", final
        assert graph.skill_commands
        # the node hands the policy the raw reading (the gripper still open in these first
        # periods, where the map moves nothing); the policy corrects it
        for o in acted:
            np.testing.assert_array_equal(act(o), plain.act(_calibrated(o, offset)))
    finally:
        graph.close()


def _calibrated(obs: np.ndarray, offset: float) -> np.ndarray:
    out = np.array(obs, dtype=np.float32)
    out[WIDTH] = calibrated_finger_width(out[WIDTH], offset)
    return out


def test_a_scene_without_the_measurement_refuses_it_naming_the_command(cell):
    library, scene, _ = cell
    graph = skill_graph(library, {"measure_gripper": False}, scene=scene)
    try:
        assert "pick_place" not in graph.nodes[2].skills.library.skills
        graph.request("p", "pick_place", object="red_cube", target="left_pad")
        final = graph.final("p")
        assert final["state"] == "failed", final
        assert "miles calibrate gripper" in final["reason"]
        assert "finger_width (closed_gripper)" in final["reason"]
        assert graph.skill_commands == []  # nothing was ever sent toward the robot
    finally:
        graph.close()
