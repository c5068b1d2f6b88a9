"""An agent framework as a host: a library, not a program, so ``host test`` runs a driver of
:mod:`mcp_accept.hosts.drivers` (the framework's documented MCP example, with the server and the
model taken from the environment of ``--client``, :func:`mcp_accept.hosts.own_client.contract_env`).

A Python framework (:class:`DrivenFramework`) is run with an interpreter that has it: the one
``--host-bin`` names, else this one, else the first ``python3`` on PATH that has it (a framework
whose dependencies conflict with mcp-accept's own lives in a virtual environment of its own).

A JavaScript framework (:class:`DrivenNodeFramework`) is run with the ``node`` on PATH, its
packages taken from the folder npm installed them into (the one holding ``node_modules``): the
one ``--host-bin`` names, else ``$MCP_ACCEPT_NODE_FRAMEWORKS``, else the folder ``host test`` runs
in (a project that installed the framework). Node resolves an ES module's bare imports from the
importing file's folder only (``NODE_PATH`` is read by ``require`` alone), so the driver is run
with ``--import`` of :mod:`resolve_from.mjs <mcp_accept.hosts.drivers>`, a resolve hook of
``module.register`` that resolves the driver's own imports as if from that folder; the
framework's modules then import each other as they always do.

``host test FRAMEWORK@VERSION`` installs that version into the host cache
(:mod:`mcp_accept.hosts.versions`) with the packages its driver imports beside it: a Python
framework in a virtual environment of its own (:meth:`DrivenFramework.requirements`, the driver run
by that environment's interpreter), a JavaScript one in an npm folder of its own
(:attr:`DrivenNodeFramework.companions_by`, that folder handed to ``resolve_from.mjs``). A version
older than the oldest the driver runs (``min_version``) is refused before anything is installed,
naming what it lacks (``min_missing``)."""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
from pathlib import Path

from mcp_accept.hosts import drivers
from mcp_accept.hosts.adapters.base import HostAdapter, HostContext, Launch
from mcp_accept.hosts.own_client import MODEL, contract_env

DRIVERS = Path(drivers.__file__).parent
VERSION_CODE = "import importlib.metadata as m, sys; print(m.version(sys.argv[1]))"


class DrivenFramework(HostAdapter):
    kind = "framework"
    # the driver's file in mcp_accept/hosts/drivers/
    driver = ""
    # the distribution whose version is the host's version, and whose presence finds an interpreter
    distribution = ""
    # what to install for it, with the versions it was tested with
    install = ""
    model = MODEL
    tool_scheme = "{tool}"
    own_tools_off = "none to switch off: the driver's agent is given no tool but its MCP server's"
    # HOST@VERSION: the extras of the framework's package the driver needs (``[openai,mcp]``); its
    # ``companions`` are the other packages the driver imports, unpinned: pip's resolver picks of
    # each the newest version that the ranges the framework's package declares at VERSION admit
    extras = ""
    # the oldest version the driver runs, and what every earlier one lacks (with its source)
    min_version = ""
    min_missing = ""

    def requirements(self, version: str) -> list[str]:
        return [f"{self.pypi_package}{self.extras}=={version}", *self.companions]

    def too_old(self, version: str) -> str | None:
        from packaging.version import InvalidVersion, Version

        if not self.min_version:
            return None
        try:
            older = Version(version) < Version(self.min_version)
        except InvalidVersion:  # a canary or a tag of a form PEP 440 does not order: tried, not refused
            return None
        if not older:
            return None
        return (f"{self.product} {version} is older than {self.min_version}, the oldest version its driver runs: "
                f"{self.min_missing}")

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

    def driver_argv(self, binary: str) -> list[str]:
        return [binary, str(DRIVERS / self.driver)]

    def prepare(self, ctx: HostContext, binary: str) -> Launch:
        env, config = contract_env(ctx, self.api)
        env.update(self.offline_env)
        return Launch(self.driver_argv(binary), env, ctx.work, [config])


# Where the JavaScript drivers find their framework's folder when --host-bin names none.
NODE_FOLDER_ENV = "MCP_ACCEPT_NODE_FRAMEWORKS"
# The installed package's own package.json, read directly: not every package exports it.
NODE_VERSION_CODE = ("const p = require('node:path').join(process.argv[1], 'node_modules', process.argv[2], 'package.json');"
                     " console.log(JSON.parse(require('node:fs').readFileSync(p, 'utf8')).version)")


class DrivenNodeFramework(DrivenFramework):
    """A JavaScript framework: ``binary`` is the folder holding its ``node_modules``; the driver
    runs with the ``node`` on PATH."""

    # the npm packages the driver imports, at the versions it was tested with; the first is the
    # framework's own, whose version is the host's version
    packages: tuple[str, ...] = ()
    # HOST@VERSION: how the other packages are chosen to go with the framework's at VERSION
    # (mcp_accept.hosts.versions): a package name is the dependency they share with it, pinned
    # exactly in each release (each companion at its newest version built on the same major and
    # no later a version of it than the framework's); empty, by the peer dependency each declares
    # on the framework's package (each at its newest version whose range admits VERSION)
    companions_by = ""

    @property
    def distribution(self) -> str:
        return self.packages[0].rsplit("@", 1)[0]

    @property
    def npm_package(self) -> str:  # type: ignore[override]
        return self.distribution

    @property
    def companions(self) -> tuple[str, ...]:  # type: ignore[override]
        return tuple(package.rsplit("@", 1)[0] for package in self.packages[1:])

    @property
    def tested_version(self) -> str:
        return self.packages[0].rsplit("@", 1)[1]

    def find(self, given: str | None) -> str | None:
        node = shutil.which("node")
        candidates = [given] if given else [os.environ.get(NODE_FOLDER_ENV), os.getcwd()]
        for candidate in filter(None, candidates):
            folder = Path(candidate).absolute()
            if folder.name == "node_modules":
                folder = folder.parent
            if node and self._has_it(folder):
                return str(folder)
        return None

    def _has_it(self, folder: Path) -> bool:
        return (folder / "node_modules" / self.distribution / "package.json").is_file()

    def version_argv(self, binary: str) -> list[str]:
        return [shutil.which("node") or "node", "-e", NODE_VERSION_CODE, binary, self.distribution]

    def install_hint(self) -> str:
        return f"npm install --prefix FOLDER {' '.join(self.packages)}, then --host-bin FOLDER"

    def installed_binary(self, place: Path) -> Path:
        return place  # the folder npm installed the packages into, as --host-bin names one

    def installed_in(self, place: Path) -> Path | None:
        return place if self._has_it(place) else None

    def driver_argv(self, binary: str) -> list[str]:
        return [shutil.which("node") or "node", "--import", (DRIVERS / "resolve_from.mjs").as_uri(),
                str(DRIVERS / self.driver)]

    def prepare(self, ctx: HostContext, binary: str) -> Launch:
        launch = super().prepare(ctx, binary)
        launch.env[NODE_FOLDER_ENV] = binary  # read by resolve_from.mjs
        return launch

