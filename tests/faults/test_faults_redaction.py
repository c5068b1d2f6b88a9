"""Secrets, round two: a server that echoes every credential back in every form it can
(headers on stdout and stderr, one of them split across the 64 KiB read boundary of
stderr, base64- and URL-encoded in results, the URL's query in its error text after 150
characters, a pipe in a value that Markdown escapes). Every file of the run folder and the
console are searched for every secret in plain, URL-encoded and base64 forms."""

from __future__ import annotations

from pathlib import Path

from conftest import free_port
from faultkit import assert_complete, assert_no_secret, hostile, measured, process_gone, read_pids

HTTP = "Streamable HTTP"
BEARER = "mcpa7Q2xL9vR4tK8wZ1nB6yH3jF5dS0gP"
ENV_KEY = "sk-mcpaTEST9f8e7d6c5b4a3210zyxw"
PIPED = "pipe|secret|value-77aa"  # a Markdown cell escapes "|": redaction must come first
URL_USER, URL_PASSWORD = "mcpa", "pw-mcpa-55ac10de"
QUERY_TOKEN = "qtok-0c9b8a7f6e5d"
QUERY_KEY = "qkey-1a2b3c4d5e6f"


def test_echoed_secrets_never_reach_a_file_or_the_console(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("MCPA_REDACT_KEY", ENV_KEY)
    folder, port, pidfile = tmp_path / "run", free_port(), tmp_path / "pid"
    url = (f"http://{URL_USER}:{URL_PASSWORD}@127.0.0.1:{port}/mcp"
           f"?token={QUERY_TOKEN}&api_key={QUERY_KEY}&page=2")
    got = measured(["run", "--url", url,
                    "--server", hostile("--http", port, "--mode", "echo", "--pidfile", pidfile,
                                        "--on", "tools/call:search_embedded"),
                    "--header", f"X-Upstream-Auth: Bearer {BEARER}",
                    "--header", "X-Api-Key: env:MCPA_REDACT_KEY",
                    "--header", f"X-Piped: {PIPED}",
                    "--out", str(folder), "--timeout", "10"], tmp_path / "console")
    assert got["code"] in (0, 1), got["stderr"][-2000:]
    results = assert_complete(folder, transport=HTTP)
    basic_pair = f"{URL_USER}:{URL_PASSWORD}"
    assert_no_secret([BEARER, ENV_KEY, PIPED, URL_PASSWORD, basic_pair, QUERY_TOKEN, QUERY_KEY],
                     folder, got["stdout"], got["stderr"])
    # The echo happened (masked), or this test would prove nothing.
    stderr_log = (folder / "stderr.log").read_text()
    assert "request headers:" in stderr_log and "[REDACTED]" in stderr_log
    wire = (folder / "wire.jsonl").read_text()
    assert "echo-base64" in wire and "echo-url" in wire and "[REDACTED]" in wire
    assert "page=2" in wire, "a query parameter that is no secret is kept"
    rows = {row["id"]: row for row in results["rows"]}
    assert rows["E01"]["status"] == "FAIL", rows["E01"]  # the error that carried the secrets
    for pid in read_pids(pidfile):
        assert process_gone(pid)
    assert got["seconds"] < 120 and got["rss_mib"] < 1024, got
