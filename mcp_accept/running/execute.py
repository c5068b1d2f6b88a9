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
from typing import Any

from mcp_accept import __version__
from mcp_accept.checks.base import PENDING, UNOBTAINABLE
from mcp_accept.running.sdk_replay import start_worker, switched_off
from mcp_accept.evidence.bounded import DeadlinePassed, hard_deadline, judging_deadline
from mcp_accept.errors import DiskFull, ExitStatus, InputError, InternalError, ServerError, is_disk_full
from mcp_accept.reasons import Reason, reason
from mcp_accept.evidence.files import write_crash_report
from mcp_accept.evidence.redaction import Redactor
from mcp_accept.evidence.wirelog import compact_size
from mcp_accept.evidence.files import open_run_folder, utc_now
from mcp_accept.transport.messages import noise_reason
from mcp_accept.transport.session import Session
from mcp_accept.inputs.results import load_previous
from mcp_accept.output.exit_status import apply_baseline, exit_status, mark_gates
from mcp_accept.output.results_writer import assemble, keep_observed, row_entry, row_seconds, run_row_files, write_results
from mcp_accept.running.runner import Recorder, Recording, RowResult, judge
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
    # what of the user's environment a started server is given (--env NAME or NAME=VALUE)
    env: list[str] = field(default_factory=list)
    inherit_env: bool = False  # --inherit-env: all of it
    offline: bool = False
    fail_on: str = "profile"  # the weakest rule whose FAIL makes exit 1: must, profile, should or app
    baseline: Path | None = None  # expected failures: they do not make exit 1
    max_rounds: int = 5  # requests one step may send while following input_required results
    lang: str = "en"  # language of sheet.md: en or ja
    sdk: bool | None = None  # --sdk / --no-sdk; None: MCP_ACCEPT_SDK says, else the layer is off
    cwd: Path | None = None  # folder a started server runs in (run --targets: the targets file's folder)
    # rerun: how the repeated run named its inputs, recorded instead of the copies read now
    recorded_as: dict | None = None


def check_options(opts: RunOptions, *, every_version: bool = False) -> None:
    """The values of the options themselves, checked before anything is read or started:
    ``--lang``, ``--fail-on``, ``--protocol`` (``all`` only where the caller runs every
    version, ``every_version``) and ``MCP_ACCEPT_SDK``. What they name is checked where it is
    read: the target by :func:`check_target`, the schemas' folder, sheet, profile and
    conditions by :func:`run`."""
    from mcp_accept.checks.base import RULES
    from mcp_accept.output.render import check_lang
    from mcp_accept.protocol import VERSIONS

    check_lang(opts.lang)
    if opts.fail_on not in RULES:
        raise InputError(f"must be one of {', '.join(RULES)}", field="--fail-on")
    if opts.protocol not in ("auto", *(("all",) if every_version else ()), *VERSIONS):
        named = "auto, all" if every_version else "auto"
        raise InputError(f"must be {named} or one of {', '.join(VERSIONS)}", field="--protocol")
    switched_off(opts.sdk)


@dataclass
class RunState:
    """One run, handed from stage to stage: what it was given and loaded before anything
    started, then what it recorded and judged, until its folder is written."""

    opts: RunOptions
    folder: Path
    redactor: Redactor
    headers: list[tuple[str, str]]
    sheet: Any
    profile: Any
    given: dict  # conditions handed over (--conditions and --set)
    row_options: dict  # --set ROW.option=VALUE
    invocation: dict | None  # how to repeat the run (running.invocation)
    sdk_off: Reason | None = None  # why the run has no sdk layer; None: it has one
    previous: dict | None = None  # the folder's earlier results.json: rows filled by observe survive
    started: str = ""  # UTC, as results.json says it
    clock: float = 0.0  # time.monotonic() at the start: --run-timeout counts from here
    store: SchemaStore | None = None
    transport: Any = None
    recording: Recording = field(default_factory=Recording)
    rows: list[RowResult] = field(default_factory=list)
    cause: str | None = None  # why nothing could be tested
    interrupted: bool = False
    terminated: bool = False  # the interrupt was SIGTERM: the run exits 143, not 130
    baseline: list[dict] | None = None  # --baseline's expected failures


