"""``mcp-accept run --targets FILE``: the sheet against many servers at once.

A targets file (YAML, ``schemas/targets.schema.json``) lists servers, each a command
or a URL with its own profile, conditions and protocol. Every target is checked
before anything runs (a bad file, profile or ``--set`` item stops the whole fleet
with one line and exit 2), then the targets run concurrently in worker processes,
each through :func:`mcp_accept.running.execute.run` into its own folder under ``--out``.
A target that fails, hangs or cannot be reached does not stop the others.

Workers are forked from a process that has already imported the runner and its
checks, so a fleet pays the start-up cost once, not once per server.
"""

from __future__ import annotations

import multiprocessing
import os
import re
import signal
import sys
import time
import traceback
from concurrent.futures import CancelledError, ProcessPoolExecutor, wait
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable
from urllib.parse import urlsplit

from mcp_accept.errors import ExitStatus, InputError, InternalError, ServerError
from mcp_accept.running.execute import RunOptions
from mcp_accept.server_command import split_words

FORMAT = "mcp-accept/fleet/1"
PATH_SETTINGS = ("profile", "conditions", "sheet")
STOP_GRACE = 30.0  # seconds interrupted runs get to write their folders


@dataclass
class Target:
    index: int
    name: str
    options: RunOptions
    where: str  # "FILE: targets[3]", to name the entry in messages
    file_sets: list[str] = field(default_factory=list)  # the --set items the file gave


@dataclass
class TargetResult:
    """How one target's run ended; what the summary table and ``fleet.json`` show."""

    index: int
    name: str
    folder: str
    exit: int
    summary: dict | None = None  # row counts by status
    server_name: str | None = None
    transport: str | None = None
    protocol: str | None = None
    seconds: float = 0.0
    error: str | None = None  # why the run produced no results, or stopped early

    def as_dict(self) -> dict:
        return {"name": self.name, "index": self.index, "folder": self.folder, "exit": self.exit,
                "summary": self.summary,
                "server_name": self.server_name, "transport": self.transport, "protocol": self.protocol,
                "seconds": self.seconds, "error": self.error}


@dataclass
class FleetOutcome:
    folder: Path
    results: list[TargetResult]
    status: ExitStatus
    seconds: float
    jobs: int
    interrupted: bool = False


# -- the targets file ---------------------------------------------------------------------------


def _slug(text: str) -> str:
    text = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-._")
    return text[:60] or "target"


def default_name(entry: dict) -> str:
    """A folder name for an entry that gives none: the URL's host and port, or the command's
    script (``python server.py --x`` -> ``server``), or ``fixture`` for the built-in one."""
    if entry.get("url"):
        parts = urlsplit(entry["url"])
        return _slug(f"{parts.hostname or 'http'}-{parts.port}" if parts.port else parts.hostname or "http")
    command = entry.get("server")
    if not command:
        return "fixture"
    argv = split_words(command)[0] or command.split()  # a command shlex cannot split: by spaces
    words = [a for a in argv if not a.startswith("-")]
    pick = next((a for a in words[1:] if "/" in a or "." in a), words[-1] if words else "server")
    return _slug(Path(pick).stem if "/" in pick or pick.endswith(".py") else pick)


