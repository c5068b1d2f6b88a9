"""A stranger's first minutes: a server that cannot be reached says why once, a server that
writes to its stdout what is no message is named at once, a profile that names a tool the
server does not list stops the run before any call, the help is there however it is asked
for (and names every group's commands), and a targets file works from any folder."""

from __future__ import annotations

import json
import shlex
import shutil
import sys
import textwrap
from pathlib import Path

from conftest import FIXTURE, ROOT, SERVERS, fixture_command, load_results, refused_port, run_cli, statuses

from mcp_accept.errors import ExitStatus
from mcp_accept.evidence.files import FolderLock

AUTOMATED = ("W01", "W02", "W03", "T01", "S01", "S02", "S03", "E01", "L01", "L02", "L03", "X01")


def one_error_line(proc) -> str:
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("mcp-accept: error: ")
    assert "Traceback" not in proc.stderr
    return lines[0]


def assert_said_once(folder: Path, line: str) -> None:
    results = load_results(folder)
    cause = results["cause"]
    assert cause in line  # the command line shows the cause results.json keeps
    automated = [r for r in results["rows"] if r["id"] in AUTOMATED]
    assert automated and {r["status"] for r in automated} == {"UNOBTAINABLE"}
    for row in automated:  # every row points at the run's cause instead of repeating it
        assert row["reason"].startswith("see run: ") and cause not in row["reason"]


def test_a_server_command_that_does_not_exist(tmp_path):
    proc = run_cli("run", "--server", "no-such-command-xyz --flag", "--out", str(tmp_path / "o"))
    assert proc.returncode == ExitStatus.SERVER
    line = one_error_line(proc)
    assert "no-such-command-xyz" in line and "No such file or directory" in line
    assert proc.stdout == ""  # no table of eleven identical reasons
    assert_said_once(tmp_path / "o", line)


def test_a_url_with_nothing_listening(tmp_path):
    with refused_port() as port:
        url = f"http://127.0.0.1:{port}/mcp"
        proc = run_cli("run", "--url", url, "--timeout", "2", "--out", str(tmp_path / "o"))
    assert proc.returncode == ExitStatus.SERVER
    line = one_error_line(proc)
    assert url in line and "refused" in line.lower()
    assert_said_once(tmp_path / "o", line)


def test_a_server_that_exits_names_its_exit_code_and_the_end_of_its_stderr(tmp_path):
    script = tmp_path / "dies.py"
    script.write_text("import sys\nsys.stderr.write('starting\\nfatal: no config file\\n')\nsys.exit(4)\n")
    command = shlex.join([sys.executable, str(script)])
    proc = run_cli("run", "--server", command, "--out", str(tmp_path / "o"))
    assert proc.returncode == ExitStatus.SERVER
    line = one_error_line(proc)
    assert str(script) in line and "code 4" in line and "fatal: no config file" in line
    assert_said_once(tmp_path / "o", line)


def test_an_answer_over_max_bytes_says_so(tmp_path):
    script = tmp_path / "big.py"
    script.write_text(textwrap.dedent("""\
        import json, sys
        for line in sys.stdin:
            message = json.loads(line)
            if "id" in message:
                print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": {"x": "a" * 5000}}),
                      flush=True)
        """))
    proc = run_cli("run", "--server", shlex.join([sys.executable, str(script)]), "--max-bytes", "1024",
                   "--timeout", "1", "--out", str(tmp_path / "o"))
    assert proc.returncode == ExitStatus.SERVER
    line = one_error_line(proc)
    assert "exceeds --max-bytes 1024" in line and "no answer" in line


def test_help_however_it_is_asked_for():
    bare = run_cli()
    assert bare.returncode == 0 and bare.stderr == ""
    assert bare.stdout.startswith("Usage: mcp-accept") and "\n  run " in bare.stdout  # readable, not one line
    short = run_cli("-h")
    assert short.returncode == 0 and short.stdout == run_cli("--help").stdout
    assert run_cli("run", "-h").stdout == run_cli("run", "--help").stdout
    sub = run_cli("schemas")
    assert sub.returncode == 0 and "fetch" in sub.stdout and "list" in sub.stdout


