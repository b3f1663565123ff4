"""skill_node measuring its finger offset at bring-up (``measure_gripper``, the default)
for a card with ``calibration.finger_width.measure: closed_gripper`` and a scene without
``gripper.calibration``, over real rclpy on loopback (its own ROS domain), in the graph
sim_node (PyBullet) -> safety_node -> skill_node, the sim's gripper reading
``gripper.finger_reading`` wide:

- it measures what ``miles calibrate gripper`` writes for that scene (within its 0.1 mm
  rounding), through the safety node (the supervisor accepts the close commands, the skill
  it is told is ``measure_gripper``), opens the gripper again, reports it on
  ``/miles/skill/calibration`` and the card reads through the offset;
- an e-stop latched before or during the close refuses the card, naming the e-stop;
- a scene calibrated by the command is used as it is: no close command is sent;
- no joint state or no safety state within ``measure_wait_s`` of bring-up (no sim node, no
  safety node) refuses the card naming what did not come, and sends nothing.

The period-by-period logic (settling, the timeout, a gripper that does not close):
tests/runtime/test_gripper_bring_up.py.
"""

from __future__ import annotations

import json

import pytest
import yaml

rclpy = pytest.importorskip("rclpy")

from std_msgs.msg import String  # noqa: E402

from miles_ros import interfaces  # noqa: E402
from miles_ros.commands import calibrate  # noqa: E402
from miles_ros.interfaces import EXIT_OK  # noqa: E402
from miles_ros.ros.qos import LATCHED_QOS  # noqa: E402
from policies.calibration import CLOSE_PERIODS, MEASURE_STEP_M  # noqa: E402
from sims.control import FINGER_OPEN  # noqa: E402
from sims.scene import default_scene_path, load_scene  # noqa: E402
from tests.nodes.graph_harness import TIMEOUT, Graph, overrides, skill_graph  # noqa: E402
from tests.policies.test_observation_calibration import MEASURED, calibrated_copy  # noqa: E402

FINGERS = ("panda_finger_joint1", "panda_finger_joint2")


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    """A library whose pick_place measures its finger offset."""
    root = tmp_path_factory.mktemp("measuring") / "library"
    root.mkdir()
    calibrated_copy(root.parent, MEASURED).rename(root / "pick_place")
    return root


def scene_reading(tmp_path, reading: float):
    """A scene file whose sim gripper reads ``reading`` (m) wide."""
    data = yaml.safe_load(default_scene_path().read_text(encoding="utf-8"))
    data["gripper"] = {"finger_reading": reading}
    scene = tmp_path / f"scene_{reading * 1e3:.0f}mm.yaml"
    scene.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return scene


def listen(graph) -> list[dict]:
    """Every ``/miles/skill/calibration`` message (transient-local: the latest as well)."""
    store: list[dict] = []
    graph.probe.create_subscription(
        String, interfaces.SKILL_CALIBRATION, graph._keep(store, json.loads), LATCHED_QOS
    )
    return store


def finished(reports: list[dict]) -> bool:
    return any(r["state"] in ("measured", "refused", "scene") for r in reports)


def fingers_of(msg) -> list[float]:
    names = list(msg.name)
    return [msg.position[names.index(n)] for n in FINGERS if n in names]


@pytest.mark.parametrize("reading", [0.0, 0.006, 0.018])
def test_the_node_measures_what_the_command_writes(library, tmp_path, reading):
    scene = scene_reading(tmp_path, reading)
    out = tmp_path / "calibrated.yaml"
    assert calibrate.main(["gripper", "--scene", str(scene), "--out", str(out)]) == EXIT_OK
    written = load_scene(out).gripper.calibration.finger_offset_m
    graph = skill_graph(library, scene=scene)
    try:
        reports = listen(graph)
        graph.wait(lambda: finished(reports), timeout=TIMEOUT, what="the gripper measured")
        final = reports[-1]
        assert final["state"] == "measured", final
        assert final["offset_m"] == pytest.approx(written, abs=MEASURE_STEP_M + 1e-9)
        assert final["reading_m"] == pytest.approx(reading, abs=0.001)
        assert final["periods"] >= CLOSE_PERIODS
        assert final["skills"] == ["pick_place"]
        skill = graph.nodes[2].skills.library.skills["pick_place"]
        assert skill.policy.measured == {"finger_width": final["offset_m"]}
        # through the safety node: the close and the open were sent as skill commands, the
        # supervisor accepted them, and it was told which skill ran
        closes = [m for m in graph.skill_commands if fingers_of(m) == [0.0, 0.0]]
        opens = [m for m in graph.skill_commands if fingers_of(m) == [FINGER_OPEN] * 2]
        assert len(closes) >= CLOSE_PERIODS and len(opens) == CLOSE_PERIODS
        assert graph.nodes[1].supervisor.stats["accepted"] >= CLOSE_PERIODS
        told = [t for t in graph.skill_tags if t["skill"] == "measure_gripper"]
        assert told and told[0]["tags"] == ["grasps"]
        assert graph.skill_tags[-1] == {"skill": "", "tags": []}  # and that it ended
        graph.wait(lambda: graph.joint_states[-1].position[7] > 0.03, what="the gripper open")
        assert graph.nodes[2].skills.measuring is False
        assert graph.nodes[2].skills.period is None  # no timer left ticking
    finally:
        graph.close()


