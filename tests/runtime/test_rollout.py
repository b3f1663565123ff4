"""Shadow mode and canary rollout in the skill executor (no ROS): the shadow's actions
never reach the command, the supervisor's maths offline count a candidate's
interventions, the canary's seeded routing, and a broken candidate rolled back without
losing a request."""

import json
import shutil

import numpy as np
import pytest

from miles_ros.interfaces import (
    ABORTED,
    CANARY_CONTINUE,
    CANARY_PROMOTE,
    CANARY_ROLLBACK,
    SKILL_CANARY,
    SKILL_SHADOW,
    SUCCEEDED,
)
from miles_ros.params.skill import SkillNodeParams
from miles_ros.runtime.actions import JointTargets
from miles_ros.runtime.observation import JointReading
from miles_ros.runtime.rollout import (
    Canary,
    CanaryConfig,
    DecisionLog,
    DriftConfig,
    OfflineSupervisor,
    Rollout,
    load_candidate,
    parse_canary,
    parse_drift,
    parse_shadow,
    rollout_from_config,
    rollout_params,
)
from miles_ros.runtime.skills import SkillLibrary
from policies.library import read_active
from policies.versions import add_version
from sims.robots import panda
from tests.runtime.rollout_fixtures import FixedPolicy, MirroredPolicy, drive, with_policy
from tests.runtime.skill_fixtures import linear_reach_skill, make_executor, random_skill


def request(rid, skill, **params):
    return json.dumps({"id": rid, "skill": skill, "params": params})


def reach_goal(dz=-0.06):
    return list(panda.fk_tcp(panda.home_joint_positions) + [0.0, 0.0, dz])


@pytest.fixture(scope="module")
def other_reach(tmp_path_factory):
    """Another untrained reach skill (a different seed): wildly different actions."""
    return random_skill(tmp_path_factory.mktemp("candidate"), "reach", seed=7)


@pytest.fixture(scope="module")
def linear_dir(tmp_path_factory):
    """A library with the linear reach controller (it reaches goals near home)."""
    root = tmp_path_factory.mktemp("linear")
    linear_reach_skill(root)
    return root


def run_commands(ex, periods=12):
    """Targets of ``periods`` periods of one reach request, then its final status."""
    ex.on_request(request("a", "reach", target=reach_goal()), 0.0)
    _, targets, t = drive(ex, 0.0, periods)
    (final,) = ex.cancel("a", t)
    return targets, final


@pytest.mark.parametrize("candidate", ["other", "mirrored"])
def test_shadow_actions_never_reach_the_command(library_dir, other_reach, candidate):
    """The same inputs with and without a shadow give the same commands, bit for bit;
    the shadow's record is on the final status."""
    plain = make_executor(library_dir)
    shadowed = make_executor(library_dir)
    active = shadowed.library.skills["reach"]
    if candidate == "other":
        shadow = rollout_from_config(shadowed.library, shadow=f"{{reach: {other_reach}}}")
    else:
        shadow = Rollout({"reach": with_policy(active, MirroredPolicy(active.policy))})
    shadowed.rollout = shadow
    expected, plain_final = run_commands(plain)
    got, final = run_commands(shadowed)
    assert len(got) == len(expected) == 12
    for a, b in zip(expected, got, strict=True):
        assert a is not None and b is not None
        assert a.arm.tobytes() == b.arm.tobytes()
        assert a.finger == b.finger
        assert a.velocity.tobytes() == b.velocity.tobytes()
    assert SKILL_SHADOW not in plain_final
    record = final[SKILL_SHADOW]
    assert final["state"] == ABORTED and record["periods"] == 12
    assert record["action_l2_mean"] > 0.0 and record["target_l2_max"] > 0.0
    assert isinstance(record["value_candidate"], float) and "error" not in record
    assert shadow.shadow_history[-1]["id"] == "a"


