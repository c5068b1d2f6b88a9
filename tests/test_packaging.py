"""A built wheel carries everything a run needs: sheets, schemas, templates and the fixture."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT, load_results, statuses

from mcp_accept.protocol import VERSIONS


def test_wheel_runs_the_default_sheet_from_another_folder(tmp_path):
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(wheels), str(ROOT)], check=True, capture_output=True, timeout=300)
    (wheel,) = wheels.glob("mcp_accept-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for needed in ("mcp_accept/fixture.py", "mcp_accept/sheets/default.yaml",
                   "mcp_accept/sheets/profile-fixture.yaml", "mcp_accept/sheets/conditions-template.yaml",
                   "mcp_accept/schemas/pins.json", "mcp_accept/schemas/results.schema.json",
                   "mcp_accept/schemas/mcp/SOURCES.md", "mcp_accept/templates/sheet.md.j2",
                   "mcp_accept/locale/ja/LC_MESSAGES/mcp_accept.po",
                   "mcp_accept/locale/ja/LC_MESSAGES/mcp_accept.mo",
                   *(f"mcp_accept/schemas/mcp/{v}/schema.json" for v in VERSIONS)):
        assert needed in names, needed
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site),
                    str(wheel)], check=True, capture_output=True, timeout=300)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCP_ACCEPT_")}
    # offline, no schema folder given: the bundled official schemas must be enough
    env.update(PYTHONPATH=str(site), COLUMNS="200", MCP_ACCEPT_OFFLINE="1",
               XDG_CACHE_HOME=str(tmp_path / "empty-cache"))
    # in Japanese: the reasons are rendered from the installed message catalog
    proc = subprocess.run([sys.executable, "-m", "mcp_accept", "run", "--out", "out", "--lang", "ja"], cwd=elsewhere,
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    probe = subprocess.run([sys.executable, "-c", "import mcp_accept; print(mcp_accept.__file__)"],
                           cwd=elsewhere, env=env, capture_output=True, text=True)
    assert probe.stdout.startswith(str(site))  # the installed copy ran, not the source tree
    got = statuses(load_results(elsewhere / "out"))
    assert {got[r] for r in got if not r.startswith("H")} == {"PASS"}
    results = load_results(elsewhere / "out")
    assert {s["source"] for s in results["schemas"]} == {"bundled"}
    assert "通信上のプロトコル違反なし" in (elsewhere / "out" / "sheet.md").read_text(encoding="utf-8")


def test_editable_install_finds_the_top_level_folders(tmp_path):
    """An editable install reads sheets/, schemas/ and templates/ from the checkout itself."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    # the dependencies come from the running environment; the project itself is installed editable
    ours = subprocess.run([sys.executable, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    # (all but mcp-accept itself: the running environment may hold a non-editable copy of it,
    # which a path entry would find before the editable install's finder)
    deps = tmp_path / "deps"
    deps.mkdir()
    for entry in Path(ours).iterdir():
        if not entry.name.startswith(("mcp_accept", "__editable__", "_mcp_accept")):
            (deps / entry.name).symlink_to(entry)
    (Path(site) / "deps.pth").write_text(f"{deps}\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                    "--no-build-isolation", "-q", "-e", str(ROOT)], check=True, capture_output=True,
                   timeout=300)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code = ("from mcp_accept.data import data_path; import mcp_accept; "
            "print(mcp_accept.__file__); "
            "print(*(data_path(k, n).is_file() for k, n in [('sheets', 'default.yaml'), "
            "('schemas', 'pins.json'), ('templates', 'sheet.md.j2'), "
            "('schemas', 'mcp/2026-07-28/schema.json')]))")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([str(python), "-c", code], cwd=elsewhere, env=env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    where, found = proc.stdout.splitlines()
    assert where.startswith(str(ROOT / "mcp_accept"))
    assert found == "True True True True"


def test_every_package_of_the_source_is_in_the_wheel():
    # the wheel's packages are listed by hand (sheets/, schemas/ and templates/ are mapped in):
    # a package of the source left off the list is missing from every install but an editable one
    tomllib = pytest.importorskip("tomllib", reason="Python 3.11 or newer reads pyproject.toml")
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(init.parent.relative_to(ROOT).parts) for init in (ROOT / "mcp_accept").rglob("__init__.py")
             if "__pycache__" not in init.parts}
    assert found - listed == set()
