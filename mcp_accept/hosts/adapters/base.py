"""What every host adapter provides, and the private folders a host run lives in."""

from __future__ import annotations

import os
import secrets
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from mcp_accept.model.script import ToolNaming, ToolOffer

# The one prompt every host is given; the stand-in's script decides what the "model" does.
PROMPT = "Call each of the search tools once, one after the other, then say done."


def new_model_key() -> str:
    return "mcp-accept-" + secrets.token_urlsafe(24)


def command_and_args(argv: list[str]) -> dict:
    """A command line as most hosts' configuration files name a stdio server: the program under
    ``command``, what follows it under ``args``."""
    return {"command": argv[0], "args": list(argv[1:])}


@dataclass
class HostContext:
    """Where one host run lives: everything under the run folder."""

    folder: Path
    model_url: str  # the stand-in's base, http://127.0.0.1:PORT
    server_name: str  # the name the host knows the MCP server by
    mcp_command: list[str] | None = None  # stdio: the command the host launches (the proxy)
    mcp_url: str | None = None  # Streamable HTTP: the URL the host connects to (the proxy)
    prompt: str = PROMPT
    # what the host's configuration declares of its model, where the adapter can declare more
    # than one (``HostAdapter.model_kinds``); None: the adapter's only one
    model_kind: str | None = None
    # The key the host's configuration gives it for its model: the stand-in answers only requests
    # that carry it, so a request from anything else (a server under test that found the
    # stand-in's port) is refused and recorded, never taken for the host's.
    model_key: str = field(default_factory=lambda: new_model_key())
    # The options the host's own ``--help`` lists (``HostAdapter.help_argv``), so that an adapter
    # passes a version only the options it has; None: not read, the current version's are assumed.
    host_flags: frozenset | None = None

    def offers(self, flag: str) -> bool:
        """Whether the host at this run's version has the command-line option ``flag``."""
        return self.host_flags is None or flag in self.host_flags

    def takes(self, flag: str, value: str) -> bool:
        """Whether the host at this run's version takes ``flag value``: it has the option, and its
        ``--help`` lists ``value`` among the option's choices where it lists any."""
        if self.host_flags is None:
            return True
        choices = {f for f in self.host_flags if f.startswith(flag + "=")}
        return flag in self.host_flags and (not choices or f"{flag}={value}" in choices)

    @property
    def home(self) -> Path:
        return self.folder / "home"

    @property
    def work(self) -> Path:
        return self.folder / "work"

    @property
    def fence(self) -> Path:
        return self.work / ".git"

    def fence_work(self) -> None:
        """Make the working folder a repository root of its own (a ``.git`` file pointing at a
        folder that does not exist): hosts that collect instruction files (AGENTS.md,
        GEMINI.md, QWEN.md) or settings from the folders above, up to the enclosing repository's
        root, stop here, so nothing of the folders that hold the run folder reaches the host."""
        if not self.fence.exists():
            self.fence.write_text(f"gitdir: {self.folder / 'no-repository'}\n", encoding="utf-8")

    def server_entry(self, http: dict | None = None, stdio: dict | None = None, *,
                     url_key: str = "url") -> dict:
        """The server's entry in the host's configuration, the proxy standing for it: over
        Streamable HTTP, the keys ``http`` and the proxy's URL under ``url_key``; over stdio, the
        keys ``stdio`` and the proxy's command line (:func:`command_and_args`)."""
        if self.mcp_url:
            return {**(http or {}), url_key: self.mcp_url}
        return {**(stdio or {}), **command_and_args(self.mcp_command)}

    def home_dir(self, *parts: str) -> Path:
        """A folder in the host's private HOME (its configuration folder, say), made."""
        folder = self.home.joinpath(*parts)
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def base_env(self) -> dict[str, str]:
        """A fresh environment, not the user's: a private HOME and XDG folders, no key or proxy
        setting of the user's, PATH kept so that ``#!/usr/bin/env node`` launchers work."""
        home = self.home
        dirs = {"XDG_CONFIG_HOME": home / ".config", "XDG_DATA_HOME": home / ".local" / "share",
                "XDG_CACHE_HOME": home / ".cache", "XDG_STATE_HOME": home / ".local" / "state",
                "TMPDIR": home / "tmp"}
        for path in (home, self.work, *dirs.values()):
            path.mkdir(parents=True, exist_ok=True)
        self.fence_work()
        env = {"HOME": str(home), "USERPROFILE": str(home), "PATH": os.environ.get("PATH", os.defpath),
               "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TERM": "dumb", "NO_COLOR": "1", "CI": "1",
               "NO_PROXY": "*", "no_proxy": "*"}
        env.update({k: str(v) for k, v in dirs.items()})
        return env


@dataclass
class Launch:
    argv: list[str]
    env: dict[str, str]
    cwd: Path
    files: list[Path] = field(default_factory=list)  # configuration written for the run


