"""The sdk layer: each run's answers replayed through the official MCP Python SDK's client.

The truth the sdk column is held to is computed here, by letting the installed SDK's own
client drive the fixture over stdio in each break mode; nothing is written down beforehand.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from conftest import FIXTURE, fixture_command, load_results, run_cli
from mcp_accept import fixture as fx
from mcp_accept import verify as vf
from mcp_accept.checks import FAIL, PASS, UNOBTAINABLE

mcp = pytest.importorskip("mcp", reason="the sdk extra is not installed")

ROW_STEP = {"T01": "call:text", "S01": "call:structured", "E01": "call:embedded", "L01": "call:link",
            "L02": "read:link", "L03": "read:unknown"}
TOOLS = {"call:text": "search_text", "call:structured": "search_structured",
         "call:embedded": "search_embedded", "call:link": "search_link"}
UNKNOWN = "search://results/does-not-exist"
SDK_ON = {"MCP_ACCEPT_SDK": "on"}  # the layer is on by default; say so, whatever the environment


def sdk_does(args: list[str], era: str, timeout: float = 2.0) -> dict[str, bool]:
    """Whether the SDK's client accepts (True) or raises (False) on each call, driving the fixture."""
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    async def main() -> dict[str, bool]:
        out: dict[str, bool] = {}
        params = StdioServerParameters(command=sys.executable, args=[str(FIXTURE), *args])
        with open(os.devnull, "w") as errlog:
            async with Client(stdio_client(params, errlog=errlog), mode="auto" if era == "2026-07-28" else "legacy",
                              cache=None, read_timeout_seconds=timeout) as client:
                assert client.protocol_version == era
                calls = [(step, lambda name=name: client.call_tool(name, {"q": "MCP"})) for step, name in TOOLS.items()]
                calls += [("read:link", lambda: client.read_resource(fx.LINK_URI)),
                          ("read:unknown", lambda: client.read_resource(UNKNOWN))]
                for step, make in calls:
                    try:
                        with anyio.fail_after(timeout * 2):
                            await make()
                        out[step] = True
                    except Exception:
                        out[step] = False
        return out

    return anyio.run(main)


def column(folder: Path) -> dict[str, dict]:
    """The sdk verdict of each replayed step, from a run folder's row evidence."""
    out = {}
    for row_id, step in ROW_STEP.items():
        evidence = json.loads((folder / "rows" / f"{row_id}.json").read_text(encoding="utf-8"))
        found = [c for c in evidence["checks"] if c["layer"] == "sdk"]
        assert len(found) == 1, (row_id, found)
        out[step] = found[0]
    return out


def accepted_by_column(step: str, verdict: dict) -> bool | None:
    if verdict["status"] == UNOBTAINABLE:
        return None
    passed = verdict["status"] == PASS
    return (not passed) if step == "read:unknown" else passed  # an unknown URI must raise


COMPARABLE = [m for m in ["none", *fx.BREAK_MODES] if m != "crash"]


@pytest.mark.parametrize("mode", COMPARABLE)
def test_sdk_column_is_what_the_sdk_does(verify_run, mode):
    _, folder = verify_run
    args = [] if mode == "none" else ["--break", mode]
    for era in vf.ERAS:
        said = column(folder / "runs" / era / mode)
        truth = sdk_does(args, era, timeout=1.0 if mode == "hang" else 2.0)
        for step, accepted in truth.items():
            if mode == "hang" and step == "call:embedded":
                # never answered: there is nothing to replay, and the SDK times out
                assert said[step]["status"] == UNOBTAINABLE and "no answer" in said[step]["detail"]
                assert accepted is False
                continue
            assert accepted_by_column(step, said[step]) == accepted, (mode, era, step, said[step])


def test_sdk_rejects_what_its_validation_covers_and_says_what_it_raised(verify_run):
    _, folder = verify_run
    for era in vf.ERAS:
        structured = column(folder / "runs" / era / "total-string")["call:structured"]
        if structured["status"] == FAIL:  # whatever the SDK does, the detail names it
            assert "raised" in structured["detail"] and "Error" in structured["detail"]
        else:
            assert "accepted" in structured["detail"]
        assert f"mcp {metadata.version('mcp')}" in structured["detail"]


def test_crash_leaves_nothing_to_replay(verify_run):
    _, folder = verify_run
    for era in vf.ERAS:
        said = column(folder / "runs" / era / "crash")
        assert said["call:embedded"]["status"] == UNOBTAINABLE
        assert "no answer" in said["call:embedded"]["detail"]
        assert said["call:text"]["status"] in (PASS, FAIL)  # answered before the crash: replayed


