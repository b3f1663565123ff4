"""The `miles` dispatcher."""

from miles_ros import cli
from tests.ros_domains import domain_id


def test_help_lists_every_interface_command(capsys):
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    for name in (
        "train",
        "eval",
        "export",
        "up",
        "goal",
        "plan",
        "estop",
        "planner-train",
        "demo",
        "calibrate",
        "skills",
    ):
        assert f"  {name} " in out


def test_unknown_command_is_an_error(capsys):
    assert cli.main(["fly"]) == 2
    assert "unknown command 'fly'" in capsys.readouterr().err


def _parsers(monkeypatch) -> dict:
    """Every parser a `miles` command builds (and policies.commands.*), caught as its
    ``main`` starts to parse: ``{name: ArgumentParser}``, sub-parsers included."""
    import argparse
    import importlib

    class Caught(Exception):
        pass

    def catch(self, *args, **kwargs):
        raise Caught(self)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_known_args", catch)
    modules = {f"miles {name}": module for name, (module, _) in cli.COMMANDS.items()}
    for name in ("train", "evaluate", "export"):
        modules[f"policies.commands.{name}"] = f"policies.commands.{name}"
    found = {}
    for name, module in modules.items():
        try:
            importlib.import_module(module).main([])
        except Caught as caught:
            found[name] = caught.args[0]
        assert name in found, f"{name}: main() returned before parsing its arguments"
    for name, parser in list(found.items()):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub, sub_parser in action.choices.items():
                    found[f"{name} {sub}"] = sub_parser
    return found


def test_every_option_of_every_command_has_a_help_text(monkeypatch):
    import argparse

    parsers = _parsers(monkeypatch)
    assert {"miles up", "miles train", "policies.commands.export"} <= set(parsers)
    missing = [
        f"{name}: {'/'.join(action.option_strings) or action.dest}"
        for name, parser in parsers.items()
        for action in parser._actions
        if not isinstance(action, (argparse._HelpAction, argparse._SubParsersAction))
        and not (action.help and action.help.strip())
    ]
    assert not missing, "options without help text:\n" + "\n".join(missing)


def test_up_headless_is_accepted_and_says_it_has_no_effect():
    """`--headless` stays accepted (docs/interfaces.md), is documented as having no effect and
    says so when given; the graph runs for ``--duration`` and exits 0."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    up = [sys.executable, "-m", "miles_ros.cli", "up"]
    help_text = subprocess.run(
        [*up, "--help"], cwd=root, capture_output=True, text=True, check=True
    ).stdout
    assert "--headless" in help_text and "no effect" in help_text
    run = subprocess.run(
        [*up, "--headless", "--sim", "none", "--no-manager", "--duration", "0.3"]
        + ["--domain-id", str(domain_id())],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert "--headless is deprecated and has no effect" in run.stderr
    assert "Traceback" not in run.stderr and " up " in run.stdout