def test_a_broken_shadow_never_stops_the_active_skill(library_dir):
    ex = make_executor(library_dir)
    active = ex.library.skills["reach"]
    ex.rollout = Rollout({"reach": with_policy(active, FixedPolicy([np.nan] * 7))})
    targets, final = run_commands(ex, periods=3)
    assert all(t is not None for t in targets)
    assert "non-finite" in final[SKILL_SHADOW]["error"]


def test_offline_interventions_on_a_candidate_pushing_at_a_limit(library_dir):
    """The wrist (joint 7, which leaves the TCP where it is) a hair inside its band's
    upper edge: the active version holds still (no intervention), the candidate pushes
    the joint on, past the band (the supervisor would clip it: > 0)."""
    q = panda.home_joint_positions.copy()
    q[6] = panda.joint_position_max[6] - 0.1 - 0.005
    ex = make_executor(library_dir, q=q, start_from_home=False, shape_commands=False)
    active = with_policy(ex.library.skills["reach"], FixedPolicy(np.zeros(7)))
    ex.library.skills["reach"] = active
    pushing = np.zeros(7)
    pushing[6] = 1.0
    ex.rollout = Rollout(
        {"reach": with_policy(active, FixedPolicy(pushing))}, shape_commands=False
    )
    tcp = panda.fk_tcp(q)
    goal = list(tcp - [0.0, 0.0, 0.06])
    ex.on_request(request("a", "reach", target=goal), 0.0)
    _, _, t = drive(ex, 0.0, 5)
    (final,) = ex.cancel("a", t)
    record = final[SKILL_SHADOW]
    assert record["interventions"] > 0
    assert record["interventions_by_kind"].get("position_limit", 0) > 0
    # the same check on the active's own (still) targets finds nothing
    ex.rollout = Rollout({"reach": active}, shape_commands=False)
    ex.on_request(request("b", "reach", target=goal), t)
    _, _, t = drive(ex, t, 5)
    (final,) = ex.cancel("b", t)
    assert final[SKILL_SHADOW]["periods"] == 5
    assert final[SKILL_SHADOW]["interventions"] == 0


def test_canary_routing_is_a_seeded_share():
    def draws(seed, share=0.2, n=2000):
        canary = Canary("reach", CanaryConfig("dir", share=share, seed=seed), 0.9)
        return [canary.draw() for _ in range(n)]

    first = draws(0)
    assert first == draws(0)
    assert first != draws(1)
    assert abs(np.mean(first) - 0.2) < 0.03
    assert abs(np.mean(draws(3, share=0.5)) - 0.5) < 0.04
    assert not any(draws(0, share=0.0))
    canary = Canary("reach", CanaryConfig("dir", share=1.0, abort_interventions=2), 0.9)
    assert canary.draw()
    record = canary.candidate_outcome("r", True, interventions=3)  # over the hard bound
    assert record["aborted"] and not record["succeeded"] and record["excess"]
    while canary.open:
        canary.candidate_outcome("r", False, interventions=3)
    assert canary.decision == CANARY_ROLLBACK and "H0" in canary.log.history[-1]["reason"]
    assert not any(canary.draw() for _ in range(100))


def test_canary_config_from_yaml_and_refusals():
    (cfg,) = parse_canary("{pick_place: {candidate: /x, share: 0.3, seed: 4}}").values()
    assert (cfg.candidate, cfg.share, cfg.seed, cfg.alpha) == ("/x", 0.3, 4, 0.05)
    for bad in ("{a: /x}", "{a: {share: 0.2}}", "{a: {candidate: /x, share: 2}}", "[1]"):
        with pytest.raises(ValueError):
            parse_canary(bad)
    assert SkillNodeParams().canary == "" and SkillNodeParams().shadow == ""


def test_a_candidate_of_another_task_is_refused_and_left_out(library_dir, caplog):
    lib = SkillLibrary.load(library_dir)
    with pytest.raises(ValueError, match="task"):
        load_candidate(lib, "reach", library_dir / "push")
    assert rollout_from_config(lib, shadow=f"{{reach: {library_dir / 'push'}}}") is None
    assert "left out" in caplog.text and "task" in caplog.text
    both = f"{{reach: {library_dir / 'push'}, push: {library_dir / 'push'}}}"
    assert set(rollout_from_config(lib, shadow=both).shadows) == {"push"}


