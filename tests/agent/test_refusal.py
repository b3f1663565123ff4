"""Refusal as a plan, manner constraints, and replans that learn.

The infeasible goals below are written by hand and use colours, objects, places and
requests that the adapter's training data (miles_ros/agent/datagen_infeasible.py) never
contains. The model here is a fake that always wants to move a cube, so every refusal
comes from the planner's reading of the goal, not from a model's luck.
"""

from pathlib import Path

import pytest
import yaml

from miles_ros.agent import datagen_infeasible
from miles_ros.agent.lm import FakeLanguageModel
from miles_ros.agent.planner import Planner, PlannerConfig
from miles_ros.agent.registry import SkillRegistry
from miles_ros.manager.core import Manager, StepResult
from tests.agent.conftest import FIXTURES, keyword_scorer


def eager(prompt: str, line: str) -> float:
    """A model that always wants to pick up the cube the goal names, else push it, else
    reach it; it prefers steps whose every name is in the goal."""
    prefs = {"pick": 0.0, "push": -1.0, "reach": -2.0, "home": -3.0, "done": -4.0}
    goal = prompt.rsplit("Goal:", 1)[1].split("\n", 1)[0].lower()
    plan = prompt.rsplit("Plan:\n", 1)[1]
    if plan.count("\n") >= 1:
        return 0.0 if line.strip() == "done" else -6.0
    skill, *params = line.split()
    if params and params[0] not in goal:
        return -9.0
    return prefs.get(skill, -9.0) + 0.5 * all(p in goal for p in params)


def planner_for(registry, world, scorer=eager, **config) -> Planner:
    return Planner(registry, world, FakeLanguageModel(scorer), PlannerConfig(**config))


@pytest.fixture
def pads_only(tmp_path) -> SkillRegistry:
    """The fixture skills with push and pick_place taking pads and points only (as the
    trained cards do): no skill can stack."""
    for name in ("reach", "push", "pick_place"):
        card = yaml.safe_load((FIXTURES / "skills" / name / "skill.yaml").read_text())
        target = card["parameters"]["properties"].get("target")
        if name != "reach":
            target["oneOf"][0]["enum"] = ["left_pad", "right_pad"]
        (tmp_path / name).mkdir()
        (tmp_path / name / "skill.yaml").write_text(yaml.safe_dump(card))
    return SkillRegistry.load([tmp_path], interface_cards=False)


INFEASIBLE = [
    # (goal, words the reason must contain)
    ("Put the magenta cube on the left pad.", ["magenta"]),
    ("Could you slide the teal block over to the right pad?", ["teal"]),
    ("Place the red cube on the golden pad", ["golden"]),
    ("Hand me the mug, please.", ["mug"]),
    ("Put the green cube into the bucket.", ["bucket"]),
    ("Move the blue cube to the center pad.", ["center pad"]),
    ("Swim across the ocean.", ["ocean"]),
    ("Launch a rocket to Mars", ["rocket"]),
    ("Juggle for me", ["names nothing"]),
    ("Whistle a tune while waving", ["names nothing"]),
    ("Place the green cube between the two pads.", ["between"]),
    ("Lift the blue cube without touching it.", ["contradictory", "blue_cube"]),
    ("Shove the red cube onto the left pad by picking it up", ["contradictory", "red_cube"]),
    ("Carry the green cube to the right pad but leave it where it is", ["contradictory"]),
    ("Put the blue cube on the blue cube.", ["blue_cube", "itself"]),
    ("   ", ["empty"]),
    ("", ["empty"]),
]


def test_hand_written_set_is_not_in_the_training_lists():
    words = " ".join(
        datagen_infeasible.TRAIN_COLOURS
        + datagen_infeasible.TRAIN_THINGS
        + datagen_infeasible.TRAIN_PLACES
        + datagen_infeasible.TRAIN_NONSENSE
    )
    for goal, _ in INFEASIBLE:
        assert not goal.strip() or goal.strip().lower() not in words
    for word in ("magenta", "teal", "golden", "mug", "bucket", "ocean", "rocket", "juggle"):
        assert word not in words


@pytest.mark.parametrize("goal,words", INFEASIBLE)
def test_infeasible_goals_are_refused_with_a_reason(goal, words, registry, world):
    planner = planner_for(registry, world)
    plan = planner.plan(goal)
    assert plan.refused and not plan.valid and plan.steps == [], plan.to_json()
    for word in words:
        assert word in plan.reason, plan.reason
    out = plan.to_json()
    assert out["refused"] is True and out["steps"] == [] and out["reason"] == plan.reason
    assert set(out) == {
        "goal",
        "steps",
        "refused",
        "reason",
        "mode",
        "model",
        "latency_s",
        "fallback_used",
    }


