"""`mcp-accept host matrix`: every installed host side by side against the fixture, one table
(matrix.json, Markdown and HTML in English and Japanese) with a row per host; a host that is
not installed is a row that says so, not an error."""

from __future__ import annotations

import html.parser
import json
import os
import subprocess
import sys
from pathlib import Path
from unittest import mock

import pytest

from mcp_accept.hosts.registry import ADAPTERS
from hostkit import HOSTS_BIN, PINNED, PYPI_VENVS, ROOT, processes_mentioning

# the npm hosts, each PyPI host's venv, and the venvs of LangChain and Google ADK (.ci/run makes them)
BINS = [HOSTS_BIN, *(ROOT / "tests" / "hosts" / venv / "bin"
                     for venv in [*PYPI_VENVS.values(), "langchain-venv", "google-adk-venv"])]
NODE_FOLDER = ROOT / "tests" / "hosts"
SEARCHED = os.pathsep.join([*map(str, BINS), os.environ["PATH"]])


def matrix(tmp_path: Path, *args: str, path: str | None = None) -> tuple[subprocess.CompletedProcess, Path]:
    out = tmp_path / "matrix"
    env = dict(os.environ, PATH=path if path is not None else SEARCHED, MCP_ACCEPT_NODE_FRAMEWORKS=str(NODE_FOLDER))
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "host", "matrix", "--out", str(out), *args],
                          capture_output=True, text=True, timeout=900, env=env)
    return done, out


# What was measured of each host at the versions of tests/hosts/ (docs/hosts.md's table): the
# facts that follow from the host's code, not from timing. host -> (protocol spoken, tool-name
# scheme, what the model saw of the structured tool, the host's resource-reading tool (None: it
# offers none), H02, H03, H03's bracket in bytes (None: every size whole)).
MEASURED = {
    "claude-code": ("2026-07-28", "mcp__mcpaccept__{tool}", "structuredContent", "ReadMcpResourceTool",
                    "PASS", "FAIL", [32768, 65536]),
    "codex": ("2025-06-18", "mcp__mcpaccept/{tool}", "structuredContent", "read_mcp_resource",
              "PASS", "FAIL", [8192, 32768]),
    "gemini-cli": ("2025-06-18", "mcp_mcpaccept_{tool}", "text twin", None, "FAIL", "FAIL", [32768, 65536]),
    "qwen-code": ("2025-11-25", "mcp__mcpaccept__{tool}", "structuredContent, text twin", "read_mcp_resource",
                  "PASS", "FAIL", [8192, 32768]),
    "opencode": ("2025-11-25", "mcpaccept_{tool}", "text twin", "read_mcp_resource", "FAIL", "FAIL",
                 [32768, 65536]),
    "kilo-code": ("2025-11-25", "mcpaccept_{tool}", "text twin", "read_mcp_resource", "FAIL", "FAIL",
                  [32768, 65536]),
    "copilot-cli": ("2026-07-28", "mcpaccept-{tool}", "structuredContent, text twin", None, "FAIL", "FAIL",
                    [8192, 32768]),
    "continue": ("2025-11-25", "{tool}", "text twin", None, "FAIL", "FAIL", [262144, 1048576]),
    "fast-agent": ("2026-07-28", "mcpaccept__{tool}", "structuredContent", None, "FAIL", "FAIL", [8192, 32768]),
    "openai-agents": ("2026-07-28", "{tool}", "text twin", None, "FAIL", "PASS", None),
    "cline": ("2025-11-25", "mcpaccept__{tool}", "structuredContent, text twin", None, "FAIL", "FAIL", [1024, 8192]),
    "mistral-vibe": ("2025-11-25", "tools.mcp_mcpaccept.{tool} in run_typescript", "structuredContent", None,
                     "FAIL", "FAIL", [8192, 32768]),
    "pydantic-ai": ("2026-07-28", "{tool}", "structuredContent", None, "FAIL", "PASS", None),
    "google-adk": ("2025-11-25", "{tool}", "structuredContent, text twin", None, "FAIL", "PASS", None),
    # its run ends at the resource_link (ChatOpenAI refuses the file block it becomes): no link
    # row, no large sizes
    "langchain": ("2025-11-25", "{tool}", "text twin", None, "UNOBTAINABLE", "UNOBTAINABLE", None),
    # 2026-07-28 unless the server's answer to server/discover takes over 1 s (the SDK then initializes)
    "ai-sdk": (("2026-07-28", "2025-11-25"), "{tool}", "text twin", None, "FAIL", "PASS", None),
    "openai-agents-js": ("2026-07-28", "{tool}", "text twin", None, "FAIL", "PASS", None),
    "mastra": ("2026-07-28", "mcpaccept_{tool}", "text twin", None, "FAIL", "PASS", None),
}
# .ci/run installs every host and says so: then a missing one is a failure, not a smaller table
ALL_REQUIRED = os.environ.get("MCP_ACCEPT_ALL_HOSTS") == "1"


