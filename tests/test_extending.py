"""docs/architecture.md says, for each kind of change, every file it touches ("The files each
change touches"). A new check row is made here for real, in a copy of the project, touching only
the files the page lists: the copy's `mcp-accept run` against the built-in fixture judges the new
row, with the check's verdict and its reason, in English and (the reason not yet translated) in a
Japanese run too. For the other kinds, the files listed exist and the registries named are the
ones the code reads.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT

PAGE = ROOT / "docs" / "architecture.md"
KINDS = ("A new check row", "A new host adapter", "A new model API of the stand-in model",
         "A new report format", "A new command")
# what the project copy holds: the package, what it reads and the scripts and pages a change regenerates
COPIED = ("mcp_accept", "sheets", "schemas", "templates", "scripts", "docs", "pyproject.toml")


def changes() -> dict[str, dict[str, list]]:
    """Each kind of change on the page: ``edit`` and ``new`` paths, ``regenerated`` as
    (paths, command) pairs."""
    text = PAGE.read_text(encoding="utf-8")
    part = text.split("## The files each change touches", 1)[1].split("\n## ", 1)[0]
    out: dict[str, dict[str, list]] = {}
    for block in re.split(r"(?m)^### ", part)[1:]:
        title, _, body = block.partition("\n")
        lists: dict[str, list] = {"edit": [], "new": [], "regenerated": []}
        for how, rest in re.findall(r"(?m)^- (edit|new|regenerated) (.*)$", body):
            if how == "regenerated":
                files, _, command = rest.partition(" by ")
                lists[how].append((re.findall(r"`([^`]+)`", files), re.findall(r"`([^`]+)`", command)[0]))
            else:
                lists[how].append(re.match(r"`([^`]+)`", rest).group(1))
        out[title.strip()] = lists
    return out


def pattern(path: str) -> str:
    return re.sub(r"<[^>]+>", "*", path)


def test_the_page_lists_each_kind_of_change_and_every_file_it_names_is_there():
    found = changes()
    assert set(KINDS) <= set(found), sorted(found)
    for kind in KINDS:
        lists = found[kind]
        assert lists["edit"] or lists["new"], kind
        for path in lists["edit"]:
            assert list(ROOT.glob(pattern(path))), f"{kind}: edit {path}: no such file"
        for path in lists["new"]:
            assert "<" in path, f"{kind}: a new file is named by a placeholder: {path}"
            assert (ROOT / path).parent.is_dir(), f"{kind}: new {path}: no such folder"
            assert list(ROOT.glob(pattern(path))), f"{kind}: new {path}: nothing of the kind to copy"
        for files, command in lists["regenerated"]:
            assert files and all((ROOT / f).is_file() for f in files), (kind, files)
            script = command.split()[1]
            assert command.startswith("python scripts/") and (ROOT / script).is_file(), (kind, command)
            assert all(f in (ROOT / script).read_text(encoding="utf-8") for f in files), \
                f"{kind}: {script} does not write {files}"


def test_a_new_check_row_touches_three_files_and_is_judged(tmp_path):
    lists = changes()["A new check row"]
    touched = lists["edit"] + lists["new"]
    assert len(touched) <= 3, touched
    check_module = next(p for p in touched if p.startswith("mcp_accept/checks/"))
    sheet = next(p for p in touched if p.startswith("sheets/"))
    test_file = next(p for p in touched if p.startswith("tests/"))
    assert set(touched) == {check_module, sheet, test_file}, touched

    copy = tmp_path / "project"
    copy.mkdir()
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, copy / name)
    before = digests(copy)

    made = {
        check_module.replace("<layer>", "meaning"): ("append", NEW_CHECK),
        sheet: ("append", NEW_ROW),
        test_file.replace("<topic>", "tool_names"): ("write", NEW_TEST),
    }
    for path, (how, text) in made.items():
        target = copy / path
        if how == "append":
            assert target.is_file(), path
            target.write_text(target.read_text(encoding="utf-8") + text, encoding="utf-8")
        else:
            assert not target.exists(), path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(copy), MCP_ACCEPT_OFFLINE="1", MCP_ACCEPT_SDK="off")
    regenerated = set()
    for files, command in lists["regenerated"]:
        done = subprocess.run([sys.executable, *command.split()[1:]], cwd=copy, env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        regenerated.update(files)

    # only the files the page names changed, and the generated pages name the new row and check
    assert set(changed(before, digests(copy))) <= set(made) | regenerated
    assert set(made) <= set(changed(before, digests(copy)))
    assert "| `tool_names_distinct` | N01 | meaning | app |" in (copy / "docs" / "rules.md").read_text()
    assert "| N01 | additional | Every tool has a name of its own |" in (copy / "docs" / "sheets.md").read_text()

    # the copy runs its own package, not this one
    where = subprocess.run([sys.executable, "-c", "import mcp_accept; print(mcp_accept.__file__)"],
                           cwd=copy, env=env, capture_output=True, text=True, check=True).stdout
    assert Path(where.strip()).is_relative_to(copy)

    # the row's own test passes in the copy
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                           made_path(made, "tests/")], cwd=copy, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr

    for lang in ("en", "ja"):
        out = tmp_path / f"run-{lang}"
        done = subprocess.run([sys.executable, "-m", "mcp_accept", "run", "--out", str(out), "--lang", lang, "-q"],
                              cwd=copy, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr  # every row passes the fixture, the new one too
        results = json.loads((out / "results.json").read_text(encoding="utf-8"))
        rows = {row["id"]: row for row in results["rows"]}
        row = rows["N01"]
        assert row["status"] == "PASS" and row["filled_by"] == "runner"
        [verdict] = row["checks"]
        assert (verdict["check"], verdict["layer"], verdict["rule"], verdict["status"]) == \
            ("tool_names_distinct", "meaning", "app", "PASS")
        assert verdict["reason_id"] == "tools.names-distinct" and verdict["reason_params"] == {"n": 4}
        assert row["reason"] == "4 tools, each with a name of its own"
        assert "PASS" in done.stdout and f"{len(rows)} rows" in done.stdout
        sheet_md = (out / "sheet.md").read_text(encoding="utf-8")
        if lang == "ja":
            # the title is the sheet's Japanese; the reason, not yet in the catalog, is English
            assert "各ツールの名前が重複しない" in sheet_md
            assert "4 tools, each with a name of its own" in sheet_md
        else:
            assert "Every tool has a name of its own" in sheet_md


def made_path(made: dict, prefix: str) -> str:
    return next(path for path in made if path.startswith(prefix))


def digests(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


def changed(before: dict[str, str], after: dict[str, str]) -> list[str]:
    return sorted(path for path in set(before) | set(after) if before.get(path) != after.get(path))


NEW_CHECK = '''

declare({
    # N01
    "tools.names-distinct": "{n} tools, each with a name of its own",
    "tools.name-repeated": "tools/list names {name} {times} times",
    "tools.not-answered": "tools/list was not answered",
})


@check("tool_names_distinct", "meaning")
def tool_names_distinct(ctx: Context) -> Verdict:
    """Rule of the sheet (app): no two tools of tools/list share a name."""
    step = ctx.step("tools/list")
    if step is None or step.reply is None or not isinstance(step.reply.result, dict):
        return Verdict("tool_names_distinct", "meaning", UNOBTAINABLE, reason("tools.not-answered"))
    names = [tool.get("name") for tool in step.reply.result.get("tools") or () if isinstance(tool, dict)]
    repeated = [name for name in names if names.count(name) > 1]
    if repeated:
        return Verdict("tool_names_distinct", "meaning", FAIL,
                       reason("tools.name-repeated", name=repeated[0], times=names.count(repeated[0])),
                       step.seqs)
    return Verdict("tool_names_distinct", "meaning", PASS, reason("tools.names-distinct", n=len(names)),
                   step.seqs)
'''

NEW_ROW = textwrap.indent('''\
- id: N01
  kind: additional
  title:
    en: "Every tool has a name of its own"
    ja: "各ツールの名前が重複しない"
  establishes:
    en: "No two tools of tools/list share a name (the sheet's rule)."
    ja: "tools/listの中で名前が重複するツールがない（本票の規則）。"
  steps: [tools/list]
  checks:
    - {layer: meaning, check: tool_names_distinct}
''', "  ")

NEW_TEST = '''"""N01: the names of tools/list, each its own."""

from types import SimpleNamespace

from mcp_accept.checks.base import Context
from mcp_accept.checks.registry import run_check


def judged(*names):
    reply = SimpleNamespace(result={"tools": [{"name": name} for name in names]})
    step = SimpleNamespace(reply=reply, seqs=[2])
    recording = SimpleNamespace(steps={"tools/list": step}, version="2026-07-28")
    [verdict] = run_check("tool_names_distinct", Context(recording, profile=None, store=None))
    return verdict


def test_distinct_names_pass_and_a_repeated_one_fails():
    assert judged("a", "b").status == "PASS"
    failed = judged("a", "b", "a")
    assert failed.status == "FAIL" and failed.reason.id == "tools.name-repeated"
    assert failed.detail == "tools/list names a 2 times"
'''


# -- the other kinds: the registries named are the ones the code reads ---------------------------

def named(kind: str, how: str = "edit") -> list[str]:
    return changes()[kind][how]


def test_a_host_adapter_is_one_line_in_the_registry_host_test_reads():
    from mcp_accept.hosts import harness, matrix
    from mcp_accept.hosts.registry import ADAPTERS

    assert "mcp_accept/hosts/registry.py" in named("A new host adapter")
    assert harness.ADAPTERS is ADAPTERS and matrix.ADAPTERS is ADAPTERS
    folder = ROOT / "mcp_accept" / "hosts" / "adapters"
    modules = {p.stem for p in folder.glob("*.py")} - {"__init__", "base", "framework"}  # the last two: bases
    assert {type(a).__module__.rsplit(".", 1)[-1] for a in ADAPTERS.values()} == modules
    # the other files the page lists name each host
    for path in named("A new host adapter"):
        if path.endswith(("package.json", "__init__.py", "README.md", "registry.py")):  # registry: by adapter
            continue
        text = (ROOT / path).read_text(encoding="utf-8")
        missing = [name for name in ADAPTERS if f'"{name}' not in text and f" {name}" not in text]
        assert not missing, f"{path} does not name {missing}"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "README.md" in named("A new host adapter")
    assert all(adapter.product in readme for adapter in ADAPTERS.values())
    pins = json.loads((ROOT / "tests" / "hosts" / "package.json").read_text(encoding="utf-8"))
    assert pins.get("dependencies") or pins.get("devDependencies")


def test_a_model_api_is_one_line_in_dialects_which_routes_and_names_it():
    from mcp_accept.hosts import model_view
    from mcp_accept.model import server

    assert {"mcp_accept/model/server.py", "mcp_accept/model/__init__.py"} <= set(named("A new model API of the stand-in model"))
    folder = ROOT / "mcp_accept" / "model"
    modules = {p.stem for p in folder.glob("*.py")} - {"__init__", "answer", "script", "server"}
    assert {server.dialect_name(d) for d in server.DIALECTS} == modules
    assert model_view.dialect_named is server.dialect_named
    paths = {"anthropic": "/v1/messages", "openai": "/v1/chat/completions",
             "gemini": "/v1beta/models/m:generateContent"}
    assert set(paths) == modules  # a new API is added here with a path of its own
    for name, path in paths.items():
        dialect = server.dialect_for(path)
        assert dialect is not None and server.dialect_name(dialect) == name
        assert server.dialect_named(name) is dialect
        assert all(callable(getattr(dialect, f)) for f in ("handles", "parse", "respond"))
    assert server.dialect_for("/v1/no-such-api") is None


def test_a_report_format_is_one_line_in_the_registry_report_reads():
    from mcp_accept.output import report as report_stage
    from mcp_accept.output.reporters import REPORTER_BY_NAME, make_reporter

    assert {"mcp_accept/output/reporters/__init__.py", "mcp_accept/cli/report.py",
            "docs/reports.md"} <= set(named("A new report format"))
    assert "make_reporter(fmt" in Path(report_stage.__file__).read_text(encoding="utf-8")
    folder = ROOT / "mcp_accept" / "output" / "reporters"
    modules = {p.stem for p in folder.glob("*.py")} - {"__init__", "base", "overview"}
    assert {cls.__module__.rsplit(".", 1)[-1] for cls in REPORTER_BY_NAME.values()} == modules
    help_text = (ROOT / "mcp_accept" / "cli" / "report.py").read_text(encoding="utf-8")
    formats = (ROOT / "docs" / "reports.md").read_text(encoding="utf-8")
    for name, cls in REPORTER_BY_NAME.items():
        assert isinstance(make_reporter(name), cls)
        assert re.search(rf"\b{re.escape(name)}\b", help_text), f"--format help does not name {name}"
        assert f"`{name}`" in formats, f"docs/reports.md does not name {name}"


def test_a_command_is_a_function_of_a_cli_module_registered_in_the_application():
    import typer

    from mcp_accept.cli import app

    assert "mcp_accept/cli/__init__.py" in named("A new command")
    assert any(path == "mcp_accept/cli/<group>.py" for path in named("A new command"))
    root = typer.main.get_command(app)
    modules = set()
    for name, command in root.commands.items():
        callbacks = [command.callback] + [sub.callback for sub in (getattr(command, "commands", None) or {}).values()]
        for callback in callbacks:
            if callback is None:
                continue
            module = importlib.import_module(callback.__module__)
            modules.add(module.__name__)
            assert module.__name__.startswith("mcp_accept.cli."), (name, module.__name__)
    files = {f"mcp_accept.cli.{p.stem}" for p in (ROOT / "mcp_accept" / "cli").glob("*.py")}
    assert modules and modules <= files
    init = (ROOT / "mcp_accept" / "cli" / "__init__.py").read_text(encoding="utf-8")
    for module in modules:
        assert module.rsplit(".", 1)[-1] in init, f"{module} is not registered in mcp_accept/cli/__init__.py"