def load_targets(path: Path, base: RunOptions, out: Path) -> list[Target]:
    """Read and check a targets file; each target's options are ``base`` overlaid with the
    file's ``defaults`` and then the entry's own keys. Relative paths in the file are read
    from the file's folder. Raises :class:`InputError` naming the file, line and field."""
    from mcp_accept.inputs.files import load_yaml

    data = load_yaml(path, "targets")
    here = Path(path).parent
    shown = str(path)
    defaults = data.get("defaults") or {}
    targets: list[Target] = []
    taken: set[str] = set()
    for i, entry in enumerate(data["targets"]):
        merged = {**defaults, **entry}
        name = entry.get("name") or default_name(entry)
        unique, n = name, 1
        while unique.lower() in taken:
            n += 1
            unique = f"{name}-{n}"
        taken.add(unique.lower())
        file_sets = list(defaults.get("set") or []) + list(entry.get("set") or [])
        opts = replace(base, sets=list(base.sets) + file_sets,
                       headers=list(base.headers) + list(merged.get("headers") or []),
                       env=list(base.env) + list(defaults.get("env") or []) + list(entry.get("env") or []),
                       inherit_env=bool(merged.get("inherit_env", base.inherit_env)),
                       out=out / unique)
        if "server" in entry or "url" in entry:
            opts.server = entry.get("server")
            opts.url = entry.get("url")
        if opts.server:  # relative paths in the command mean the file's folder: the server runs there
            opts.cwd = here.resolve()
        for key in PATH_SETTINGS:
            if merged.get(key):
                setattr(opts, key, here / merged[key])
        for key in ("protocol", "timeout", "run_timeout"):
            if key in merged:
                setattr(opts, key, merged[key])
        targets.append(Target(i, unique, opts, f"{shown}: targets[{i}]", file_sets))
    return targets


def preflight(targets: list[Target]) -> set[str]:
    """Load every target's sheet, profile and conditions and check its --set items and
    headers, so that a mistake stops the fleet before any server is started. Gives the
    check layers the sheets use."""
    from mcp_accept.running.execute import check_target
    from mcp_accept.evidence.credentials import looks_like_credential
    from mcp_accept.inputs.conditions import load_conditions, parse_set
    from mcp_accept.inputs.profile import load_profile
    from mcp_accept.inputs.sheet import load_sheet

    layers: set[str] = set()
    for target in targets:
        opts = target.options
        for item in opts.headers:
            value = item.partition(":")[2].strip()
            if value and not value.startswith("env:") and looks_like_credential(value):
                name = item.partition(":")[0].strip()
                raise InputError("the value looks like a credential: give it as env:VAR so that it stays "
                                 "out of the file", file=target.where, field=f"headers {name}")
        try:
            check_target(opts)
            sheet = load_sheet(opts.sheet)
            load_profile(opts.profile)
            load_conditions(opts.conditions)
            parse_set(opts.sets[:len(opts.sets) - len(target.file_sets)], sheet)
            parse_set(target.file_sets, sheet, source=f"{target.where}.set")
        except InputError as exc:
            if exc.file is None:  # an option-like problem (--set, --header, url): name the entry
                exc = InputError(exc.message, file=target.where, field=exc.field)
            raise exc from None
        layers.update(check.layer for row in sheet.rows for check in row.checks)
    return layers


# -- running -------------------------------------------------------------------------------------

_stopping = False  # set in a worker once it has been asked to stop
_terminated = False  # the fleet was stopped by SIGTERM: it exits 143, not 130
STOPPED = (ExitStatus.INTERRUPTED, ExitStatus.TERMINATED)  # a target's exit when a signal stopped it