@dataclass
class RunOutcome:
    folder: Path
    results: dict
    status: ExitStatus
    recording: Recording | None = None  # what the run recorded (for comparing eras)


def fixture_path() -> Path:
    return Path(__file__).parent.parent / "fixture.py"


def builtin_server_command() -> str:
    """The built-in fixture, run as a module: a script given by path is compiled anew at
    every start (Python caches the bytecode of imported modules only), a third of the
    fixture's start-up, paid once per server of a fleet."""
    return shlex.join([sys.executable, "-m", "mcp_accept.fixture"])


def default_out(prefix: str = "") -> Path:
    """A new folder under ./mcp-accept-runs/, named by the UTC time (and ``prefix``)."""
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    base = Path("mcp-accept-runs") / f"{prefix}{stamp}"
    folder, n = base, 1
    while folder.exists():
        n += 1
        folder = Path(f"{base}-{n}")
    return folder


def observed_conditions(recording: Recording, transport_name: str, folder: Path, started: str,
                        sizes: dict | None = None) -> dict:
    info = recording.negotiation.server_info or {}
    out: dict = {
        "transport": transport_name,
        "protocol_version_on_wire": recording.version,
        "client_sdk_and_version": f"mcp-accept {__version__} (raw JSON-RPC client)",
        "executed_at_utc": started,
        # the run folder's own name: evidence paths are relative to it, so it stays true
        # when the folder is moved or archived (docs/evidence.md)
        "evidence_path_or_id": folder.resolve().name,
    }
    read = recording.steps.get("read:link")
    if read is not None and read.reply is not None:  # the runner read the link on the wire
        out["resource_read_route"] = "resources/read"
    if isinstance(info.get("name"), str):
        out["server_name"] = info["name"]
    known, sizes = sizes, []
    for name, step in recording.steps.items():
        if name.startswith("call:") and step.reply is not None and step.reply.has_result:
            sizes.append(compact_size(step.reply.result, known))  # as the wire log counted it, or piece by piece
    if sizes:
        out["result_size_utf8_bytes"] = max(sizes)
    return out


def merge_conditions(observed: dict, given: dict, previous: dict | None) -> dict:
    """One rule for every condition: what the runner observed on the wire is recorded as
    observed; the user's value fills a condition the wire did not show. A given value that
    differs from the observed one is not lost: see :func:`given_beside`."""
    from mcp_accept.inputs.conditions import CONDITION_KEYS

    merged = {}
    earlier = (previous or {}).get("conditions") or {}
    for key in CONDITION_KEYS:
        value = observed.get(key)
        if value is None:
            value = given.get(key)
        if value is None:
            value = earlier.get(key)
        merged[key] = value
    return merged


def given_beside(observed: dict, given: dict) -> dict:
    """The given values that differ from what the wire showed (kept as ``conditions_given``)."""
    return {key: value for key, value in given.items()
            if value is not None and observed.get(key) is not None and observed[key] != value}


def condition_warnings(results: dict) -> list[str]:
    """One line per condition whose given value the wire contradicted."""
    given = results.get("conditions_given") or {}
    return [f"condition {key}: observed {results['conditions'].get(key)!r} on the wire; "
            f"the given {value!r} is kept as conditions_given.{key}" for key, value in given.items()]


# When the server cannot be started or spoken to, the cause is said once, in results.json's
# "cause" and on the command line; every automated row points there instead of repeating it.
SEE_RUN_STARTED = reason("run.not-started")
SEE_RUN_SPOKEN = reason("run.not-spoken")
STDERR_TAIL_LINES = 3


