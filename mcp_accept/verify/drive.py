"""A verify made: the folder prepared, the planned runs made (and the SDK's own client
driving the fixture beside them), the conditions judged, verify.json and verify.md written."""

from __future__ import annotations

import shlex
import shutil
import socket
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

from mcp_accept import __version__
from mcp_accept.checks.base import FAIL, PASS
from mcp_accept.errors import ExitStatus, InputError
from mcp_accept.evidence.files import atomic_write_json, atomic_write_text, utc_now
from mcp_accept.protocol import MODERN, VERSIONS
from mcp_accept.verify.canary import Canary
from mcp_accept.verify.conditions import build_conditions
from mcp_accept.verify.plan import MAX_ROUNDS, NO_LIVE_SDK, plan
from mcp_accept.verify.report import render
from mcp_accept.verify.runs import HTTP, LIVE_FILE, STDIO, RunView, load_run

FORMAT = "mcp-accept/verify/1"


@dataclass
class VerifyOptions:
    out: Path | None = None
    timeout: float = 2.0
    run_timeout: float = 60.0
    jobs: int = 2
    schema_dir: Path | None = None
    offline: bool = False
    on_progress: object = None  # called with (runs done, runs in all) as each run ends


@dataclass
class VerifyOutcome:
    folder: Path
    report: dict
    status: ExitStatus


def prepare(out: Path) -> Path:
    """The verify folder: new, empty, or one an earlier verify wrote (its runs are replaced)."""
    try:
        if out.exists() and not out.is_dir():
            raise InputError("exists and is not a folder", file=str(out), field="--out")
        if out.is_dir() and any(out.iterdir()):
            if not (out / "verify.json").is_file():
                raise InputError("the folder is not empty and holds no earlier verify; choose a new one",
                                 file=str(out), field="--out")
            shutil.rmtree(out / "runs", ignore_errors=True)
        (out / "runs").mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot write the output folder: {exc.strerror or exc}", file=str(out),
                         field="--out") from None
    return out


def _run_one(view: RunView, opts: VerifyOptions, sdk_available: bool, sdk: bool | None) -> RunView:
    from mcp_accept.running.execute import RunOptions, fixture_path, run

    url = None
    argv = [sys.executable, str(fixture_path())]
    if view.transport == HTTP:
        port = _free_port()
        argv += ["--http", str(port)]
        url = f"http://127.0.0.1:{port}/mcp"
    command = shlex.join([*argv, *view.args])
    try:
        outcome = run(RunOptions(server=command, url=url, protocol=view.era, timeout=opts.timeout,
                                 run_timeout=opts.run_timeout, out=view.folder, max_rounds=MAX_ROUNDS,
                                 schema_dir=opts.schema_dir, offline=opts.offline, sdk=sdk,
                                 # every FAIL a break mode causes is what verify looks for: each
                                 # one, the sheet's advice included, must show in the exit status
                                 fail_on="app"))
        view.exit_status = int(outcome.status)
    except InputError:
        raise
    except Exception as exc:  # noted as the run's failure; the conditions resting on it fail
        view.error = f"the run raised {type(exc).__name__}: {exc}"
    load_run(view)
    if sdk_available and view.mode not in NO_LIVE_SDK and view.transport == STDIO:
        try:
            view.live = live_sdk(view.args, view.era, view.folder / "sdk-live.stderr.log", opts.timeout)
        except Exception as exc:  # the comparison condition reports it
            view.live_error = f"{type(exc).__name__}: {exc}"
        atomic_write_json(view.folder / LIVE_FILE, {"live": view.live, "error": view.live_error})
    return view


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def live_sdk(args: list[str], era: str, errlog: Path, timeout: float) -> dict[str, dict]:
    """Let the SDK's own client drive the fixture over stdio; what it accepted or raised, per step."""
    import anyio

    return anyio.run(_live_sdk, args, era, errlog, timeout)