def test_miles_up_flags_become_the_skill_node_parameters(tmp_path):
    params = rollout_params(
        ["reach=skills/reach2"], ["push=/c/push"], 0.3, 5, str(tmp_path / "d.jsonl")
    )
    assert set(parse_shadow(params["shadow"])) == {"reach"}
    assert parse_shadow(params["shadow"])["reach"].endswith("skills/reach2")
    (cfg,) = parse_canary(params["canary"]).values()
    assert (cfg.candidate, cfg.share, cfg.seed) == ("/c/push", 0.3, 5)
    assert params["rollout_log"] == str(tmp_path / "d.jsonl")
    assert "drift" not in params
    watched = rollout_params([], [], 0.2, 0, None, ["pick_place"])
    assert set(watched) == {"drift"}
    assert parse_drift(watched["drift"]) == {"pick_place": DriftConfig()}
    assert rollout_params([], [], 0.2, 0, None) == {}
    with pytest.raises(ValueError, match="SKILL=DIR"):
        rollout_params(["reach"], [], 0.2, 0, None)


def test_a_mirrored_candidate_is_rolled_back_and_no_request_is_lost(linear_dir, tmp_path):
    """Half the requests go to a candidate whose actions are mirrored: each of them fails,
    falls back to the active version and succeeds; the SPRT rolls the candidate back and
    later requests never go to it. Every decision is in the JSON-lines log."""
    log = tmp_path / "decisions.jsonl"
    ex = make_executor(linear_dir, stall_window_s=1.0, stall_restarts=0)
    active = ex.library.skills["reach"]
    cfg = CanaryConfig(str(linear_dir / "reach"), share=0.5, seed=3, baseline=0.95)
    canary = Canary("reach", cfg, None, DecisionLog(log))
    ex.rollout = Rollout(
        canaries={"reach": (canary, with_policy(active, MirroredPolicy(active.policy)))}
    )
    t, finals, versions, running = 0.0, [], [], []
    for k in range(12):
        goal = reach_goal(-0.08 if k % 2 else -0.1)
        (start,) = ex.on_request(request(f"r{k}", "reach", target=goal), t)
        versions.append(start[SKILL_CANARY]["version"])
        statuses, _, t = drive(ex, t, 1000)
        finals.append(statuses[-1])
        running += statuses[:-1]
        t += 0.1
    assert [f["state"] for f in finals] == [SUCCEEDED] * 12  # no request lost
    fell_back = [f for f in finals if "fallback" in f[SKILL_CANARY]]
    assert fell_back and all(f[SKILL_CANARY]["version"] == "active" for f in fell_back)
    assert len(fell_back) == versions.count("candidate") >= 2
    assert all("stalled" in f[SKILL_CANARY]["fallback"] for f in fell_back)
    switched = [s for s in running if "fallback" in s.get(SKILL_CANARY, {})]
    assert len(switched) >= len(fell_back) and all(s["state"] == "running" for s in switched)
    assert canary.decision == CANARY_ROLLBACK
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["decision"] for r in lines][-1] == CANARY_ROLLBACK
    assert all(r["decision"] == CANARY_CONTINUE for r in lines[:-1])
    assert lines[-1]["llr"] >= lines[-1]["upper"] and lines[-1]["failures"] == len(lines)
    last_candidate = max(i for i, v in enumerate(versions) if v == "candidate")
    assert last_candidate < 11 and versions[last_candidate + 1 :] == ["active"] * (
        11 - last_candidate
    )


