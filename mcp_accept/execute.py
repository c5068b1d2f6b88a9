"""``mcp-accept run``: from options to a filled run folder and an exit status.

The CLI parses options into :class:`RunOptions` and calls :func:`run`; everything
between (loading the sheet, starting the server, recording, judging, writing the
evidence) happens here, so tests can call it in-process.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
import shlex
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from mcp_accept import __version__
from mcp_accept.checks import FAIL, PENDING, UNOBTAINABLE, breaks_threshold
from mcp_accept.errors import ExitStatus, InputError, ServerError
from mcp_accept.evidence import Redactor, compact_size, utc_now
from mcp_accept.protocol import Session
from mcp_accept.results import build, keep_observed, load_previous, row_entry, write, write_row_files
from mcp_accept.runner import Recorder, Recording, RowResult, judge
from mcp_accept.schemas import SchemaStore
from mcp_accept.transport.base import DEFAULT_MAX_BYTES


@dataclass
class RunOptions:
    server: str | None = None
    url: str | None = None
    protocol: str = "auto"
    timeout: float = 10.0
    run_timeout: float = 300.0
    out: Path | None = None
    conditions: Path | None = None
    sets: list[str] = field(default_factory=list)
    profile: Path | None = None
    sheet: Path | None = None
    schema_dir: Path | None = None
    max_bytes: int = DEFAULT_MAX_BYTES
    headers: list[str] = field(default_factory=list)
    offline: bool = False
    fail_on: str = "app"  # the weakest rule whose FAIL makes exit 1: must, should or app


@dataclass
class RunOutcome:
    folder: Path
    results: dict
    status: ExitStatus


def fixture_path() -> Path:
    return Path(__file__).with_name("fixture.py")


def builtin_server_command() -> str:
    return shlex.join([sys.executable, str(fixture_path())])


def default_out(prefix: str = "") -> Path:
    """A new folder under ./mcp-accept-runs/, named by the UTC time (and ``prefix``)."""
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    base = Path("mcp-accept-runs") / f"{prefix}{stamp}"
    folder, n = base, 1
    while folder.exists():
        n += 1
        folder = Path(f"{base}-{n}")
    return folder


def prepare_folder(folder: Path) -> Path:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".mcp-accept-write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise InputError(f"cannot write the output folder: {exc.strerror or exc}", file=str(folder),
                         field="--out") from None
    return folder


def observed_conditions(recording: Recording, transport_name: str, folder: Path, started: str) -> dict:
    info = recording.negotiation.server_info or {}
    out: dict = {
        "transport": transport_name,
        "protocol_version_on_wire": recording.version,
        "client_sdk_and_version": f"mcp-accept {__version__} (raw JSON-RPC client)",
        "executed_at_utc": started,
        "evidence_path_or_id": str(folder),
        "resource_read_route": "resources/read",
    }
    if isinstance(info.get("name"), str):
        out["server_name"] = info["name"]
    sizes = []
    for name, step in recording.steps.items():
        if name.startswith("call:") and step.reply is not None and step.reply.has_result:
            sizes.append(compact_size(step.reply.result))  # counted without serialising it whole
    if sizes:
        out["result_size_utf8_bytes"] = max(sizes)
    return out


# The runner's observations win for what it saw on the wire; the user's values fill the rest.
OBSERVED_WINS = ("transport", "protocol_version_on_wire", "executed_at_utc", "evidence_path_or_id",
                 "client_sdk_and_version")


def merge_conditions(observed: dict, given: dict, previous: dict | None) -> dict:
    from mcp_accept.sheet import CONDITION_KEYS

    merged = {}
    earlier = (previous or {}).get("conditions") or {}
    for key in CONDITION_KEYS:
        value = None
        if key in OBSERVED_WINS:
            value = observed.get(key, given.get(key))
        else:
            value = given.get(key, observed.get(key))
        if value is None:
            value = earlier.get(key)
        merged[key] = value
    return merged


def unreached_rows(sheet, reason: str) -> list[RowResult]:
    return [RowResult(r.id, r.kind, r.title, UNOBTAINABLE if r.automated else PENDING,
                      reason if r.automated else None, steps=r.steps) for r in sheet.rows]


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


HEADER_NAME_RE = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
ENV_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def resolve_headers(items: list[str], environ=None) -> tuple[list[tuple[str, str]], list[str]]:
    """``--header "Name: value"`` items as (name, value) pairs, and the secrets to mask.

    ``value`` may be ``env:VAR``, read from the environment. Every value counts as a
    secret; error messages name the header, never its value.
    """
    environ = os.environ if environ is None else environ
    headers, secrets = [], []
    for n, item in enumerate(items, 1):
        name, sep, value = item.partition(":")
        name, value = name.strip(), value.strip()
        where = f"--header #{n}"
        if not sep or not name:
            raise InputError("expected \"Name: value\" (or \"Name: env:VAR\")", field=where)
        if not HEADER_NAME_RE.match(name):
            raise InputError("the header name is not a valid HTTP field name", field=where)
        where = f"--header {name}"
        if value.startswith("env:"):
            var = value[4:].strip()
            if not ENV_NAME_RE.match(var):
                raise InputError("env: must be followed by an environment variable name", field=where)
            if var not in environ:
                raise InputError(f"the environment variable {var} is not set", field=where)
            value = environ[var].strip()
            if not value:
                raise InputError(f"the environment variable {var} is empty", field=where)
        if not value:
            raise InputError("the header has no value", field=where)
        if any(not (32 <= ord(ch) < 127) for ch in value):
            raise InputError("the value must be printable ASCII", field=where)
        headers.append((name, value))
        secrets += [value, json.dumps(value)[1:-1]]  # as written, and as it reads inside JSON
        scheme, _, token = value.partition(" ")
        if token.strip() and scheme.isalpha():  # "Bearer TOKEN": the token alone is secret too
            secrets.append(token.strip())
    return headers, secrets


def check_target(opts: "RunOptions") -> tuple[list[tuple[str, str]], Redactor]:
    """Check --url and --header before anything is written; give the headers and a Redactor."""
    from urllib.parse import unquote, urlsplit

    secrets: list[str] = []
    if opts.server is not None:  # a command that cannot be split is the user's to fix
        try:
            argv = shlex.split(opts.server)
        except ValueError as exc:
            raise InputError(f"cannot split the command: {exc}", field="--server") from None
        if not argv:
            raise InputError("the command is empty", field="--server")
    if opts.url:
        from mcp_accept.transport.http import check_url  # httpx only for HTTP runs: 0.15 s of start-up

        problem = check_url(opts.url)
        if problem:
            raise InputError(problem, field="--url")
        password = urlsplit(opts.url).password
        if password:
            secrets += [password, unquote(password)]
    elif opts.headers:
        raise InputError("headers are sent over HTTP only: give --url too", field="--header")
    headers, header_secrets = resolve_headers(opts.headers)
    return headers, Redactor(secrets + header_secrets, header_names=[name for name, _ in headers])


def run(opts: RunOptions) -> RunOutcome:
    """Do one run; return the folder, the results and the exit status. Raises InputError."""
    from mcp_accept.sheet import load_conditions, load_profile, load_sheet, parse_set
    from mcp_accept.transport.factory import make_transport

    from mcp_accept.schemas import require_dir

    require_dir(opts.schema_dir)
    headers, redactor = check_target(opts)  # secrets are known before anything is written
    sheet = load_sheet(opts.sheet)
    profile = load_profile(opts.profile)
    given = load_conditions(opts.conditions)
    set_conditions, row_options = parse_set(opts.sets, sheet)
    given.update(set_conditions)
    folder = prepare_folder(opts.out or default_out())
    previous = load_previous(folder)
    started, clock = utc_now(), time.monotonic()
    transport = make_transport(opts, folder=folder, redactor=redactor,
                               builtin=builtin_server_command(), headers=headers)
    store = SchemaStore(opts.schema_dir, allow_fetch=False if opts.offline else None)
    recording: Recording
    status_override = None
    # SIGTERM ends a run like Ctrl-C; only the main thread may set handlers (verify runs in threads).
    in_main = threading.current_thread() is threading.main_thread()
    old_term = signal.signal(signal.SIGTERM, _raise_interrupt) if in_main else None
    try:
        try:
            transport.open()
        except ServerError as exc:
            transport.log.record("event", event="start-failed", detail=str(exc))
            rows = unreached_rows(sheet, f"the server could not be started: {exc}")
            return _finish(folder, sheet, profile, given, previous, rows, Recording(entries=transport.log.entries),
                           transport, store, started, redactor, ExitStatus.SERVER, interrupted=False)
        session = Session(transport, timeout=opts.timeout)
        recorder = Recorder(session, profile, deadline=clock + opts.run_timeout)
        recording = recorder.recording
        interrupted = False
        try:
            negotiation = recorder.negotiate(opts.protocol)
            if not negotiation.ok:
                why = "; ".join(negotiation.attempts) or "no answer"
                rows = unreached_rows(sheet, f"the server could not be spoken to: {why}")
                status_override = ExitStatus.SERVER
            else:
                recorder.run_steps()
                try:
                    transport.end_session(timeout=opts.timeout)
                except Exception:  # ending a session is a courtesy; its failure is in the log
                    pass
        except KeyboardInterrupt:
            interrupted = True
            recording.unfinished = "interrupted"
            for step in recording.steps.values():
                if step.reply is None and step.skipped is None:  # the request in flight
                    step.skipped = recording.unfinished
            transport.log.record("event", event="interrupted", detail="the run was interrupted")
        finally:
            transport.close()
        if status_override is None:
            rows = judge(sheet, recording, profile, store, row_options)
        elif interrupted:
            rows = unreached_rows(sheet, "interrupted")
        return _finish(folder, sheet, profile, given, previous, rows, recording, transport, store, started,
                       redactor, status_override, interrupted=interrupted, fail_on=opts.fail_on)
    finally:
        if in_main:
            signal.signal(signal.SIGTERM, old_term)
        transport.log.close()


def _finish(folder, sheet, profile, given, previous, rows, recording, transport, store, started, redactor,
            status: ExitStatus | None, *, interrupted: bool, fail_on: str = "app") -> RunOutcome:
    observed = observed_conditions(recording, transport.name, folder, started)
    conditions = merge_conditions(observed, given, previous)
    entries = [row_entry(r) for r in rows]
    entries = keep_observed(entries, previous)
    results = build(sheet=sheet, profile=profile, conditions=conditions, rows=entries,
                    schemas=store.used(), started_at=started,
                    finished_at=None if interrupted else utc_now(), interrupted=interrupted)
    write_row_files(folder, rows, recording.entries, redactor)
    write(folder, results, redactor)
    results = json.loads(redactor.text(json.dumps(results, ensure_ascii=False)))  # what gets printed
    if status is None:
        if interrupted:
            status = ExitStatus.INTERRUPTED
        else:
            failed = any(r["status"] == FAIL and r["filled_by"] == "runner"
                         and breaks_threshold(r.get("failed_rule") or "app", fail_on) for r in entries)
            status = ExitStatus.FAILED if failed else ExitStatus.OK
    return RunOutcome(folder, results, status)
