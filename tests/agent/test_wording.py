"""Goals said in words the reading did not know: typos, a lift then a placing, "put it
there", a turn said as a noun, tower words, "the cube on the far left", "the pad that is
yellow", "the other cube", "over there", more ways to ask for no motion or for home, a
cube taken from under another, "don't touch X, but put Y on top of it". Cube positions
change between tests (the same words must name another cube)."""

from __future__ import annotations

import pytest

from miles_ros.agent.negation import read_in_scope
from miles_ros.agent.references import follow_up, resolve_references
from miles_ros.agent.registry import SkillRegistry
from miles_ros.agent.turns import turn_angles
from miles_ros.agent.wording import plain_wording
from miles_ros.agent.wording_typos import corrected
from miles_ros.runtime.goals import FACE_ROBOT

SIZE = 0.04


@pytest.fixture(scope="module")
def shipped() -> SkillRegistry:
    """The shipped skills (the trained turn card, with its 15-45 deg range)."""
    return SkillRegistry.load()


def placed(world, **cubes):
    """``world`` with the named cubes at (x, y) on the table, or (x, y, level) stacked."""
    out = world.copy()
    for name, spot in cubes.items():
        x, y, *level = spot
        out.objects[name] = (x, y, SIZE / 2 + SIZE * (level[0] if level else 0))
    return out


def read(goal, registry, world):
    text, reading, asks = read_in_scope(goal, registry, world)
    return text, reading.refusal, asks


def test_a_word_one_slip_from_a_colour_side_or_noun_is_put_right(world):
    assert corrected("Put the gren cube on the rigth pad.", world) == (
        "Put the green cube on the right pad."
    )
    assert corrected("push the red cueb to the lfet pad", world) == (
        "push the red cube to the left pad"
    )
    assert corrected("put the bleu block on the yelow pad", world) == (
        "put the blue block on the yellow pad"
    )
    # the slot decides: a pad's side is no cube colour, a colour word is never a typo, and
    # a word two slips away is left to the reading (which refuses what the scene lacks)
    for goal in (
        "put the light cube on the left pad",
        "put the purple cube on the left pad",
        "put the gruun cube on the left pad",
        "read the red cube",
    ):
        assert corrected(goal, world) == goal
    # the scene's own colours: a yellow cube in the scene makes "yelow cube" one
    yellow = world.copy()
    yellow.objects = {**world.objects, "yellow_cube": (0.5, -0.2, 0.02)}
    assert corrected("hover over the yelow cube", yellow) == "hover over the yellow cube"
    assert corrected("hover over the yelow cube", world) == "hover over the yelow cube"


def test_a_lift_then_a_placing_of_it_is_one_pick_and_place(world):
    assert plain_wording("Pick the red cube up, then set it down on the left pad.", world) == (
        "pick up the red cube and put it on the left pad."
    )
    assert plain_wording("Lift the green cube up and then lower it onto the right pad", world) == (
        "pick up the green cube and put it onto the right pad"
    )


def test_where_a_cube_should_go_then_it_there_is_one_step(world):
    assert plain_wording("The green cube should go to the left pad. Push it there.", world) == (
        "Push the green cube to the left pad."
    )
    assert plain_wording("The red cube must be on the right pad; put it there", world) == (
        "put the red cube to the right pad"
    )
    # without "it there" the sentence is a placing with the cube as subject, said as one
    # (miles_ros.agent.clauses)
    goal = "The red cube needs to go on the left pad."
    assert plain_wording(goal, world) == "put the red cube on the left pad."


def test_a_turn_said_as_a_noun_is_a_turn_by_its_angle(shipped, world):
    text, refusal, _ = read("Give the blue cube a 25 degree twist.", shipped, world)
    assert refusal is None and text == "turn the blue cube by 25 degrees."
    text, refusal, _ = read("give the red block a 30-degree clockwise turn", shipped, world)
    assert refusal is None and text == "turn the red block by 30 degrees clockwise"
    # under the card's range: refused with it
    _, refusal, _ = read("Give the green cube a 5 degree spin.", shipped, world)
    assert "below the skill's 15 deg minimum" in refusal


