#!/usr/bin/env python3
"""Measure the cross-host table with `mcp-accept host matrix` and write it into docs/hosts.md,
between the markers `<!-- host-matrix:start -->` and `<!-- host-matrix:end -->`, with a last
column beside each row where the host's own documentation says otherwise than the measurement.

Run from the project's root, with the hosts installed (`npm ci --prefix tests/hosts`, and
fast-agent, LangChain and Google ADK as .ci/run installs them): python scripts/host_matrix_docs.py [--jobs N]
(`--from DIR` writes the table of a `host matrix --out DIR` already measured).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "hosts.md"
START, END = "<!-- host-matrix:start -->", "<!-- host-matrix:end -->"
BINS = [ROOT / "tests" / "hosts" / "node_modules" / ".bin", ROOT / "tests" / "hosts" / "fast-agent-venv" / "bin",
        ROOT / "tests" / "hosts" / "vibe-venv" / "bin",
        ROOT / "tests" / "hosts" / "langchain-venv" / "bin", ROOT / "tests" / "hosts" / "google-adk-venv" / "bin"]
NOTES_HEADER = "Its documentation says otherwise"
# Where a host's own documentation contradicts what was measured (each adapter's module docstring
# cites the pages); checked again whenever the table is measured at new versions.
NOTES = {
    "claude-code": "Tool search is documented as off for other model endpoints; it was on, and "
                   "`ENABLE_TOOL_SEARCH=false` is needed for the MCP tools to reach the tool list.",
    "qwen-code": "The privacy page says nothing is collected beyond the API provider's; it looks up its "
                 "usage-statistics host unless `privacy.usageStatisticsEnabled` is false. The MCP page "
                 "implies the model gets the server's tools; by default they hide behind a tool-search "
                 "bridge (`alwaysLoadTools` shows them).",
    "opencode": "MCP tools \"are automatically available\", nothing said of result forms: "
                "`resource_link` items and `structuredContent` are dropped. The model catalog comes "
                "from models.opencode.ai, not Models.dev as documented.",
    "copilot-cli": "\"GitHub authentication is not required\" with a custom provider (`copilot help "
                   "providers`); it asks for no sign-in, yet connects to api.github.com at start unless "
                   "`COPILOT_OFFLINE=true`.",
    "langchain": "The adapters document a `resource_link` as converted to a file block of its URI; "
                 "`ChatOpenAI` (Chat Completions) refuses it (\"does not support file URLs\") and the agent's run "
                 "ends with an error.",
    "kilo-code": "Its page \"Using MCP in the CLI\" gives `~/.kilocode/cli/global/settings/mcp_settings.json`; 7.7.7 reads the `mcp` key of `kilo.json`.",
    "mistral-vibe": "Its README names MCP tools `{server_name}_{tool_name}`; 3.0.3 offers none as a tool of the request, only as `tools.mcp_NAME.TOOL` inside its `run_typescript` tool.",
    "continue": "\"ask\" tools are documented as left out headless; every MCP tool is offered and runs.",
    "fast-agent": "\"Complete, end-to-end tested MCP Feature support\", yet the model gets no way to read "
                  "a `resource_link` (only its name and URI as text), and a result past 16,000 bytes "
                  "(`shell_execution.output_byte_limit`, a shell setting) is cut in the middle, which "
                  "its README does not say.",
}


def with_notes(table: str, matrix: dict) -> str:
    """The Markdown table with the notes column; rows follow matrix.json's order."""
    lines = table.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("| "))
    lines[head] += f" {NOTES_HEADER} |"
    lines[head + 1] += " --- |"
    for offset, row in enumerate(matrix["rows"]):
        note = NOTES.get(row["host"], "").replace("|", "\\|")
        lines[head + 2 + offset] += f" {note or '-'} |"
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--from", dest="source", type=Path, help="a `host matrix --out` folder to use")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = args.source or Path(tmp) / "matrix"
        if args.source is None:
            # the JavaScript frameworks are found in the folder their packages are installed in
            env = dict(os.environ, PATH=os.pathsep.join([*map(str, BINS), os.environ.get("PATH", "")]),
                       MCP_ACCEPT_NODE_FRAMEWORKS=str(ROOT / "tests" / "hosts"))
            # both model kinds, where a host's handling depends on the model it is configured with
            done = subprocess.run([sys.executable, "-m", "mcp_accept", "host", "matrix", "--out", str(out),
                                   "--jobs", str(args.jobs), "--models", "text,vision"], env=env, cwd=ROOT)
            if done.returncode != 0:
                return done.returncode
        table = (out / "matrix.md").read_text(encoding="utf-8").split("\n", 2)[2].strip()
        table = with_notes(table, json.loads((out / "matrix.json").read_text(encoding="utf-8")))
    text = DOC.read_text(encoding="utf-8")
    if START not in text or END not in text:
        print(f"{DOC}: the markers {START} and {END} are missing", file=sys.stderr)
        return 2
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    DOC.write_text(f"{head}{START}\n{table}\n{END}{tail}", encoding="utf-8")
    print(f"wrote the table into {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