def stderr_tail(folder: Path, lines: int = STDERR_TAIL_LINES, limit: int = 300) -> str:
    """The last non-empty lines of the server's stderr.log, joined with " | " (one line), a
    line repeated at once told once, cut at the front to ``limit`` characters at a space."""
    from mcp_accept.evidence.files import open_read

    try:
        with open_read(folder / "stderr.log") as handle:
            handle.seek(max(0, os.fstat(handle.fileno()).st_size - 8192))
            data = handle.read(8192)
    except (OSError, InputError):  # a FIFO or a link planted there is named by open_run_folder
        return ""
    kept: list[str] = []
    for line in data.decode("utf-8", "replace").splitlines():
        # a line said again at once (each start of a server prints its banner) is told once
        if line.strip() and (not kept or kept[-1] != line.strip()):
            kept.append(line.strip())
    text = " | ".join(kept[-lines:])
    if len(text) <= limit:
        return text
    tail = text[-limit:]
    return "..." + (tail[tail.index(" ") + 1:] if " " in tail else tail)  # from a whole word on


def stop_for_cause(transport) -> int | None:
    """Stop the server (if mcp-accept started one) and give its exit code if it had exited by
    itself (a code from our own stop signal would mislead)."""
    process = getattr(transport, "process", None)
    code = process.exit_code(wait=0.2) if process is not None else None
    transport.close()
    return code


def unreachable_cause(opts: "RunOptions", code: int | None, folder: Path, detail: str, *,
                      started_ok: bool, noise: str | None = None) -> str:
    """One line: what was started or reached (the command or URL), what it wrote to its stdout
    that is no message (``noise``), how it ended (the exit code), and the last lines of its stderr."""
    target = opts.url or opts.server
    if noise is not None:  # what it wrote explains the silence that follows: said first
        what = f"{target or 'the built-in fixture'}: {noise_cause(noise, opts.protocol)}; then {_first_failure(detail)}"
    elif opts.url and not (code is not None and opts.server):
        # nothing answered at the URL (or it answered nonsense): the attempts say how
        what = f"{target}: {_first_failure(detail)}" if started_ok else detail
    elif not started_ok:
        what = detail if target is None or target.split()[0] in detail else f"{target}: {detail}"
    else:
        what = f"{target or 'the built-in fixture'}: {_first_failure(detail)}"
    if code is not None and f"code {code}" not in what:
        what += f"; exit code {code}"
    tail = stderr_tail(folder)
    if tail:
        what += f"; stderr ends: {tail}"
    return " ".join(what.split())


def noise_cause(noise: str, protocol: str) -> str:
    """The stdout noise with the rule it breaks and where that is written, in the version the
    run asked for (the latest released one when it asked for none: the sentence is the same in all)."""
    from mcp_accept.checks.base import spec
    from mcp_accept.protocol import LATEST_LEGACY, VERSIONS
    from mcp_accept.transport.messages import STDOUT_NOISE, violation_source

    version = protocol if protocol in VERSIONS else LATEST_LEGACY
    where = spec(*violation_source(STDOUT_NOISE, "stdio", version), version)
    return (f"{noise_reason(noise).english()} ({where}: \"The server MUST NOT write anything to its "
            f"stdout that is not a valid MCP message\")")


def _first_failure(attempts: str) -> str:
    """The negotiation tried several requests; the first failure is the telling one (the rest
    fail the same way, or because the first one left the server gone)."""
    first = attempts.split("; ")[0]
    _, sep, rest = first.partition(": ")
    return rest if sep else first


def unreached_rows(sheet, why: Reason) -> list[RowResult]:
    return [RowResult(r.id, r.kind, r.title, UNOBTAINABLE if r.automated else PENDING,
                      why.english() if r.automated else None, steps=r.steps,
                      reason_data=why if r.automated else None) for r in sheet.rows]


class signals_held:
    """SIGINT and SIGTERM are held off (main thread only) while the last files are written."""

    def __enter__(self):
        self._old = []
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._old.append((sig, signal.signal(sig, signal.SIG_IGN)))
        return self

    def __exit__(self, *exc):
        for sig, old in self._old:
            signal.signal(sig, old)
        return False


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