def test_a_candidate_over_the_intervention_bound_falls_back_mid_request(linear_dir):
    """The supervisor's count (its state) rises past the hard bound while the candidate
    runs: the next period switches the request to the active version, the candidate's
    outcome is a failure and an excess (one is not enough to roll it back), and the
    request still succeeds."""
    ex = make_executor(linear_dir)
    active = ex.library.skills["reach"]
    cfg = CanaryConfig(str(linear_dir / "reach"), share=1.0, abort_interventions=3)
    canary = Canary("reach", cfg, 0.95)
    mirrored = with_policy(active, MirroredPolicy(active.policy))
    ex.rollout = Rollout(canaries={"reach": (canary, mirrored)})
    ex.on_safety_state({"estop": False, "interventions": 10}, 0.0)
    (start,) = ex.on_request(request("r", "reach", target=reach_goal(-0.1)), 0.0)
    assert start[SKILL_CANARY]["version"] == "candidate"
    _, _, t = drive(ex, 0.0, 3)
    ex.on_safety_state({"estop": False, "interventions": 14}, t)  # 4 during the request
    (switched,) = ex.tick(t).statuses
    assert switched["state"] == "running"
    assert switched[SKILL_CANARY]["fallback"] == "4 interventions > bound 3"
    record = switched[SKILL_CANARY]["decision"]
    assert record["aborted"] and record["excess"] and record["failures"] == 1
    assert record["decision"] == CANARY_CONTINUE
    statuses, _, _ = drive(ex, t + 0.04, 1000)
    assert statuses[-1]["state"] == SUCCEEDED
    assert statuses[-1][SKILL_CANARY]["version"] == "active"


def test_the_active_versions_interventions_set_the_reference_a_candidate_is_held_to(linear_dir):
    """In a cell where the active version needs the supervisor (its requests each count 6
    interventions), the intervention test's reference rises from max_interventions to
    intervention_ratio x 6, and its H0 is how often the active's requests pass it: a
    candidate request as bad as the active ones is no excess."""
    ex = make_executor(linear_dir)
    active = ex.library.skills["reach"]
    cfg = CanaryConfig(
        str(linear_dir / "reach"),
        share=0.0,
        max_interventions=3,
        intervention_ratio=1.5,
        min_baseline=2,
        baseline=0.95,
    )
    canary = Canary("reach", cfg, 0.95)
    ex.rollout = Rollout(canaries={"reach": (canary, active)})
    t, count = 0.0, 0
    for k in range(2):
        ex.on_safety_state({"estop": False, "interventions": count}, t)
        (start,) = ex.on_request(request(f"a{k}", "reach", target=reach_goal(-0.1)), t)
        assert start[SKILL_CANARY]["version"] == "active"
        _, _, t = drive(ex, t, 2)
        count += 6
        ex.on_safety_state({"estop": False, "interventions": count}, t)
        statuses, _, t = drive(ex, t, 1000)
        assert statuses[-1]["state"] == SUCCEEDED
        t += 0.1
    assert list(canary.active_interventions) == [6, 6]
    assert canary.intervention_reference() == (9, "stream")
    assert canary.excess_baseline(9) == (pytest.approx(1 / 4), "stream")
    record = canary.candidate_outcome("c", True, 9)
    assert not record["excess"] and record["intervention_reference_source"] == "stream"
    record = canary.candidate_outcome("c", True, 10)
    assert record["excess"] and record["decision"] == CANARY_CONTINUE


def test_the_offline_supervisor_checks_from_the_state_it_is_given():
    """From the arm at rest: a target where it stands is not an intervention, one past a
    joint's band is (clipped at submission), and restarting puts the output state where
    it is told."""
    q = panda.home_joint_positions.copy()
    joints = JointReading(q, np.zeros(7), 0.08, 0.0)
    offline = OfflineSupervisor(0.04, "reach", ["moves_arm"])
    assert offline.check(joints, (q, np.zeros(7)), JointTargets(q.copy(), None), 0.04, 1.0) == 0
    far = q.copy()
    far[6] = panda.joint_position_max[6]  # inside the datasheet, past the 0.1 rad margin
    assert offline.check(joints, (q, np.zeros(7)), JointTargets(far, None), 0.04, 1.1) > 0
    assert offline.kinds["position_limit"] == 1
    moving = np.full(7, 0.1)
    offline.supervisor.restart_at(q, moving, 1.2)
    q_out, v_out = offline.supervisor.command_state()
    assert np.array_equal(q_out, q) and np.allclose(v_out, moving)