@pytest.mark.parametrize(
    ("tower", "top", "bottom"),
    [
        ({"blue_cube": (0.40, 0.15, 0), "green_cube": (0.40, 0.15, 1)}, "green", "blue"),
        ({"red_cube": (0.50, -0.05, 0), "blue_cube": (0.50, -0.05, 1)}, "blue", "red"),
        (
            {
                "green_cube": (0.45, 0.1, 0),
                "red_cube": (0.45, 0.1, 1),
                "blue_cube": (0.45, 0.1, 2),
            },
            "blue",
            "green",
        ),
    ],
)
def test_the_one_tower_standing_is_said_by_its_cubes(world, tower, top, bottom):
    built = placed(world, **tower)
    assert plain_wording("Take the top cube off the tower and put it on the right pad", built) == (
        f"Take the {top} cube and put it on the right pad"
    )
    assert plain_wording("hover over the bottom cube of the stack", built) == (
        f"hover over the {bottom} cube"
    )
    if len(tower) == 2:
        loose = next(c for c in world.objects if c not in tower)
        said = loose.replace("_", " ")
        assert plain_wording(f"stack the {said} on top of the tower", built) == (
            f"stack the {said} on top of the {top} cube"
        )


def test_tower_words_without_one_tower_are_left_to_the_reading(shipped, world):
    goal = "Take the top cube off the tower and put it on the right pad"
    assert plain_wording(goal, world) == goal
    _, refusal, _ = read(goal, shipped, world)
    assert "no top cube" in refusal


@pytest.mark.parametrize(
    "tower", [("blue_cube", "green_cube", "red_cube"), ("red_cube", "blue_cube")]
)
def test_a_cube_under_another_is_not_moved(shipped, world, tower):
    built = placed(world, **{c: (0.42, 0.12, level) for level, c in enumerate(tower)})
    said = tower[0].replace("_", " ")
    _, refusal, _ = read(f"Put the {said} on the right pad.", shipped, built)
    assert f"cannot move {tower[0]}: {tower[1]} lies on top of it" in refusal
    # the top one moves, and a reach to the bottom one is no move
    top = tower[-1].replace("_", " ")
    assert read(f"Put the {top} on the right pad.", shipped, built)[1] is None
    assert read(f"Hover over the {said}.", shipped, built)[1] is None


@pytest.mark.parametrize(
    ("positions", "far_left", "far_right"),
    [
        (
            {"red_cube": (0.45, 0.18), "green_cube": (0.5, 0.0), "blue_cube": (0.4, -0.15)},
            "red",
            "blue",
        ),
        (
            {"red_cube": (0.45, -0.1), "green_cube": (0.4, 0.16), "blue_cube": (0.52, 0.0)},
            "green",
            "red",
        ),
    ],
)
def test_the_cube_on_the_far_left_or_right_is_the_outermost(world, positions, far_left, far_right):
    scene = placed(world, **positions)
    for goal, cube in (
        ("push the cube on the far left to the right pad", far_left),
        ("hover over the cube at the very right", far_right),
        ("lift the far-left block", far_left),
    ):
        answer = resolve_references(goal, scene)
        assert [name for _, name in answer.resolved] == [f"{cube}_cube"], goal
    level = placed(world, red_cube=(0.45, 0.15), green_cube=(0.5, 0.155), blue_cube=(0.4, -0.1))
    assert resolve_references("push the cube on the far left to the right pad", level).clarify


def test_the_pad_that_is_a_colour_is_that_pad(world):
    for goal, pad in (
        ("put the blue cube on the pad that is yellow", "left_pad"),
        ("push the red cube to the pad which is grey", "right_pad"),
        ("hover over the pad coloured gray", "right_pad"),
    ):
        assert resolve_references(goal, world).resolved[0][1] == pad, goal


def test_the_other_cube_is_the_one_not_named_or_asked_about(world):
    two = resolve_references(
        "put the blue cube on the red cube and the other one on the left pad", world
    )
    assert two.text == "put the blue cube on the red cube and the green cube on the left pad"
    asked = resolve_references("put the blue cube on the other cube", world).clarify
    assert asked.options == ("green_cube", "red_cube")
    assert follow_up(asked, "the red one", world) == "put the blue cube on the red cube"


def test_over_there_with_no_place_named_is_asked_about(world):
    asked = resolve_references("put the red cube over there", world).clarify
    assert asked.phrase == "over there" and asked.options == ("left_pad", "right_pad")
    assert follow_up(asked, "the left one", world) == "put the red cube to the left pad"
    # a place named before it: nothing to ask
    said = "put the red cube on the left pad and leave the green cube there"
    assert resolve_references(said, world).clarify is None