# Query parameters whose values are credentials (?token=, ?api_key=, ?key=, ?access_token=...).
SECRET_QUERY = re.compile(r"(?i)(?:^|[_-])(?:token|key|apikey|secret|password|passwd|pwd|auth|"
                          r"authorization|signature|sig|credential|credentials|session|sessionid|code)$")


def url_secrets(url: str) -> list[str]:
    """The secrets a URL carries: its password (and the ``user:password`` pair the HTTP
    transport sends as ``Authorization: Basic``), and the values of secret-looking query parameters."""
    from urllib.parse import parse_qsl, unquote, urlsplit

    parts = urlsplit(url)
    found: list[str] = []
    if parts.password:
        user = parts.username or ""
        found += [parts.password, unquote(parts.password), f"{unquote(user)}:{unquote(parts.password)}",
                  f"{user}:{parts.password}"]
    for name, value in parse_qsl(parts.query, keep_blank_values=False):
        if SECRET_QUERY.search(name) or name.lower() in ("key", "code"):
            found.append(value)
            raw = [p.partition("=")[2] for p in parts.query.split("&") if p.partition("=")[0] == name]
            found += raw
    return found


def check_target(opts: "RunOptions") -> tuple[list[tuple[str, str]], Redactor]:
    """Check --url, --header and --env before anything is written; give the headers and a
    Redactor (which masks a value set with --env NAME=VALUE as it masks a header's)."""
    from mcp_accept.server_command import command_words, server_env

    secrets: list[str] = []
    if opts.server is not None:
        command_words(opts.server)
    if (opts.env or opts.inherit_env) and opts.url and not opts.server:
        raise InputError("a server started by mcp-accept is given an environment: with --url, give "
                         "--server too", field="--env" if opts.env else "--inherit-env")
    for value in server_env(opts.env, opts.inherit_env).secrets():
        secrets += [value, json.dumps(value)[1:-1]]  # as written, and as it reads inside JSON
    if opts.url:
        from mcp_accept.transport.http import check_url  # httpx only for HTTP runs: 0.15 s of start-up

        problem = check_url(opts.url)
        if problem:
            raise InputError(problem, field="--url")
        secrets += url_secrets(opts.url)
    elif opts.headers:
        raise InputError("headers are sent over HTTP only: give --url too", field="--header")
    headers, header_secrets = resolve_headers(opts.headers)
    return headers, Redactor(secrets + header_secrets, header_names=[name for name, _ in headers])


def run(opts: RunOptions) -> RunOutcome:
    """Do one run; return the folder, the results and the exit status. Raises InputError."""
    from mcp_accept.inputs.conditions import load_conditions, parse_set
    from mcp_accept.inputs.baseline import load_baseline
    from mcp_accept.inputs.profile import load_profile, rows_off_in_sheet
    from mcp_accept.inputs.sheet import load_sheet

    from mcp_accept.schemas import require_dir

    check_options(opts)
    require_dir(opts.schema_dir)
    headers, redactor = check_target(opts)  # secrets are known before anything is written
    sheet = load_sheet(opts.sheet)
    profile = load_profile(opts.profile)
    rows_off_in_sheet(profile, sheet)
    baseline = load_baseline(opts.baseline, sheet) if opts.baseline is not None else None
    given = load_conditions(opts.conditions)
    set_conditions, row_options = parse_set(opts.sets, sheet)
    given.update(set_conditions)
    state = RunState(opts, opts.out or default_out(), redactor, headers, sheet, profile, given, row_options,
                     _invocation(opts, sheet, profile), sdk_off=switched_off(opts.sdk), baseline=baseline)
    folder = state.folder
    lock = open_run_folder(folder)
    try:
        return _run_locked(state)
    except KeyboardInterrupt:  # at a moment no inner step caught (stopping the server...)
        with signals_held():
            return _interrupted_outcome(state)
    except (InputError, ServerError, InternalError):
        raise
    except OSError as exc:
        if not is_disk_full(exc):
            raise _internal(folder, exc, redactor) from exc
        # no crash report: there is no room for one, and the tool is not at fault
        raise DiskFull(exc, getattr(exc, "filename", None) or str(folder)) from None
    except Exception as exc:  # a fault of mcp-accept: its own exit code and a crash report
        raise _internal(folder, exc, redactor) from exc
    finally:
        lock.release()


