"""README.md stays true: every command and option is in it, and CI runs its test command."""

from __future__ import annotations

import re
import subprocess
import sys

import typer

from conftest import FIXTURE, ROOT
from mcp_accept.cli import app

README = (ROOT / "README.md").read_text(encoding="utf-8")


def walk(command, path: tuple[str, ...] = ()):
    # Typer may carry its own copy of click, so commands are recognised by shape, not class.
    yield path, command
    for name, sub in (getattr(command, "commands", None) or {}).items():
        yield from walk(sub, path + (name,))


def documented_flags():
    root = typer.main.get_command(app)
    for path, command in walk(root):
        for param in command.params:
            if param.param_type_name == "option":
                for flag in param.opts + param.secondary_opts:
                    if flag != "--help":
                        yield path, flag


def test_the_walk_finds_the_commands_and_options_it_checks():
    paths = {path for path, _ in walk(typer.main.get_command(app))}
    assert ("run",) in paths and ("schemas", "fetch") in paths
    flags = {flag for path, flag in documented_flags() if path == ("run",)}
    assert {"--server", "--protocol", "--timeout", "--out"} <= flags


def test_every_command_is_in_the_readme():
    root = typer.main.get_command(app)
    missing = [" ".join(path) for path, _ in walk(root) if path
               and f"mcp-accept {' '.join(path)}" not in README]
    assert not missing, f"commands missing from README.md: {missing}"


def test_every_option_is_in_the_readme():
    missing = [f"{' '.join(path) or '(root)'} {flag}" for path, flag in documented_flags()
               if not re.search(re.escape(flag) + r"(?![\w-])", README)]
    assert not missing, f"options missing from README.md: {missing}"


def test_every_fixture_option_and_break_mode_is_in_the_readme():
    help_text = subprocess.run([sys.executable, str(FIXTURE), "--help"], capture_output=True,
                               text=True, check=True).stdout
    flags = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", help_text)) - {"--help"}
    missing = [flag for flag in sorted(flags) if not re.search(re.escape(flag) + r"(?![\w-])", README)]
    assert not missing, f"fixture options missing from README.md: {missing}"
    listing = subprocess.run([sys.executable, str(FIXTURE), "--list-breaks"], capture_output=True,
                             text=True, check=True).stdout
    names = [line.split()[0] for line in listing.splitlines() if line.strip()]
    assert names and all(f"`{name}`" in README for name in names)


def test_ci_runs_the_readme_test_command_exactly():
    blocks = re.findall(r"```sh\n(.*?)```", README, flags=re.S)
    commands = [line for block in blocks for line in block.splitlines() if "pytest" in line]
    assert len(commands) == 1, commands
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert commands[0] in ci


def test_readme_has_the_main_job_command():
    blocks = re.findall(r"```sh\n(.*?)```", README, flags=re.S)
    assert any(line.rstrip().endswith("mcp-accept run") and "pip install ." in line
               for block in blocks for line in block.splitlines())


def test_exit_codes_are_documented():
    from mcp_accept.errors import ExitStatus

    for status in ExitStatus:
        assert re.search(rf"^\| {int(status)} \|", README, flags=re.M), status
