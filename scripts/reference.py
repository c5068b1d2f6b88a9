"""Write docs/reference.md, the command reference, from the command line itself.

Every command and subcommand, its arguments and options with their help, and the exit
statuses, read from the Typer/click objects and from mcp_accept.errors. Run it after
changing a command or an option:

    .venv/bin/python scripts/reference.py          # rewrite docs/reference.md
    .venv/bin/python scripts/reference.py --check  # exit 1 when docs/reference.md is stale

tests/test_docs.py fails when the file differs from what this script writes.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "docs" / "reference.md"
sys.path.insert(0, str(ROOT))

HEADER = """# Command reference

Generated from the command line by `scripts/reference.py`; do not edit by hand (run
`.venv/bin/python scripts/reference.py` after changing a command or an option;
`tests/test_docs.py` fails while this file is stale). Every command also answers `-h`/`--help`.
"""


def walk(command, path: tuple[str, ...] = ()):
    """(path, command) for the root and every command and subcommand, in the CLI's order.
    Typer may carry its own copy of click, so groups are recognised by shape, not class."""
    yield path, command
    for name, sub in (getattr(command, "commands", None) or {}).items():
        yield from walk(sub, path + (name,))


def root_command():
    import typer

    from mcp_accept.cli import app

    return typer.main.get_command(app)


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _default(param) -> str:
    default = param.default
    if getattr(param, "is_flag", False) or default in (None, (), []) or callable(default):
        return ""
    return f"`{default}`"


def _kind(param) -> str:
    """click's name for the type (typer before 0.29), else typer's own label (``<int range>``)."""
    if hasattr(param, "type"):
        return str(getattr(param.type, "name", "text")).lower()
    return "choice" if param.type_descriptor.is_choice else param.display_type(None).lower()


def _metavar(param) -> str:
    if param.metavar:
        return param.metavar
    kind = _kind(param)
    for word, shown in (("path", "PATH"), ("int", "N"), ("float", "NUMBER"), ("choice", "CHOICE")):
        if word in kind:
            return shown
    return "TEXT"


def _help_line(command) -> str:
    text = (command.help or "").strip()
    return " ".join(text.split("\n\n")[0].split())


def command_section(path: tuple[str, ...], command) -> list[str]:
    name = " ".join(("mcp-accept", *path))
    lines = [f"{'#' * min(2 + len(path), 4)} `{name}`", ""]
    if command.help:
        lines += [" ".join(command.help.split()), ""]
    subcommands = getattr(command, "commands", None) or {}
    arguments = [p for p in command.params if p.param_type_name == "argument"]
    options = [p for p in command.params if p.param_type_name == "option" and "--help" not in p.opts]
    usage = [name]
    if options:
        usage.append("[OPTIONS]")
    for arg in arguments:
        meta = arg.metavar or arg.name.upper()
        usage.append(f"{meta}..." if arg.nargs == -1 else (meta if arg.required else f"[{meta}]"))
    if subcommands:
        usage.append("COMMAND [ARGS]...")
    lines += ["```", " ".join(usage), "```", ""]
    if arguments:
        lines += ["| argument | help |", "| --- | --- |"]
        for arg in arguments:
            lines.append(f"| `{arg.metavar or arg.name.upper()}` | {_cell(getattr(arg, 'help', '') or '')} |")
        lines.append("")
    if options:
        lines += ["| option | default | help |", "| --- | --- | --- |"]
        for opt in options:
            flags = ", ".join(f"`{flag}`" for flag in list(opt.opts) + list(opt.secondary_opts))
            value = "" if getattr(opt, "is_flag", False) else f" {_metavar(opt)}"
            lines.append(f"| {flags}{value} | {_default(opt)} | {_cell(opt.help or '')} |")
        lines.append("")
    if subcommands:
        lines += ["| command | what it does |", "| --- | --- |"]
        for sub_name, sub in subcommands.items():
            lines.append(f"| [`{name} {sub_name}`](#{_anchor(name + ' ' + sub_name)}) | {_cell(_help_line(sub))} |")
        lines.append("")
    return lines


def _anchor(title: str) -> str:
    """GitHub's anchor for a heading that is `title` in backticks."""
    return re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")


def exit_statuses() -> list[str]:
    """The exit statuses with the comment beside each in mcp_accept/errors.py."""
    from mcp_accept.errors import ExitStatus

    source = (ROOT / "mcp_accept" / "errors.py").read_text(encoding="utf-8")
    lines = ["## Exit statuses", "", "| status | name | meaning |", "| --- | --- | --- |"]
    for status in ExitStatus:
        found = re.search(rf"^\s+{status.name}\s*=\s*{int(status)}\s*#\s*(.+)$", source, flags=re.M)
        meaning = found.group(1).strip() if found else ""
        lines.append(f"| {int(status)} | `{status.name}` | {_cell(meaning)} |")
    return lines + [""]


def render() -> str:
    lines = [HEADER]
    for path, command in walk(root_command()):
        lines += command_section(path, command)
    lines += exit_statuses()
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when docs/reference.md is stale")
    args = parser.parse_args(argv)
    text = render()
    current = TARGET.read_text(encoding="utf-8") if TARGET.is_file() else ""
    if args.check:
        if current != text:
            print(f"{TARGET.relative_to(ROOT)} is stale: run python scripts/reference.py", file=sys.stderr)
            return 1
        return 0
    if current != text:
        TARGET.write_text(text, encoding="utf-8")
        print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