async def _live_sdk(args: list[str], era: str, errlog: Path, timeout: float) -> dict[str, dict]:
    import anyio
    from mcp.client.client import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    from mcp_accept.running.sdk_replay import describe_exception
    from mcp_accept.running.execute import fixture_path
    from mcp_accept.fixture import LINK_URI
    from mcp_accept.inputs.profile import load_profile

    profile = load_profile(None)
    params = StdioServerParameters(command=sys.executable, args=[str(fixture_path()), *args])
    out: dict[str, dict] = {}
    with open(errlog, "w", encoding="utf-8") as log:
        transport = stdio_client(params, errlog=log)
        async with Client(transport, mode="legacy" if era != MODERN else "auto", cache=None,
                          read_timeout_seconds=timeout) as client:
            try:
                await client.list_tools()
            except Exception:
                pass  # call_tool lists again and raises what it raises
            calls: list[tuple[str, Callable]] = []
            for form in ("text", "structured", "embedded", "link"):
                ref = profile.tools[form]
                calls.append((f"call:{form}", lambda ref=ref: client.call_tool(ref.name, dict(ref.arguments))))
            calls.append(("read:link", lambda: client.read_resource(LINK_URI)))
            calls.append(("read:unknown", lambda: client.read_resource(profile.unknown_uri)))
            for step, make in calls:
                try:
                    with anyio.fail_after(timeout * 2):
                        result = await make()
                    out[step] = {"accepted": True, "detail": f"accepted as {type(result).__name__}"}
                except Exception as exc:
                    detail, kind, code = describe_exception(exc)
                    out[step] = {"accepted": False, "detail": detail, "error": kind, "code": code}
    return out


def verify(opts: VerifyOptions) -> VerifyOutcome:
    from mcp_accept.checks.sdk import SdkInfo
    from mcp_accept.running.sdk_replay import sdk_info, switched_off
    from mcp_accept.schemas import SchemaStore, require_dir

    require_dir(opts.schema_dir)
    from mcp_accept.running.execute import default_out

    folder = prepare(opts.out or default_out("verify-"))
    started = utc_now()
    # verify checks the sdk layer too: its runs have it unless MCP_ACCEPT_SDK=off says otherwise
    off = switched_off(None, default=True)
    info = sdk_info() if off is None else SdkInfo(False, None, off.english())
    canary = Canary()
    try:
        views = plan(folder, canary.url)
        modes = list(dict.fromkeys(v.mode for v in views))
        with ThreadPoolExecutor(max_workers=max(1, opts.jobs)) as pool:
            futures = [pool.submit(_run_one, v, opts, info.available, None if off else True) for v in views]
            try:
                for done, future in enumerate(futures, 1):
                    future.result()
                    if callable(opts.on_progress):
                        opts.on_progress(done, len(futures))
            except BaseException:
                for future in futures:
                    future.cancel()
                raise
        fetched = canary.count()
        canary_alive = canary.probe()
    finally:
        canary.close()
    runs = {v.key: v for v in views}
    store = SchemaStore(opts.schema_dir, allow_fetch=False if opts.offline else None)
    conditions = build_conditions(runs, info, store, fetched=fetched, canary_alive=canary_alive)
    held = sum(c.status == PASS for c in conditions)
    report = {
        "format": FORMAT,
        "tool": {"name": "mcp-accept", "version": __version__},
        "started_at": started,
        "finished_at": utc_now(),
        "eras": list(VERSIONS),
        "modes": modes,
        "sdk": {"available": info.available, "version": info.version, "reason": info.reason},
        "canary": {"url": canary.url, "connections": fetched, "probe_seen": canary_alive},
        "transports": [STDIO, HTTP],
        "runs": [{"mode": v.mode, "era": v.era, "transport": v.transport, "sent": v.sent, "folder": v.rel,
                  "exit_status": v.exit_status,
                  "error": v.error, "summary": v.results.get("summary")} for v in views],
        "conditions": [asdict(c) for c in conditions],
        "summary": {PASS: held, FAIL: len(conditions) - held},
        "ok": held == len(conditions),
    }
    atomic_write_json(folder / "verify.json", report)
    atomic_write_text(folder / "verify.md", render(report))
    return VerifyOutcome(folder, report, ExitStatus.OK if report["ok"] else ExitStatus.FAILED)
