"""How commands and their options are declared: the usage line, number options, and the
options several commands share, each defined once here (a command whose option says
something of its own passes its own help)."""

from __future__ import annotations

import functools
import inspect
import math
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

import typer


class PlainUsage(typer.core.TyperCommand):
    """A usage line in the usual Unix shape (``RUN_DIR...``, ``[ROW]``): Typer 0.29 wraps
    every required argument in braces (``{RUN_DIR}``), which reads like a set of choices."""

    def collect_usage_pieces(self, ctx) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name != "argument":
                pieces.extend(param.get_usage_pieces(ctx))
                continue
            name = param.metavar or (param.name or "").upper()
            name = name if param.required else f"[{name}]"
            pieces.append(name + ("..." if param.nargs != 1 else ""))
        return pieces


class CommandGroup(typer.Typer):
    """Every command of mcp-accept takes the plain usage line."""

    def command(self, *args, cls=None, **kwargs):
        return super().command(*args, cls=cls or PlainUsage, **kwargs)


# Upper bounds of the numeric options: far above any real need, low enough that every
# value is a finite number the clocks and buffers below can hold (inf, nan and 10**30 are
# refused where the option is read, not found out as a crash deep in a run).
MAX_WAIT = 86400.0  # one answer may take a day
MAX_RUN = 7 * 86400.0  # one run may take a week
MAX_BYTES = 1 << 32  # one message of 4 GiB
MAX_RUN_BYTES = 1 << 40  # one run folder of 1 TiB


class _Number:
    """Reads a number option's value in click's words (``'x' is not a valid integer.``,
    ``0.0 is not in the range x>=0.1.``), which the options' errors have always used: typer
    from 0.29 on words them as pydantic does (``Input should be greater than or equal to
    0.1``). Given as the option's ``parser``; its ``min`` and ``max`` are still given to
    typer, which shows them in the help."""

    def __init__(self, kind: type, low: float | None, high: float | None):
        self.kind, self.low, self.high = kind, low, high

    def __call__(self, value):
        shown = repr(value) if len(str(value)) <= 40 else repr(f"{str(value)[:20]}...{str(value)[-8:]}")
        ranged = self.low is not None or self.high is not None
        try:
            number = self.kind(value)
        except (TypeError, ValueError):
            name = {(int, True): "int range", (float, True): "float range", (int, False): "integer",
                    (float, False): "float"}[self.kind, ranged]
            raise typer.BadParameter(f"{shown} is not a valid {name}.") from None
        if self.kind is float and not math.isfinite(number):
            raise typer.BadParameter(f"{shown} is not a finite number.")
        low, high = self.low, self.high
        if (low is not None and number < low) or (high is not None and number > high):
            bounds = f"x<={high}" if low is None else f"x>={low}" if high is None else f"{low}<=x<={high}"
            raise typer.BadParameter(f"{shown if len(str(number)) > 40 else number} is not in the range {bounds}.")
        return number


def number_option(kind: type, default, *names: str, min: float | None = None, max: float | None = None,
                  **options):
    """A ``typer.Option`` for a number, read by :class:`_Number`."""
    return typer.Option(default, *names, min=min, max=max, parser=_Number(kind, min, max), **options)



NEW_RUN_FOLDER = "Run folder to write (default: a new folder under ./mcp-accept-runs/)."


def out_option(help: str = NEW_RUN_FOLDER, default: Path | None = None):
    return typer.Option(default, "--out", help=help)


def timeout_option(help: str = "Seconds to wait for each answer.", default: float = 10.0, min: float = 0.1,
                   max: float = MAX_WAIT):
    return number_option(float, default, "--timeout", min=min, max=max, help=help)


def max_bytes_option(help: str):
    return number_option(int, 64 * 1024 * 1024, "--max-bytes", min=1024, max=MAX_BYTES, help=help)


def large_sizes_option():
    return typer.Option(None, "--large-sizes", metavar="BYTES,...",
                        help="Sizes of the large results H03 asks for, in bytes, comma-separated (default "
                             "1024,8192,32768,65536,262144,1048576): from the fixture's search_large, or from the "
                             "profile's tools.large on another server.")
def find_threshold_option():
    return typer.Option(False, "--find-threshold", help=(
        "After the --large-sizes, H03 narrows the size where the host stops handing a large result whole, "
        "to the byte: the stand-in asks for sizes halfway between the largest handed whole and the smallest "
        "not, at most --threshold-calls more calls; host-run.json and rows/H03.json list the sizes tried."))


def threshold_calls_option():
    return number_option(int, 16, "--threshold-calls", min=1, max=64, help=(
        "With --find-threshold: the most extra large calls the search makes (each halves the bracket; "
        "16 close a bracket of 64 KiB)."))