def _worker_start() -> None:
    """In each worker: Ctrl-C is the parent's to handle; SIGTERM from the parent means stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _worker_stop)


def _worker_stop(signum, frame) -> None:
    global _stopping
    _stopping = True  # a run in progress gets the signal through its own handler instead


def run_target(target: Target) -> TargetResult:
    """One target, start to end; never raises (its failure is its result)."""
    from mcp_accept.running.execute import run

    global _stopping
    opts = target.options
    result = TargetResult(target.index, target.name, str(opts.out), int(ExitStatus.SERVER))
    if _stopping:
        result.exit, result.error = int(ExitStatus.INTERRUPTED), "not run: the fleet was interrupted"
        return result
    started = time.monotonic()
    try:
        outcome = run(opts)
    except (InputError, ServerError) as exc:
        result.exit = int(exc.status)
        result.error = exc.one_line() if isinstance(exc, InputError) else str(exc)
    except KeyboardInterrupt:
        result.exit, result.error = int(ExitStatus.INTERRUPTED), "interrupted"
    except InternalError as exc:  # the run kept its crash report; the target gets the run's exit code
        result.exit, result.error = int(exc.status), exc.one_line()
    except Exception as exc:  # a fault in one run must not stop the others
        result.exit = int(ExitStatus.INTERNAL)
        result.error = f"internal error of mcp-accept: {type(exc).__name__}: {exc}"
        _keep_traceback(Path(opts.out))
    else:
        conditions = outcome.results.get("conditions") or {}
        result.exit = int(outcome.status)
        result.summary = dict(outcome.results.get("summary") or {})
        result.server_name = conditions.get("server_name")
        result.transport = conditions.get("transport")
        result.protocol = conditions.get("protocol_version_on_wire")
        if outcome.results.get("interrupted"):
            result.error = "interrupted"
        elif outcome.status == ExitStatus.SERVER:
            result.error = outcome.results.get("cause") or "the server could not be reached"
    result.seconds = round(time.monotonic() - started, 2)
    if result.exit in STOPPED:
        _stopping = True
    return result


def _keep_traceback(folder: Path) -> None:
    from mcp_accept.evidence.files import atomic_write_text

    try:
        atomic_write_text(folder / "runner-error.log", traceback.format_exc())
    except OSError:
        pass


def _warm_up(layers: set[str]) -> None:
    """Import what every run needs once, before the workers are forked from this process."""
    from mcp_accept.inputs import results  # noqa: F401
    from mcp_accept.running import runner  # noqa: F401
    from mcp_accept.checks.registry import load_all
    from mcp_accept.transport import stdio  # noqa: F401

    load_all()
    from mcp_accept.checks.types import _warm_imports

    _warm_imports()  # the Python validator too: forked workers share it, one run alone imports it when needed
    try:
        import jinja2  # noqa: F401  (sheet.md)
    except ImportError:
        pass
    if "sdk" in layers:
        from mcp_accept.running import sdk_replay as sdk

        sdk.sdk_info()  # the SDK layer imports the SDK once here, not once per run
    import gc

    # What was imported stays for the whole fleet: kept out of the collector's reach, so that
    # no worker's collection walks (and copies the pages of) the modules it shares.
    gc.freeze()


def _pool_context():
    # fork shares the warmed-up imports with every worker; elsewhere the default is safer.
    if sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return None


def default_jobs(count: int) -> int:
    return max(1, min(count, os.cpu_count() or 1))


def run_fleet(targets_file: Path, base: RunOptions, *, jobs: int | None = None,
              on_result: Callable[[TargetResult, int, int], None] | None = None,
              shard: tuple[int, int] | None = None) -> FleetOutcome:
    """Run every target of ``targets_file`` (or shard K of N of them, see mcp_accept.running.shard);
    write ``fleet.json`` beside their folders."""
    from mcp_accept.evidence.files import prepare_folder, utc_now
    from mcp_accept.running.execute import default_out

    global _stopping, _terminated
    _stopping = _terminated = False
    out = base.out or default_out()
    from mcp_accept.running.shard import select

    targets = select(load_targets(targets_file, base, out), shard)  # each keeps its index in the file
    layers = preflight(targets)
    from mcp_accept.running.sdk_replay import switched_off

    if switched_off(base.sdk) is not None:
        layers.discard("sdk")  # the runs replay nothing: no SDK to import for them
    prepare_folder(out)
    jobs = default_jobs(len(targets)) if not jobs else max(1, min(jobs, len(targets)))
    started_at, clock = utc_now(), time.monotonic()
    done: dict[int, TargetResult] = {}

    def finished(result: TargetResult) -> None:
        done[result.index] = result
        if on_result is not None:
            on_result(result, len(done), len(targets))

    if jobs == 1:
        interrupted = _run_in_turn(targets, finished)
    else:
        interrupted = _run_pool(targets, jobs, finished, layers)
    results = [done.get(t.index) or TargetResult(t.index, t.name, str(t.options.out), int(ExitStatus.INTERRUPTED),
                                                 error="not run: the fleet was interrupted")
               for t in targets]
    seconds = round(time.monotonic() - clock, 2)
    status = fleet_status(results, interrupted, terminated=_terminated)
    _write_index(out, results, jobs=jobs, started_at=started_at, seconds=seconds, status=status,
                 interrupted=interrupted, shard=f"{shard[0]}/{shard[1]}" if shard else None)
    return FleetOutcome(out, results, status, seconds, jobs, interrupted)


def _run_in_turn(targets: list[Target], finished) -> bool:
    """Run the targets one after the other in this process; return whether it was interrupted."""
    global _terminated
    old_term = signal.signal(signal.SIGTERM, _raise_interrupt) if _main_thread() else None
    try:
        for target in targets:
            result = run_target(target)
            finished(result)
            if result.exit in STOPPED:  # the run's own handler had the signal
                _terminated = _terminated or result.exit == ExitStatus.TERMINATED
                return True
    except KeyboardInterrupt:
        return True
    finally:
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)
    return False


def _run_pool(targets: list[Target], jobs: int, finished, layers: set[str]) -> bool:
    """Run the targets on ``jobs`` worker processes; return whether the fleet was interrupted."""
    _warm_up(layers)
    interrupted = False
    old_term = signal.signal(signal.SIGTERM, _raise_interrupt) if _main_thread() else None
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=_pool_context(), initializer=_worker_start)
    try:
        futures = {pool.submit(run_target, t): t for t in targets}
        pending = set(futures)
        try:
            while pending:
                ready, pending = wait(pending, return_when="FIRST_COMPLETED")
                for future in ready:
                    finished(_collect(future, futures[future]))
        except KeyboardInterrupt:
            interrupted = True
            for future in pending:
                future.cancel()
            for process in list((getattr(pool, "_processes", None) or {}).values()):
                try:
                    process.terminate()  # SIGTERM: a run in progress writes its folder as interrupted
                except (OSError, ValueError):
                    pass
            ready, _ = wait(pending, timeout=STOP_GRACE)
            for future in ready:
                if not future.cancelled():
                    finished(_collect(future, futures[future]))
    finally:
        pool.shutdown(wait=not interrupted, cancel_futures=True)
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)
    return interrupted


def _collect(future, target: Target) -> TargetResult:
    try:
        return future.result()
    except CancelledError:
        return TargetResult(target.index, target.name, str(target.options.out), int(ExitStatus.INTERRUPTED),
                            error="not run: the fleet was interrupted")
    except Exception as exc:  # the worker process died (killed, out of memory...)
        return TargetResult(target.index, target.name, str(target.options.out), int(ExitStatus.SERVER),
                            error=f"the worker running it stopped: {type(exc).__name__}: {exc}")


def _main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def _raise_interrupt(signum, frame):
    global _terminated
    _terminated = True  # installed for SIGTERM only: Ctrl-C raises KeyboardInterrupt by itself
    raise KeyboardInterrupt


def fleet_status(results: list[TargetResult], interrupted: bool = False, *,
                 terminated: bool = False) -> ExitStatus:
    """The fleet's exit status: stopped by a signal first (143 for SIGTERM, else 130: the
    workers' runs a Ctrl-C stopped got SIGTERM from the fleet, so their 143 is not the fleet's), then the worst of the targets: 3 (a server could not be reached)
    over 2 over 1 (a row failed) over 0."""
    if terminated:
        return ExitStatus.TERMINATED
    if interrupted or any(r.exit in STOPPED for r in results):
        return ExitStatus.INTERRUPTED
    worst = max((r.exit for r in results), default=0)
    return ExitStatus(worst) if worst in ExitStatus._value2member_map_ else ExitStatus.SERVER


def _write_index(out: Path, results: list[TargetResult], **info) -> None:
    from mcp_accept import __version__
    from mcp_accept.evidence.files import atomic_write_json

    entries = []
    for r in results:
        entry = r.as_dict()
        try:
            entry["folder"] = str(Path(r.folder).relative_to(out))
        except ValueError:
            pass
        entries.append(entry)
    atomic_write_json(out / "fleet.json", {
        "format": FORMAT, "tool": {"name": "mcp-accept", "version": __version__},
        "jobs": info["jobs"], "started_at": info["started_at"], "seconds": info["seconds"],
        "exit": int(info["status"]), "interrupted": info["interrupted"], "shard": info.get("shard"),
        "targets": entries,
    })
