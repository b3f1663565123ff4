"""``miles eval --variant``: a variant the skill's card lists runs only those episodes; one
it does not list, or one its task lacks, is a clear error before any work. On a versioned
skill it runs the version ``active.yaml`` routes the variant's goals to (a deployment's),
an explicit version folder that folder."""

import dataclasses
from pathlib import Path

import pytest

from miles_ros.commands import evaluate as miles_eval
from policies.cards import SHIPPED_LIBRARY
from policies.commands import evaluate as base
from policies.evaluation import EvalResult, variant_config
from sims.tasks import pick_place
from tests.policies.tiny_runs import stopped_evaluations


@pytest.fixture
def no_work(monkeypatch):
    """Fail the test if the command loads a policy or builds an env."""

    def forbidden(*args, **kwargs):
        raise AssertionError("work started before the variant was checked")

    monkeypatch.setattr(base, "load_any_policy", forbidden)
    monkeypatch.setattr("policies.evaluation.evaluate", forbidden)


@pytest.mark.parametrize(
    "skill,variant,words",
    [
        ("pick_place", "spiral", ["does not list variant 'spiral'", "pads, stack, tower"]),
        ("reach", "stack", ["reach's card does not list variant 'stack'", "none"]),
        ("push", "pads", ["push's card does not list"]),
    ],
)
def test_a_variant_the_card_does_not_list_is_an_error_before_any_work(
    skill, variant, words, no_work, capsys
):
    assert miles_eval.main([skill, "--variant", variant, "--episodes", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("miles eval: --variant:")
    for word in words:
        assert word in err, err


def test_variant_config_sets_the_episode_mix_or_names_the_task_variants():
    stack = variant_config("pick_place", "stack")
    assert stack.stack_fraction == 1.0 and stack.episode_steps == pick_place.CONFIG.episode_steps
    longer = dataclasses.replace(pick_place.CONFIG, episode_steps=300)
    assert variant_config("pick_place", "pads", longer) == longer  # keeps the given config
    tower = variant_config("pick_place", "tower")
    assert tower.stack_fraction == 1.0 and tower.stack_base_cubes == 2
    assert stack.stack_base_cubes == 1
    with pytest.raises(ValueError, match="its variants: pads, stack, tower"):
        variant_config("pick_place", "spiral")
    with pytest.raises(ValueError, match="task push has no episode variant 'stack' .it has none"):
        variant_config("push", "stack")


def test_the_stack_variant_runs_stacking_episodes(monkeypatch, capsys):
    calls = stopped_evaluations(monkeypatch, "stop once the episodes are known")
    with pytest.raises(RuntimeError, match="stop once"):
        miles_eval.main(["pick_place", "--variant", "stack", "--episodes", "1"])
    (seen,) = calls
    assert seen["task"] == "pick_place" and seen["config"].stack_fraction == 1.0


@pytest.mark.parametrize(
    "skill, variant, version, routed",
    [
        ("pick_place", "tower", 3, True),
        ("pick_place", "stack", 3, True),
        ("pick_place", "pads", 1, False),
        (str(SHIPPED_LIBRARY / "pick_place"), "stack", 3, True),
        (str(SHIPPED_LIBRARY / "pick_place" / "versions" / "1"), "tower", 1, False),
    ],
    ids=["tower", "stack", "pads", "folder-stack", "version-folder-tower"],
)
def test_a_variant_runs_the_version_its_goals_are_routed_to(
    skill, variant, version, routed, monkeypatch, capsys
):
    """The shipped pick_place routes goals on a cube to version 3 (``active.yaml``)."""
    ran = []

    def fake_evaluate(policy, task, **kwargs):
        ran.append(kwargs["config"])
        return EvalResult(1.0, (0.2, 1.0), 0.0, 10.0, 1, 1, "pybullet")

    monkeypatch.setattr("policies.evaluation.evaluate", fake_evaluate)
    assert miles_eval.main([skill, "--variant", variant, "--episodes", "1"]) == 0
    out = capsys.readouterr().out
    assert f"skill pick_place version {version} (" in out, out
    assert f"versions/{version}" in out
    assert ("routed for cube goals" in out) == routed
    assert (ran[0].stack_fraction > 0) == (variant != "pads")


def test_a_sweep_of_a_variant_runs_and_writes_into_the_routed_version(monkeypatch, capsys):
    """``miles eval pick_place --sweep AXES --variant stack --supervised``: the version
    stacking goals are routed to (3) is swept on stacking episodes behind the supervisor,
    its own cell measurement on (its card measures the finger offset), and the files go
    into that version's folder, its path recorded relative to the repository."""
    import policies.sweep

    seen = {}

    def fake_run_sweep(policy, task, axes, episodes, seed, backend, num_envs, **kwargs):
        seen.update(kwargs, axes=list(axes), task=task, episodes=episodes, seed=seed)
        return {"episode_set": {}, "axes": []}

    def fake_write(doc, out_dir):
        seen["out"] = Path(out_dir)
        return Path(out_dir) / "robustness.json", Path(out_dir) / "robustness.png"

    monkeypatch.setattr(policies.sweep, "run_sweep", fake_run_sweep)
    monkeypatch.setattr(policies.sweep, "write_sweep", fake_write)
    argv = ["pick_place", "--sweep", "finger_reading", "--variant", "stack", "--supervised"]
    assert miles_eval.main([*argv, "--episodes", "3", "--seed", "7"]) == 0
    capsys.readouterr()
    routed = SHIPPED_LIBRARY / "pick_place" / "versions" / "3"
    assert seen["out"].resolve() == routed.resolve()
    assert seen["axes"] == ["finger_reading"] and seen["episodes"] == 3 and seen["seed"] == 7
    assert seen["config"].stack_fraction == 1.0 and seen["config"].stack_base_cubes == 1
    assert seen["supervised"] is True and seen["env_options"] is not None
    assert seen["info"]["variant"] == "stack"
    assert seen["info"]["policy"] == "policies/skills/pick_place/versions/3 (onnxruntime)"
    assert seen["calibrate"] is not None  # version 3's card measures its finger offset
