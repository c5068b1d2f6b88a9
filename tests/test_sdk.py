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
from mcp_accept.protocol import LATEST_LEGACY, VERSIONS
from mcp_accept.checks.base import FAIL, PASS, UNOBTAINABLE

mcp = pytest.importorskip("mcp", reason="the sdk extra is not installed")

ROW_STEP = {"T01": "call:text", "S01": "call:structured", "E01": "call:embedded", "L01": "call:link",
            "L02": "read:link", "L03": "read:unknown"}
TOOLS = {"call:text": "search_text", "call:structured": "search_structured",
         "call:embedded": "search_embedded", "call:link": "search_link"}
UNKNOWN = "search://results/does-not-exist"


def sdk_does(args: list[str], era: str, timeout: float = 2.0) -> dict[str, bool] | None:
    """Whether the SDK's client accepts (True) or raises (False) on each call, driving the fixture;
    None when the SDK's client settles on another protocol version than ``era`` (its legacy mode
    offers the newest legacy version, and it falls back to one when server/discover fails)."""
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    async def main() -> dict[str, bool] | None:
        out: dict[str, bool] = {}
        params = StdioServerParameters(command=sys.executable, args=[str(FIXTURE), *args])
        with open(os.devnull, "w") as errlog:
            async with Client(stdio_client(params, errlog=errlog), mode="auto" if era == "2026-07-28" else "legacy",
                              cache=None, read_timeout_seconds=timeout) as client:
                if client.protocol_version != era:
                    return None
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
    compared = []
    for era in VERSIONS:
        if (mode, era) in vf.NOT_COMPARABLE_LIVE:
            continue
        said = column(folder / "runs" / era / mode)
        truth = sdk_does(args, era, timeout=1.0 if mode == "hang" else 2.0)
        if truth is None:
            continue  # the SDK's own client cannot speak this era to the fixture: nothing to compare with
        compared.append(era)
        for step, accepted in truth.items():
            if mode == "hang" and step == "call:embedded":
                # never answered: there is nothing to replay, and the SDK times out
                assert said[step]["status"] == UNOBTAINABLE and "no answer" in said[step]["detail"]
                assert accepted is False
                continue
            assert accepted_by_column(step, said[step]) == accepted, (mode, era, step, said[step])
    assert LATEST_LEGACY in compared, mode  # the SDK's legacy mode always speaks 2025-11-25


def test_sdk_rejects_what_its_validation_covers_and_says_what_it_raised(verify_run):
    _, folder = verify_run
    for era in VERSIONS:
        structured = column(folder / "runs" / era / "total-string")["call:structured"]
        if structured["status"] == FAIL:  # whatever the SDK does, the detail names it
            assert "raised" in structured["detail"] and "Error" in structured["detail"]
        else:
            assert "accepted" in structured["detail"]
        assert f"mcp {metadata.version('mcp')}" in structured["detail"]


def test_crash_leaves_nothing_to_replay(verify_run):
    _, folder = verify_run
    for era in VERSIONS:
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
    def requests(folder: Path, method: str) -> list:
        sent = [json.loads(line) for line in (folder / "wire.jsonl").read_text().splitlines()]
        return [e["message"].get("params") for e in sent
                if e["dir"] == "out" and e.get("message", {}).get("method") == method]

    server = fixture_command("--break", "total-string")
    done = run_cli("run", "--out", str(tmp_path / "on"), "--protocol", "2026-07-28", "--server", server, "--sdk")
    plain = run_cli("run", "--out", str(tmp_path / "off"), "--protocol", "2026-07-28", "--server", server)
    assert done.returncode == plain.returncode == 1
    calls, reads = requests(tmp_path / "on", "tools/call"), requests(tmp_path / "on", "resources/read")
    # the runner's own steps, once each: what a run without the sdk layer sends
    assert calls == requests(tmp_path / "off", "tools/call") and len(calls) >= 4
    assert reads == requests(tmp_path / "off", "resources/read") and len(reads) == 2
    said = column(tmp_path / "on")
    assert set(said) == set(ROW_STEP.values())
    assert all(v["status"] in (PASS, FAIL) for v in said.values())


def hidden_sdk(tmp_path: Path) -> dict:
    """Environment in which ``import mcp`` fails, in the run's process and in any it starts."""
    fake = tmp_path / "site"
    (fake / "mcp").mkdir(parents=True)
    (fake / "mcp" / "__init__.py").write_text("raise ImportError('the SDK is hidden for this test')\n")
    return {"PYTHONPATH": str(fake)}