def test_sdk_never_changes_a_row_status(verify_run):
    """A row's status is its wire, type and meaning verdicts combined; sdk is beside it."""
    _, folder = verify_run
    differs = 0
    for run in sorted((folder / "runs").glob("*/*")):
        rows = {r["id"]: r for r in load_results(run)["rows"]}
        for evidence_file in (run / "rows").glob("*.json"):
            evidence = json.loads(evidence_file.read_text(encoding="utf-8"))
            deciding = [c["status"] for c in evidence["checks"] if c["layer"] != "sdk"]
            sdk = [c["status"] for c in evidence["checks"] if c["layer"] == "sdk"]
            if not deciding:
                continue
            expected = FAIL if FAIL in deciding else UNOBTAINABLE if UNOBTAINABLE in deciding else PASS
            assert rows[evidence["id"]]["status"] == expected, (run, evidence["id"])
            assert rows[evidence["id"]].get("layers", {}).get("sdk") == (
                (FAIL if FAIL in sdk else UNOBTAINABLE if UNOBTAINABLE in sdk else PASS) if sdk else None)
            differs += FAIL in sdk and expected == PASS
    assert differs > 0  # some row passes although the SDK raised on its call


def test_replay_sends_nothing_more_to_the_server(tmp_path):
    done = run_cli("run", "--out", str(tmp_path), "--protocol", "2026-07-28",
                   "--server", fixture_command("--break", "total-string"), env=SDK_ON)
    assert done.returncode == 1
    sent = [json.loads(line) for line in (tmp_path / "wire.jsonl").read_text().splitlines()]
    calls = [e for e in sent if e["dir"] == "out" and e.get("message", {}).get("method") == "tools/call"]
    reads = [e for e in sent if e["dir"] == "out" and e.get("message", {}).get("method") == "resources/read"]
    assert len(calls) == 4 and len(reads) == 2  # the runner's own steps, once each
    said = column(tmp_path)
    assert set(said) == set(ROW_STEP.values())
    assert all(v["status"] in (PASS, FAIL) for v in said.values())


HIDE_SDK = ("import sys; sys.modules['mcp'] = None; sys.modules['mcp_types'] = None; "
            "from mcp_accept.cli import main; sys.argv = ['mcp-accept'] + sys.argv[1:]; main()")


def test_without_the_sdk_the_column_is_unobtainable_with_the_reason(tmp_path):
    with_sdk = run_cli("run", "--out", str(tmp_path / "with"), "--protocol", "2025-11-25",
                       "--server", fixture_command("--break", "content-missing"), env=SDK_ON)
    without = subprocess.run([sys.executable, "-c", HIDE_SDK, "run", "--out", str(tmp_path / "without"),
                              "--protocol", "2025-11-25", "--server", fixture_command("--break", "content-missing")],
                             capture_output=True, text=True, timeout=120, env={**os.environ, **SDK_ON})
    assert without.returncode == with_sdk.returncode == 1, without.stderr
    assert "Traceback" not in without.stderr
    said = column(tmp_path / "without")
    for step, verdict in said.items():
        assert verdict["status"] == UNOBTAINABLE, (step, verdict)
        assert "cannot be imported" in verdict["detail"] or "not installed" in verdict["detail"]
    rows_with = {r["id"]: r for r in load_results(tmp_path / "with")["rows"]}
    rows_without = {r["id"]: r for r in load_results(tmp_path / "without")["rows"]}
    for row_id in ROW_STEP:
        assert rows_without[row_id]["layers"]["sdk"] == UNOBTAINABLE
        assert rows_without[row_id]["status"] == rows_with[row_id]["status"]  # the column decides nothing
    assert any(rows_with[r]["layers"]["sdk"] == FAIL for r in ROW_STEP)  # the SDK did have a say


def test_verify_without_the_sdk_says_unobtainable(tmp_path):
    fake = tmp_path / "site"
    (fake / "mcp").mkdir(parents=True)
    (fake / "mcp" / "__init__.py").write_text("raise ImportError('the SDK is hidden for this test')\n")
    done = run_cli("verify", "--out", str(tmp_path / "out"), "--timeout", "1",
                   env={"PYTHONPATH": str(fake), **SDK_ON}, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:]
    report = json.loads((tmp_path / "out" / "verify.json").read_text(encoding="utf-8"))
    assert report["sdk"]["available"] is False and "hidden for this test" in report["sdk"]["reason"]
    got = {(c["id"], c["era"]): c for c in report["conditions"]}
    for era in vf.ERAS:
        assert got[("sdk-unobtainable", era)]["status"] == PASS
        assert got[("sdk-total-string", era)]["layers"]["sdk"] == UNOBTAINABLE
    assert "UNOBTAINABLE" in done.stdout


def test_the_layer_can_be_switched_off(tmp_path):
    done = run_cli("run", "--out", str(tmp_path), "--protocol", "2026-07-28",
                   "--server", fixture_command("--break", "total-string"), env={"MCP_ACCEPT_SDK": "off"})
    assert done.returncode == 1
    for step, verdict in column(tmp_path).items():
        assert verdict["status"] == UNOBTAINABLE and "MCP_ACCEPT_SDK=off" in verdict["detail"], step