def test_a_candidate_can_be_named_by_its_version_in_the_skill_folder():
    lib = SkillLibrary.load()  # the shipped, versioned library
    same = load_candidate(lib, "reach", "1")
    assert same.card.version == 1 and same.card.task == "reach"
    with pytest.raises(ValueError, match="7"):
        load_candidate(lib, "reach", "7")
    params = rollout_params(["reach=1"], ["push=2"], 0.2, 0, None)
    assert json.loads(params["shadow"]) == {"reach": "1"}
    assert json.loads(params["canary"])["push"]["candidate"] == "2"


def test_a_promoted_canary_becomes_the_active_version_between_requests(linear_dir, tmp_path):
    """A canary of version 2 of a versioned skill: once the test promotes it, the skill's
    folder makes it active (the decision as the reason) and the next request runs it, no
    longer routed."""
    library = tmp_path / "library"
    shutil.copytree(linear_dir, library)
    shutil.copytree(linear_dir / "reach", tmp_path / "exported")
    assert add_version(library / "reach", tmp_path / "exported") == 2
    ex = make_executor(library)
    spec = '{reach: {candidate: "2", share: 1.0, seed: 0, baseline: 0.5}}'
    ex.rollout = rollout_from_config(ex.library, canary=spec)
    canary = ex.rollout.canaries["reach"][0]
    t, decisions = 0.0, []
    while canary.decision == CANARY_CONTINUE and len(decisions) < 20:
        (start,) = ex.on_request(request(f"r{len(decisions)}", "reach", target=reach_goal()), t)
        assert start[SKILL_CANARY]["version"] == "candidate"
        statuses, _, t = drive(ex, t, 1000)
        assert statuses[-1]["state"] == SUCCEEDED and statuses[-1]["version"] == 2
        decisions.append(statuses[-1][SKILL_CANARY]["decision"])
        t += 0.1
    assert canary.decision == CANARY_PROMOTE
    assert decisions[-1]["applied"] == "promoted: reach version 2 is active"
    assert all("applied" not in d for d in decisions[:-1])
    record = read_active(library / "reach")
    assert record.active == 2 and "canary request" in record.history[-1].reason
    (start,) = ex.on_request(request("next", "reach", target=reach_goal()), t)
    assert start[SKILL_CANARY]["version"] == "active"
    statuses, _, _ = drive(ex, t, 1000)
    assert statuses[-1]["state"] == SUCCEEDED and statuses[-1]["version"] == 2


def test_the_drift_record_carries_what_each_request_measured_of_itself(linear_dir):
    """The executor hands the drift monitor the request's control periods, mean arm step
    and the supervisor's interventions during it; the record's signal is that value (the
    periods: the final status's own count)."""
    from miles_ros.interfaces import SKILL_DRIFT
    from miles_ros.runtime.rollout import Drift

    ex = make_executor(linear_dir)
    records = {}
    for signal in ("steps", "action", "interventions"):
        drift = Drift("reach", 0.95, DriftConfig(signal=signal, reference=5))
        ex.rollout = Rollout(drifts={"reach": drift})
        ex.on_safety_state({"estop": False, "interventions": 10}, 0.0)
        ex.on_request(request(signal, "reach", target=reach_goal(-0.1)), 0.0)
        _, _, t = drive(ex, 0.0, 3)
        ex.on_safety_state({"estop": False, "interventions": 13}, t)  # 3 during it
        statuses, _, _ = drive(ex, t, 1000)
        final = statuses[-1]
        assert final["state"] == SUCCEEDED
        records[signal] = (final, final[SKILL_DRIFT]["signal"])
    final, steps = records["steps"]
    assert steps["statistic"] == final["step"] > 3
    _, action = records["action"]
    assert 0.0 < action["statistic"] < 1.0  # rad per period
    _, interventions = records["interventions"]
    assert interventions["statistic"] == 3