def test_without_the_sdk_the_column_is_unobtainable_with_the_reason(tmp_path):
    with_sdk = run_cli("run", "--out", str(tmp_path / "with"), "--protocol", "2025-11-25",
                       "--server", fixture_command("--break", "content-missing"), "--sdk")
    without = run_cli("run", "--out", str(tmp_path / "without"), "--protocol", "2025-11-25",
                      "--server", fixture_command("--break", "content-missing"), "--sdk", env=hidden_sdk(tmp_path))
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
    # verify has the layer on by default; 2 s as the shared verify run has: a fixture's first answer
    # waited for 1.2 s on a loaded machine, past a 1 s timeout, and its condition failed
    done = run_cli("verify", "--out", str(tmp_path / "out"), "--timeout", "2",
                   env={"PYTHONPATH": str(fake)}, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:]
    report = json.loads((tmp_path / "out" / "verify.json").read_text(encoding="utf-8"))
    assert report["sdk"]["available"] is False and "hidden for this test" in report["sdk"]["reason"]
    got = {(c["id"], c["era"]): c for c in report["conditions"]}
    for era in VERSIONS:
        assert got[("sdk-unobtainable", era)]["status"] == PASS
        assert got[("sdk-total-string", era)]["layers"]["sdk"] == UNOBTAINABLE
    assert "UNOBTAINABLE" in done.stdout


def test_the_layer_can_be_switched_off(tmp_path):
    done = run_cli("run", "--out", str(tmp_path), "--protocol", "2026-07-28",
                   "--server", fixture_command("--break", "total-string"), env={"MCP_ACCEPT_SDK": "off"})
    assert done.returncode == 1
    for step, verdict in column(tmp_path).items():
        assert verdict["status"] == UNOBTAINABLE and "MCP_ACCEPT_SDK=off" in verdict["detail"], step
        assert verdict["reason_id"] == "sdk.switched-off", step


def sdk_reasons(folder: Path) -> dict[str, str | None]:
    """The reason id of each row's sdk verdict in results.json, by row."""
    rows = {r["id"]: r for r in load_results(folder)["rows"]}
    return {row_id: next(c.get("reason_id") for c in rows[row_id]["checks"] if c["layer"] == "sdk")
            for row_id in ROW_STEP}


def test_a_run_has_the_layer_off_by_default_and_says_why_where_it_is_read(tmp_path):
    server = fixture_command("--break", "total-string")
    default = run_cli("run", "--out", str(tmp_path / "default"), "--protocol", "2026-07-28", "--server", server,
                      "--lang", "ja")
    on = run_cli("run", "--out", str(tmp_path / "on"), "--protocol", "2026-07-28", "--server", server, "--sdk")
    assert default.returncode == on.returncode == 1, default.stderr
    # the row verdicts are the same with the layer on or off: it reports, it never decides
    statuses = {r["id"]: (r["status"], r.get("failed_rule"), r["reason"]) for r in load_results(tmp_path / "on")["rows"]}
    assert {r["id"]: (r["status"], r.get("failed_rule"), r["reason"])
            for r in load_results(tmp_path / "default")["rows"]} == statuses
    assert set(sdk_reasons(tmp_path / "default").values()) == {"sdk.off"}
    assert any(c["status"] == FAIL for c in column(tmp_path / "on").values())  # on, the SDK had its say
    for step, verdict in column(tmp_path / "default").items():
        assert verdict["status"] == UNOBTAINABLE, step
        assert verdict["detail"].startswith("the sdk layer is off (--sdk or MCP_ACCEPT_SDK=on turns it on"), verdict
        assert "pip install '.[sdk]'" in verdict["detail"]
    invocation = load_results(tmp_path / "default")["invocation"]
    assert invocation["options"]["sdk"] is False and load_results(tmp_path / "on")["invocation"]["options"]["sdk"]
    # the filled sheet (--lang ja): the sdk cell says off, and why is said below the rows
    sheet = (tmp_path / "default" / "sheet.md").read_text(encoding="utf-8")
    t01 = next(line for line in sheet.splitlines() if line.startswith("| T01 |"))
    assert t01.split(" | ")[7] == "オフ", t01
    assert "SDK オフ: SDK段はオフ（--sdkまたはMCP_ACCEPT_SDK=onでオンになる" in sheet
    on_sheet = (tmp_path / "on" / "sheet.md").read_text(encoding="utf-8")
    assert "sdk off" not in on_sheet
    assert next(line for line in on_sheet.splitlines() if line.startswith("| T01 |")).split(" | ")[7] == "PASS"
    # the report, in HTML and in Markdown
    page = run_cli("report", str(tmp_path / "default"), "--format", "html", "--lang", "ja",
                   "--out", str(tmp_path / "report.html"))
    assert page.returncode == 0, page.stderr
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert html.count("SDK段はオフ") == len(ROW_STEP) + 2  # each sdk check of the six rows, and S02/S03's
    english = run_cli("report", str(tmp_path / "default"))
    assert "sdk off: the sdk layer is off (--sdk or MCP_ACCEPT_SDK=on turns it on" in english.stdout