def test_stacking_is_refused_only_when_no_skill_schema_accepts_a_cube_target(
    registry, world, pads_only
):
    goal = "put the red cube on the blue cube"
    plan = planner_for(pads_only, world).plan(goal)
    assert plan.refused and "red_cube on blue_cube" in plan.reason
    assert "pick_place takes target one of left_pad, right_pad or a point" in plan.reason
    stack = planner_for(registry, world, keyword_scorer(["pick red blue"])).plan(goal)
    assert not stack.refused and [s.key() for s in stack.steps] == [
        "pick_place red_cube blue_cube"
    ]


def test_do_nothing_is_an_empty_valid_plan_not_a_refusal(registry, world):
    planner = planner_for(registry, world)
    for goal in ("do nothing", "Please stay where you are.", "Never mind!"):
        plan = planner.plan(goal)
        assert plan.valid and plan.nothing and not plan.refused and plan.steps == []
    manager = Manager(planner)
    plan, action = manager.start("do nothing")
    assert action.kind == "succeeded" and action.request is None
    assert "no motion" in action.reason


def test_grounded_scoring_can_choose_done_or_refuse_first(registry, world):
    # the model's first choice is done: a goal that is not a no-motion goal is refused
    done_first = planner_for(registry, world, keyword_scorer([]))
    plan = done_first.plan("put the red cube on the left pad")
    assert plan.refused and "no skill step" in plan.reason
    assert plan.scores[0]["chosen"]["skill"] == "done"
    # the model's refuse line (offered when the adapter was trained on refusals)
    refuser = planner_for(registry, world, keyword_scorer(["refuse"]), lm_refusal=True)
    plan = refuser.plan("put the red cube on the left pad")
    assert plan.refused and "judged the goal infeasible" in plan.reason
    # not offered to a model that never learned it
    plain = planner_for(registry, world, keyword_scorer(["refuse"]))
    assert "refuse" not in {t["step"]["skill"] for t in plain.plan("go home").scores[0]["top"]}


@pytest.mark.parametrize(
    "goal,expected",
    [
        ("move the green cube to the right pad without lifting it", "push green_cube right_pad"),
        ("Get the blue cube onto the left pad, but don't pick it up.", "push blue_cube left_pad"),
        (
            "relocate the red block to the right mat; keep it on the table",
            "push red_cube right_pad",
        ),
        ("tap the red cube", "reach red_cube"),
        ("Poke the blue block gently.", "reach blue_cube"),
    ],
)
def test_negation_and_manner_decide_the_skill(goal, expected, registry, world):
    plan = planner_for(registry, world).plan(goal)  # the model itself prefers pick_place
    assert plan.valid and [s.key() for s in plan.steps][:1] == [expected], plan.scores


def test_manner_requirement_masks_push(registry, world):
    def pusher(prompt, line):
        return eager(prompt, line) + (3.0 if line.startswith("push") else 0.0)

    plan = planner_for(registry, world, pusher).plan(
        "move the green cube to the right pad by grasping it"
    )
    assert [s.key() for s in plan.steps] == ["pick_place green_cube right_pad"]


def stubborn(prompt: str, line: str) -> float:
    """A model that ignores feedback: always the same plan."""
    return keyword_scorer(["pick red left", "home"])(prompt, line)


def test_replan_after_a_failure_differs_from_the_failed_plan(registry, world):
    planner = planner_for(registry, world, stubborn)
    manager = Manager(planner, max_replans=3)
    goal = "put the red cube on the left pad, then go home"
    plan, action = manager.start(goal)
    failed = [s.key() for s in plan.steps]
    assert failed == ["pick_place red_cube left_pad", "home"]
    seen = [failed]
    for _ in range(3):
        action = manager.on_step_result(
            StepResult(action.request["id"], "failed", reason="no final status within 12 s")
        )
        if action.kind != "dispatch":
            break
        new = [s.key() for s in manager.work.plan.steps]
        assert new not in seen, (new, seen)  # never a plan that already failed
        seen.append(new)
    assert len(seen) >= 2
    assert action.kind == "failed" or len(seen) == 4


def test_replan_gives_up_with_a_reason_when_nothing_new_is_left(registry, world):
    planner = planner_for(registry, world, keyword_scorer(["home"]))
    manager = Manager(planner, max_replans=5)
    _, action = manager.start("go home")
    kinds = []
    while action.kind == "dispatch":
        kinds.append(action.request["skill"])
        action = manager.on_step_result(StepResult(action.request["id"], "failed", reason="x"))
    assert action.kind == "failed" and "replanning gave up" in action.reason
    assert "no plan different from those that failed" in action.reason
    assert kinds == ["home"]  # home is never retried as the identical plan


