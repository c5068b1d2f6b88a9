"""``mcp-accept host test HOST``: a real host, headless, in a private folder, with its MCP server
launched through ``mcp-accept proxy`` and its model answered by the stand-in on 127.0.0.1.

The run folder holds everything: ``home/`` and ``work/`` (the host's private HOME, XDG folders
and working folder), ``model.jsonl`` (every request the host sent its model, and each answer),
``proxy/<name>-…/`` (the MCP wire between host and server, as ``mcp-accept proxy`` records it),
``fixture-log/`` (the fixture's tokens and requests), ``host-stdout.txt`` / ``host-stderr.txt``,
``connects.json`` (every address the host tried to reach, where strace is installed), and the
filled host rows in ``results.json``, ``sheet.md`` and ``rows/H0*.json``.

The run happens in a network namespace with loopback only when one can be made
(:mod:`.netguard`): the command re-executes this module there with the job written to
``job.json``, and waits.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

from mcp_accept.errors import ExitStatus, InputError, ServerError
from mcp_accept.evidence.bounded import process_running
from mcp_accept.evidence.files import atomic_write_json, open_run_folder, utc_now
from mcp_accept.evidence.redaction import Redactor
from mcp_accept.evidence.wirelog import read_entries
from mcp_accept.hosts import model_view, netguard
from mcp_accept.hosts.adapters import ADAPTERS
from mcp_accept.hosts.adapters.base import HostAdapter, HostContext
from mcp_accept.hosts.config import marker_argv
from mcp_accept.hosts.proxy import proxy_command
from mcp_accept.model.script import Script, Step, ToolOffer, Turn, name_scheme
from mcp_accept.model.server import StandIn
from mcp_accept.protocol import LATEST_LEGACY, META_VERSION
from mcp_accept.server_command import command_words

SERVER_NAME = "mcpaccept"
LARGE_SIZES = (1024, 8192, 32768, 65536, 262144, 1048576)
HOST_TIMEOUT = 180.0


class HostMissing(ServerError):
    """The host's binary is not installed (exit 3, as a server that cannot be started)."""