@pytest.mark.parametrize("how", [("--sdk",), ("env", "on"), ("--sdk", "env", "off")])
def test_the_option_or_the_environment_turns_the_layer_on(tmp_path, how):
    """--sdk turns it on, so does MCP_ACCEPT_SDK=on; the option wins over the environment."""
    args = [a for a in how if a == "--sdk"]
    env = {"MCP_ACCEPT_SDK": how[-1]} if "env" in how else {}
    done = run_cli("run", "--out", str(tmp_path), "--protocol", "2026-07-28",
                   "--server", fixture_command("--break", "total-string"), *args, env=env)
    assert done.returncode == 1, done.stderr
    assert all(v["status"] in (PASS, FAIL) for v in column(tmp_path).values()), column(tmp_path)
    assert load_results(tmp_path)["invocation"]["options"]["sdk"] is True


def test_no_sdk_wins_over_the_environment_and_a_bad_value_is_refused(tmp_path):
    done = run_cli("run", "--out", str(tmp_path / "off"), "--no-sdk", env={"MCP_ACCEPT_SDK": "on"})
    assert done.returncode == 0, done.stderr
    assert set(sdk_reasons(tmp_path / "off").values()) == {"sdk.switched-off"}
    assert all("(--no-sdk)" in v["detail"] for v in column(tmp_path / "off").values())
    bad = run_cli("run", "--out", str(tmp_path / "bad"), env={"MCP_ACCEPT_SDK": "maybe"})
    assert bad.returncode == 2 and "Traceback" not in bad.stderr, bad.stderr
    assert "MCP_ACCEPT_SDK: must be on or off, not 'maybe'" in bad.stderr
    assert not (tmp_path / "bad").exists()


def test_a_rerun_repeats_the_layer_as_it_was_unless_told(tmp_path):
    first = run_cli("run", "--out", str(tmp_path / "first"), "--sdk")
    assert first.returncode == 0, first.stderr
    again = run_cli("rerun", str(tmp_path / "first"), "--out", str(tmp_path / "again"))
    assert again.returncode == 0, again.stderr
    assert all(v["status"] == PASS for v in column(tmp_path / "again").values())
    plain = run_cli("rerun", str(tmp_path / "first"), "--out", str(tmp_path / "plain"), "--no-sdk")
    assert plain.returncode == 0, plain.stderr
    assert set(sdk_reasons(tmp_path / "plain").values()) == {"sdk.switched-off"}
    assert "--sdk" in plain.stderr  # the rerun says it differs from the recorded run there


# -- the replay process ------------------------------------------------------------------------
# A run started from the command line replays in a process of its own, started when the run
# starts (the SDK's import overlaps the recording); a process that has the SDK already replays
# itself. Both must say the same.


def recorded(tmp_path: Path, monkeypatch, *args: str, protocol: str):
    from mcp_accept.running.execute import RunOptions, run

    from mcp_accept.running import sdk_replay as sdk

    sdk.sdk_info.cache_clear()  # with the SDK imported here already, the run would replay in-process
    outcome = run(RunOptions(server=fixture_command(*args), protocol=protocol, out=tmp_path, timeout=5.0, sdk=True))
    return outcome.recording


@pytest.fixture
def fresh_sdk_info():
    """The SDK's availability is cached per process: forget what this test saw of it."""
    from mcp_accept.running import sdk_replay as sdk

    yield
    sdk.sdk_info.cache_clear()


