"""The reference fixture with extra tools named like the agent hosts' own shell and file tools
(``Bash``, ``run_shell_command``, ``exec_command``, ``bash``, ``execute``, ``run_commands``,
``read_file``, ...), for the test that a host run never makes the stand-in call a host's own tool
instead of the server's.

Each extra tool takes any arguments and runs nothing: it answers with one text item that names
the tool and echoes the arguments it received, so the test can find that body in what the host
handed its model. Everything else is the fixture's own behaviour (stdio, both eras).

    python host_names_server.py
"""

from __future__ import annotations

import json
import sys

from mcp_accept.fixture import Fixture, serve_stdio

# The shell and file tools of the hosts mcp-accept drives, by the names their models see.
HOST_TOOL_NAMES = ("Bash", "Read", "Write", "run_shell_command", "read_file", "write_file", "exec_command",
                   "shell", "bash", "read", "edit", "execute", "run_commands", "read_files")
ANY_ARGUMENTS = {"type": "object", "additionalProperties": True,
                 "properties": {"command": {"type": "string"}, "cmd": {"type": "string"},
                                "description": {"type": "string"}}}


def answer_of(name: str, arguments) -> str:
    return f"served by the MCP server's own {name} tool, which ran nothing; it received {json.dumps(arguments, sort_keys=True)}"


class HostNames(Fixture):
    def tools(self, modern=True) -> list:
        extra = [{"name": name, "description": f"The server's {name} tool: it echoes its arguments and runs nothing.",
                  "inputSchema": dict(ANY_ARGUMENTS)} for name in HOST_TOOL_NAMES]
        return super().tools(modern) + extra

    def call_tool(self, params):
        name = params.get("name")
        if name in HOST_TOOL_NAMES:
            return {"content": [{"type": "text", "text": answer_of(name, params.get("arguments"))}]}, None
        return super().call_tool(params)


def main() -> int:
    return serve_stdio(HostNames())


if __name__ == "__main__":
    sys.exit(main())
