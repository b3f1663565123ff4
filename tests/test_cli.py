"""The `miles` dispatcher."""

from miles_ros import cli


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
    ):
        assert f"  {name} " in out


def test_unknown_command_is_an_error(capsys):
    assert cli.main(["fly"]) == 2
    assert "unknown command 'fly'" in capsys.readouterr().err
