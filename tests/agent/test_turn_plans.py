"""Turn goals in the planner: the angles read from the words, the only ones grounding
offers, the goals refused (no angle; a multiple of 90 degrees), the text the model reads,
and plans that validate. The model is a fake whose wishes the test sets, so what is
checked is the reading and the grounding, not a model's luck."""

import math

import pytest
import yaml

from miles_ros.agent.constrained import PlanGrammar
from miles_ros.agent.evaluation import load_eval_goals, load_eval_refusals, parse_step, same_plan
from miles_ros.agent.grounding import IMPOSSIBLE, Affordance, Step, ground_candidates, step_text
from miles_ros.agent.lm import FakeLanguageModel
from miles_ros.agent.negation import read_in_scope
from miles_ros.agent.planner import Planner, PlannerConfig
from miles_ros.agent.registry import INTERFACE_CARDS, SkillRegistry
from miles_ros.agent.repertoire import _card_verbs, repertoire
from miles_ros.agent.turns import goal_angles, turn_text, turning_clauses
from miles_ros.agent.validation import validate_plan
from miles_ros.manager.core import Manager, StepResult
from miles_ros.runtime.goals import FACE_ROBOT
from sims.tasks import push
from tests.agent.conftest import FIXTURES, keyword_scorer
from tests.agent.test_negation import wanting


@pytest.fixture
def turning() -> SkillRegistry:
    """The fixture cards (reach, push, pick_place), the turn interface card and home."""
    return SkillRegistry.load([FIXTURES / "skills"])


@pytest.mark.parametrize(
    ("goal", "angles"),
    [
        ("turn the red cube by 45 degrees", [45.0]),
        ("rotate the blue block 30 degrees clockwise", [-30.0]),
        ("rotate the blue block 30 degrees counter-clockwise", [30.0]),
        ("spin it -15.5 deg", [-15.5]),
        ("twist the green cube by 60°", [60.0]),
        ("give the red cube a quarter turn", [90.0]),
        ("half a turn, please", [180.0]),
        ("spin the blue block all the way around", [360.0]),
        ("rotate the blue block so a face points at the robot", [FACE_ROBOT]),
        ("turn the green cube to face the robot", [FACE_ROBOT]),
        ("turn red by 45 degrees and the blue one by 30 degrees clockwise", [45.0, -30.0]),
        ("turn the red block forty-five degrees", [45.0]),
        ("turn it twenty degrees clockwise", [-20.0]),
        ("twist the green cube a little", []),
        ("move to 0.4, 0.1, 0.3", []),  # a point is no angle
    ],
)
def test_the_angles_a_goal_states(goal, angles):
    assert goal_angles(goal) == angles


def test_grounding_offers_only_the_angles_the_goal_states(turning, world):
    def angles(goal):
        steps = ground_candidates(turning, world, goal)
        return {s.params["angle"] for s in steps if s.skill == "turn"}

    assert angles("turn the red cube by 45 degrees, then by 90 degrees") == {45.0}
    assert angles("rotate the blue block so a face points at the robot") == {FACE_ROBOT}
    assert angles("push the red cube to the left pad") == set()  # no turn candidate at all
    assert angles("reach (0.4, 0.1, 0.3)") == set()


def planner(registry, world, wanted: list[str]) -> Planner:
    lm = FakeLanguageModel(keyword_scorer(wanted))
    return Planner(registry, world, lm, PlannerConfig())


@pytest.mark.parametrize(
    ("goal", "lines", "expected"),
    [
        ("turn the red cube by 45 degrees", ["turn red 45"], ["turn red_cube 45"]),
        ("rotate the blue block 30 degrees clockwise", ["turn blue -30"], ["turn blue_cube -30"]),
        (
            "rotate the blue block so a face points at the robot",
            ["turn blue face_robot"],
            ["turn blue_cube face_robot"],
        ),
        (
            "turn the red cube by 20 degrees then push it to the right pad",  # left: via green
            ["turn red 20", "push red right"],
            ["turn red_cube 20", "push red_cube right_pad"],
        ),
    ],
)
def test_turn_goals_plan_valid_turn_steps(turning, world, goal, lines, expected):
    plan = planner(turning, world, lines).plan(goal)
    assert not plan.refused and plan.valid, (plan.reason, plan.errors)
    assert same_plan(plan.steps, [parse_step(e) for e in expected]), plan.steps
    assert [step_text(s) for s in plan.steps][0].startswith("turn ")


@pytest.mark.parametrize(
    ("goal", "words"),
    [
        ("twist the green cube a little", "does not say how far to turn"),
        ("rotate the red block", "does not say how far to turn"),
        ("rotate the red cube by 90 degrees", "looks the same every 90 degrees"),
        ("give the blue cube half a turn", "turning it by 180 degrees"),
        ("spin the red cube all the way around", "nothing to do"),
    ],
)
def test_turns_without_an_angle_or_by_multiples_of_90_are_refused_saying_why(
    turning, world, goal, words
):
    plan = planner(turning, world, ["turn red 45"]).plan(goal)
    assert plan.refused and not plan.steps and words in plan.reason