def _internal(folder: Path, exc: BaseException, redactor: Redactor) -> InternalError:
    report = write_crash_report(folder, exc, redactor)
    return InternalError(redactor.text(f"{type(exc).__name__}: {exc}")[:300], report)


def _invocation(opts: RunOptions, sheet, profile) -> dict:
    """The run's ``invocation`` record, read from the files just loaded (see running.invocation)."""
    from mcp_accept.running.invocation import capture

    try:
        return capture(opts, sheet, profile, given_paths=opts.recorded_as)
    except OSError as exc:  # a file removed between loading it and recording it
        raise InputError(f"cannot be read again to record it: {exc.strerror or exc}",
                         file=getattr(exc, "filename", None)) from None


def _interrupted_outcome(state: RunState) -> RunOutcome:
    """The run folder of a run interrupted where nothing else could write it: every row
    unreached, marked interrupted; wire.jsonl stays as it was (whole lines only)."""
    from types import SimpleNamespace

    state.transport = SimpleNamespace(name="Streamable HTTP" if state.opts.url else "stdio")
    state.store = SchemaStore(state.opts.schema_dir, allow_fetch=False)
    state.rows = unreached_rows(state.sheet, reason("run.interrupted"))
    state.previous, state.recording, state.started = load_previous(state.folder), Recording(entries=[]), utc_now()
    state.cause, state.interrupted = None, True
    return _write_outcome(state)


def _judging_imports() -> None:
    """What judging needs: the checks' modules and jsonschema-rs (the Python validator is
    imported only when a result is not valid, rfc3986-validator only for a URI outside the
    wire layer's plain pattern)."""
    from mcp_accept.checks.registry import load_all
    from mcp_accept.checks.types import _warm_imports

    load_all()
    _warm_imports(compiled_only=True)


def _report_imports() -> None:
    """What writing the run folder needs: Jinja and the sheet's template. Imported once the
    recording is over: Jinja maps OpenSSL (through hashlib), memory a run would otherwise
    carry through its largest answer."""
    from mcp_accept.output.render import _template

    _template(None, "sheet.md.j2")


def _judging_and_report_imports() -> None:
    _judging_imports()
    _report_imports()


# A server that takes this long (seconds) to answer the first request leaves room for
# the imports between its later answers; one on this machine answers in a millisecond or
# two, and a thread importing beside its requests (about 60 ms of work: Jinja, the checks,
# jsonschema-rs) made a run slower, not faster (benchmarks/README.md, c3).
_SLOW_FIRST_ANSWER = 0.05


def _warm_up(imports) -> threading.Thread:
    """Run ``imports`` on a thread while this one waits (for the server to start and answer,
    or to exit): about 0.15 s each that the run no longer pays in turn. The verdicts do not
    depend on it: every module would be imported the same way on first use."""

    def work() -> None:
        try:
            imports()
        except Exception:  # the first use imports it again and says what is wrong
            pass

    thread = threading.Thread(target=work, name="warm-up", daemon=True)
    thread.start()
    return thread