# Frameworks run by a driver: installed where the interpreter running mcp-accept has them, or a
# python3 on the PATH host matrix runs with (LangChain's and Google ADK's venvs); the JavaScript
# ones in tests/hosts, named by $MCP_ACCEPT_NODE_FRAMEWORKS.
DRIVEN = ("google-adk", "langchain", "openai-agents", "pydantic-ai", "ai-sdk", "openai-agents-js", "mastra")


def installed() -> list[str]:
    with mock.patch.dict(os.environ, PATH=SEARCHED, MCP_ACCEPT_NODE_FRAMEWORKS=str(NODE_FOLDER)):
        return [name for name, adapter in ADAPTERS.items() if any((b / adapter.binary).exists() for b in BINS)
                or name in DRIVEN and adapter.find(None)]


def test_every_host_has_its_measured_facts():
    assert sorted(MEASURED) == sorted(ADAPTERS)


def test_matrix_of_every_installed_host(tmp_path):
    hosts = installed()
    if ALL_REQUIRED:
        assert sorted(hosts) == sorted(ADAPTERS), "MCP_ACCEPT_ALL_HOSTS=1 but not every host is installed"
    if len(hosts) < 2:
        pytest.skip("fewer than two hosts installed: npm ci --prefix tests/hosts (see .ci/run)")
    done, out = matrix(tmp_path, "--hosts", ",".join(hosts), "--jobs", "2")
    assert done.returncode == 0, done.stderr
    data = json.loads((out / "matrix.json").read_text())
    rows = {row["host"]: row for row in data["rows"]}
    assert sorted(rows) == sorted(hosts)
    for name, row in rows.items():
        assert not row.get("error"), (name, row.get("error"))
        package = ADAPTERS[name].npm_package
        # the npm hosts at the versions of package.json; fast-agent at the constraints' version
        assert row["version"] == (PINNED[package] if package in PINNED else ADAPTERS[name].tested_version)
        assert row["text"] == "whole" and row["embedded"] == "whole", (name, row)
        assert row["other_connects"] == [], (name, row["other_connects"])
        assert row["tool_names"] and "{tool}" in row["tool_names"]
        assert row["H01"] == "PASS", (name, row)
        protocol, scheme, saw, read_tool, h02, h03, bracket = MEASURED[name]
        spoken = protocol if isinstance(protocol, tuple) else (protocol,)  # a tuple: any of these
        assert row["protocol"] in spoken and (row["tool_names"], row["structured_seen"]) == (scheme, saw), (name, row)
        assert (row["link_read_tool"], row["H02"]) == (read_tool, h02), (name, row)
        if h02 == "UNOBTAINABLE":  # the run ended before the link's result was handed
            assert row["link_handed"] is None and row["link_read_by_host"] is None, (name, row)
        else:
            assert row["link_handed"] == "absent" and row["link_read_by_host"] is False, (name, row)
        assert (row["H03"], row["large_bracket"]) == (h03, bracket), (name, row)
        assert row["client"], (name, row)  # its clientInfo, from the wire
        assert row["kind"] == ("framework" if name in DRIVEN else "host"), (name, row["kind"])
        # each inline form's cost: tokens counted, one turn; a link read through a tool took two
        assert all(row["cost"][f]["tokens"] > 0 and row["cost"][f]["turns"] == 1
                   for f in ("text", "structured", "embedded")), (name, row["cost"])
        if h02 != "UNOBTAINABLE":
            assert row["cost"]["link"]["turns"] == (2 if h02 == "PASS" else None), (name, row["cost"])
    # the advice under the table follows from the rows alone
    said = {item["id"]: item for item in data["advice"]}
    assert said["structured.seen"]["twin_only"] == sorted(n for n in hosts if MEASURED[n][2] == "text twin")
    assert sorted(said["link.reached"]["read_tool"]) == sorted(n for n in hosts if MEASURED[n][4] == "PASS")
    assert said["link.reached"]["never"] == sorted(n for n in hosts if MEASURED[n][4] == "FAIL")
    assert sorted(said["link.cost"]["hosts"]) == sorted(n for n in hosts if MEASURED[n][4] == "PASS")
    table = (out / "matrix.md").read_text()
    assert table.count("\n| ") == len(hosts) + 2  # a header, its rule and one line per host
    assert "## What the table says to a server author" in table and "Does a resource_link save tokens?" in table
    japanese = (out / "matrix.ja.md").read_text()
    assert "モデル" in japanese and "全体" in japanese  # the cells too, not only the headers
    assert "| whole |" not in japanese and "loopback only" not in japanese
    assert "None" not in table and "None" not in japanese
    page = html.parser.HTMLParser()
    page.feed((out / "matrix.html").read_text())
    assert (out / "matrix.ja.html").is_file()
    assert table.strip() in done.stdout.strip() or done.stdout.count("| ") >= len(hosts)
    assert not processes_mentioning(str(out))


