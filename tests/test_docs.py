"""The documentation stays true: the command reference is generated from the CLI and not
stale, every command and option is in it, the README's commands are the ones CI runs, and
every link of the README and of the pages it leads to points at a file that exists."""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import typer

from conftest import FIXTURE, ROOT
from mcp_accept.cli import app
from mcp_accept.inputs.sheet import load_sheet

README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = ROOT / "docs"
REFERENCE = (DOCS / "reference.md").read_text(encoding="utf-8")
# the pages this project's first-contact documentation consists of (others have their own tests)
PAGES = ("reference.md", "sheets.md", "evidence.md", "http.md", "observation.md", "fleet.md",
         "fixture.md", "server-faults.md")


def generator():
    spec = importlib.util.spec_from_file_location("reference_generator", ROOT / "scripts" / "reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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


def sections(markdown: str) -> dict[str, str]:
    """The reference's sections by command ("mcp-accept run" -> its text)."""
    parts = re.split(r"(?m)^#{2,4} `(mcp-accept[^`]*)`\n", markdown)
    return dict(zip(parts[1::2], parts[2::2]))


def test_the_walk_finds_the_commands_and_options_it_checks():
    paths = {path for path, _ in walk(typer.main.get_command(app))}
    assert ("run",) in paths and ("schemas", "fetch") in paths
    flags = {flag for path, flag in documented_flags() if path == ("run",)}
    assert {"--server", "--protocol", "--timeout", "--out", "--json", "-q"} <= flags


def test_the_reference_is_generated_from_the_cli_and_not_stale():
    assert generator().render() == REFERENCE, \
        "docs/reference.md is stale: run .venv/bin/python scripts/reference.py"


def test_every_command_and_option_is_in_the_reference_with_its_help():
    by_command = sections(REFERENCE)
    root = typer.main.get_command(app)
    for path, command in walk(root):
        name = " ".join(("mcp-accept", *path))
        assert name in by_command, f"{name} missing from docs/reference.md"
        text = by_command[name]
        for param in command.params:
            if param.param_type_name != "option" or "--help" in param.opts:
                continue
            for flag in param.opts + param.secondary_opts:
                assert f"`{flag}`" in text, f"{name} {flag} missing from docs/reference.md"
            if param.help:
                assert " ".join(param.help.split())[:40].replace("|", "\\|") in text, (name, param.opts)


def test_the_reference_lists_every_exit_status():
    from mcp_accept.errors import ExitStatus

    for status in ExitStatus:
        assert re.search(rf"^\| {int(status)} \| `{status.name}` \| \S", REFERENCE, flags=re.M), status
        # and the page about a run's outcome explains it
        assert re.search(rf"^\| {int(status)} \|", (DOCS / "evidence.md").read_text(encoding="utf-8"),
                         flags=re.M), status


def test_every_fixture_option_and_break_mode_is_documented():
    page = (DOCS / "fixture.md").read_text(encoding="utf-8")
    help_text = subprocess.run([sys.executable, str(FIXTURE), "--help"], capture_output=True,
                               text=True, check=True).stdout
    flags = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", help_text)) - {"--help"}
    missing = [flag for flag in sorted(flags) if not re.search(re.escape(flag) + r"(?![\w-])", page)]
    assert not missing, f"fixture options missing from docs/fixture.md: {missing}"
    listing = subprocess.run([sys.executable, str(FIXTURE), "--list-breaks"], capture_output=True,
                             text=True, check=True).stdout
    names = [line.split()[0] for line in listing.splitlines() if line.strip()]
    assert names and all(f"`{name}`" in page for name in names)


def test_ci_runs_the_readme_test_command_exactly():
    blocks = re.findall(r"```sh\n(.*?)```", README, flags=re.S)
    commands = [line for block in blocks for line in block.splitlines() if "pytest" in line]
    assert commands == ["python3 -m venv .venv && .venv/bin/pip install -q '.[test]' && "
                        ".venv/bin/python -m pytest -q -n auto"]
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert commands[0] in ci


def test_readme_first_screen_says_what_it_is_and_the_two_commands_from_a_clone():
    first_screen = "\n".join(README.splitlines()[:30])
    assert "tests how an MCP server hands back tool results" in first_screen
    assert "from a clone" in first_screen and "not on a package index yet" in first_screen
    blocks = re.findall(r"```sh\n(.*?)```", first_screen, flags=re.S)
    assert any(line.rstrip().endswith("mcp-accept run") and "pip install ." in line
               for block in blocks for line in block.splitlines())
    assert "pip install mcp-accept" not in README  # not on an index yet: never claim it


def test_every_link_points_at_a_file_that_exists():
    pages = [(ROOT / "README.md", README)] + [(DOCS / name, (DOCS / name).read_text(encoding="utf-8"))
                                              for name in PAGES]
    pages.append((ROOT / "benchmarks" / "README.md", (ROOT / "benchmarks" / "README.md").read_text()))
    for path, text in pages:
        prose = re.sub(r"(?ms)^```.*?^```", "", text)  # examples of output hold links of run folders
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", prose):
            if re.match(r"[a-z]+:", target):
                continue  # a URL
            assert (path.parent / target).exists(), f"{path.relative_to(ROOT)} links to missing {target}"


def test_readme_commands_for_a_newcomer_work(tmp_path):
    # The README's next step, word for word, against the fixture standing in for "my_server.py".
    from conftest import run_cli

    server = f"{sys.executable} {FIXTURE}"
    made = run_cli("profile", "init", "--server", server, "--out", str(tmp_path / "my-profile.yaml"))
    assert made.returncode == 0, made.stderr
    run = run_cli("run", "--server", server, "--profile", str(tmp_path / "my-profile.yaml"),
                  "--out", str(tmp_path / "run"), "-q")
    assert run.returncode in (0, 1), run.stderr  # a profile init writes leaves reference null
    assert f"{len(load_sheet().rows)} rows:" in run.stdout
    assert ".venv/bin/mcp-accept profile init --server \"python my_server.py\" --out my-profile.yaml" in README


def test_the_readme_worked_example_on_another_server_says_what_the_readme_says(tmp_path):
    block = next(b for b in re.findall(r"```sh\n(.*?)```", README, flags=re.S) if "shapes_server.py" in b)
    words = shlex.split(block.replace("\\\n", " "))
    bindir = str(Path(sys.executable).parent) + "/"
    words = [w.replace(".venv/bin/", bindir) for w in words]
    assert words[0].endswith("mcp-accept") and words[1] == "run"
    done = subprocess.run([sys.executable, "-m", "mcp_accept", *words[1:], "--out", str(tmp_path / "run")],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr  # --fail-on must: no MUST broken
    results = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))
    failed = {r["id"]: r.get("failed_rule") for r in results["rows"] if r["status"] == "FAIL"}
    assert failed == {"S01": "app"}
    assert all(r["status"] == "PASS" for r in results["rows"] if r["id"] not in failed and not r["id"].startswith("H"))