# The signals that end a host run early. Each stops the host and everything the run started,
# the folder is written and marked interrupted, and the exit status is 128 + the signal's
# number, as a shell reports a process the signal ended (130 for SIGINT, 143 for SIGTERM).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class HostInterrupted(Exception):
    """A stop signal arrived during a host run."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
        self.name = signal.Signals(signum).name


class HostRunInterrupted(Exception):
    """``host test`` was stopped by a signal: the folder is written and marked interrupted."""

    def __init__(self, signum: int, folder: Path):
        self.signum, self.folder = signum, folder
        self.status = 128 + signum
        try:
            marked = json.loads((folder / "results.json").read_text(encoding="utf-8")).get("interrupted")
        except (OSError, ValueError):
            marked = None
        what = ("the folder is marked interrupted" if marked else
                "the host had finished: the folder is complete" if marked is False else "no folder was written")
        super().__init__(f"interrupted by {signal.Signals(signum).name}: the host and everything the run "
                         f"started are stopped; {what}: {folder}")


def _raise_stop(signum, _frame):
    raise HostInterrupted(signum)


@contextmanager
def stopping_on_signals():
    """While inside, a stop signal raises ``HostInterrupted`` in the main thread (the first
    process of a PID namespace gets no signal it has no handler for, so SIGTERM needs one)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = {sig: signal.signal(sig, _raise_stop) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


def _hold_off_signals() -> None:
    """Once stopping, a second signal must not break the writing of the folder."""
    if threading.current_thread() is threading.main_thread():
        for sig in STOP_SIGNALS:
            signal.signal(sig, signal.SIG_IGN)


def _harness_pid(unshare: subprocess.Popen) -> int | None:
    """The harness ``unshare --fork`` started (its only child), as this namespace numbers it."""
    try:
        children = Path(f"/proc/{unshare.pid}/task/{unshare.pid}/children").read_text().split()
    except OSError:
        return None
    return int(children[0]) if children else None


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
    netns: bool = True
    trace: bool = True
    proxy: bool = True  # False: the host reaches the server directly (to measure the proxy's cost)
    replace: bool = False  # --out names an earlier run's folder: empty it first instead of refusing


@dataclass
class HostJob:
    """What the re-executed harness (inside the network namespace) is handed: written to the run
    folder's ``job.json`` by ``host_test`` and read back by ``main``, the one way across."""

    options: HostTestOptions
    cwd: str  # where the user ran mcp-accept: a --server word naming a file there is made absolute
    binary: str
    version: str | None
    guard: str

    def write(self, path: Path) -> None:
        atomic_write_json(path, {"options": asdict(self.options), "cwd": self.cwd, "binary": self.binary,
                                 "version": self.version, "guard": self.guard})

    @classmethod
    def read(cls, path: Path) -> "HostJob":
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(options=HostTestOptions(**data["options"]), cwd=data["cwd"], binary=data["binary"],
                   version=data.get("version"), guard=data["guard"])


@dataclass
class HostOutcome:
    folder: Path
    results: dict
    status: ExitStatus
    wall_seconds: float
    guard: str
    not_measured: str | None = None  # why the run measured nothing, in one line


def adapter_for(name: str) -> HostAdapter:
    try:
        return ADAPTERS[name]
    except KeyError:
        raise InputError(f"must be one of {', '.join(ADAPTERS)} (found {name!r})", field="HOST") from None


def host_version(adapter: HostAdapter, binary: str, folder: Path, prefix: list[str]) -> str | None:
    ctx = HostContext(folder=folder, model_url="http://127.0.0.1:9", server_name=SERVER_NAME)
    try:
        done = subprocess.run([*prefix, *adapter.version_argv(binary)], capture_output=True, timeout=60,
                              env=ctx.base_env(), cwd=ctx.work, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    text = done.stdout.decode("utf-8", "replace").strip()
    found = re.search(r"\d+\.\d+(?:\.\d+)?(?:[-+][\w.]+)?", text)
    return found.group(0) if found else None


def default_folder(host: str) -> Path:
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    return Path("mcp-accept-runs") / f"host-{host}-{stamp}"


def host_test(opts: HostTestOptions) -> HostOutcome:
    """Check the inputs, make the run folder, run the host (in its namespace), read the result.
    A stop signal at any moment from here on ends it as ``HostRunInterrupted``."""
    with stopping_on_signals():
        try:
            return _host_test(opts)
        except HostInterrupted as exc:  # before the run folder was opened: nothing started yet
            _hold_off_signals()
            raise HostRunInterrupted(exc.signum, Path(opts.out or ".")) from None


def _host_test(opts: HostTestOptions) -> HostOutcome:
    adapter = adapter_for(opts.host)
    if opts.profile:
        from mcp_accept.inputs.profile import load_profile

        load_profile(opts.profile)  # bad input is said before anything starts
    binary = adapter.find(opts.host_bin)
    if binary is None:
        where = f"at {opts.host_bin}" if opts.host_bin else f"on PATH ({adapter.binary})"
        how = (f"pip install {adapter.pypi_package}=={adapter.tested_version}" if adapter.pypi_package
               else f"npm install -g {adapter.npm_package}@{adapter.tested_version}")
        raise HostMissing(f"{adapter.product} is not installed {where}: install it with `{how}` "
                          "or give --host-bin PATH")
    folder = Path(opts.out) if opts.out else default_folder(adapter.name)
    fresh_folder(folder, opts.replace)
    folder = folder.resolve()
    lock = open_run_folder(folder)
    try:
        with stopping_on_signals():
            try:
                prefix = netguard.unshare_argv() if opts.netns else None
                version = host_version(adapter, binary, folder, prefix or [])
                job = HostJob(options=opts, cwd=os.getcwd(), binary=os.path.abspath(binary), version=version,
                              guard=netguard.NETNS if prefix else netguard.SETTINGS_ONLY)
                job.write(folder / "job.json")
            except HostInterrupted as exc:  # before the host started: nothing of it to stop
                _hold_off_signals()
                write_interrupted_early(folder, adapter, exc.name)
                raise HostRunInterrupted(exc.signum, folder) from None
            started = time.monotonic()
            if prefix:
                done = _run_harness([*prefix, sys.executable, "-m", "mcp_accept.hosts.harness",
                                     str(folder / "job.json")], opts.timeout + 60, folder)
                if done.returncode != 0 or not (folder / "results.json").is_file():
                    (folder / "harness-stderr.txt").write_bytes(done.stderr[-65536:])
                    tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["(no output)"]
                    raise ServerError(f"the host run stopped (exit {done.returncode}): {tail[0][:300]} "
                                      f"(see {folder / 'harness-stderr.txt'})")
            else:
                stopped_by = run_inside(job, folder)
                if stopped_by:
                    raise HostRunInterrupted(stopped_by, folder)
            wall = time.monotonic() - started
    finally:
        lock.release()
    from mcp_accept.output.exit_status import exit_status

    results = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    why_not = _not_measured(folder)
    # nothing was measured: the host run did not happen, as a server run that reached nothing
    status = exit_status(results, not_measured=why_not)
    return HostOutcome(folder, results, status, wall, job.guard, not_measured=why_not)


def write_interrupted_early(folder: Path, adapter: HostAdapter, signal_name: str) -> None:
    """The folder of a run stopped before its host started: the host rows, each saying so."""
    from mcp_accept.inputs.profile import load_profile
    from mcp_accept.inputs.sheet import load_sheet
    from mcp_accept.output.results_writer import assemble, write_results

    sheet = load_sheet()
    reason = f"interrupted by {signal_name} before {adapter.product} started"
    rows = [{"id": row.id, "kind": row.kind, "title": row.title, "status": "UNOBTAINABLE", "reason": reason,
             "evidence": None, "filled_by": "runner"} for row in sheet.rows if row.id in ("H01", "H02", "H03")]
    from mcp_accept.running.execute import merge_conditions

    now = utc_now()
    conditions = merge_conditions({"host_product": adapter.product, "executed_at_utc": now,
                                   "evidence_path_or_id": folder.name}, {}, None)
    results = assemble(sheet=sheet, profile=load_profile(None), conditions=conditions, rows=rows, schemas=[],
                       started_at=now, finished_at=now, interrupted=True)
    write_results(folder, results, redactor=Redactor())


def _run_harness(argv: list[str], timeout: float, folder: Path) -> subprocess.CompletedProcess:
    """Run the harness in its namespaces and wait. A stop signal is passed on to the harness,
    which stops the host and writes the folder; if it has not ended within a minute, ``unshare``
    is killed, and with it every process of the namespace."""
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        with stopping_on_signals():
            out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise ServerError(f"the host run did not end within {timeout:g} s") from None
    except (KeyboardInterrupt, HostInterrupted) as exc:
        _hold_off_signals()
        signum = exc.signum if isinstance(exc, HostInterrupted) else signal.SIGINT
        harness = _harness_pid(proc)
        if harness is not None:
            try:
                os.kill(harness, signum)
            except OSError:
                pass
        try:
            proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
        raise HostRunInterrupted(signum, folder) from None
    if proc.returncode - 128 in STOP_SIGNALS:
        # the harness itself was signalled (by the user's terminal, or a parent that signals
        # the whole process group): it wrote its folder, marked interrupted
        raise HostRunInterrupted(proc.returncode - 128, folder)
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


# Files only a run of mcp-accept writes: a folder holding one of them may be emptied by --replace.
RUN_MARKERS = ("job.json", "results.json", "host-run.json", "matrix.json")


def fresh_folder(folder: Path, replace: bool) -> None:
    """A host run starts in an empty folder: an earlier run's proxy folders, model log and the
    host's private HOME (its memory, sessions, projects) would otherwise be mixed into this one.
    ``replace`` empties a folder that holds an earlier run of mcp-accept, and nothing else."""
    if not folder.is_dir() or not any(folder.iterdir()):
        return
    if not replace:
        raise InputError("the folder is not empty (an earlier run?): a host run starts in an empty "
                         "folder; choose another --out, or add --replace to empty an earlier run's folder",
                         file=str(folder), field="--out")
    if folder.is_symlink() or not any((folder / name).is_file() for name in RUN_MARKERS):
        raise InputError("--replace empties only a folder an earlier run of mcp-accept wrote "
                         f"(one holding {', '.join(RUN_MARKERS)}); this one holds none",
                         file=str(folder), field="--out")
    for entry in folder.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()


def _not_measured(folder: Path) -> str | None:
    facts = json.loads((folder / "host-run.json").read_text(encoding="utf-8")) if \
        (folder / "host-run.json").is_file() else {}
    return (facts.get("outcome") or {}).get("not_measured")


# --------------------------------------------------------------------------- inside the guard

def server_argv(job: HostJob, folder: Path) -> list[str]:
    if job.options.server:
        # The host starts the proxy, and the proxy the server, in the host's own working folder:
        # a word of the command that names a file where the user ran us is made absolute.
        here = Path(job.cwd or os.getcwd())
        return [str((here / word).resolve()) if not os.path.isabs(word) and (here / word).exists() else word
                for word in command_words(job.options.server)]
    return marker_argv(folder / "fixture-log")


def _proxy_url(proxy: subprocess.Popen, ready: Path, said: Path, seconds: float = 30) -> str:
    """The URL the recording proxy listens on, from the file it writes once listening (its
    ``--ready-file``, written whole or not at all)."""
    deadline = time.monotonic() + seconds
    while not ready.is_file():
        if proxy.poll() is not None:
            raise ServerError("the recording proxy stopped: " + said.read_text("utf-8", "replace")[-300:])
        if time.monotonic() > deadline:
            raise ServerError("the recording proxy did not start listening")
        time.sleep(0.05)
    return json.loads(ready.read_text(encoding="utf-8"))["url"]


def link_reader(adapter: HostAdapter, link_tool: str):
    pick = adapter.resource_reader(SERVER_NAME)
    naming = adapter.naming(SERVER_NAME)

    def step(offers: list[ToolOffer], turn: Turn):
        offer, _refused = naming.find(offers, link_tool)
        if offer is None:
            return None
        exchange = next((c for c in turn.calls if c.name == offer.name and c.answered), None)
        if exchange is None:
            return None
        found = model_view.URI.search(model_view.block_text(exchange.result))
        return pick(offers, found.group(0).rstrip(".,;")) if found else None

    return step


def build_script(adapter: HostAdapter, profile, large: bool) -> Script:
    steps = []
    for form in ("text", "structured", "embedded", "link"):
        ref = profile.tools.get(form)
        if ref is not None:
            steps.append(Step(form, ref.name, dict(ref.arguments)))
            if form == "link":
                steps.append(Step("link-read", host_tool=link_reader(adapter, ref.name)))
    # image and blob before the large results: a host that gives up past its context limit
    # (or compacts its conversation) has then shown them already
    steps += [Step("image", "search_image", {}), Step("blob", "search_blob", {})]
    if large:
        steps += [Step(f"large-{size}", "search_large", {"bytes": size}) for size in LARGE_SIZES]
    return Script(steps, naming=adapter.naming(SERVER_NAME))


def free_port_url() -> str:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"


def _wait_port(url: str, seconds: float) -> None:
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection((parts.hostname, parts.port or 80), 0.3).close()
            return
        except OSError:
            time.sleep(0.1)
    raise ServerError(f"nothing answers at {url}")


def _stop(proc: subprocess.Popen | None, sig=signal.SIGTERM, wait: float = 10) -> None:
    if proc is None or proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, sig)
        proc.wait(wait)
    except (OSError, subprocess.TimeoutExpired):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.wait(5)


def wait_for_proxies(base: Path, seconds: float) -> None:
    """Let each proxy the host started finish its folder (its host closed its stdin): a folder
    is done when its process (the folder name's last part) is gone. Not as soon as its
    results.json exists: ``sheet.md`` comes after it, and no process of the run may outlive
    it. A host that killed its proxy left a folder without ``sheet.md``, the file a proxy writes
    last (killed early, without results.json too): completed here."""
    deadline = time.monotonic() + seconds
    for run in sorted(base.glob("*-*")) if base.is_dir() else []:
        pid = run.name.rsplit("-", 1)[-1]
        while time.monotonic() < deadline and pid.isdigit() and process_running(int(pid)):
            time.sleep(0.02)
        if not (run / "sheet.md").exists():
            complete_proxy_folder(run)


def complete_proxy_folder(run: Path) -> None:
    """A host that kills its server's process (Codex does, with SIGKILL, when it exits) leaves
    the proxy no time to write ``host.json``, ``results.json`` and ``sheet.md``, or all of
    them; ``wire.jsonl`` was flushed line by line, so the folder is completed from it, marked
    interrupted."""
    from mcp_accept.hosts.proxy.folder import write_results as write_proxy_results

    try:
        entries = list(read_entries(run / "wire.jsonl"))  # a last line cut by the kill is passed over
    except OSError:
        return
    transport = next((e.get("transport") for e in entries if e.get("transport")), "stdio")
    started = entries[0]["t"] if entries else utc_now()
    write_proxy_results(run, entries, transport=transport, started=started, redactor=Redactor(),
                        interrupted=True)


def run_inside(job: HostJob, folder: Path) -> int | None:
    """Everything of one host run, in this process (inside the namespace when there is one).
    Returns the stop signal that ended it early, if one did (the folder is written all the same,
    marked interrupted)."""
    from mcp_accept.inputs.profile import load_profile
    opts = job.options
    adapter = adapter_for(opts.host)
    if job.guard == netguard.NETNS:
        netguard.loopback_up()
    profile = load_profile(opts.profile)
    fixture = not opts.server and not opts.url
    script = build_script(adapter, profile, large=opts.large and fixture)
    redactor = Redactor()
    server_proc = proxy_proc = None
    stand_in = StandIn(script, folder / "model.jsonl", redactor).start()
    ctx = HostContext(folder=folder, model_url=stand_in.url, server_name=SERVER_NAME)
    logs = []
    host = None
    code, timed_out, host_seconds, interrupted = None, False, 0.0, None
    trace = folder / "connect-trace.txt"
    try:
        http = bool(opts.url) or (fixture and opts.transport == "http")
        if http:
            url = opts.url
            if url is None or opts.server:
                if url is None:
                    url = free_port_url()
                    argv = server_argv(job, folder) + ["--http", url.rsplit(":", 1)[1].split("/")[0]]
                else:
                    argv = server_argv(job, folder)
                log = open(folder / "server-stderr.txt", "wb")
                logs.append(log)
                server_proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                               start_new_session=True)
                _wait_port(url, 30)
            if opts.proxy:
                said = folder / "proxy-stdout.txt"
                out = open(said, "wb")
                logs.append(out)
                ready = folder / "proxy-ready.json"
                proxy_proc = subprocess.Popen(
                    proxy_command(folder / "proxy", SERVER_NAME, url=url, listen="127.0.0.1:0", ready_file=ready),
                    stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
                ctx.mcp_url = _proxy_url(proxy_proc, ready, said)
            else:
                ctx.mcp_url = url
        elif opts.proxy:
            ctx.mcp_command = proxy_command(folder / "proxy", SERVER_NAME, server=shlex.join(server_argv(job, folder)))
        else:
            # Only to measure what the proxy costs: the rows still come from model.jsonl, the wire
            # facts (clientInfo, protocol, the host's own reads) are then unknown.
            ctx.mcp_command = server_argv(job, folder)
        launch = adapter.prepare(ctx, job.binary)
        prefix = netguard.strace_prefix(str(trace)) if opts.trace else None
        out, err = open(folder / "host-stdout.txt", "wb"), open(folder / "host-stderr.txt", "wb")
        logs += [out, err]
        started = time.monotonic()
        host = subprocess.Popen([*(prefix or []), *launch.argv], env=launch.env, cwd=launch.cwd,
                                stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True)
        try:
            code = host.wait(opts.timeout)
        except subprocess.TimeoutExpired:
            timed_out, code = True, None
            _stop(host)
        host_seconds = time.monotonic() - started
        _stop(proxy_proc, signal.SIGINT, 15)  # ours (HTTP): it completes its folder and ends
        wait_for_proxies(folder / "proxy", 20)
        _stop(host, wait=5)  # whatever the host left in its process group
    except HostInterrupted as exc:
        _hold_off_signals()
        interrupted = exc
        host_seconds = time.monotonic() - started if host is not None else 0.0
        _stop(host, wait=5)  # the host and the proxies it started, in its process group
        _stop(proxy_proc, signal.SIGINT, 15)
        wait_for_proxies(folder / "proxy", 10)
    finally:
        stand_in.stop()
        _stop(proxy_proc, signal.SIGINT, 15)
        _stop(server_proc)
        for handle in logs:
            handle.close()
    _hold_off_signals()  # the host has ended: what it did is written whole, whatever arrives now
    connects = netguard.connects(trace.read_text("utf-8", "replace")) if trace.is_file() else None
    if connects is not None:
        atomic_write_json(folder / "connects.json", connects)
    write_host_results(folder, adapter, job, profile, stand_in.log.entries, connects=connects,
                       host_exit=code, timed_out=timed_out, host_seconds=host_seconds, redactor=redactor,
                       interrupted=interrupted.name if interrupted else None)
    return interrupted.signum if interrupted else None


# --------------------------------------------------------------------------- the rows

MEDIA_KINDS = {"application/pdf": "pdf", "image/png": "png", "image/jpeg": "jpeg", "image/gif": "gif",
               "image/webp": "webp"}
MAGIC = (("JVBER", "pdf"), ("iVBOR", "png"), ("/9j/", "jpeg"), ("R0lGOD", "gif"))


def media_kind(mime: object, data: str) -> str:
    """The kind of a base64 body: by its declared MIME type, else by its first bytes."""
    if isinstance(mime, str) and mime.split(";", 1)[0].strip().lower() in MEDIA_KINDS:
        return MEDIA_KINDS[mime.split(";", 1)[0].strip().lower()]
    return next((kind for magic, kind in MAGIC if data.startswith(magic)), "other")


def media_needles(exchanges: list[model_view.WireExchange]) -> dict[str, dict]:
    """Each image content item and embedded blob a tool result carried, found by its content
    type (any server's, whatever its tools are called): the tool that sent it and a stretch of
    its base64 past the header every file of its kind shares, so the stretch names this body
    only. ``{"image"|"blob": {"tool": NAME, "kinds": {KIND: STRETCH}}}``, the first of each."""
    found: dict[str, dict] = {}
    for exchange in exchanges:
        tool = exchange.params.get("name") if exchange.method == "tools/call" else None
        result = exchange.answer.get("result")
        if not isinstance(tool, str) or not isinstance(result, dict):
            continue
        for item in result.get("content") or []:
            if not isinstance(item, dict):
                continue
            if item.get("type") == "image":
                key, data, mime = "image", item.get("data"), item.get("mimeType")
            elif item.get("type") == "resource" and isinstance(item.get("resource"), dict):
                key, data, mime = "blob", item["resource"].get("blob"), item["resource"].get("mimeType")
            else:
                continue
            if not isinstance(data, str) or len(data) <= 120:
                continue
            entry = found.setdefault(key, {"tool": tool, "kinds": {}})
            if entry["tool"] == tool:
                entry["kinds"].setdefault(media_kind(mime, data), data[60:120])
    return found


def protocol_attempts(exchanges: list[model_view.WireExchange]) -> list[dict]:
    """Each version the host tried (``server/discover`` and ``initialize``) and what the server
    answered: a host that probes a version and then speaks another shows here."""
    attempts = []
    for exchange in sorted(exchanges, key=lambda e: e.request_seq or 0):
        if exchange.method not in ("initialize", "server/discover"):
            continue
        params = exchange.params
        attempt = {"method": exchange.method, "seq": exchange.request_seq,
                   "version": params.get("protocolVersion") or (params.get("_meta") or {}).get(META_VERSION)}
        if "error" in exchange.answer:
            attempt["outcome"] = f"error {(exchange.answer.get('error') or {}).get('code')}"
        else:
            result = exchange.answer.get("result") or {}
            attempt["outcome"] = "result"
            agreed = result.get("protocolVersion") or result.get("supportedVersions")
            if agreed:
                attempt["server_answered"] = agreed
        attempts.append(attempt)
    return attempts


def server_shutdown(proxy_folder: Path | None, facts: dict, over_http: bool = False) -> dict:
    """How the host ended its server's session, read from the end of the proxy's ``wire.jsonl``
    (its last events): closing the pipe, a signal, or a kill that left the proxy no time to
    record its end (the folder was then completed from ``wire.jsonl``, marked interrupted).
    ``facts`` are the proxy's derived facts of that folder (its ``tool_calls``). Over HTTP the
    host never owned the proxy's process: ``host test`` started it and stops it once the host
    has ended, so how it ended says nothing of the host (``ended_by``)."""
    if proxy_folder is None or not (proxy_folder / "wire.jsonl").is_file():
        return {"how": "no server session recorded"}
    ended = None
    for entry in read_entries(proxy_folder / "wire.jsonl", direction="event", tail_bytes=8192):
        if entry.get("event") == "proxy-end":
            ended = entry
    results = _read_json(proxy_folder / "results.json") or {}
    calls = facts.get("tool_calls") or []
    # "interrupted" says the recording did not end by itself; whether the session was cut short
    # is what was still unanswered when it ended
    out = {"interrupted": bool(results.get("interrupted")),
           "calls_unanswered": sum(1 for c in calls if c.get("outcome") == "no answer recorded")}
    if ended is None:
        out["how"] = "killed: the proxy recorded no end (its folder was completed from wire.jsonl)"
    else:
        detail = str(ended.get("detail") or "")
        out["how"] = detail
        out["seq"] = ended.get("seq")
    if over_http:
        out["ended_by"] = "mcp-accept: host test stops the HTTP proxy it served the host from, after the host ended"
    return out


def host_quirks(facts: dict, attempts: list[dict], shutdown: dict) -> list[dict]:
    """What the host did that the spec tolerates and the recording had to survive, with where it
    shows: a killed server, cancellations of finished calls, versions asked for and not spoken."""
    quirks = [q for q in facts.get("quirks") or [] if q.get("by") == "host"]
    how = shutdown.get("how", "")
    if how.startswith(("killed", "signal")) and not shutdown.get("ended_by"):
        # The proxy is the process the host launched: a signal or a kill it got came from the host
        # (recorded within a moment of the host's last model request), before any end of input.
        quirks.append({"by": "host", "quirk": "stopped its server without closing its input first",
                       "detail": how,
                       "source": f"docs/specification/{LATEST_LEGACY}/basic/lifecycle.mdx#stdio (the client SHOULD "
                                 "close the server's input and wait before SIGTERM, then SIGKILL)"})
    refused = [a for a in attempts if str(a.get("outcome", "")).startswith("error")]
    spoken = (facts.get("protocol_version_on_wire") or {}).get("value")
    for attempt in refused:
        quirks.append({"by": "host", "quirk": f"asked for {attempt.get('version')} with {attempt.get('method')}, "
                       f"was refused ({attempt.get('outcome')}) and spoke {spoken}", "seqs": [attempt.get("seq")]})
    return quirks


def _read_json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _proxy_facts(folder: Path) -> tuple[dict, Path | None]:
    runs = sorted((folder / "proxy").glob("*/host.json"))
    if not runs:
        return {}, None
    data = json.loads(runs[-1].read_text(encoding="utf-8"))
    return data.get("facts") or {}, runs[-1].parent


def _link_reads(facts: dict, model_entries: list[dict]) -> list[dict]:
    """The host's ``resources/read`` of each link, and whether it came before the model asked."""
    asked = [e["t"] for e in model_entries if e.get("dir") == "out"
             and ((e.get("http") or {}).get("action") or {}).get("step") == "link-read"]
    first_ask = asked[0] if asked else None
    reads = []
    for read in facts.get("resource_reads") or []:
        reads.append({"uri": read.get("uri"), "request_seq": read.get("request_seq"),
                      "before_model_asked": first_ask is None or str(read.get("t", "")) < first_ask})
    return reads


def write_host_results(folder: Path, adapter: HostAdapter, job: HostJob, profile, entries: list[dict], *,
                       connects: dict | None, host_exit, timed_out: bool, host_seconds: float,
                       redactor: Redactor, interrupted: str | None = None) -> dict:
    from mcp_accept.inputs.sheet import load_sheet
    from mcp_accept.output.results_writer import assemble, write_results

    facts, proxy_folder = _proxy_facts(folder)
    markers_path = folder / "fixture-log" / "markers.json"
    markers = json.loads(markers_path.read_text(encoding="utf-8")) if markers_path.is_file() else None
    heads, tails = model_view.tokens(markers)
    view = model_view.read_view(entries)
    # what the host offered, a namespace split off its tool's name again
    offers = [ToolOffer(o.rsplit("/", 1)[-1], o.rsplit("/", 1)[0] if "/" in o else None) for o in view.offers]
    naming = adapter.naming(SERVER_NAME)
    text_tool = profile.tools.get("text")
    scheme = None
    if text_tool is not None:
        # the scheme as observed: the text tool under the adapter's naming, among what was offered
        found, _refused = naming.find(offers, text_tool.name)
        if found is not None:
            scheme = name_scheme(found, text_tool.name)
    read_tool = None
    reader = adapter.resource_reader(SERVER_NAME)
    picked = reader(offers, "x://y")
    if picked is not None:
        read_tool = picked[0].name
    private = [folder / "home", folder / "work"]
    exchanges: list[model_view.WireExchange] = []
    if proxy_folder is not None and (proxy_folder / "wire.jsonl").is_file():
        exchanges = model_view.wire_exchanges(read_entries(proxy_folder / "wire.jsonl"))
    bodies = model_view.server_bodies(exchanges, {form: ref.name for form, ref in profile.tools.items()})
    verdicts = {
        "H01": model_view.h01(view, heads, tails, bodies),
        "H02": model_view.h02(view, heads, tails, _link_reads(facts, entries), read_tool, bodies),
        "H03": model_view.h03(view, heads, tails, private),
    }
    if verdicts["H03"].status == "FAIL":
        moved_by = adapter.large_result_setting or "no setting named in the host's documentation"
        verdicts["H03"].reason += f"; the threshold is moved by: {moved_by}"
        verdicts["H03"].observed["moved_by"] = adapter.large_result_setting
    extra = {}
    media = media_needles(exchanges)
    step_of_tool = {ref.name: form for form, ref in profile.tools.items()}
    for key in ("image", "blob"):
        # the fixture's own media tool, else whichever step's tool returned that content type
        carrier = media.get(key) or {}
        step = key if key in view.steps else step_of_tool.get(carrier.get("tool"))
        handed = view.steps.get(step) if step else None
        if handed is not None and handed.answered:
            # the bytes themselves (a stretch of the base64 the server sent, unique to this body)
            # or only the text about them
            extra[key] = {"handed": model_view.quote(handed), "step": step, "tool": carrier.get("tool"),
                          "token": model_view.reach(handed.text, heads.get(key, set()), tails.get(key, set()))}
            for kind, needle in carrier.get("kinds", {}).items():
                extra[key][f"{kind}_data_handed"] = needle in handed.text
                # some hosts attach a result's media in a message of their own after it
                extra[key][f"{kind}_data_in_request"] = needle in view.last_request
        else:
            extra[key] = {"handed": None}
    client = (facts.get("client_info") or {}).get("value") or {}
    conditions = {
        "host_product": adapter.product,
        "host_version": job.version or "unknown",
        "client_sdk_and_version": f"{client.get('name')} {client.get('version')}".strip() if client else None,
        "transport": (facts.get("transport") or {}).get("value") or "stdio",
        "protocol_version_on_wire": (facts.get("protocol_version_on_wire") or {}).get("value"),
        "model_and_settings": f"mcp-accept stand-in model ({view.api or adapter.api}), scripted tool calls",
        "model_visible_capture_method": "debug trace",
        "executed_at_utc": utc_now(),
        "evidence_path_or_id": folder.name,
    }
    server = (facts.get("server_info") or {}).get("value") or {}
    if isinstance(server.get("name"), str):
        conditions["server_name"] = server["name"]
    from mcp_accept.running.execute import merge_conditions

    conditions = merge_conditions({k: v for k, v in conditions.items() if v}, {}, None)
    attempts = protocol_attempts(exchanges)
    shutdown = server_shutdown(proxy_folder, facts, over_http=conditions.get("transport") == "Streamable HTTP")
    host_facts = {
        "host": adapter.name, "product": adapter.product, "version": job.version,
        "api": view.api, "tool_name_scheme": scheme, "offered_tools": view.offers,
        "client_info": client or None,
        "client_capabilities": (facts.get("client_capabilities") or {}).get("value"),
        "protocol_version": conditions.get("protocol_version_on_wire"),
        "protocol_attempts": attempts,
        "server_shutdown": shutdown,
        "host_quirks": host_quirks(facts, attempts, shutdown),
        "proxy": job.options.proxy,
        "network_guard": job.guard, "connects": connects,
        "offline_settings": adapter.offline, "settings_sources": list(adapter.sources),
        "own_tools_off": adapter.own_tools_off, "refused_calls": view.refused,
        "host_exit": host_exit, "timed_out": timed_out, "host_seconds": round(host_seconds, 2),
        "model_requests": view.requests, "side_calls": view.side_calls,
        "proxy_folder": str(proxy_folder.relative_to(folder)) if proxy_folder else None,
        "extra_forms": extra,
    }
    offered = any(any(naming.find(offers, ref.name)) for ref in profile.tools.values())
    why_not = not_measured(view, attempts, host_exit, timed_out, job.options.timeout,
                           _last_line(folder / "host-stderr.txt"), adapter.product, offered)
    host_facts["outcome"] = {"not_measured": why_not, "interrupted": interrupted}
    atomic_write_json(folder / "host-run.json", host_facts, redactor)
    sheet = load_sheet()
    rows, row_files = [], []
    for row in sheet.rows:
        if row.id not in verdicts:
            continue
        verdict = verdicts[row.id]
        reason = verdict.reason
        if interrupted:
            reason = f"interrupted by {interrupted} before the host finished; " + reason
        elif why_not and verdict.status == "UNOBTAINABLE":
            reason = f"{why_not}; " + reason
        elif timed_out:
            reason = f"the host did not finish within {job.options.timeout} s; " + reason
        evidence = f"rows/{row.id}.json"
        row_files.append((evidence, {
            "id": row.id, "status": verdict.status, "reason": reason, "source": "host test",
            "observed": verdict.observed, "model_log": "model.jsonl", "host": host_facts}))
        rows.append({"id": row.id, "kind": row.kind, "title": row.title, "status": verdict.status,
                     "reason": reason, "evidence": evidence, "filled_by": "runner",
                     "observed": {"mode": "host test", "host": adapter.name, "facts": "host-run.json",
                                  "network_guard": job.guard,
                                  "non_loopback_connects": sorted((connects or {}).get("other") or {})
                                  if connects is not None else "not traced (no strace)",
                                  **verdict.observed}})
    results = assemble(sheet=sheet, profile=profile, conditions=conditions, rows=rows, schemas=[],
                       started_at=conditions["executed_at_utc"], finished_at=utc_now(), interrupted=bool(interrupted))
    return write_results(folder, results, row_files=row_files, redactor=redactor)


def _last_line(path: Path, limit: int = 8192) -> str | None:
    """The last line a host wrote that says something (its own words on why it stopped)."""
    if not path.is_file():
        return None
    with open(path, "rb") as handle:
        handle.seek(max(0, path.stat().st_size - limit))
        lines = [line.strip() for line in handle.read().decode("utf-8", "replace").splitlines()]
    said = [line for line in lines if line]
    if not said:
        return None
    from mcp_accept.untrusted import console_text

    return console_text(said[-1])[:300]


def not_measured(view: model_view.ModelView, attempts: list[dict], host_exit, timed_out: bool, timeout,
                 stderr_line: str | None, product: str, offered: bool) -> str | None:
    """Why a host run measured nothing, from its evidence, or None when a step was handed back:
    the host hung, exited before asking its model anything, dropped the server (often over its
    protocol version), or the stand-in could call none of the server's tools. ``offered``: some
    tool the profile names was offered under the host's naming."""
    if any(h.answered for h in view.steps.values()):
        return None
    said = f" (its last words: {stderr_line!r})" if stderr_line else ""
    if timed_out:
        return f"{product} did not finish within {timeout:g} s and handed its model no result{said}"
    if view.requests == 0:
        return f"{product} exited with status {host_exit} before asking its model anything{said}"
    if view.steps:
        return f"{product} handed its model no result of the tools it called{said}"
    if offered:
        refused = "; ".join(r.get("reason", "") for r in view.refused.values()) or "none was offered"
        return f"the stand-in called none of the server's tools: {refused}"
    other = [a for a in attempts if a.get("outcome") == "result" and isinstance(a.get("server_answered"), str)
             and a.get("version") and a["server_answered"] != a["version"]]
    if other:
        last = other[-1]
        return (f"{product} dropped the server: it asked for {last['version']} and the server answered "
                f"{last['server_answered']}{said}")
    if attempts and all(a.get("outcome") != "result" for a in attempts):
        asked = ", ".join(f"{a['method']} {a.get('version')} ({a.get('outcome')})" for a in attempts)
        return f"{product} never agreed a protocol version with the server: {asked}{said}"
    if not attempts:
        return f"{product} never started a session with the server{said}"
    return f"{product} offered its model none of the server's tools{said}"


def main(argv: list[str]) -> int:
    job_file = Path(argv[0])
    with stopping_on_signals():
        stopped_by = run_inside(HostJob.read(job_file), job_file.parent)
    return 128 + stopped_by if stopped_by else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
