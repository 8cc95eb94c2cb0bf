"""The ``arena`` group loads a command's module when the command is looked up
(``LAZY_COMMANDS``): every command is still there, under its name, in ``--help`` and to run,
and a command loads no other command's module (issue 38: a read or a submit starts faster)."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import click
from click.testing import CliRunner

from arena.cli import LAZY_COMMANDS, main

MODULES = ("lists", "compare", "ladder", "site", "web")
"""The command modules with a ``COMMANDS`` tuple; ``check`` and ``play`` hold one each."""


def test_every_lazy_name_is_its_command() -> None:
    for name, target in LAZY_COMMANDS.items():
        module, attribute = target.split(":")
        command = getattr(importlib.import_module(module), attribute)
        assert isinstance(command, click.Command) and command.name == name, (name, target)


def test_every_command_of_the_modules_is_registered() -> None:
    listed = {
        c.name
        for m in MODULES
        for c in importlib.import_module(f"arena.cli.{m}").COMMANDS  # type: ignore[attr-defined]
    }
    assert listed | {"check", "play"} == set(LAZY_COMMANDS)
    ctx = click.Context(main)
    names = main.list_commands(ctx)
    assert set(LAZY_COMMANDS) <= set(names) and names == sorted(names)
    for name in names:
        assert main.get_command(ctx, name) is not None, name
    assert main.get_command(ctx, "no-such-command") is None


def test_help_lists_the_lazy_commands_and_they_run() -> None:
    runner = CliRunner()
    shown = runner.invoke(main, ["--help"])
    assert shown.exit_code == 0, shown.output
    for name in LAZY_COMMANDS:
        assert f"\n  {name} " in shown.output, name
    done = runner.invoke(main, ["retire", "--help"])
    assert done.exit_code == 0 and "Take a submitted bot out" in done.output
    wrong = runner.invoke(main, ["ladderr"])
    assert wrong.exit_code == 2 and "No such command" in wrong.output


def test_a_command_loads_no_other_commands_module() -> None:
    probe = (
        "import json, sys\n"
        "from arena.cli import main\n"
        "try:\n"
        "    main(['bots', '--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('arena.cli.'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout.splitlines()[-1])
    assert "arena.cli.lists" in loaded
    for other in ("compare", "ladder", "site", "web", "check", "play"):
        assert f"arena.cli.{other}" not in loaded, loaded