def test_without_a_turn_skill_the_turn_verbs_stay_outside_the_repertoire(world):
    plain = SkillRegistry.load([FIXTURES / "skills"], interface_cards=False)
    plan = planner(plain, world, ["pick red left"]).plan("rotate the red cube by 45 degrees")
    assert plan.refused and "no skill can rotate" in plan.reason


def test_the_model_reads_each_turn_as_the_plan_says_it(turning, world):
    text, reading, _ = read_in_scope(
        "turn every cube except the blue one by 15 degrees", turning, world
    )
    assert text == "turn the red cube by 15 degrees, then turn the green one by 15 degrees"
    assert reading.refusal is None
    assert turn_text("Spin the green cube 60 degrees counterclockwise.", turning) == (
        "turn the green cube 60 degrees counterclockwise."
    )
    assert turn_text("make the green cube face the robot", turning) == (
        "turn the green cube so a face points at the robot"
    )
    for said in ("so a face points at you", "so that one side faces the robot"):
        assert turn_text(f"rotate the red cube {said}", turning) == (
            "turn the red cube so a face points at the robot"  # its "so" said once
        )
    assert turn_text("put the red cube on the left pad facing the robot", turning) == (
        "put the red cube on the left pad facing the robot"  # a placement keeps its verb
    )
    assert turn_text("push the blue cube to the right pad", turning) == (
        "push the blue cube to the right pad"
    )


def test_a_covered_cube_is_not_turned_and_face_robot_is_no_scene_name(turning, world):
    stacked = world.copy()
    x, y, _ = stacked.objects["red_cube"]
    stacked.objects["blue_cube"] = (x, y, push.CUBE_REST_Z + push.CUBE_SIZE)
    under = Step("turn", {"object": "red_cube", "angle": 30.0})
    on_top = Step("turn", {"object": "blue_cube", "angle": 30.0})
    affordance = Affordance(turning)
    assert affordance(under, stacked) == IMPOSSIBLE and affordance(on_top, stacked) == IMPOSSIBLE
    assert any("lies on top of it" in e for e in validate_plan([under], turning, stacked))
    assert any("not resting on the table" in e for e in validate_plan([on_top], turning, stacked))
    facing = Step("turn", {"object": "red_cube", "angle": FACE_ROBOT})
    assert validate_plan([facing], turning, world) == []
    assert affordance(facing, world) == 1.0


def test_generate_mode_leaves_out_a_skill_whose_numbers_only_the_goal_gives(turning, world):
    assert "turn" not in PlanGrammar(turning, world.names).skills
    assert {"reach", "push", "pick_place", "home"} <= set(PlanGrammar(turning, world.names).skills)


def test_the_turn_eval_goals_read_and_validate_and_the_turn_refusals_are_refused(turning, world):
    goals = [g for g in load_eval_goals() if g["category"] == "turn"]
    assert len(goals) >= 15
    through = [  # pushes through another cube: dev_set scores them as refusals
        g["goal"]
        for g in goals
        if any("from its path" in e for e in validate_plan(g["plan"], turning, world))
    ]
    assert through == [
        "Turn the red cube by 20 degrees, then push it to the left pad.",
        "Push the blue cube to the right pad and then rotate it by 10 degrees.",
    ]
    for item in goals:
        if item["goal"] in through:
            continue
        assert validate_plan(item["plan"], turning, world) == [], item["goal"]
        _, reading, asks = read_in_scope(item["goal"], turning, world)
        assert asks is None and reading.refusal is None, (item["goal"], reading.refusal)
        assert not [s for s in item["plan"] if reading.violation(s, turning)], item["goal"]
        stated = {a for s in item["plan"] if s.skill == "turn" for a in [s.params["angle"]]}
        offered = {
            s.params["angle"]
            for s in ground_candidates(
                turning, world, read_in_scope(item["goal"], turning, world)[0]
            )
            if s.skill == "turn"
        }
        assert stated <= offered, item["goal"]  # every angle of the plan is offered
    refusals = [r for r in load_eval_refusals() if r["category"] == "turn"]
    assert refusals
    for item in refusals:
        _, reading, _ = read_in_scope(item["goal"], turning, world)
        assert reading.refusal, item["goal"]
    assert math.isclose(parse_step("turn red_cube -12.5").params["angle"], -12.5)


def test_a_cube_the_goal_says_not_to_turn_is_never_turned(turning, world):
    goal = "don't rotate the red cube; rotate the blue one by 40 degrees"
    text, reading, _ = read_in_scope(goal, turning, world)
    assert [(p.cube, p.what) for p in reading.prohibitions] == [("red_cube", "move")]
    lm = FakeLanguageModel(wanting("turn red_cube 40", ["turn blue_cube 40"]))
    plan = Planner(turning, world, lm, PlannerConfig()).plan(goal)
    assert [s.key() for s in plan.steps] == ["turn blue_cube 40"]


