"""What one ``host test`` run is asked to do: its options, and the job the command hands the
harness it re-executes inside the namespaces (``job.json``, written and read by one pair of
methods). The name the host knows the MCP server by is fixed here, for the harness and the rows.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from mcp_accept.evidence.files import atomic_write_json
from mcp_accept.hosts import netguard

SERVER_NAME = "mcpaccept"
HOST_TIMEOUT = 180.0
LARGE_SIZES = (1024, 8192, 32768, 65536, 262144, 1048576)
MAX_LARGE = 64 * 1024 * 1024


def large_sizes(text: str | None) -> list[int] | None:
    """The sizes of ``--large-sizes`` (None: the default ones), checked."""
    if text is None:
        return None
    from mcp_accept.errors import InputError

    sizes = []
    for word in text.split(","):
        word = word.strip()
        if not word.isdigit() or not 1 <= int(word) <= MAX_LARGE:
            raise InputError(f"each size must be a whole number of bytes from 1 to {MAX_LARGE} "
                             f"(found {word!r})", field="--large-sizes")
        sizes.append(int(word))
    return sorted(set(sizes))


def with_size(value, size: int):
    """A large tool's arguments with the size asked for in place of ``"{bytes}"``: as a number
    where the whole value is the placeholder, as digits inside a longer string."""
    if value == "{bytes}":
        return size
    if isinstance(value, str):
        return value.replace("{bytes}", str(size))
    if isinstance(value, dict):
        return {key: with_size(item, size) for key, item in value.items()}
    if isinstance(value, list):
        return [with_size(item, size) for item in value]
    return value


RUN_BYTES = 1 << 30  # what a host run may write into its folder (--max-run-bytes), 1 GiB


@dataclass
class HostTestOptions:
    host: str
    server: str | None = None
    url: str | None = None
    profile: str | None = None
    host_bin: str | None = None
    out: str | None = None
    timeout: float = HOST_TIMEOUT
    transport: str = "stdio"  # with the built-in fixture: how the host reaches it
    large: bool = True
    large_sizes: list[int] | None = None  # None: LARGE_SIZES
    model_kind: str | None = None  # --model-kind: which declared model (HostAdapter.model_kinds)
    threshold_calls: int = 0  # --find-threshold: extra large calls that narrow H03's bracket (0: none)
    netns: bool = True
    trace: bool = True
    proxy: bool = True  # False: the host reaches the server directly (to measure the proxy's cost)
    replace: bool = False  # --out names an earlier run's folder: empty it first instead of refusing
    max_run_bytes: int = RUN_BYTES  # past it the host is stopped and nothing more is written
    client: str | None = None  # --client: the user's own program is the host (``host`` is then "client")
    api: str | None = None  # --api: the model API that program speaks, by its name in API_NAMES
    host_version: str | None = None  # HOST@VERSION: that published version, installed into the host cache
    host_cache: str | None = None  # --host-cache: where published versions are installed (None: the default)
    host_cache_max: int | None = None  # --host-cache-max: the cache's bound in bytes (None: the default)
    # --header, each as "Name: env:VAR" (header_templates): job.json, in the run folder, holds no value
    headers: list[str] | None = None
    # --env for the server, each as "NAME" (passed through) or "NAME=env:VAR" (env_templates)
    server_env: list[str] | None = None

    @property
    def over_http(self) -> bool:
        """The host reaches the server over Streamable HTTP (--url, or the fixture with --transport http)."""
        return bool(self.url) or (not self.server and self.transport == "http")


@dataclass
class HostJob:
    """What the re-executed harness (inside the network namespace) is handed: written to the run
    folder's ``job.json`` by ``host_test`` and read back by ``main``, the one way across."""

    options: HostTestOptions
    cwd: str  # where the user ran mcp-accept: a --server word naming a file there is made absolute
    binary: str
    version: str | None
    guard: str
    host_flags: list[str] | None = None  # the options the host's --help lists, where the adapter reads it
    # where the proxy reaches a --url server the namespace cannot (hosts/upstream_relay.py)
    upstream_socket: str | None = None
    env_socket: str | None = None  # where the --env values are to be had (hosts/server_env.py)

    def write(self, path: Path) -> None:
        atomic_write_json(path, {"options": asdict(self.options), "cwd": self.cwd, "binary": self.binary,
                                 "version": self.version, "guard": self.guard, "host_flags": self.host_flags,
                                 "upstream_socket": self.upstream_socket, "env_socket": self.env_socket})

    @property
    def server_isolation(self) -> str:
        """How the server under test is kept from the host's model (host-run.json says it)."""
        if self.guard != netguard.NETNS:
            return "none: no namespace could be made (the stand-in still answers only the run's key)"
        if self.options.url and not self.options.server:
            return "none: the server at --url was not started by this run"
        if not self.options.proxy:
            return "none: with --no-proxy the host starts the server itself"
        return netguard.PIDS_OF_ITS_OWN if self.options.over_http else netguard.NETWORK_OF_ITS_OWN

    @classmethod
    def read(cls, path: Path) -> "HostJob":
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(options=HostTestOptions(**data["options"]), cwd=data["cwd"], binary=data["binary"],
                   version=data.get("version"), guard=data["guard"], host_flags=data.get("host_flags"),
                   upstream_socket=data.get("upstream_socket"), env_socket=data.get("env_socket"))


# Where a literal --header or --env value waits: in mcp-accept's own environment, which the
# harness and its proxy inherit and no host is given (each gets a fresh one).
HEADER_ENV = "MCP_ACCEPT_HEADER_{}"
SERVER_ENV = "MCP_ACCEPT_ENV_{}"


def _stashed(value: str, name: str) -> str:
    os.environ[name] = value
    return "env:" + name


def env_templates(items: list[str]) -> list[str]:
    """``host test --env`` items checked (as ``run`` checks them) and each made ``NAME`` or
    ``NAME=env:VAR``, a literal value moved into this process's environment under
    ``SERVER_ENV``: neither job.json nor a command line holds it."""
    from mcp_accept.server_command import server_env

    server_env(items)  # bad input is said before anything starts, naming the variable
    templates = []
    for n, item in enumerate(items, 1):
        name, eq, value = item.partition("=")
        templates.append(f"{name}={_stashed(value, SERVER_ENV.format(n))}" if eq else name)
    return templates


def env_values(templates: list[str]) -> dict[str, str]:
    """The values ``env_templates`` stands for, read from this process's environment."""
    values = {}
    for item in templates:
        name, _, var = item.partition("=env:")
        values[name] = os.environ.get(var or name, "")
    return values


def header_templates(items: list[str]) -> list[str]:
    """``host test --header`` items checked (as ``run`` checks them) and each made ``Name:
    env:VAR``: a literal value is moved into this process's environment under ``HEADER_ENV``, so
    that neither job.json nor a command line holds it."""
    from mcp_accept.running.execute import resolve_headers

    resolve_headers(items)  # bad input is said before anything starts, naming the header
    templates = []
    for n, item in enumerate(items, 1):
        name, _, value = item.partition(":")
        value = value.strip()
        if not value.startswith("env:"):
            value = _stashed(value, HEADER_ENV.format(n))
        templates.append(f"{name.strip()}: {value}")
    return templates