@pytest.mark.parametrize(
    "goal",
    [
        "Stay idle for now.",
        "Just wait a second.",
        "Remain motionless for a bit.",
        "please keep still for a moment",
        "hold your position",
    ],
)
def test_more_ways_to_ask_for_no_motion(shipped, world, goal):
    _, reading, asks = read_in_scope(goal, shipped, world)
    assert reading.nothing and reading.refusal is None and asks is None


@pytest.mark.parametrize(
    "goal", ["Go back to your starting position.", "return to the initial pose", "go to the start"]
)
def test_more_ways_to_ask_for_home(shipped, world, goal):
    assert read(goal, shipped, world)[1] is None


def test_it_where_a_cube_is_put_is_not_that_cube(shipped, world):
    _, refusal, _ = read(
        "Don't touch the green cube, but put the red cube on top of it.", shipped, world
    )
    assert "green_cube ('it')" in refusal
    # a cube may be put on one that must not move
    assert read("Don't move the blue cube. Put the red cube on it.", shipped, world)[1] is None


@pytest.mark.parametrize(
    "goal",
    [
        "Balance the green cube on its corner.",
        "bounce the red and the blue cube",
        "Topple the red cube",
    ],
)
def test_more_verbs_no_card_describes_are_refused_naming_the_closest_skill(shipped, world, goal):
    _, refusal, _ = read(goal, shipped, world)
    assert refusal.startswith("no skill can ") and "the closest is" in refusal


@pytest.mark.parametrize(
    ("positions", "left", "nearest"),
    [
        (
            {"red_cube": (0.45, 0.18), "green_cube": (0.5, 0.0), "blue_cube": (0.4, -0.15)},
            "red",
            "blue",
        ),
        (
            {"red_cube": (0.38, -0.1), "green_cube": (0.45, 0.16), "blue_cube": (0.52, 0.0)},
            "green",
            "red",
        ),
    ],
)
def test_more_ways_to_say_a_cube_by_its_place_or_colour(world, positions, left, nearest):
    scene = placed(world, **positions)
    for goal, cube in (
        ("move the block on the left to the right pad", left),
        ("put the cube on the left-hand side on the right pad", left),
        ("hover over whichever cube is closest to you", nearest),
        ("put the cube that is green on the left pad", "green"),
    ):
        answer = resolve_references(goal, scene)
        assert [name for _, name in answer.resolved] == [f"{cube}_cube"], goal
    # "on the left pad" is a target, not a side
    assert resolve_references("put the cube on the left pad", scene).clarify is not None
    refused = resolve_references("put a fourth cube on the red cube", scene).refusal
    assert "there is no fourth cube" in refused


def test_a_clause_that_opens_with_move_or_put_asks_for_a_pick_and_place(shipped, world):
    _, reading, _ = read_in_scope(
        "put the green cube onto the blue cube and then move the red cube to the right pad",
        shipped,
        world,
    )
    assert ("grasps", "red_cube") in reading.require
    # a manner says otherwise: a push
    _, reading, _ = read_in_scope(
        "move the red cube to the right pad by pushing it", shipped, world
    )
    assert ("grasps", "red_cube") in reading.forbid and not reading.require


def test_all_three_cubes_is_every_cube_and_a_count_the_scene_lacks_is_refused(shipped, world):
    text, refusal, _ = read("Put all three cubes on the left pad.", shipped, world)
    assert refusal is None and text.count(" then ") == 2
    four = world.copy()
    four.objects = {**world.objects, "yellow_cube": (0.5, -0.2, 0.02)}
    assert read("put all three cubes on the left pad", shipped, four)[1] == (
        "the scene has 4 cubes, not three"
    )
    text, refusal, _ = read("put all four cubes on the left pad", shipped, four)
    assert refusal is None and text.count(" then ") == 3


@pytest.mark.parametrize(
    ("positions", "right"),
    [
        ({"red_cube": (0.45, -0.18), "green_cube": (0.5, 0.0), "blue_cube": (0.4, 0.15)}, "red"),
        ({"red_cube": (0.45, 0.1), "green_cube": (0.4, 0.16), "blue_cube": (0.52, -0.05)}, "blue"),
    ],
)
def test_the_cube_farthest_to_the_right_is_the_rightmost(world, positions, right):
    answer = resolve_references(
        "hover over the cube that is farthest to the right", placed(world, **positions)
    )
    assert [name for _, name in answer.resolved] == [f"{right}_cube"]