def test_a_targets_file_works_from_another_folder(tmp_path):
    # The file's folder holds the server and the profile; the run starts elsewhere.
    here = tmp_path / "suite"
    here.mkdir()
    shutil.copy(FIXTURE, here / "fixture.py")
    (here / "server.py").write_text(textwrap.dedent("""\
        import os, runpy, sys
        sys.stderr.write("cwd=" + os.getcwd() + "\\n")
        sys.argv = ["fixture.py"]
        runpy.run_path("fixture.py", run_name="__main__")
        """))
    profile = run_cli("profile", "init", "--server", shlex.join([sys.executable, str(FIXTURE)]))
    assert profile.returncode == 0, profile.stderr
    (here / "profiles").mkdir()
    (here / "profiles" / "mine.yaml").write_text(profile.stdout)
    (here / "targets.yaml").write_text(textwrap.dedent(f"""\
        targets:
          - name: local
            server: {json.dumps(shlex.join([sys.executable, "server.py"]))}
            profile: profiles/mine.yaml
        """))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = run_cli("run", "--targets", str(here / "targets.yaml"), "--out", "runs", "--jobs", "1",
                   cwd=elsewhere)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    folder = elsewhere / "runs" / "local"
    results = load_results(folder)
    assert results["profile"] == "mcp-accept-fixture"
    assert statuses(results)["T01"] == "PASS" and statuses(results)["L02"] == "PASS"
    # the server ran in the targets file's folder
    assert f"cwd={here.resolve()}" in (folder / "stderr.log").read_text()


def test_a_given_condition_the_wire_contradicts_is_kept_beside_it_with_a_warning(tmp_path):
    proc = run_cli("run", "--out", str(tmp_path / "o"), "--set", "server_name=my-server",
                   "--set", "model_and_settings=model-x")
    assert proc.returncode in (0, 1), proc.stderr
    results = load_results(tmp_path / "o")
    assert results["conditions"]["server_name"] == "mcp-accept-fixture"  # what the wire showed
    assert results["conditions_given"] == {"server_name": "my-server"}  # what was given, kept
    assert results["conditions"]["model_and_settings"] == "model-x"  # the wire cannot show it
    warnings = [line for line in proc.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "server_name" in warnings[0] and "my-server" in warnings[0]
    # the evidence condition names the run folder, relative, so it stays true when moved
    assert results["conditions"]["evidence_path_or_id"] == "o"


# -- a server's stdout that is no message -----------------------------------------------------

NOISE = "the server wrote 'hello' to stdout, which is not JSON-RPC; MCP's stdio transport allows only messages there"


def noisy(*args: str) -> str:
    return shlex.join([sys.executable, str(SERVERS / "stdout_noise.py"), *args])


def wire_entries(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "wire.jsonl").read_text(encoding="utf-8").splitlines()]


def test_a_server_that_writes_to_stdout_and_never_answers_is_named_at_the_first_timeout(tmp_path):
    folder = tmp_path / "o"
    proc = run_cli("run", "--server", noisy("--silent"), "--timeout", "2", "--out", str(folder))
    assert proc.returncode == ExitStatus.SERVER
    line = one_error_line(proc)
    assert NOISE in line and "no answer within 2s" in line
    assert ("docs/specification/2025-11-25/basic/transports.mdx#stdio: \"The server MUST NOT write anything "
            "to its stdout that is not a valid MCP message\"") in line
    entries = wire_entries(folder)
    # one request, one timeout, one start: no other opening tried, no second server started
    assert [e["message"]["method"] for e in entries if e["dir"] == "out" and "id" in e.get("message", {})] \
        == ["server/discover"]
    assert sum(e.get("event") == "timeout" for e in entries) == 1
    assert sum(e.get("event") == "spawn" for e in entries) == 1
    assert [e["kind"] for e in entries if e.get("event") == "violation"] == ["stdout-noise"]
    assert_said_once(folder, line)
    for row in load_results(folder)["rows"]:
        if row["id"] in AUTOMATED:
            assert NOISE in row["reason"], row
    assert not (folder / FolderLock.NAME).exists()


