"""`observe --transcript FILE --format claude-code-stream-json` on a proxy run folder.

A raw host talks to the marker fixture through the recording proxy; the transcript is
written the way `claude -p --output-format stream-json --verbose` prints one (system init,
assistant tool_use, user tool_result, result), holding what this host handed its model.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import fixture_command, load_results, run_cli


def proxy_session(tmp_path: Path) -> tuple[Path, Path, dict]:
    log = tmp_path / "fixture-log"
    out = tmp_path / "runs"
    proc = subprocess.Popen([sys.executable, "-m", "mcp_accept", "proxy", "--server",
                             fixture_command("--markers", "--log", str(log)), "--out", str(out)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    answers: dict = {}

    def ask(n, method, params):
        proc.stdin.write((json.dumps({"jsonrpc": "2.0", "id": n, "method": method, "params": params}) + "\n").encode())
        proc.stdin.flush()
        return json.loads(proc.stdout.readline())["result"]

    ask(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                          "clientInfo": {"name": "claude-code", "version": "2.0.0"}})
    for n, tool in enumerate(("search_text", "search_structured", "search_embedded", "search_link"), 1):
        answers[tool] = ask(n, "tools/call", {"name": tool, "arguments": {"q": "MCP"}})
    uri = answers["search_link"]["content"][0]["uri"]
    answers["read"] = ask(9, "resources/read", {"uri": uri})
    proc.stdin.close()
    assert proc.wait(timeout=30) == 0
    [folder] = [p for p in out.iterdir() if p.is_dir()]
    return folder, log, answers


def stream_json(answers: dict) -> str:
    """A host that hands its model the text item, structuredContent (not its twin), not the
    embedded resource, and the link's body cut to its first 100 characters (head token in, tail token out)."""
    structured = answers["search_structured"]["structuredContent"]
    handed = {
        "search_text": [{"type": "text", "text": answers["search_text"]["content"][0]["text"]}],
        "search_structured": json.dumps(structured),
        "search_embedded": [{"type": "text", "text": "[embedded resource omitted]"}],
        "search_link": [{"type": "text", "text": answers["read"]["contents"][0]["text"][:100] + "…"}],
    }
    lines = [{"type": "system", "subtype": "init", "session_id": "s1", "model": "claude-sonnet",
              "mcp_servers": [{"name": "mcp-accept-proxy", "status": "connected"}]}]
    for n, (tool, content) in enumerate(handed.items()):
        lines.append({"type": "assistant", "session_id": "s1", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": f"toolu_{n}", "name": f"mcp__mcp-accept-proxy__{tool}",
             "input": {"q": "MCP"}}]}})
        lines.append({"type": "user", "session_id": "s1", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": content}]}})
    lines.append({"type": "assistant", "session_id": "s1", "message": {"role": "assistant", "content": [
        {"type": "text", "text": "Two hits were found."}]}})
    lines.append({"type": "result", "subtype": "success", "is_error": False, "result": "Two hits were found."})
    return "".join(json.dumps(line) + "\n" for line in lines)


def test_a_claude_code_transcript_fills_h01_and_h02_on_a_proxy_run(tmp_path):
    folder, log, answers = proxy_session(tmp_path)
    transcript = tmp_path / "claude.jsonl"
    transcript.write_text(stream_json(answers), encoding="utf-8")
    done = run_cli("observe", str(folder), "--transcript", str(transcript), "--format",
                   "claude-code-stream-json", "--fixture-log", str(log))
    assert done.returncode == 0, done.stderr
    results = load_results(folder)
    rows = {r["id"]: r for r in results["rows"]}
    h01, h02 = rows["H01"], rows["H02"]
    assert h01["observed"]["mode"] == "transcript"
    assert h01["observed"]["forms"] == {"text": "reached", "structured": "reached",
                                        "embedded": "not seen in the answer"}
    assert h01["observed"]["twin"] == "not seen in the answer"
    assert h01["status"] == "UNOBTAINABLE"  # an absent token is no proof: never FAIL
    assert h02["observed"]["forms"] == {"link": "reached, cut"}
    assert h02["status"] == "PASS" and "cut short" in h02["reason"]
    assert results["conditions"]["model_visible_capture_method"] == "debug trace"
    # The person's part joined the wire facts the proxy recorded.
    assert h02["observed"]["wire"]["links"][0]["read"] is True
    assert results["conditions"]["host_product"] == "claude-code"
    detail = json.loads((folder / "rows" / "H01.json").read_text(encoding="utf-8"))
    assert detail["transcript"]["tool_results"] == 4
    tokens = json.loads((log / "markers.json").read_text(encoding="utf-8"))["markers"]
    where = detail["forms"]["text"]["in_answer"][tokens["text"]]["lines"]
    text_lines = [n for n, line in enumerate(transcript.read_text(encoding="utf-8").splitlines(), 1)
                  if tokens["text"] in line]
    assert where == text_lines  # lines of the transcript file


def test_a_bad_transcript_line_is_named(tmp_path):
    folder, log, answers = proxy_session(tmp_path)
    transcript = tmp_path / "claude.jsonl"
    transcript.write_text(stream_json(answers) + "{cut short\n", encoding="utf-8")
    before = (folder / "results.json").read_bytes()
    done = run_cli("observe", str(folder), "--transcript", str(transcript), "--format",
                   "claude-code-stream-json", "--fixture-log", str(log))
    assert done.returncode == 2 and not done.stdout
    [line] = done.stderr.splitlines()
    assert f"{transcript}:12: not JSON" in line
    assert (folder / "results.json").read_bytes() == before
    done = run_cli("observe", str(folder), "--transcript", str(transcript), "--format", "vscode-log",
                   "--fixture-log", str(log))
    assert done.returncode == 2 and "--format: must be one of claude-code-stream-json" in done.stderr
    done = run_cli("observe", str(folder), "--transcript", str(transcript))
    assert done.returncode == 2 and "--format: --transcript FILE and --format NAME go together" in done.stderr


def test_a_transcript_that_cannot_be_read_is_named_as_the_transcript(tmp_path):
    folder, log, _answers = proxy_session(tmp_path)
    for path, says in ((tmp_path / "missing.jsonl", "no such file"), (tmp_path / "empty.jsonl", "the transcript is empty")):
        if path.name == "empty.jsonl":
            path.write_text("\n", encoding="utf-8")
        done = run_cli("observe", str(folder), "--transcript", str(path), "--format", "claude-code-stream-json",
                       "--fixture-log", str(log))
        assert done.returncode == 2 and not done.stdout
        [line] = done.stderr.splitlines()
        assert line == f"mcp-accept: error: {path}: --transcript: {says}", line
        assert "--answer" not in line
