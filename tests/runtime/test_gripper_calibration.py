"""`miles calibrate gripper` (miles_ros/commands/calibrate.py,
miles_ros/runtime/gripper_calibration.py): on the scene's PyBullet world, whose gripper
reads the scene's ``gripper.finger_reading`` wide, the closed empty gripper finds that
offset to 0.1 mm and writes it into the scene file's ``gripper.calibration``, never over an
existing file without --overwrite; the scene key is checked, and sim_node takes it where its
own parameter is left at 0. What the skill node does with the measurement:
tests/runtime/test_measured_skills.py and tests/nodes/test_skill_node_calibrated.py."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from miles_ros.commands import calibrate
from miles_ros.interfaces import EXIT_OK, EXIT_USAGE
from miles_ros.runtime.gripper_calibration import measure_in_sim, scene_measurements
from miles_ros.runtime.scene_world import SceneWorld
from policies.calibration import CLOSE_PERIODS, MEASURE_RESOLUTION_M, MEASURE_STEP_M
from sims.scene import Gripper, default_scene_path, load_scene, parse_scene


def scene_file(tmp_path, name: str, finger_reading: float | None) -> str:
    """The default scene with ``gripper.finger_reading`` (None: no gripper section)."""
    data = yaml.safe_load(default_scene_path().read_text(encoding="utf-8"))
    if finger_reading is not None:
        data["gripper"] = {"finger_reading": finger_reading}
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return str(path)


def run(argv: list[str], capsys) -> tuple[int, str]:
    rc = calibrate.main(argv)
    return rc, capsys.readouterr().out


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(offset=st.floats(0.0, 0.02))
@example(offset=0.0)
@example(offset=0.0004)
@example(offset=0.018)
@example(offset=0.02)
def test_the_command_finds_the_sims_offset_and_writes_it(tmp_path_factory, capsys, offset):
    """Over offsets 0-20 mm the closed gripper measures the offset the sim's gripper reads
    to 0.1 mm (an offset under the 0.5 mm resolution measures 0); the written scene loads
    with it as ``gripper.calibration`` and is otherwise the scene it was measured on."""
    tmp = tmp_path_factory.mktemp("grip")
    source, out = scene_file(tmp, "scene.yaml", offset), tmp / "calibrated.yaml"
    rc, text = run(["gripper", "--scene", source, "--out", str(out), "--json"], capsys)
    assert rc == EXIT_OK
    report = json.loads(text)
    measured = report["finger_offset_m"]
    if offset >= MEASURE_RESOLUTION_M + MEASURE_STEP_M:
        assert abs(measured - offset) <= MEASURE_STEP_M, (offset, report)
    elif offset < MEASURE_RESOLUTION_M - MEASURE_STEP_M:
        assert measured == 0.0, (offset, report)
    written, before = load_scene(out), load_scene(source)
    calibration = written.gripper.calibration
    assert calibration.finger_offset_m == measured
    assert calibration.periods == CLOSE_PERIODS
    assert calibration.command.startswith("miles calibrate gripper --scene")
    assert scene_measurements(written) == {"finger_width": measured}
    assert written.gripper.finger_reading == before.gripper.finger_reading == offset
    assert written.objects == before.objects and written.camera == before.camera


def test_it_refuses_to_overwrite_without_overwrite_and_prints_without_out(tmp_path, capsys):
    source = scene_file(tmp_path, "scene.yaml", 0.009)
    out = tmp_path / "calibrated.yaml"
    out.write_text("keep me\n", encoding="utf-8")
    rc = calibrate.main(["gripper", "--scene", source, "--out", str(out)])
    assert rc == EXIT_USAGE
    assert "--overwrite" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == "keep me\n"
    rc, text = run(["gripper", "--scene", source, "--out", str(out), "--overwrite"], capsys)
    assert rc == EXIT_OK and "finger offset 9.0 mm" in text
    assert load_scene(out).gripper.calibration.finger_offset_m == pytest.approx(0.009)
    rc, text = run(["gripper", "--scene", source], capsys)  # no --out: printed, not written
    assert rc == EXIT_OK and "finger_offset_m: 0.009" in text and "not written" in text
    # measuring the calibrated scene again replaces the calibration, keeps the rest
    again = tmp_path / "again.yaml"
    assert calibrate.main(["gripper", "--scene", str(out), "--out", str(again)]) == EXIT_OK
    remeasured = load_scene(again)
    assert remeasured.gripper.finger_reading == 0.009
    assert remeasured.gripper.calibration.command.endswith(f"--out {again}")
    assert remeasured.camera == load_scene(out).camera


@pytest.mark.parametrize("name", ["scene.yaml", "scene_dual.yaml", "scene_tags.yaml"])
def test_the_shipped_scenes_read_right_and_carry_what_the_command_measures(name):
    """The shipped scenes' sim gripper reads right, and each carries the calibration that
    ``miles calibrate gripper`` writes for it (the closed empty pads, PyBullet's, read under
    the resolution: offset 0), so a skill node on them closes nothing at bring-up."""
    scene = load_scene(default_scene_path().parent / name)
    calibration = scene.gripper.calibration
    assert scene.gripper.finger_reading == 0.0
    assert calibration is not None and calibration.periods == CLOSE_PERIODS
    assert calibration.command.startswith(f"miles calibrate gripper --scene config/{name}")
    assert scene_measurements(scene) == {"finger_width": 0.0}
    measurement = measure_in_sim(scene)
    assert 0.0 <= measurement.reading_m < MEASURE_RESOLUTION_M
    assert measurement.offset_m == calibration.finger_offset_m == 0.0
    # the reading offset reaches the world: the open gripper is not moved by it (the map
    # fades to nothing there), the closed one by all of it
    world = SceneWorld(replace(scene, gripper=Gripper(finger_reading=0.009)))
    try:
        assert world.change.finger_reading == 0.009
        assert world.finger_reading() == pytest.approx(0.08, abs=1e-6)
    finally:
        world.close()


def test_a_scene_without_a_gripper_section_keeps_its_comments(tmp_path, capsys):
    """Written into a scene without ``gripper:``, the calibration is appended to the file's
    text (its comments kept); one with a ``gripper:`` section is re-emitted from its data."""
    data = yaml.safe_load(default_scene_path().read_text(encoding="utf-8"))
    del data["gripper"]
    source = tmp_path / "scene.yaml"
    text = "# the cell's own note\n" + yaml.safe_dump(data, sort_keys=False)
    source.write_text(text, encoding="utf-8")
    out = tmp_path / "calibrated.yaml"
    rc, _ = run(["gripper", "--scene", str(source), "--out", str(out)], capsys)
    assert rc == EXIT_OK
    written = out.read_text(encoding="utf-8")
    assert written.startswith(text) and "# the cell's own note" in written
    assert load_scene(out).gripper.calibration.finger_offset_m == 0.0
    again = tmp_path / "again.yaml"
    assert calibrate.main(["gripper", "--scene", str(out), "--out", str(again)]) == EXIT_OK
    assert "# the cell's own note" not in again.read_text(encoding="utf-8")
    assert load_scene(again).gripper.calibration.command.endswith(f"--out {again}")


@pytest.mark.parametrize(
    ("gripper", "reason"),
    [
        ({"finger_reading": 0.05}, "finger_reading: expected"),
        ({"finger_reading": True}, "finger_reading"),
        ({"offset": 0.01}, "unknown keys"),
        ({"calibration": {"finger_offset_m": 0.01}}, "periods"),
        ({"calibration": {"finger_offset_m": 0.01, "periods": 0}}, "periods"),
        ({"calibration": {"finger_offset_m": 0.03, "periods": 30}}, "finger_offset_m"),
        ({"calibration": {"finger_offset_m": 0.01, "periods": 30, "by": "x"}}, "unknown"),
    ],
)
def test_a_bad_gripper_section_is_refused_naming_the_key(gripper, reason):
    data = yaml.safe_load(default_scene_path().read_text(encoding="utf-8"))
    data["gripper"] = gripper
    with pytest.raises(ValueError, match=reason):
        parse_scene(data, "scene.yaml")


def test_sim_node_takes_the_scenes_reading_where_its_parameter_is_left_at_0():
    pytest.importorskip("rclpy")
    from miles_ros.params.sim import SimNodeParams
    from miles_ros.ros.sim_node import cell_change

    scene = replace(load_scene(), gripper=Gripper(finger_reading=0.012))
    assert cell_change(SimNodeParams(), scene).finger_reading == 0.012
    assert cell_change(SimNodeParams(finger_reading=0.004), scene).finger_reading == 0.004
    assert cell_change(SimNodeParams(), load_scene()).finger_reading == 0.0
    assert cell_change(SimNodeParams(), None).finger_reading == 0.0