def prefers_turn_then_pick(prompt: str, line: str) -> float:
    """A model that wants to turn the red cube, else to pick it up, then stops."""
    steps = prompt.rsplit("Plan:\n", 1)[1].count("\n")
    if steps:
        return 0.0 if line.strip() == "done" else -9.0
    return {"turn red 45": 0.0, "pick red left": -1.0}.get(line.strip(), -9.0)


def test_a_turn_the_skill_node_refuses_is_not_replaced_by_another_skill(turning, world):
    lm = FakeLanguageModel(prefers_turn_then_pick)
    manager = Manager(Planner(turning, world, lm, PlannerConfig()), max_replans=3)
    plan, action = manager.start("turn the red cube by 45 degrees")
    assert [s.key() for s in plan.steps] == ["turn red_cube 45"] and action.kind == "dispatch"
    refused = "refused: unknown skill 'turn'; available: home, pick_place, push, reach"
    action = manager.on_step_result(StepResult(action.request["id"], "failed", reason=refused))
    assert action.kind != "dispatch"  # no pick_place in its place: the goal ends
    assert "no turn step could be planned" in manager.status()["failure"]


def test_the_turn_verbs_do_not_hang_on_the_turn_cards_wording(tmp_path, world):
    """A trained turn card that says only "Use it to rotate a cube" keeps "twist" and
    "spin" turn verbs: the turn phrases give them."""
    card = yaml.safe_load((INTERFACE_CARDS / "turn.yaml").read_text())
    card["description"] = "Turns a cube in place. Use it to rotate a cube."
    (tmp_path / "turn").mkdir()
    (tmp_path / "turn" / "skill.yaml").write_text(yaml.safe_dump(card))
    reg = SkillRegistry.load([FIXTURES / "skills", tmp_path], interface_cards=False)
    assert reg["turn"].description.endswith("rotate a cube.")
    for goal in ("twist the red cube by 20 degrees", "spin the blue block 30 degrees clockwise"):
        _, reading, _ = read_in_scope(goal, reg, world)
        assert reading.refusal is None and reading.turning, goal


def test_a_cards_list_of_uses_gives_verbs_never_prepositions():
    """The shipped turn card says "Use it to rotate a cube by a given angle or to square a
    face to the robot, without lifting it": its verbs are turn, rotate and square. Read as
    "to" and "without", every "push X to the pad" was a turn without an angle, refused."""
    registry = SkillRegistry.load()
    verbs = repertoire(registry)
    assert {"turn", "rotate", "square"} <= verbs["turn"]
    assert not {"to", "without", "onto"} & verbs["turn"]
    assert not {"to", "onto", "e"} & set().union(*(_card_verbs(s) for s in registry))
    clauses = ["push the red cube to the left pad", "move the green cube onto the blue cube"]
    assert turning_clauses(clauses, registry) == []
    assert turning_clauses(["rotate the red cube by 20 degrees"], registry)


@pytest.mark.parametrize(
    ("goal", "reason"),
    [
        ("turn the blue cube by 5 degrees", "turn by 5 deg: below the skill's 15 deg minimum"),
        ("rotate the green cube 10 degrees clockwise", "turn by -10 deg: below the skill's 15"),
        ("turn the red cube by 100 degrees", "turn by 100 deg (a turn by 10 deg: a cube looks"),
        ("turn the red cube by 30 degrees, then the green one by 5 degrees", "turn by 5 deg"),
    ],
)
def test_a_turn_outside_the_trained_card_s_angles_is_refused_saying_why(world, goal, reason):
    """The shipped turn card's envelope holds the trained range (15-45 degrees, on the turn
    the skill makes: 100 is a turn by 10); the interface card has none, and plans it."""
    shipped = SkillRegistry.load()
    assert shipped["turn"].card.envelope.angle_deg is not None
    _, reading, _ = read_in_scope(goal, shipped, world)
    assert reading.refusal is not None and reason in reading.refusal
    assert "trained on turns of 15 to 45 deg" in reading.refusal
    _, interface, _ = read_in_scope(goal, SkillRegistry.load([FIXTURES / "skills"]), world)
    assert interface.refusal is None


@pytest.mark.parametrize(
    ("goal", "lines"),
    [
        ("turn the red cube by 60 degrees", ["turn red 60"]),  # a turn by -30: inside
        ("rotate the red and the green cube by 20 degrees each", ["turn red 20", "turn green 20"]),
        (
            "turn the green and the blue cube 30 degrees clockwise",
            ["turn green -30", "turn blue -30"],
        ),
    ],
)
def test_turns_inside_the_trained_angles_and_cubes_turned_together_plan(world, goal, lines):
    shipped = SkillRegistry.load()
    plan = Planner(shipped, world, FakeLanguageModel(keyword_scorer(lines)), PlannerConfig()).plan(
        goal, use_cache=False
    )
    assert not plan.refused, plan.reason
    assert [
        f"turn {s.params['object'].split('_')[0]} {s.params['angle']:g}" for s in plan.steps
    ] == lines