class HostAdapter:
    name: str = ""
    # What it is, as host matrix marks its row: a program ("host"), or a library run by a driver
    # of mcp-accept's ("framework", :class:`mcp_accept.hosts.adapters.framework.DrivenFramework`).
    kind: str = "host"
    product: str = ""
    binary: str = ""
    npm_package: str = ""
    pypi_package: str = ""  # a host installed from PyPI instead
    tested_version: str = ""  # the version the adapter was written and tested against
    # What HOST@VERSION installs beside the host's package (a framework's driver imports more
    # than one), and how they are chosen to go with it (``DrivenNodeFramework.companions_by``)
    companions: tuple[str, ...] = ()
    companions_by: str = ""
    api: str = ""
    # The model name the host is configured to ask for (the stand-in answers any).
    model: str = ""
    # Models of different declared capabilities the host's configuration can name (``--model-kind``),
    # the first the default; empty: the host is told a model name only, and decides by itself.
    model_kinds: tuple[str, ...] = ()
    # Where each setting comes from (the host's own documentation or source).
    sources: tuple[str, ...] = ()
    # The host setting that moves where a large result stops being handed whole, where its
    # documentation or its own settings schema names one.
    large_result_setting: str | None = None
    # How the host stays offline: the variables each run is given (the host's documented
    # switches), and in a few words the rest (settings the adapter writes, options it passes).
    offline_env: dict[str, str] = {}
    offline_more: str = ""
    # How the host names an MCP server's tools for its model: ``{server}`` and ``{tool}``, a
    # namespace written as ``NAMESPACE/NAME``. The stand-in calls a server's tool under this name
    # only, so that a server tool named like one of the host's own (a shell, a file writer) can
    # never make it call the host's tool instead.
    tool_scheme: str = ""
    # The host's own tools, listed where ``tool_scheme`` has no ``{server}``: a server tool of the
    # same name is never called, since the two cannot be told apart in the model's tool list.
    own_tools: frozenset = frozenset()
    # How the host's own tools (shell, files, web, agents) are switched off, in a few words.
    own_tools_off: str = ""

    @property
    def offline(self) -> str:
        """Every switch that keeps a run of the host offline, as the host results name them."""
        env = (f"{name}={value}" for name, value in self.offline_env.items())
        return ", ".join([*env, *filter(None, [self.offline_more])])

    def declared_model(self, kind: str | None) -> dict:
        """What the host's configuration says of its model: its name and, where the configuration
        declares them, whether it takes images and PDFs and its context size (None: not declared)."""
        return {"model": self.model, "kind": kind, "images": None, "pdfs": None, "context_tokens": None,
                "declared_in": "nothing but the model name: the host decides what the model takes"}

    def naming(self, server_name: str) -> ToolNaming:
        return ToolNaming(server=server_name, scheme=self.tool_scheme, product=self.product,
                          own_tools=frozenset(self.own_tools), sandbox=self.sandbox_call(server_name))

    def sandbox_call(self, server_name: str) -> "Callable[[list[ToolOffer], str, dict], tuple[ToolOffer, dict] | None] | None":
        """How the model calls a server's tool where the host offers it only inside a code tool of
        its own: a function of the offers, the tool and its arguments giving that code tool and its
        arguments, or None (the host offers the server's tools as tools of the request)."""
        return None

    def find(self, given: str | None) -> str | None:
        if given:
            path = Path(given).absolute()  # the host runs in a working folder of its own
            return str(path) if path.is_file() and os.access(path, os.X_OK) else None
        found = shutil.which(self.binary)
        return str(Path(found).absolute()) if found else None

    def version_argv(self, binary: str) -> list[str]:
        return [binary, "--version"]

    def help_argv(self, binary: str) -> list[str] | None:
        """The command that lists the host's options, where the adapter passes an option that
        not every version has (None: the adapter passes every version the same options)."""
        return None

    def for_flags(self, host_flags: frozenset | None, version: str | None = None) -> "HostAdapter":
        """The adapter for a version with these options (what ``help_argv`` listed) that says it is
        ``version`` (None: not known): itself, unless that version names the server's tools
        otherwise than the current one."""
        return self

    def tools_off(self, host_flags: frozenset | None) -> str:
        """How the host's own tools were switched off in a run with these options."""
        return self.own_tools_off

    def installed_binary(self, place: Path) -> Path:
        """The host's program in a folder ``mcp_accept.hosts.versions`` installed it into."""
        if self.pypi_package:
            return place / "bin" / self.binary
        return place / "node_modules" / ".bin" / self.binary

    def installed_in(self, place: Path) -> Path | None:
        """What ``host test`` runs of an install in ``place`` (``installed_binary``), if it is there."""
        binary = self.installed_binary(place)
        return binary if binary.is_file() and os.access(binary, os.X_OK) else None

    def requirements(self, version: str) -> list[str]:
        """What pip installs for the host at ``version`` (a PyPI host): the package at that version."""
        return [f"{self.pypi_package}=={version}"]

    def too_old(self, version: str) -> str | None:
        """Why ``version`` cannot be run by this adapter, if it is older than the oldest one it
        runs (None: not known to be)."""
        return None

    def install_hint(self) -> str:
        """The command that installs the host at the version the adapter was tested with."""
        if self.pypi_package:
            return f"pip install {self.pypi_package}=={self.tested_version}"
        return f"npm install -g {self.npm_package}@{self.tested_version}"

    def prepare(self, ctx: HostContext, binary: str) -> Launch:
        raise NotImplementedError

    def resource_reader(self, server_name: str) -> Callable[[list[ToolOffer], str], "tuple[ToolOffer, dict] | None"]:
        """How the model reads an MCP resource through the host, if the host offers a tool for it:
        a function of the offers and the URI giving the tool and its arguments, or None."""
        return lambda offers, uri: None


def offered(offers: list[ToolOffer], name: str) -> ToolOffer | None:
    return next((o for o in offers if o.name == name), None)
