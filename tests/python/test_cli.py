"""The command line: every option documented, long runs announced."""

import argparse
import sys


def test_every_cli_option_has_help_and_its_default(capsys):
    """--help of every command shows every option with one line of help and its default, and long
    commands say how long they take and how to run a quick version (issue 14)."""
    from robustcore import cli

    parser = cli.build_parser()
    commands = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)][0].choices
    assert {"demo", "sramp", "variants", "fol", "mkl"} <= set(commands)
    for name, sub in commands.items():
        for action in sub._actions:
            if action.help == argparse.SUPPRESS or action.dest == "help":
                continue
            assert action.help, f"{name} {action.option_strings} has no help"
        text = sub.format_help()
        assert "(default:" in text
        module = sys.modules[sub.get_default("_main").__module__]
        assert getattr(module, "RUNTIME", ""), f"{name} says nothing about its run time"
        assert "about" in module.RUNTIME