def test_leave_it_there_after_a_move_keeps_the_cube_where_it_was_put(shipped, world):
    assert (
        read("Move the green cube onto the left pad and leave it there.", shipped, world)[1]
        is None
    )
    _, refusal, _ = read("Move the red cube to the right pad without moving it", shipped, world)
    assert "contradictory" in refusal


def test_a_move_that_does_not_say_where_is_asked_about(shipped, world):
    for goal, phrase in (
        ("Move the red cube to the left.", "the left"),
        ("push the green block towards the right", "the right"),
        ("Pick up the blue cube.", "there"),
    ):
        _, refusal, asks = read(goal, shipped, world)
        assert refusal is None and asks.phrase == phrase, goal
        assert asks.options == ("left_pad", "right_pad")
    asks = read("Pick up the blue cube.", shipped, world)[2]
    assert follow_up(asks, "the right pad", world) == (
        "Pick up the blue cube and put it to the right pad"
    )
    # a turn to the left is a direction of turning, and a named pad is a place
    for goal in (
        "turn the green cube 20 degrees to the left",
        "move the red cube to the left pad",
    ):
        assert read(goal, shipped, world)[2] is None, goal


def test_a_spot_of_the_table_said_by_name_is_refused(shipped, world):
    _, refusal, _ = read("Put the green cube in the middle of the table.", shipped, world)
    assert "no skill takes a spot of the table by name" in refusal


def test_a_turn_clause_without_its_verb_and_cube_turns_the_same_cube_again(shipped, world):
    text, refusal, _ = read(
        "Turn the red cube 45 degrees clockwise, then 30 degrees counterclockwise.", shipped, world
    )
    said = "turn the red cube 45 degrees clockwise, then turn the red cube by 30 degrees"
    assert refusal is None and text == said
    text, refusal, _ = read("Turn the blue cube so it faces you.", shipped, world)
    assert refusal is None and turn_angles(text) == [FACE_ROBOT]


@pytest.mark.parametrize(
    "tower", [("blue_cube", "green_cube"), ("red_cube", "blue_cube"), ("green_cube", "red_cube")]
)
def test_a_tower_already_standing_is_built_on_not_rebuilt(shipped, world, tower):
    built = placed(world, **{c: (0.42, -0.05, level) for level, c in enumerate(tower)})
    loose = next(c for c in world.objects if c not in tower)
    text, refusal, _ = read("Build a tower with all three cubes.", shipped, built)
    assert refusal is None
    assert text == f"put the {loose.replace('_', ' ')} on the {tower[1].replace('_', ' ')}."
    said = loose.replace("_", " ")
    assert read(f"put the {said} on top", shipped, built)[0] == (
        f"put the {said} on top of the {tower[1].replace('_', ' ')}"
    )
    full = placed(built, **{loose: (0.42, -0.05, 2)})
    assert "already stands" in read("stack all three cubes", shipped, full)[1]
    text, refusal, _ = read("build a tower three cubes high", shipped, world)
    assert refusal is None and text.count("put the") == 2


def test_them_or_a_cube_with_nothing_named_is_asked_about(shipped, world):
    for goal, phrase in (
        ("Move them to the left pad.", "them"),
        ("Put a cube on the right pad.", "a cube"),
        ("push one block to the left pad", "one block"),
    ):
        asks = read(goal, shipped, world)[2]
        assert asks.phrase == phrase and set(asks.options) == set(world.objects), goal
    # "them" after the cubes it points at is no question
    text, _, asks = read(
        "Pick up the red and the blue cube and put them on the right pad.", shipped, world
    )
    assert asks is None


def test_a_step_on_a_cube_covered_by_an_earlier_step_is_refused_not_replaced(world):
    """The model asks to move a cube an earlier step covered: the goal is refused with the
    reason, not planned with the next best step."""
    from miles_ros.agent.lm import FakeLanguageModel
    from miles_ros.agent.planner import Planner, PlannerConfig
    from tests.agent.conftest import keyword_scorer

    registry = SkillRegistry.load(interface_cards=False)
    lm = FakeLanguageModel(keyword_scorer(["pick red blue", "pick blue left"]))
    plan = Planner(registry, world, lm, PlannerConfig()).plan(
        "put the red cube on the blue cube, then put the blue cube on the left pad",
        use_cache=False,
    )
    assert plan.refused and plan.steps == [], plan.to_json()
    assert "step 2: cannot move blue_cube: red_cube lies on top of it" in plan.reason


