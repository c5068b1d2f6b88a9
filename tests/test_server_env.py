"""What of the user's environment a server that mcp-accept starts is given: by default what the
official MCP SDKs' stdio clients give (HOME, LOGNAME, PATH, SHELL, TERM, USER), so that a key in
the user's environment never reaches a server that echoes its environment into the run folder;
``--env NAME`` passes one through, ``--env NAME=VALUE`` sets one (masked wherever it appears),
``--inherit-env`` gives all of it. The server here reports its environment on its stderr and in
its answer to initialize; each test reads the run folder it wrote."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from conftest import ROOT, port_holder, run_cli

ENV_SERVER = ROOT / "tests" / "servers" / "env_server.py"
DECOY = "mcpa-decoy-7c1e0b9a5f3d2e4b6a8c"  # a secret of the user's that the server must not see
SET_VALUE = "mcpa-set-0d9f8e7c6b5a4d3c2b1a"


def server_command(*args: str) -> str:
    return shlex.join([sys.executable, str(ENV_SERVER), *args])


def tree_text(folder: Path) -> str:
    return "\n".join(path.read_bytes().decode("utf-8", "backslashreplace")
                     for path in sorted(folder.rglob("*")) if path.is_file())


def seen(folder: Path, report: str = "stderr.log") -> dict:
    """The environment the server reported on its stderr (or in the file ``--report`` named)."""
    for line in (folder / report).read_text(encoding="utf-8").splitlines():
        if line.startswith("environment: "):
            return json.loads(line.removeprefix("environment: "))
    raise AssertionError("the server reported no environment")


def run(tmp_path: Path, name: str, *args: str, server: str | None = None, env: dict | None = None):
    folder = tmp_path / name
    done = run_cli("run", "--server", server or server_command(), "--out", str(folder), *args,
                   env={"MCPA_DECOY_KEY": DECOY, **(env or {})})
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    results = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    return folder, results, done


def test_by_default_the_server_gets_the_sdk_default_variables_and_no_secret(tmp_path):
    folder, results, done = run(tmp_path, "default")
    got = seen(folder)
    assert "MCPA_DECOY_KEY" not in got
    assert DECOY not in tree_text(folder) and DECOY not in done.stdout + done.stderr
    assert "PATH" in got and "HOME" in got
    # what the SDKs pass, and LC_CTYPE, which Python sets for itself in the C locale (PEP 538)
    assert set(got) <= {"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LC_CTYPE"}, sorted(got)
    environment = results["invocation"]["target"]["environment"]
    assert environment == {"inherited": False, "names": environment["names"], "passed": [], "set": []}
    assert set(environment["names"]) <= {"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"}
    assert "PATH" in environment["names"]


def test_env_name_passes_one_variable_through_and_masks_its_value(tmp_path):
    folder, results, _ = run(tmp_path, "passed", "--env", "MCPA_DECOY_KEY")
    got = seen(folder)
    assert got["MCPA_DECOY_KEY"] == "[REDACTED]"  # it reached the server; its value is masked
    wire = (folder / "wire.jsonl").read_text(encoding="utf-8")
    assert "MCPA_DECOY_KEY" in wire and DECOY not in tree_text(folder)
    environment = results["invocation"]["target"]["environment"]
    assert environment["passed"] == ["MCPA_DECOY_KEY"] and "MCPA_DECOY_KEY" in environment["names"]


def test_env_name_value_sets_one_and_its_value_is_in_no_file_of_the_run_folder(tmp_path):
    folder, results, done = run(tmp_path, "set", "--env", f"MCPA_SET={SET_VALUE}")
    got = seen(folder)
    assert got["MCPA_SET"] == "[REDACTED]" and "MCPA_DECOY_KEY" not in got
    assert '\\"MCPA_SET\\": \\"[REDACTED]\\"' in (folder / "wire.jsonl").read_text(encoding="utf-8")
    everything = tree_text(folder)
    assert SET_VALUE not in everything and SET_VALUE not in done.stdout + done.stderr
    assert DECOY not in everything
    environment = results["invocation"]["target"]["environment"]
    assert environment["set"] == ["MCPA_SET"] and environment["passed"] == []


def test_inherit_env_gives_the_whole_environment_and_says_so(tmp_path):
    folder, results, _ = run(tmp_path, "inherited", "--inherit-env")
    assert seen(folder)["MCPA_DECOY_KEY"] == DECOY  # the old behaviour: nothing masks it
    environment = results["invocation"]["target"]["environment"]
    assert environment["inherited"] is True and "MCPA_DECOY_KEY" in environment["names"]


def test_a_server_started_for_a_url_is_given_the_same(tmp_path):
    with port_holder() as hold:
        port = hold()
        folder, results, _ = run(tmp_path, "http", "--url", f"http://127.0.0.1:{port}/mcp",
                                 "--env", f"MCPA_SET={SET_VALUE}",
                                 server=server_command("--http", str(port)))
    got = seen(folder)
    assert "MCPA_DECOY_KEY" not in got and got["MCPA_SET"] == "[REDACTED]"
    assert DECOY not in tree_text(folder) and SET_VALUE not in tree_text(folder)
    assert results["invocation"]["target"]["environment"]["set"] == ["MCPA_SET"]


def test_rerun_gives_the_server_what_it_had_and_asks_again_for_a_value_set(tmp_path):
    first, _, _ = run(tmp_path, "first", "--env", "MCPA_DECOY_KEY", "--env", f"MCPA_SET={SET_VALUE}")
    env = {"MCPA_DECOY_KEY": DECOY}
    refused = run_cli("rerun", str(first), "--out", str(tmp_path / "no"), env=env)
    assert refused.returncode == 2
    assert refused.stderr.strip() == ("mcp-accept: error: --env: the run set the server's variable MCPA_SET, "
                                      "whose value is never recorded: give it again with --env MCPA_SET=VALUE")
    again = tmp_path / "again"
    done = run_cli("rerun", str(first), "--out", str(again), "--env", f"MCPA_SET={SET_VALUE}", env=env)
    assert done.returncode == 0, done.stderr
    got = seen(again)
    assert got["MCPA_DECOY_KEY"] == got["MCPA_SET"] == "[REDACTED]"
    assert SET_VALUE not in tree_text(again) and DECOY not in tree_text(again)
    assert "differ" not in done.stderr


def test_profile_init_gives_the_server_the_default_variables_too(tmp_path):
    out = tmp_path / "profile.yaml"
    done = run_cli("profile", "init", "--server", server_command("--report", str(tmp_path / "plain.txt")),
                   "--out", str(out), env={"MCPA_DECOY_KEY": DECOY})
    assert done.returncode == 0, done.stderr
    assert "MCPA_DECOY_KEY" not in seen(tmp_path, "plain.txt") and "PATH" in seen(tmp_path, "plain.txt")
    assert DECOY not in out.read_text(encoding="utf-8") + done.stdout + done.stderr
    passed = run_cli("profile", "init", "--server", server_command("--report", str(tmp_path / "given.txt")),
                     "--out", str(tmp_path / "p2.yaml"), "--env", "MCPA_DECOY_KEY", env={"MCPA_DECOY_KEY": DECOY})
    assert passed.returncode == 0, passed.stderr
    assert seen(tmp_path, "given.txt")["MCPA_DECOY_KEY"] == DECOY  # the server's own file: not masked


@pytest.mark.parametrize("item, message", [
    ("MCPA_NOT_SET_ANYWHERE", "--env: MCPA_NOT_SET_ANYWHERE is not set in this environment: set it, or give "
                              "MCPA_NOT_SET_ANYWHERE=VALUE"),
    ("1BAD=x", "--env: '1BAD' is not a variable name: give NAME or NAME=VALUE"),
])
def test_a_bad_env_item_is_one_line_naming_the_option_and_exit_2(tmp_path, item, message):
    done = run_cli("run", "--server", server_command(), "--env", item, "--out", str(tmp_path / "r"))
    assert done.returncode == 2
    assert done.stderr.strip() == f"mcp-accept: error: {message}"
    assert not (tmp_path / "r").exists()


def test_env_without_a_started_server_is_refused(tmp_path):
    done = run_cli("run", "--url", "http://127.0.0.1:9/mcp", "--env", "PATH", "--out", str(tmp_path / "r"))
    assert done.returncode == 2
    assert done.stderr.strip() == ("mcp-accept: error: --env: a server started by mcp-accept is given an "
                                   "environment: with --url, give --server too")


def test_a_targets_file_passes_variables_by_name_to_its_servers(tmp_path):
    targets = tmp_path / "targets.yaml"
    targets.write_text("targets:\n"
                       f"  - name: given\n    server: {json.dumps(server_command())}\n    env: [MCPA_DECOY_KEY]\n"
                       f"  - name: plain\n    server: {json.dumps(server_command())}\n", encoding="utf-8")
    done = run_cli("run", "--targets", str(targets), "--out", str(tmp_path / "fleet"), env={"MCPA_DECOY_KEY": DECOY})
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert seen(tmp_path / "fleet" / "given")["MCPA_DECOY_KEY"] == "[REDACTED]"
    assert "MCPA_DECOY_KEY" not in seen(tmp_path / "fleet" / "plain")
    assert DECOY not in tree_text(tmp_path / "fleet")


def test_the_built_in_fixture_runs_with_the_default_variables(tmp_path):
    folder = tmp_path / "builtin"
    done = run_cli("run", "--out", str(folder), env={"MCPA_DECOY_KEY": DECOY})
    assert done.returncode == 0, done.stderr
    results = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    assert results["summary"]["FAIL"] == 0
    assert "MCPA_DECOY_KEY" not in results["invocation"]["target"]["environment"]["names"]