def max_run_bytes_option():
    return number_option(int, 1 << 30, "--max-run-bytes", min=1 << 20, max=MAX_RUN_BYTES, help=(
        "Bytes the run may write into its folder while the host runs (model.jsonl, the host's output, "
        "the proxy folders, the host's private folders): past them the host is stopped, nothing more "
        "is recorded, and host-run.json and the rows say which bound was reached at what size."))


def lang_option(help: str):
    return typer.Option("en", "--lang", help=help)


def server_option(help: str):
    return typer.Option(None, "--server", help=help)


ENV_HELP = ("For the server mcp-accept starts: NAME passes your variable NAME through, NAME=VALUE sets "
            "one (its value is masked in the evidence, as a header's is). Without it the server is "
            "given only what the MCP SDKs give a server they start (HOME, LOGNAME, PATH, SHELL, TERM, "
            "USER). Repeatable.")
INHERIT_ENV_HELP = ("Give the server mcp-accept starts your whole environment, keys and tokens included, "
                    "instead of the MCP SDKs' default variables; results.json says it was.")


def env_option(help: str = ENV_HELP):
    return typer.Option([], "--env", metavar="NAME[=VALUE]", help=help)


def inherit_env_option(help: str = INHERIT_ENV_HELP):
    return typer.Option(False, "--inherit-env", help=help)


def url_option(help: str):
    return typer.Option(None, "--url", help=help)


def header_option(help: str):
    return typer.Option([], "--header", help=help)


def protocol_option(help: str):
    return typer.Option("auto", "--protocol", help=help)


def set_option(help: str):
    return typer.Option([], "--set", help=help)


def profile_option(help: str):
    return typer.Option(None, "--profile", help=help)


def json_option(help: str):
    return typer.Option(False, "--json", help=help)


def schema_dir_option():
    return typer.Option(None, "--schema-dir", help="Folder of official schemas as <version>/schema.json (also MCP_ACCEPT_SCHEMA_DIR).")


def offline_option():
    return typer.Option(False, "--offline", help="Never download an official schema (also MCP_ACCEPT_OFFLINE=1). Every protocol version this release pins ships inside it, so a run downloads nothing anyway; this matters only for a pin with no bundled copy, whose schema checks are then UNOBTAINABLE instead of fetched.")


def sdk_option(help: str = "Add the sdk layer: the run's answers replayed through the official MCP Python SDK's client (pip install '.[sdk]' in a clone), beside wire, type and meaning; it reports and never changes a row's status or the exit code. Off by default (the SDK's import takes longer than the rest of a run); without this option MCP_ACCEPT_SDK=on or off decides."):
    return typer.Option(None, "--sdk/--no-sdk", help=help)


def quiet_option():
    return typer.Option(False, "-q", "--quiet", help="Print only the summary line (and errors).")


def verbose_option():
    return typer.Option(False, "-v", "--verbose", help="Show each row's checks, with rule kind and spec source, below it.")


HOST_HEADER_HELP = ("With --url: \"Name: value\" the proxy adds to every request to the server; value may be "
                    "env:VAR. Never recorded, never handed to a host. Repeatable.")
HOST_ENV_HELP = ("With --server: NAME passes your variable NAME to the server, NAME=VALUE sets one (a key, a "
                 "token). The value reaches the server and no host: it is in no file of the run (the host's "
                 "configuration and job.json name a socket only), and masked wherever the server or a host "
                 "repeats it. Repeatable.")


@dataclass(frozen=True)
class ServerTarget:
    """The server a host command points its hosts at, as its options named it."""

    server: Optional[str]
    url: Optional[str]
    header: List[str]
    env: List[str]
    profile: Optional[Path]


def with_server_target(server_help: str, url_help: str, profile_help: str):
    """Give a host command the options that name its server (--server, --url, --header, --env,
    --profile), declared here once: they stand where the command has its parameter ``target``,
    which receives them as one :class:`ServerTarget`."""
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    added = [inspect.Parameter("server", kind, default=server_option(server_help), annotation=Optional[str]),
             inspect.Parameter("url", kind, default=url_option(url_help), annotation=Optional[str]),
             inspect.Parameter("header", kind, default=header_option(HOST_HEADER_HELP), annotation=List[str]),
             inspect.Parameter("env_items", kind, default=env_option(HOST_ENV_HELP), annotation=List[str]),
             inspect.Parameter("profile", kind, default=profile_option(profile_help), annotation=Optional[Path])]

    def decorate(func):
        signature = inspect.signature(func)
        parameters = []
        for parameter in signature.parameters.values():
            parameters.extend(added if parameter.name == "target" else [parameter])

        @functools.wraps(func)
        def command(**given):
            target = ServerTarget(*(given.pop(parameter.name) for parameter in added))
            return func(target=target, **given)

        # Typer reads the options from the signature and their types from the annotations
        command.__signature__ = signature.replace(parameters=parameters)
        command.__annotations__ = {**{k: v for k, v in func.__annotations__.items() if k != "target"},
                                   **{parameter.name: parameter.annotation for parameter in added}}
        return command

    return decorate