def test_a_latched_estop_refuses_the_card(library, tmp_path):
    graph = skill_graph(library, scene=scene_reading(tmp_path, 0.012))
    try:
        # latched as soon as the graph is up: before the node's first close or during the
        # close (at least CLOSE_PERIODS periods), both refuse; waiting for the first close
        # before the call would race the call against the end of the close under load
        assert graph.call(interfaces.TRIGGER_ESTOP).success
        reports = listen(graph)
        graph.wait(lambda: finished(reports), what="the measurement ended")
        final = reports[-1]
        assert final["state"] == "refused", final
        assert "e-stop latched" in final["reason"]
        node_library = graph.nodes[2].skills.library
        assert "pick_place" not in node_library.skills
        graph.request("p", "pick_place", object="red_cube", target="left_pad")
        refused = graph.final("p")
        assert refused["state"] == "failed"
        assert "e-stop latched" in refused["reason"] and "bring-up" in refused["reason"]
    finally:
        graph.close()


def test_a_calibrated_scene_is_used_without_a_close(library, tmp_path):
    scene = scene_reading(tmp_path, 0.012)
    out = tmp_path / "calibrated.yaml"
    assert calibrate.main(["gripper", "--scene", str(scene), "--out", str(out)]) == EXIT_OK
    graph = skill_graph(library, scene=out)
    try:
        reports = listen(graph)
        graph.wait(lambda: finished(reports), what="the calibration report")
        assert reports[-1]["state"] == "scene"
        assert reports[-1]["offset_m"] == load_scene(out).gripper.calibration.finger_offset_m
        assert graph.nodes[2].skills.gripper is None
        assert graph.skill_commands == []  # no close was sent
    finally:
        graph.close()


@pytest.mark.parametrize(
    "with_sim, missing",
    [
        (False, "no joint state and no safety state within 1.0 s"),
        (True, "no safety state within 1.0 s"),
    ],
)
def test_no_state_at_bring_up_refuses_the_card_naming_what_did_not_come(
    library, tmp_path, with_sim, missing
):
    """skill_node's wait for its first joint state and safety state is bounded by
    ``measure_wait_s``: the graph without a safety node (and without a sim), the card
    is refused with the reason once the bound passes, and no close is sent."""
    from miles_ros.ros.sim_node import SimNode
    from miles_ros.ros.skill_node import SkillNode

    scene = {"scene_file": str(scene_reading(tmp_path, 0.012))}
    params = {"skill_library": str(library), **scene, "measure_wait_s": 1.0}
    nodes = [lambda ctx: SkillNode(context=ctx, parameter_overrides=overrides(params))]
    if with_sim:
        nodes.insert(0, lambda ctx: SimNode(context=ctx, parameter_overrides=overrides(scene)))
    graph = Graph(nodes)
    try:
        reports = listen(graph)
        graph.wait(lambda: finished(reports), what="the measurement refused")
        final = reports[-1]
        assert final["state"] == "refused", final
        assert missing in final["reason"], final["reason"]
        if with_sim:
            assert graph.joint_states, "the sim published joint states"
        skills = graph.nodes[-1].skills
        assert "pick_place" not in skills.library.skills
        assert skills.measuring is False and skills.period is None  # no timer left
        assert graph.skill_commands == []  # nothing was closed
        graph.request("p", "pick_place", object="red_cube", target="left_pad")
        refused = graph.final("p")
        assert refused["state"] == "failed"
        assert missing in refused["reason"] and "bring-up" in refused["reason"]
    finally:
        graph.close()