def _pip_targets(line: str, variables: dict[str, str]) -> list[str]:
    """What a `pip install` line installs: its arguments that are not options, with `$VAR`
    and `"$VAR"` read from the variables its block defines."""
    words = shlex.split(line.split("pip install", 1)[1].split("#", 1)[0])
    out = []
    for word in words:
        if word.startswith("-"):
            continue
        match = re.fullmatch(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?", word)
        out.append(variables.get(match.group(1), word) if match else word)
    return out


def test_ci_docs_install_from_source_as_the_readme_does():
    """The project is not on a package index: every `pip install` of the CI pages names a
    source (a folder of a clone or a git URL of the repository), the way the README installs
    from a clone, never a bare name an index would be asked for."""
    import yaml

    checked = 0
    for name in ("ci.md", "fleet.md"):
        text = (DOCS / name).read_text(encoding="utf-8")
        for block in re.findall(r"```(?:yaml|sh)\n(.*?)```", text, flags=re.S):
            if "pip install" not in block:
                continue
            variables = {}
            try:
                data = yaml.safe_load(block)
            except yaml.YAMLError:
                data = None
            if isinstance(data, dict):
                variables.update({k: str(v) for k, v in (data.get("env") or {}).items()})
                variables.update({k: str(v) for k, v in (data.get("variables") or {}).items()})
            for line in block.splitlines():
                if "pip install" not in line:
                    continue
                targets = _pip_targets(line, variables)
                assert targets, f"{name}: {line.strip()}"
                for target in targets:
                    git = target.startswith("git+https://") and "/mcp-accept" in target
                    folder = target.startswith((".", "/", "$GITHUB_ACTION_PATH"))
                    from_source = git or folder
                    assert from_source, f"{name}: installs {target!r} from an index: {line.strip()}"
                    checked += 1
    assert checked >= 6
    for page in [README] + [path.read_text(encoding="utf-8") for path in DOCS.glob("*.md")]:
        assert not re.search(r"pip install ['\"]?mcp-accept\b", page)


def _observation_section(title: str) -> str:
    text = (DOCS / "observation.md").read_text(encoding="utf-8")
    start = text.index(title)
    end = text.find("\n#", start + len(title))
    return text[start:] if end < 0 else text[start:end]


def test_observation_page_tells_the_marker_tokens_observe_reads():
    """The prompt a person gives the model asks for the head and the tail tokens, in the
    shape the fixture draws them; the forms' statuses are those observe gives."""
    from mcp_accept import fixture
    from mcp_accept.hosts import observe

    page = (DOCS / "observation.md").read_text(encoding="utf-8")
    prompt = "\n".join(line for line in page.splitlines() if line.startswith(">"))
    shapes = re.findall(r"`(MK\?Z?-x+)`", prompt)
    assert sorted(shapes) == ["MK?-xxxxxxxxxx", "MK?Z-xxxxxxxxxx"], prompt
    for tail, shape in ((False, "MK?-xxxxxxxxxx"), (True, "MK?Z-xxxxxxxxxx")):
        pattern = re.escape(shape).replace(r"\?", "[A-Z]").replace("x", "[0-9a-f]")
        for token in fixture.new_markers(tail=tail).values():
            assert re.fullmatch(pattern, token), (token, shape)
    verdicts = _observation_section("### How a verdict is reached")
    table = re.findall(r"\| `([a-z, ]+)`(?::|\s*\|)", verdicts)
    assert set(table) >= {observe.REACHED, observe.CUT, observe.NOT_SEEN, observe.UNKNOWN}
    assert set(re.findall(r"\| (?:yes|no) \| (?:yes|no) \| `([a-z, ]+)`", verdicts)) <= {
        observe.REACHED, observe.CUT, observe.NOT_SEEN, observe.UNKNOWN}


def test_observation_page_rows_status_is_what_observe_gives():
    """observe never makes a row FAIL from markers, so the page must not say it does; its
    example reasons are observe's own words for the case they describe."""
    import itertools

    from mcp_accept.checks.base import FAIL, PASS, UNOBTAINABLE
    from mcp_accept.hosts import observe

    results = (observe.REACHED, observe.CUT, observe.NOT_SEEN, observe.UNKNOWN)
    seen_statuses = set()
    for text, structured, twin in itertools.product(results, results, results):
        forms = {"text": {"result": text, "tool": "search_text", "cut": "c", "why": "w"},
                 "structured": {"result": structured, "tool": "search_structured", "cut": "c", "why": "w",
                                "twin": {"tokens": {"r": "MKW-0"}, "result": twin}}}
        seen_statuses.add(observe.row_verdict(forms)[0])
    assert FAIL not in seen_statuses and seen_statuses == {PASS, UNOBTAINABLE}
    verdicts = _observation_section("### How a verdict is reached")
    assert "Markers never make a row **FAIL**" in verdicts
    assert not re.search(r"\*\*FAIL\*\* when", verdicts)
    example = _observation_section("**6. Fill the rows:**")
    lines = dict(re.findall(r"^(H0[12]) (.+)$", example, flags=re.M))
    h01 = observe.row_verdict({
        "text": {"result": observe.REACHED, "tool": "search_text"},
        "structured": {"result": observe.NOT_SEEN, "tool": "search_structured",
                       "twin": {"tokens": {"r": "MKW-0"}, "result": observe.REACHED}},
        "embedded": {"result": observe.CUT, "tool": "search_embedded",
                     "cut": "its tail token is not in the answer"}})
    h02 = observe.row_verdict({"link": {"result": observe.REACHED, "read": 1, "tool": "search_link"}})
    assert lines["H01"] == f"{h01[0]}: {h01[1]} (evidence: rows/H01.json)"
    assert lines["H02"] == f"{h02[0]}: {h02[1]} (evidence: rows/H02.json)"


def test_no_usage_line_shows_braces():
    """Usage lines name arguments as Unix tools do (`RUN_DIR...`, `HOST`, `[ROW]`): braces read
    like a set of choices to pick from."""
    from typer.testing import CliRunner

    runner = CliRunner()
    root = typer.main.get_command(app)
    seen = 0
    for path, _command in walk(root):
        done = runner.invoke(app, [*path, "--help"], terminal_width=200)
        assert done.exit_code == 0, (path, done.output)
        usage = [line for line in done.output.splitlines() if line.strip().startswith("Usage:")]
        assert usage, (path, done.output)
        assert not any("{" in line or "}" in line for line in usage), usage
        seen += 1
    assert seen >= 10
    usage_of = lambda *path: next(line for line in runner.invoke(app, [*path, "--help"]).output.splitlines()
                                  if "Usage:" in line)
    assert usage_of("report").endswith("RUN_DIR...")
    assert usage_of("host", "test").endswith("[HOST]") and usage_of("observe").endswith("RUN_DIR [ROW]")
