"""The package's shape: stages in a fixed order, imports only from earlier stages (or within
one), no import cycle between modules, and docs/architecture.md naming only modules that exist.

Every import counts, a function's lazy ``from ... import`` included: a cycle hidden behind a
lazy import is still a cycle a reader has to untangle. Imports under ``if TYPE_CHECKING:`` do
not run, and are left out.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "mcp_accept"

# Earliest first; a module may import from its own stage and from earlier ones only.
STAGES = [
    ("foundation", ["mcp_accept", "mcp_accept.errors", "mcp_accept.data", "mcp_accept.untrusted",
                    "mcp_accept.protocol", "mcp_accept.fixture", "mcp_accept.server_command",
                    "mcp_accept.reasons"]),
    ("evidence", ["mcp_accept.evidence"]),
    ("schemas", ["mcp_accept.schemas"]),
    ("transport", ["mcp_accept.transport"]),
    ("checks", ["mcp_accept.checks"]),
    ("inputs", ["mcp_accept.inputs"]),
    ("output", ["mcp_accept.output"]),
    ("running", ["mcp_accept.running"]),
    ("model", ["mcp_accept.model"]),
    ("hosts", ["mcp_accept.hosts"]),
    ("entry points", ["mcp_accept.verify", "mcp_accept.pytest_plugin", "mcp_accept.cli",
                      "mcp_accept.__main__"]),
]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts}


def _type_checking_only(node: ast.AST, parents: dict) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return True
    return False


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that ``name`` imports (a name imported from a package resolves to
    its submodule when there is one)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parents = {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(tree):
        if _type_checking_only(node, parents):
            continue
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".") if is_package else name.split(".")[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                       for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {name: imports_of(name, path, known) for name, path in mods.items()}


def stage_of(name: str) -> int:
    best, where = -1, None
    for index, (_, prefixes) in enumerate(STAGES):
        for prefix in prefixes:
            if (name == prefix or (prefix != "mcp_accept" and name.startswith(prefix + "."))) \
                    and len(prefix) > best:
                best, where = len(prefix), index
    if where is None:
        raise AssertionError(f"{name} belongs to no stage: add it to STAGES and docs/architecture.md")
    return where


def test_every_module_has_a_stage():
    for name in modules():
        stage_of(name)


def test_imports_point_to_earlier_stages_only():
    wrong = []
    for name, targets in graph().items():
        for target in targets:
            if stage_of(target) > stage_of(name):
                wrong.append(f"{name} ({STAGES[stage_of(name)][0]}) imports {target} "
                             f"({STAGES[stage_of(target)][0]})")
    assert not wrong, "\n".join(sorted(wrong))


def test_no_import_cycles():
    edges = graph()
    # Tarjan's strongly connected components: any component of two or more is a cycle
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    assert not cycles, "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_every_package_says_what_it_may_import():
    for path in PACKAGE.rglob("__init__.py"):
        if path.parent.name in ("sheets", "schemas", "templates"):
            continue
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        if path.parent == PACKAGE:
            continue
        assert "import" in doc.lower(), f"{path.relative_to(ROOT)}: the docstring says what it may import"


def test_the_entry_point_packages_hold_their_modules_in_their_stage():
    mods = modules()
    for package in ("mcp_accept.cli", "mcp_accept.verify"):
        inside = [name for name in mods if name.startswith(package + ".")]
        assert inside, f"{package} is a package of modules"
        for name in inside:
            assert STAGES[stage_of(name)][0] == "entry points", name


def test_a_command_module_shares_only_the_options_and_the_outcome():
    # one module per command group: what commands share is in options and outcome, so a
    # command's module never reaches into another group's (nor verify into the command line)
    shared = {"mcp_accept.cli.options", "mcp_accept.cli.outcome"}
    wrong = []
    for name, targets in graph().items():
        if name.startswith(("mcp_accept.cli.", "mcp_accept.verify")) and name not in shared:
            wrong += [f"{name} imports {target}" for target in sorted(targets)
                      if target.startswith("mcp_accept.cli") and target not in shared]
    assert not wrong, "\n".join(wrong)


def test_the_cycle_finder_finds_a_cycle(tmp_path, monkeypatch):
    # the test above could pass by finding nothing at all: show it on two modules that import each other
    pkg = tmp_path / "mcp_accept"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from mcp_accept import b\n")
    (pkg / "b.py").write_text("from mcp_accept.a import f\n")
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path)
    monkeypatch.setattr(__import__(__name__), "PACKAGE", pkg)
    edges = graph()
    assert edges["mcp_accept.a"] == {"mcp_accept.b"} and edges["mcp_accept.b"] == {"mcp_accept.a"}
    with pytest.raises(AssertionError, match="import cycles"):
        test_no_import_cycles()


def test_architecture_page_names_only_modules_and_files_that_exist():
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    names = set(re.findall(r"`(mcp_accept(?:\.[a-z_]+)+)`", page))
    # a path with a <name> in it is a file a change makes: tests/test_extending.py checks its folder
    paths = {p for p in re.findall(r"`((?:mcp_accept|tests|benchmarks|templates|sheets|schemas|docs)/[\w./<>-]+)`", page)
             if "<" not in p}
    assert names and paths
    mods = modules()
    missing = [n for n in names if n not in mods] + [p for p in paths if not (ROOT / p).exists()]
    assert not missing, f"docs/architecture.md names what does not exist: {sorted(missing)}"
    for stage, _ in STAGES:
        assert stage in page, f"docs/architecture.md does not describe the stage {stage!r}"


def test_every_package_docstring_names_its_modules():
    # a newcomer reads a package's docstring to find a module: one it does not name is lost
    # (adapters are one module per host, listed by name in ADAPTERS instead)
    unnamed = []
    for init in PACKAGE.rglob("__init__.py"):
        if init.parent == PACKAGE or init.parent.name == "adapters":
            continue
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        assert "May import" in doc, f"{init.relative_to(ROOT)}: the docstring says what it may import"
        for module in sorted(init.parent.glob("*.py")):
            if module.stem != "__init__" and module.stem not in doc:
                unnamed.append(str(module.relative_to(ROOT)))
    assert not unnamed, f"modules their package's docstring does not name: {unnamed}"