def _run_locked(state: RunState) -> RunOutcome:
    from mcp_accept.transport.factory import make_transport

    opts, folder = state.opts, state.folder
    state.previous = load_previous(folder)
    state.started, state.clock = utc_now(), time.monotonic()
    transport = state.transport = make_transport(opts, folder=folder, redactor=state.redactor,
                                                 builtin=builtin_server_command(), headers=state.headers)
    state.store = SchemaStore(opts.schema_dir, allow_fetch=False if opts.offline else None)
    # SIGTERM ends a run like Ctrl-C, but exits 143; only the main thread may set handlers
    # (verify runs in threads).
    def terminate(signum, frame):
        state.terminated = True
        raise KeyboardInterrupt

    in_main = threading.current_thread() is threading.main_thread()
    old_term = signal.signal(signal.SIGTERM, terminate) if in_main else None
    # imports the SDK for the sdk layer on another core while the run records
    sdk_worker = start_worker(state.sheet, state.sdk_off is None)
    try:
        try:
            transport.open()
        except ServerError as exc:
            transport.log.record("event", event="start-failed", detail=str(exc))
            state.cause = unreachable_cause(opts, stop_for_cause(transport), folder, str(exc), started_ok=False)
            state.rows = unreached_rows(state.sheet, SEE_RUN_STARTED)
            state.recording = Recording(entries=transport.log.entries)
            return _finish(state)
        except KeyboardInterrupt:  # while the server starts (an HTTP server's readiness wait)
            transport.log.record("event", event="interrupted", detail="the run was interrupted while the server started")
            transport.close()
            state.rows = unreached_rows(state.sheet, reason("run.interrupted-starting"))
            state.recording = Recording(entries=transport.log.entries)
            state.interrupted = True
            return _finish(state)
        # Over stdio the judging imports run while the server starts, the report's while it
        # exits. Over HTTP there is neither wait: a thread importing beside the requests only
        # slows them, unless the server is slow to answer (see _SLOW_FIRST_ANSWER).
        over_http = transport.name == "Streamable HTTP"
        warm = None if over_http else _warm_up(_judging_imports)
        session = Session(transport, timeout=opts.timeout)
        recorder = Recorder(session, state.profile, deadline=state.clock + opts.run_timeout,
                            max_rounds=opts.max_rounds)
        recording = state.recording = recorder.recording
        recording.sdk_worker = sdk_worker
        refused: InputError | None = None
        try:
            try:  # --run-timeout bounds negotiation too, however many requests it takes
                asked = time.monotonic()
                with hard_deadline(state.clock + opts.run_timeout):
                    negotiation = recorder.negotiate(opts.protocol)
                ok, why = negotiation.ok, "; ".join(negotiation.attempts) or "no answer"
                if over_http and ok and time.monotonic() - asked >= _SLOW_FIRST_ANSWER:
                    warm = _warm_up(_judging_and_report_imports)
            except DeadlinePassed:
                ok, why = False, f"no answer before --run-timeout ({opts.run_timeout:g}s) ran out"
                transport.log.record("event", event="timeout", detail=f"negotiation: {why}")
            if not ok:
                # the exit code and the last of stderr are known once it has stopped
                state.cause = unreachable_cause(opts, stop_for_cause(transport), folder, why, started_ok=True,
                                                noise=transport.noise)
                state.rows = unreached_rows(state.sheet, SEE_RUN_SPOKEN if transport.noise is None else
                                            reason("run.stdout-noise", noise=noise_reason(transport.noise)))
            else:
                try:
                    recorder.run_steps(listed=lambda recording: _check_profile_tools(state, recording))
                except InputError as exc:  # the profile names a tool the server does not list
                    refused = exc
                    transport.log.record("event", event="profile-refused", detail=exc.one_line())
                    state.cause = exc.one_line()
                    state.rows = unreached_rows(state.sheet, reason("run.profile-unlisted"))
                try:
                    transport.end_session(timeout=opts.timeout)
                except Exception:  # ending a session is a courtesy; its failure is in the log
                    pass
        except KeyboardInterrupt:
            state.interrupted = True
            recording.unfinished = "interrupted"
            for step in recording.steps.values():
                if step.reply is None and step.skipped is None:  # the request in flight
                    step.skipped = recording.unfinished
            transport.log.record("event", event="interrupted", detail="the run was interrupted")
        finally:
            transport.close()
            late = None if over_http else _warm_up(_report_imports)
        for thread in (warm, late):  # judging forks (bounded.call): no import may be half done in another thread
            if thread is not None:
                thread.join()
        if state.cause is None and not state.interrupted and sdk_worker is not None:
            from mcp_accept.running.sdk_replay import hand_over

            hand_over(recording)  # the SDK replays in its process while this one judges
        if state.cause is None:
            try:
                with judging_deadline(state.clock + opts.run_timeout):
                    state.rows = judge(state.sheet, recording, state.profile, state.store, state.row_options,
                                       sdk_off=state.sdk_off)
            except KeyboardInterrupt:
                state.interrupted = True
                transport.log.record("event", event="interrupted", detail="the run was interrupted while judging")
                state.rows = unreached_rows(state.sheet, reason("run.interrupted-judging"))
        elif state.interrupted:
            state.rows = unreached_rows(state.sheet, reason("run.interrupted"))
        outcome = _finish(state)
        if refused is not None and not state.interrupted:
            raise refused  # the folder is whole, and says why; the command exits 2 with this line
        return outcome
    finally:
        if sdk_worker is not None:
            sdk_worker.close()
        if in_main:
            signal.signal(signal.SIGTERM, old_term)
        transport.log.close()


