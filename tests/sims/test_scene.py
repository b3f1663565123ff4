"""The default scene: names (docs/interfaces.md), geometry, and clear errors for bad files."""

import pytest
import yaml

from sims.scene import Scene, default_scene_path, load_scene
from sims.tasks import push


def test_default_scene_has_the_public_names():
    scene = load_scene()
    assert isinstance(scene, Scene)
    assert list(scene.objects) == ["red_cube", "green_cube", "blue_cube"]
    assert list(scene.places) == ["left_pad", "right_pad"]
    assert scene.objects["red_cube"].name == "red_cube"


def test_default_scene_geometry_matches_the_task_contract():
    scene = load_scene()
    assert scene.cube_size == pytest.approx(0.04) == pytest.approx(push.CUBE_SIZE)
    assert scene.cube_mass == pytest.approx(0.1)
    for obj in scene.objects.values():
        assert obj.position[2] == pytest.approx(scene.cube_size / 2)  # resting on z = 0
        assert len(obj.color) == 4
    for place in scene.places.values():
        assert place.position[2] == pytest.approx(0.0)
        assert all(s > 0 for s in place.size)
    sx, sy, thickness = scene.table.size
    cx, cy = scene.table.center_xy
    for name in [*scene.objects, *scene.places]:
        x, y, _ = scene.position_of(name)
        assert abs(x - cx) < sx / 2 and abs(y - cy) < sy / 2, name


def test_default_path_is_the_config_file_and_explicit_paths_load(tmp_path):
    assert default_scene_path().name == "scene.yaml"
    data = yaml.safe_load(default_scene_path().read_text())
    data["objects"] = {"yellow_cube": {"position": [0.3, 0.0, 0.02]}}
    path = tmp_path / "scene.yaml"
    path.write_text(yaml.safe_dump(data))
    scene = load_scene(path)
    assert list(scene.objects) == ["yellow_cube"]
    assert scene.objects["yellow_cube"].position == (0.3, 0.0, 0.02)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d.pop("cube_size"), "missing key 'cube_size'"),
        (lambda d: d.__setitem__("cube_mass", -1), "cube_mass: must be > 0"),
        (lambda d: d["objects"]["red_cube"].__setitem__("position", [1, 2]), "red_cube.position"),
        (lambda d: d["table"].__setitem__("size", "big"), "table.size"),
        (lambda d: d["places"].__setitem__("red_cube", d["places"]["left_pad"]), "both"),
    ],
)
def test_bad_scene_files_name_the_problem(tmp_path, change, message):
    data = yaml.safe_load(default_scene_path().read_text())
    change(data)
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ValueError, match=message):
        load_scene(path)


def test_unknown_name_lists_the_known_ones():
    with pytest.raises(KeyError, match="red_cube"):
        load_scene().position_of("purple_cube")


@pytest.mark.parametrize(
    ("value", "n", "message"),
    [
        ([0.1, 0.2], 3, "expected a list of 3 numbers"),
        ([], None, "expected a list of numbers"),
        ("0.1 0.2", None, "expected a list of numbers"),
        ([0.1, True], 2, "expected numbers"),  # YAML's true/yes is not a number
        ([False], None, "expected numbers"),
        ([0.1, "x"], 2, "expected numbers"),
        ([0.1, float("nan")], 2, "expected finite numbers"),
        ([float("inf")], None, "expected finite numbers"),
    ],
)
def test_finite_numbers_refuses_all_but_a_list_of_finite_numbers(value, n, message):
    """The one validator of YAML number lists (scene files and skill card envelopes)."""
    from sims.scene import finite_numbers

    class Refused(ValueError):
        pass

    with pytest.raises(Refused, match=f"where: {message}"):
        finite_numbers(value, "where", n, Refused)
    assert finite_numbers([1, 0.5, -2], "where") == (1.0, 0.5, -2.0)
    assert finite_numbers((1, 2), "where", 2) == (1.0, 2.0)
