"""Option values are read as click reads them, whatever typer's version: a bad number is
refused in click's words.

Each case runs the installed command line in a process of its own, as a user does.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

ENV = {**os.environ, "COLUMNS": "200"}


def cli(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mcp_accept", *args], capture_output=True, text=True,
                          env=ENV, cwd=cwd, timeout=60)


@pytest.mark.parametrize("args, message", [
    (["--timeout", "0"], "Invalid value for '--timeout': 0.0 is not in the range 0.1<=x<=86400.0."),
    (["--timeout", "abc"], "Invalid value for '--timeout': 'abc' is not a valid float range."),
    (["--max-bytes", "12"], "Invalid value for '--max-bytes': 12 is not in the range 1024<=x<=4294967296."),
    (["--jobs", "1.5"], "Invalid value for '--jobs': '1.5' is not a valid int range."),
])
def test_a_bad_value_is_one_line_in_clicks_words(tmp_path, args, message):
    done = cli("run", *args, "--out", str(tmp_path / "run"), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == f"mcp-accept: error: {message}\n"
    assert not (tmp_path / "run").exists()


def test_values_reach_the_command_typed(tmp_path):
    # the command's own check (--protocol) runs after every value was read: the values it
    # got are printed
    probe = textwrap.dedent("""
        import sys
        from mcp_accept import cli
        seen = {}
        import mcp_accept.running.execute as execute
        def capture(opts):
            seen.update(vars(opts))
            raise SystemExit(0)
        execute.run = capture
        sys.argv = ["mcp-accept", "run", "--timeout", "2.5", "--max-bytes", "4096", "--header", "A: b",
                    "--header", "C: d", "--out", "x/y", "-q"]
        try:
            cli.main()
        except SystemExit:
            pass
        print(repr((seen["timeout"], seen["max_bytes"], seen["headers"], type(seen["out"]).__name__,
                    str(seen["out"]))))
    """)
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=ENV, cwd=tmp_path,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "(2.5, 4096, ['A: b', 'C: d'], 'PosixPath', 'x/y')"


def test_a_command_named_first_parses_as_it_does_among_all_the_others(tmp_path):
    # only the command named first is built; its errors, help and the root's suggestions are
    # those of the whole application
    assert "No such option: --bogus" in cli("run", "--bogus", cwd=tmp_path).stderr
    assert "Did you mean 'run'?" in cli("rn", cwd=tmp_path).stderr
    whole = cli("--help", cwd=tmp_path).stdout
    assert "run" in whole and "report" in whole and "host" in whole
    assert cli("run", "--help", cwd=tmp_path).stdout.startswith("Usage: mcp-accept run [OPTIONS]")
    assert cli("host", "config", "--help", cwd=tmp_path).stdout.startswith("Usage: mcp-accept host config")