def _check_profile_tools(state: RunState, recording: Recording) -> None:
    """Before any row calls a tool: a profile the user gave must name only tools the server
    lists (a typo would otherwise leave its rows UNOBTAINABLE and the run passing). The built-in
    profile is the fixture's: another server's rows without a profile are left to say so. A
    tools/list that was not answered to its last page proves nothing either way."""
    from mcp_accept.inputs.profile import unlisted_tool

    if state.opts.profile is None or not recording.tools_whole:
        return
    problem = unlisted_tool(state.profile, recording.tools)
    if problem is not None:
        raise problem


def _finish(state: RunState) -> RunOutcome:
    """Write the run folder. An interrupt while writing does not leave it half done: the
    files are written once more, marked interrupted, with further interrupts held off."""
    if not state.interrupted:
        try:
            return _write_outcome(state)
        except KeyboardInterrupt:
            state.interrupted = True
    with signals_held():
        return _write_outcome(state)


def _write_outcome(state: RunState) -> RunOutcome:
    folder, recording = state.folder, state.recording
    log = getattr(state.transport, "log", None)
    if log is not None:
        log.stop_if_full()  # wire.jsonl lost a line for want of space: no results.json claims it whole
    observed = observed_conditions(recording, state.transport.name, folder, state.started,
                                   getattr(log, "result_sizes", None))
    conditions = merge_conditions(observed, state.given, state.previous)
    entries = [row_entry(r) for r in state.rows]
    for entry, result in zip(entries, state.rows):
        seconds = row_seconds(result, recording.entries)
        if seconds is not None:
            entry["seconds"] = seconds
    entries = keep_observed(entries, state.previous)
    results = assemble(sheet=state.sheet, profile=state.profile, conditions=conditions, rows=entries,
                       schemas=state.store.used(), started_at=state.started,
                       finished_at=None if state.interrupted else utc_now(), interrupted=state.interrupted)
    differing = given_beside(observed, state.given)
    if differing:
        results["conditions_given"] = differing
    if state.cause:
        results["cause"] = state.cause
    if state.invocation is not None:  # how to repeat the run (mcp-accept rerun); masked like the rest
        results["invocation"] = state.invocation
    if state.baseline is not None:
        shown = (state.opts.recorded_as or {}).get("baseline") or str(state.opts.baseline)
        apply_baseline(results, state.baseline, shown)
    mark_gates(results, state.opts.fail_on)
    results = write_results(folder, results, row_files=run_row_files(state.rows, recording.entries),
                            redactor=state.redactor, lang=state.opts.lang)
    status = exit_status(results, fail_on=state.opts.fail_on)
    if status == ExitStatus.INTERRUPTED and state.terminated:
        status = ExitStatus.TERMINATED
    return RunOutcome(folder, results, status, recording)
