"""A built wheel carries everything a run needs: sheets, schemas, templates and the fixture."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile

from conftest import ROOT, load_results, statuses


def test_wheel_runs_the_default_sheet_from_another_folder(tmp_path):
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(wheels), str(ROOT)], check=True, capture_output=True, timeout=300)
    (wheel,) = wheels.glob("mcp_accept-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for needed in ("mcp_accept/fixture.py", "mcp_accept/sheets/default.yaml",
                   "mcp_accept/sheets/profile-fixture.yaml", "mcp_accept/sheets/conditions-template.yaml",
                   "mcp_accept/schemas/pins.json", "mcp_accept/schemas/results.schema.json",
                   "mcp_accept/templates/sheet.md.j2"):
        assert needed in names, needed
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site),
                    str(wheel)], check=True, capture_output=True, timeout=300)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site), "COLUMNS": "200"}
    proc = subprocess.run([sys.executable, "-m", "mcp_accept", "run", "--out", "out"], cwd=elsewhere,
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    probe = subprocess.run([sys.executable, "-c", "import mcp_accept; print(mcp_accept.__file__)"],
                           cwd=elsewhere, env=env, capture_output=True, text=True)
    assert probe.stdout.startswith(str(site))  # the installed copy ran, not the source tree
    got = statuses(load_results(elsewhere / "out"))
    assert {got[r] for r in got if not r.startswith("H")} == {"PASS"}
