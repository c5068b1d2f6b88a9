"""A Python agent framework as a host: a library, not a program, so ``host test`` runs a driver of
:mod:`mcp_accept.hosts.drivers` (the framework's documented MCP example, with the server and the
model taken from the environment of ``--client``, :func:`mcp_accept.hosts.own_client.contract_env`)
with an interpreter that has the framework: the one ``--host-bin`` names, else this one, else the
first ``python3`` on PATH that has it (a framework whose dependencies conflict with mcp-accept's
own lives in a virtual environment of its own)."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
from pathlib import Path

from mcp_accept.hosts import drivers
from mcp_accept.hosts.adapters.base import HostAdapter, HostContext, Launch
from mcp_accept.hosts.own_client import MODEL, contract_env

VERSION_CODE = "import importlib.metadata as m, sys; print(m.version(sys.argv[1]))"


class DrivenFramework(HostAdapter):
    # the driver's file in mcp_accept/hosts/drivers/
    driver = ""
    # the distribution whose version is the host's version, and whose presence finds an interpreter
    distribution = ""
    # what to install for it, with the versions it was tested with
    install = ""
    model = MODEL
    tool_scheme = "{tool}"
    own_tools_off = "none to switch off: the driver's agent is given no tool but its MCP server's"

    def find(self, given: str | None) -> str | None:
        if given:
            path = Path(given).absolute()
            return str(path) if path.is_file() and os.access(path, os.X_OK) else None
        try:
            importlib.metadata.version(self.distribution)
            return sys.executable
        except importlib.metadata.PackageNotFoundError:
            pass
        for folder in os.environ.get("PATH", "").split(os.pathsep):
            candidate = Path(folder or ".") / "python3"
            if candidate.is_file() and os.access(candidate, os.X_OK) and self._has_it(candidate):
                return str(candidate.absolute())
        return None

    def _has_it(self, interpreter: Path) -> bool:
        try:
            return subprocess.run([str(interpreter), "-c", VERSION_CODE, self.distribution], capture_output=True,
                                  stdin=subprocess.DEVNULL, timeout=30).returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            return False

    def version_argv(self, binary: str) -> list[str]:
        return [binary, "-c", VERSION_CODE, self.distribution]

    def install_hint(self) -> str:
        return self.install or super().install_hint()

    def installed_binary(self, place: Path) -> Path:
        return place / "bin" / "python"  # the environment's interpreter has the framework

    def extra_env(self) -> dict[str, str]:
        """Variables the framework reads beside the contract's (its offline switches)."""
        return {}

    def prepare(self, ctx: HostContext, binary: str) -> Launch:
        env, config = contract_env(ctx, self.api)
        env.update(self.extra_env())
        return Launch([binary, str(Path(drivers.__file__).parent / self.driver)], env, ctx.work, [config])
