"""Secrets, round two: a server that echoes every credential back in every form it can
(headers on stdout and stderr, one of them split across the 64 KiB read boundary of
stderr, base64- and URL-encoded in results, the URL's query in its error text after 150
characters, a pipe in a value that Markdown escapes). Every file of the run folder and the
console are searched for every secret in plain, URL-encoded and base64 forms."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from faultkit import assert_complete, assert_no_secret, hostile, measured, process_gone, read_pids, tree_text

HTTP = "Streamable HTTP"
BEARER = "mcpa7Q2xL9vR4tK8wZ1nB6yH3jF5dS0gP"
ENV_KEY = "sk-mcpaTEST9f8e7d6c5b4a3210zyxw"
PIPED = "pipe|secret|value-77aa"  # a Markdown cell escapes "|": redaction must come first
URL_USER, URL_PASSWORD = "mcpa", "pw-mcpa-55ac10de"
QUERY_TOKEN = "qtok-0c9b8a7f6e5d"
QUERY_KEY = "qkey-1a2b3c4d5e6f"


def test_echoed_secrets_never_reach_a_file_or_the_console(tmp_path: Path, monkeypatch, held_port) -> None:
    monkeypatch.setenv("MCPA_REDACT_KEY", ENV_KEY)
    folder, port, pidfile = tmp_path / "run", held_port(), tmp_path / "pid"
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
    assert got["rss_mib"] < 1024, got  # its time: benchmarks/hostile.py (h14)


WRAP_TOKEN = "Zq9x-6f1d2c3b4a5e6f7081928374-wrapTok"


def _unwrapped(text: str) -> str:
    """``text`` with its line breaks removed, raw and JSON-escaped: where a wrapped base64
    block stood, its one-line form."""
    for brk in ("\\r", "\\n", "\r", "\n"):
        text = text.replace(brk, "")
    return text


def _start(cut_left: int, tmp_path: Path, port: int) -> tuple[dict, Path, Path]:
    folder, pidfile = tmp_path / "run", tmp_path / "pid"
    # the error text is cut at 200 characters: the token starts ``cut_left`` characters before it
    got = measured(["run", "--url", f"http://127.0.0.1:{port}/mcp",
                    "--server", hostile("--http", port, "--mode", "echo", "--pidfile", pidfile,
                                        "--on", "tools/call:search_embedded", "--pad", 199 - cut_left,
                                        "--echo-header", "X-Wrap-Token"),
                    "--header", f"X-Wrap-Token: {WRAP_TOKEN}",
                    "--out", str(folder), "--timeout", "10"], tmp_path / "console")
    return got, folder, pidfile


@pytest.mark.parametrize("cut_left", [4, 9, 20, len(WRAP_TOKEN) - 1, len(WRAP_TOKEN) + 1])
def test_secret_across_the_cut_of_an_error_and_wrapped_base64(cut_left: int, tmp_path: Path, held_port) -> None:
    """The server echoes a header in an error text whose cut (200 characters) falls inside
    the value, and as line-wrapped base64 (MIME with LF and CRLF, PEM) in its result and on
    stderr (one line per read). No form of the value reaches a file or the console, the
    fragment before the cut included."""
    got, folder, pidfile = _start(cut_left, tmp_path, held_port())
    try:
        assert got["code"] in (0, 1), got["stderr"][-2000:]
        results = assert_complete(folder, transport=HTTP)
        assert_no_secret([WRAP_TOKEN], folder, got["stdout"], got["stderr"])
        every = tree_text(folder) + got["stdout"] + got["stderr"]
        kept = min(cut_left, len(WRAP_TOKEN))
        if kept >= 4:  # four characters of it are enough to mask at a cut
            assert WRAP_TOKEN[:kept] not in every, "the part of the token before the cut leaked"
        flat = _unwrapped(every)
        for lead in range(3):
            data = ("#" * lead + "wrapped: " + "w" * 60 + WRAP_TOKEN).encode()
            encoded = base64.b64encode(data).decode()
            tail = encoded[-(len(WRAP_TOKEN) * 4 // 3 - 4):]  # characters that depend on the token
            assert tail not in flat, f"wrapped base64 of the token leaked (alignment {lead})"
        rows = {row["id"]: row for row in results["rows"]}
        assert "[REDACTED]" in rows["E01"]["reason"], rows["E01"]["reason"]  # the echo happened
        wire = (folder / "wire.jsonl").read_text()
        assert "echo-mime-0" in wire and "echo-pem-2" in wire and "[REDACTED]" in wire
    finally:
        for pid in read_pids(pidfile):
            assert process_gone(pid)