@pytest.mark.parametrize("args", [(), ("--break", "total-string"), ("--break", "content-missing"),
                                  ("--break", "hang")])
def test_the_replay_process_says_what_an_in_process_replay_says(tmp_path, monkeypatch, fresh_sdk_info, args):
    from dataclasses import asdict

    from mcp_accept.running import sdk_replay as sdk

    for era in VERSIONS:
        recording = recorded(tmp_path / era, monkeypatch, *args, protocol=era)
        job = sdk.make_job(recording, 1.0)
        here = sdk.replay_job(job)
        worker = sdk._spawn()
        try:
            there = worker.replay(job)
        finally:
            worker.close()
        assert here.info.available and here.connect.accepted, (era, here.connect)
        assert asdict(there) == asdict(here), (era, args)
        assert worker.peak_rss > 0  # the process said how much memory it took


def test_the_replay_process_ends_quietly_without_a_job():
    done = subprocess.run([sys.executable, "-m", "mcp_accept.running.sdk_worker"], input=b"", capture_output=True,
                          timeout=120)
    assert done.returncode == 0 and done.stdout == b"", done.stderr[-2000:]


def test_a_replay_process_started_early_is_ended_when_the_sheet_has_no_sdk_checks(tmp_path, monkeypatch):
    import yaml

    from mcp_accept.running import sdk_replay as sdk
    from mcp_accept.inputs.sheet import default_sheet_path, load_sheet

    data = yaml.safe_load(default_sheet_path().read_text(encoding="utf-8"))
    for row in data["rows"]:
        row["checks"] = [c for c in row.get("checks", []) if c["layer"] != "sdk"] if "checks" in row else None
        if row["checks"] is None:
            del row["checks"]
    plain = tmp_path / "plain.yaml"
    plain.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")

    sdk.prestart(["--server", "python server.py"])
    assert sdk._early is None  # the layer is off by default: nothing is started
    monkeypatch.setenv("MCP_ACCEPT_SDK", "on")
    sdk.prestart(["--server", "python server.py", "--no-sdk"])
    assert sdk._early is None  # the option wins over the environment
    sdk.prestart(["--sdk", "--sheet", str(plain)])
    assert sdk._early is None  # the sheet never names the layer: nothing is started
    sdk.prestart(["--sdk", "--targets", "fleet.yaml"])
    assert sdk._early is None  # a fleet imports the SDK once for all its runs
    monkeypatch.delenv("MCP_ACCEPT_SDK")
    sdk.prestart(["--server", "python server.py", "--sdk"])  # the default sheet has sdk checks
    early = sdk._early
    assert early is not None and early.proc.poll() is None
    try:
        assert sdk.start_worker(load_sheet(plain), True) is None
        assert sdk._early is None and early.proc.poll() is not None  # taken and ended
    finally:
        early.close()


def test_a_replay_process_that_fails_is_reported_not_raised():
    from mcp_accept.running import sdk_replay as sdk

    dying = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read(); raise RuntimeError('gone')"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    result = sdk.Worker(dying).replay({"era": "2026-07-28", "timeout": 1.0, "steps": [], "answers": []})
    assert result.connect.accepted is None  # the sdk verdicts become UNOBTAINABLE, with the reason
    assert "replay process failed: RuntimeError: gone" in result.connect.detail
    assert dying.poll() is not None


def _processes_with_env(key: str, value: str) -> list[tuple[int, str]]:
    """Every running process whose environment holds ``key=value``, with its command line."""
    from mcp_accept.evidence.bounded import process_running

    wanted = f"{key}={value}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes().split(b"\0")
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if wanted in environ and process_running(int(entry)):
            found.append((int(entry), cmdline))
    return found


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads the process table from /proc")
def test_no_process_outlives_a_run_with_the_sdk_layer_on(tmp_path):
    """The replay process, the server and anything they started are gone once the command has
    returned: every process the run started inherits a mark in its environment, and none that
    carries it is left."""
    mark = f"{os.getpid()}-{tmp_path.name}"
    env = {**os.environ, "MCP_ACCEPT_TEST_MARK": mark}
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "run", "--sdk", "--out", str(tmp_path / "run")],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    replayed = [v for v in column(tmp_path / "run").values() if v["status"] == PASS]
    assert replayed, "the sdk layer replayed nothing"
    assert _processes_with_env("MCP_ACCEPT_TEST_MARK", mark) == []