def test_a_step_the_skill_node_refused_is_not_retried(registry, world):
    planner = planner_for(registry, world, stubborn)
    manager = Manager(planner, max_replans=3)
    _, action = manager.start("put the red cube on the left pad, then go home")
    refused = ("pick_place", {"object": "red_cube", "target": "left_pad"})
    sent = []
    while action.kind == "dispatch":
        request = action.request
        sent.append((request["skill"], request["params"]))
        reason = ""
        state = "succeeded"
        if (request["skill"], request["params"]) == refused:
            state, reason = "failed", "refused: precondition: cube 0.36 m from the target"
        action = manager.on_step_result(StepResult(request["id"], state, reason=reason))
    assert sent.count(refused) == 1, sent
    assert manager.work.banned and manager.work.banned[0].skill == "pick_place"


def test_unknown_skill_refusal_bans_the_skill(registry, world):
    planner = planner_for(registry, world, stubborn)
    manager = Manager(planner, max_replans=3)
    _, action = manager.start("put the red cube on the left pad, then go home")
    action = manager.on_step_result(
        StepResult(action.request["id"], "failed", reason="refused: unknown skill 'pick_place'")
    )
    while action.kind == "dispatch":
        assert action.request["skill"] != "pick_place"
        action = manager.on_step_result(StepResult(action.request["id"], "succeeded"))


def test_manager_ends_a_refused_goal_refused_and_moves_nothing(registry, world):
    lm = FakeLanguageModel(eager)
    manager = Manager(Planner(registry, world, lm, PlannerConfig()))
    plan, action = manager.start("fly to the moon")
    assert plan.refused and action.kind == "refused" and action.request is None
    assert "moon" in action.reason and lm.prompts == []  # the model was not even asked
    status = manager.status()
    assert status["outcome"] == "refused" and status["failure"] == action.reason


def test_miles_plan_exits_3_on_refusal(monkeypatch, registry, world, capsys, tmp_path):
    import json

    from miles_ros.commands import plan as plan_command

    planner = planner_for(registry, world)
    monkeypatch.setattr(Planner, "from_options", classmethod(lambda cls, **kw: planner))
    assert plan_command.main(["   ", "--json"]) == 3
    out = json.loads(capsys.readouterr().out)
    assert out["refused"] is True and out["steps"] == [] and "empty" in out["reason"]
    goals = Path(tmp_path / "goals.txt")
    goals.write_text("fly to the moon\ndo nothing\n")
    assert plan_command.main(["--batch", str(goals), "--json"]) == 3
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[0]["refused"] and "moon" in lines[0]["reason"]
    assert "refused" not in lines[1] and lines[1]["steps"] == []
    assert plan_command.main(["do nothing"]) == 0
    assert "nothing to do" in capsys.readouterr().out


def test_generated_feasible_goals_are_never_refused_nor_masked(registry, world):
    """Thousands of goals in the training generator's wording (whose plans the fixture
    skills can express): the reading refuses none and masks none of their steps; its
    infeasible goals are refused."""
    from miles_ros.agent.datagen import generate
    from miles_ros.agent.reading import read_goal

    examples = generate(world, 1700, seed=21, refusal_fraction=0.15, registry=registry)
    feasible = [e for e in examples if e.steps]
    # a goal refused for its geometry (a push through a cube: the goal resolver's, not the
    # reading's) is not the reading's to refuse (tests/agent/test_push_path_plans.py)
    infeasible = [e for e in examples if e.refused and not e.blocked]
    assert len(feasible) > 1000 and len(infeasible) > 150
    for e in feasible:
        reading = read_goal(e.goal, registry, world)
        assert reading.refusal is None, (e.goal, reading.refusal)
        assert not [s for s in e.steps if reading.violation(s, registry)], e.goal
    missed = [e.goal for e in infeasible if read_goal(e.goal, registry, world).refusal is None]
    assert len(missed) <= 0.02 * len(infeasible), missed


@pytest.mark.parametrize(
    ("goal", "refused_with"),
    [
        ("put the red cube on the left pad and keep it where it is", "contradictory"),
        ("push the red cube to the left pad and leave it there", None),
        ("could you, without lifting it, move the red cube onto the green cube", "lifting"),
        ("I need you to without lifting it, move the blue cube onto the red cube", "lifting"),
        (
            "move the red cube to the right pad, don't lift it, then put the green cube on "
            "the blue cube",
            None,
        ),
    ],
)
def test_where_it_is_and_a_fronted_manner(registry, world, goal, refused_with):
    """ "Keep it where it is" after moving it contradicts the move ("leave it there" is
    where the move put it); a clause that only says how ("without lifting it,") qualifies
    the clause after it, while "don't lift it" alone speaks of the cube before it."""
    from miles_ros.agent.reading import read_goal

    refusal = read_goal(goal, registry, world).refusal
    if refused_with is None:
        assert refusal is None, refusal
    else:
        assert refusal is not None and refused_with in refusal, refusal