def test_a_host_that_is_not_installed_is_a_row(tmp_path):
    done, out = matrix(tmp_path, "--hosts", "codex,mastra", path=str(tmp_path / "empty-path"))
    assert done.returncode == 3
    codex, mastra = json.loads((out / "matrix.json").read_text())["rows"]
    assert codex["host"] == "codex" and codex["error"].startswith("not installed")
    assert "not installed" in (out / "matrix.md").read_text()
    # a framework's row says so, in matrix.json and beside its name in every table
    assert (codex["kind"], mastra["kind"]) == ("host", "framework")
    assert "| Mastra (mastra; framework) |" in (out / "matrix.md").read_text()
    assert "| Codex CLI (codex) |" in (out / "matrix.md").read_text()
    assert "<td>Mastra (mastra; framework)</td>" in (out / "matrix.html").read_text()
    assert "Mastra (mastra、フレームワーク)" in (out / "matrix.ja.md").read_text()


def test_unknown_hosts_are_bad_input(tmp_path):
    done, _ = matrix(tmp_path, "--hosts", "codex,notepad")
    assert done.returncode == 2 and "--hosts" in done.stderr and "notepad" in done.stderr


def test_japanese_cells_translate_the_values_and_keep_what_hosts_wrote():
    from mcp_accept.output.host_matrix import VALUES, cells

    row = {"host": "opencode", "product": "opencode", "version": "1.18.33", "client": "opencode",
           "client_version": "1.18.33", "protocol": "2025-06-18", "refused_versions": ["2026-07-28"],
           "tool_names": "mcpaccept_{tool}", "text": "whole", "structured": "cut", "structured_seen": "text twin",
           "embedded": "absent", "link_handed": "absent", "link_read_by_host": False,
           "link_read_tool": "read_mcp_resource", "link_body_via_tool": None, "image": "text only",
           "blob": "not handed", "large_bracket": [8192, 32768], "large_handling": ["saved to a file with a preview"],
           "H01": "PASS", "H02": "FAIL", "H03": "FAIL", "other_connects": [], "seconds": 2.5}
    english, japanese = cells(row, "en"), cells(row, "ja")
    assert "None" not in " ".join(english.values()) and "body through it: not called" in english["link"]
    assert english["protocol"] == "2025-06-18; refused 2026-07-28"
    assert english["client"] == "opencode 1.18.33"
    words = [w for w in VALUES.strings() if VALUES.word(w, "ja") != w]
    assert "whole" in words and "loopback only" in words
    for key, text in japanese.items():
        if key in ("host", "version", "client", "tool_names", "rows"):
            assert text == english[key]  # names and versions as the host wrote them
        else:
            assert not any(text == w or f": {w}" in text for w in words), (key, text)
    assert japanese["text"] == "全体" and "read_mcp_resource" in japanese["link"]


def test_the_advice_counts_a_host_run_with_two_models_once():
    """`--models text,vision` gives a host two rows; the advice names it once where both agree and
    once per model, as `host (kind)`, where they differ, and counts hosts, not rows."""
    from mcp_accept.output.host_matrix import advice, advice_lines

    def row(host, kind, image, link_tool):
        return {"host": host, "model_kind": kind, "text": "whole", "embedded": "whole", "image": image,
                "structured_seen": "text twin", "link_handed": "absent", "link_body_via_tool": link_tool,
                "cost": {"link": {"tokens": 160, "turns": 2} if link_tool == "whole" else {},
                         "embedded": {"tokens": 110, "turns": 1}}}
    rows = [row("opencode", "text", "text only", None), row("opencode", "vision", "bytes handed", None),
            row("qwen-code", "text", "text only", "whole"), row("qwen-code", "vision", "text only", "whole"),
            row("codex", None, "bytes handed", "whole")]
    lines = advice_lines(advice({"rows": rows}))
    assert "- text: handed whole by 3 of 3 hosts." in [f"- {line}" for line in lines]
    link = next(line for line in lines if line.startswith("resource_link"))
    assert "on 2 of 3 hosts" in link and "read tool: qwen-code, codex" in link and "never on opencode:" in link
    image = next(line for line in lines if line.startswith("image"))
    assert "on 2 of 3 hosts (opencode (vision), codex)" in image
    assert "not at all on opencode (text), qwen-code:" in image
    cost = next(line for line in lines if line.startswith("Does a resource_link"))
    assert cost.count("qwen-code") == 1 and cost.count("codex") == 1 and "opencode" not in cost