def test_a_server_that_writes_to_stdout_and_then_answers_fails_w01_naming_the_line(tmp_path):
    folder = tmp_path / "o"
    proc = run_cli("run", "--server", noisy(), "--lang", "ja", "--out", str(folder))
    assert proc.returncode == ExitStatus.FAILED, proc.stderr
    rows = {row["id"]: row for row in load_results(folder)["rows"]}
    assert rows["W01"]["status"] == "FAIL" and NOISE in rows["W01"]["reason"]
    assert statuses(load_results(folder))["T01"] == "PASS"  # it answered: the rest was judged
    assert "サーバーが標準出力に「hello」を書いた" in (folder / "sheet.md").read_text(encoding="utf-8")


# -- a profile checked against the server -----------------------------------------------------

def test_a_profile_naming_a_tool_the_server_does_not_list_stops_before_any_call(tmp_path):
    profile = tmp_path / "mine.yaml"
    profile.write_text("profile: mine\ntools:\n  text:\n    name: search_txt\n    arguments: {q: MCP}\n")
    folder = tmp_path / "o"
    proc = run_cli("run", "--profile", str(profile), "--fail-on", "must", "--out", str(folder))
    assert proc.returncode == ExitStatus.BAD_INPUT, proc.stdout + proc.stderr
    line = one_error_line(proc)
    assert line.startswith(f"mcp-accept: error: {profile}:4: tools.text.name: ")
    assert '"search_txt"' in line and 'did you mean "search_text"' in line
    assert proc.stdout == ""
    entries = wire_entries(folder)
    sent = [e["message"]["method"] for e in entries if e["dir"] == "out" and "id" in e.get("message", {})]
    assert "tools/list" in sent and "tools/call" not in sent  # stopped after tools/list, before any call
    results = load_results(folder)  # the folder is whole and says why
    assert results["cause"] in line
    assert {r["status"] for r in results["rows"] if r["id"] in AUTOMATED} == {"UNOBTAINABLE"}
    assert not (folder / FolderLock.NAME).exists()


def test_a_server_that_does_not_answer_tools_list_keeps_the_profile_unchecked(tmp_path):
    profile = tmp_path / "mine.yaml"
    profile.write_text("profile: mine\ntools:\n  text: {name: search_txt, arguments: {q: MCP}}\n")
    server = shlex.join([sys.executable, str(ROOT / "tests" / "faults" / "servers" / "misbehave.py"),
                         "--mode", "hang", "--on", "tools/list"])
    folder = tmp_path / "o"
    proc = run_cli("run", "--server", server, "--profile", str(profile), "--timeout", "1", "--out", str(folder))
    assert proc.returncode != ExitStatus.BAD_INPUT, proc.stderr
    # nothing listed proves nothing: the run goes on, calls the tool, and T01 says what came back
    called = [e["message"]["params"].get("name") for e in wire_entries(folder)
              if e["dir"] == "out" and e.get("message", {}).get("method") == "tools/call"]
    assert "search_txt" in called
    rows = {row["id"]: row for row in load_results(folder)["rows"]}
    assert "search_txt" in rows["T01"]["reason"]


def test_an_unknown_key_in_a_profile_is_named_with_its_line(tmp_path):
    profile = tmp_path / "mine.yaml"
    profile.write_text("profile: mine\ntools:\n  text: {name: search_text}\ntwinn: exact\n")
    proc = run_cli("run", "--profile", str(profile), "--out", str(tmp_path / "o"))
    assert proc.returncode == ExitStatus.BAD_INPUT
    line = one_error_line(proc)
    assert line.startswith(f"mcp-accept: error: {profile}:4: twinn: unknown field")
    assert not (tmp_path / "o").exists()  # refused before any folder was made


def test_the_help_names_the_host_commands():
    proc = run_cli("--help")
    host = next(line for line in proc.stdout.splitlines() if line.strip().startswith("host "))
    assert "host test" in host and "host matrix" in host


def test_a_finished_run_leaves_no_lock_file(tmp_path):
    folder = tmp_path / "o"
    proc = run_cli("run", "--server", fixture_command(), "--out", str(folder))
    assert proc.returncode == ExitStatus.OK, proc.stderr
    assert (folder / "results.json").is_file() and not (folder / FolderLock.NAME).exists()
    again = run_cli("run", "--server", fixture_command(), "--out", str(folder))  # the folder is free again
    assert again.returncode == ExitStatus.OK, again.stderr