@pytest.mark.parametrize(
    ("goal", "first", "second"),
    [
        (
            "Turn the red cube 45 degrees clockwise, then 30 degrees counterclockwise.",
            ("red_cube", -45.0),
            ("red_cube", 30.0),
        ),
        (
            "rotate the blue cube 20 degrees and the green cube 35 degrees",
            ("blue_cube", 20.0),
            ("green_cube", 35.0),
        ),
    ],
)
def test_turn_steps_follow_the_turn_clauses_cube_and_angle_in_order(world, goal, first, second):
    """A model that prefers the second clause's angle (or cube) for both turns still turns
    each cube by its own clause's angle, in the order said."""
    from miles_ros.agent.lm import FakeLanguageModel
    from miles_ros.agent.planner import Planner, PlannerConfig

    registry = SkillRegistry.load(interface_cards=False)
    colour = second[0].split("_")[0]
    wanted = f"turn {colour} {second[1]:g}"

    def score(prompt: str, line: str) -> float:
        plan = prompt.rsplit("Plan:\n", 1)[1]
        if plan.count("\n") >= 2:
            return 0.0 if line.strip() == "done" else -5.0
        return 0.0 if line.strip() == wanted else -1.0 if line.startswith("turn") else -5.0

    planner = Planner(registry, world, FakeLanguageModel(score), PlannerConfig())
    plan = planner.plan(goal, use_cache=False)
    assert [(s.params["object"], s.params["angle"]) for s in plan.steps] == [first, second]


def test_a_goal_of_turns_only_gets_its_turns_not_home_or_done(world):
    from miles_ros.agent.lm import FakeLanguageModel
    from miles_ros.agent.planner import Planner, PlannerConfig

    registry = SkillRegistry.load(interface_cards=False)

    def score(prompt: str, line: str) -> float:  # a model that would rather go home
        return {"home": 0.0, "done": -0.5}.get(line.strip(), -3.0)

    planner = Planner(registry, world, FakeLanguageModel(score), PlannerConfig())
    plan = planner.plan("Turn the green cube by 20 degrees, then by 40 degrees.", use_cache=False)
    assert [s.key() for s in plan.steps] == ["turn green_cube 20", "turn green_cube 40"]


@pytest.mark.parametrize(("pad", "y"), [("left", 0.25), ("right", -0.25)])
def test_next_to_a_cube_an_earlier_step_moved_is_beside_where_it_was_put(shipped, world, pad, y):
    for goal in (
        f"Put the green cube on the {pad} pad, then put the blue cube next to it.",
        f"Put the green cube on the {pad} pad, then put the blue cube next to the green cube.",
    ):
        text, refusal, _ = read(goal, shipped, world)
        assert refusal is None, goal
        point = [float(v) for v in text.rsplit("(", 1)[1].split(")")[0].split(",")]
        # 0.09 m from the green cube's centre on the pad, on one side of it
        assert abs(abs(point[0] - 0.55) + abs(point[1] - y) - 0.09) < 1e-3, (goal, point)


def test_avoid_a_cube_and_the_other_cubes(shipped, world):
    text, reading, _ = read_in_scope(
        "Avoid the red cube and put the blue cube on the right pad.", shipped, world
    )
    assert text == "put the blue cube on the right pad." and reading.prohibitions
    assert reading.prohibitions[0].cube == "red_cube"
    _, reading, asks = read_in_scope(
        "Put the red cube on the left pad. Don't touch the other cubes.", shipped, world
    )
    assert asks is None and {p.cube for p in reading.prohibitions} == {"green_cube", "blue_cube"}
    answer = resolve_references(
        "put the green cube on the left pad and the others on the right pad", world
    )
    assert [name for _, name in answer.resolved] == ["red_cube", "blue_cube"]


def test_a_cube_moved_by_a_distance_is_refused_and_somewhere_is_asked(shipped, world):
    for goal in ("Lift the red cube 10 cm.", "Move the red cube 5 cm to the left."):
        _, refusal, asks = read(goal, shipped, world)
        assert asks is None and "no skill moves a cube by a distance" in refusal, goal
    assert read("Hover 10 cm above the red cube.", shipped, world)[1] is None
    assert read("put the red cube at (45, 10, 2) cm", shipped, world)[1] is None
    asks = read("Put the green cube somewhere.", shipped, world)[2]
    assert asks.phrase == "somewhere" and asks.options == ("left_pad", "right_pad")


@pytest.mark.parametrize("goal", ["Stop.", "Take a break.", "halt"])
def test_stop_asks_for_no_motion(shipped, world, goal):
    assert read_in_scope(goal, shipped, world)[1].nothing
