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
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from mcp_accept.errors import ExitStatus, InputError, ServerError
from mcp_accept.evidence.bounded import process_running
from mcp_accept.evidence.budget import ByteBudget, FolderWatch
from mcp_accept.evidence.files import FolderLock, atomic_write_json, open_run_folder, utc_now
from mcp_accept.evidence.redaction import Redactor
from mcp_accept.evidence.wirelog import read_entries
from mcp_accept.hosts import model_view, netguard, stop_signals
from mcp_accept.hosts.body_search import block_text
from mcp_accept.hosts.registry import ADAPTERS
from mcp_accept.hosts.adapters.base import HostAdapter, HostContext, new_model_key
from mcp_accept.hosts.config import marker_argv
from mcp_accept.hosts.host_results import write_host_results
from mcp_accept.hosts.job import LARGE_SIZES, SERVER_NAME, HostJob, HostTestOptions, with_size
from mcp_accept.hosts.proxy import proxy_command
from mcp_accept.hosts.threshold import ThresholdSearch
from mcp_accept.hosts.stop_signals import STOP_SIGNALS, HostInterrupted, stopping_on_signals
from mcp_accept.model.script import Script, Step, ToolOffer, Turn
from mcp_accept.model.server import StandIn
from mcp_accept.server_command import anchored, command_words



class HostMissing(ServerError):
    """The host's binary is not installed (exit 3, as a server that cannot be started)."""


class HostRunInterrupted(Exception):
    """``host test`` was stopped by a signal: the folder is written and marked interrupted."""

    def __init__(self, signum: int, folder: Path):
        self.signum, self.folder = signum, folder
        self.status = 128 + signum
        try:
            marked = json.loads((folder / "results.json").read_text(encoding="utf-8")).get("interrupted")
        except (OSError, ValueError):
            marked = None
        self.finished = marked is False  # the signal came after the host had finished
        what = ("the folder is marked interrupted" if marked else
                "the host had finished: the folder is complete" if self.finished else "no folder was written")
        super().__init__(f"interrupted by {signal.Signals(signum).name}: the host and everything the run "
                         f"started are stopped; {what}: {folder}")


def _harness_pid(unshare: subprocess.Popen) -> int | None:
    """The harness ``unshare --fork`` started (its only child), as this namespace numbers it."""
    try:
        children = Path(f"/proc/{unshare.pid}/task/{unshare.pid}/children").read_text().split()
    except OSError:
        return None
    return int(children[0]) if children else None


def _listens(pid: int) -> bool:
    """Whether process PID has its handlers set for every stop signal (its ``SigCgt`` mask)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    caught = int(next((line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:")), "0"), 16)
    return all(caught >> (sig - 1) & 1 for sig in STOP_SIGNALS)


def _tell_harness(unshare: subprocess.Popen, signum: int, seconds: float) -> None:
    """Pass a stop signal on to the harness once it listens for it: one sent before its handlers
    are set would be lost (the first process of a PID namespace gets no signal it has no
    handler for), or, a SIGINT, end it with a KeyboardInterrupt and no folder written."""
    deadline = time.monotonic() + seconds
    while unshare.poll() is None and time.monotonic() < deadline:
        harness = _harness_pid(unshare)
        if harness is not None and _listens(harness):
            try:
                os.kill(harness, signum)
            except OSError:
                pass
            return
        time.sleep(0.02)


@dataclass
class HostOutcome:
    folder: Path
    results: dict
    status: ExitStatus
    wall_seconds: float
    guard: str
    not_measured: str | None = None  # why the run measured nothing, in one line
    forged_requests: int = 0  # requests to the stand-in without the run's key: refused


def adapter_for(name: str) -> HostAdapter:
    try:
        return ADAPTERS[name]
    except KeyError:
        raise InputError(f"must be one of {', '.join(ADAPTERS)} (found {name!r})", field="HOST") from None


def adapter_of(opts: HostTestOptions, cwd: str) -> HostAdapter:
    """The host a run drives: a known host by name, or the user's own program (``--client``),
    whose words naming a file in ``cwd`` (where ``host test`` was run) are made absolute."""
    if opts.client is None:
        return adapter_for(opts.host)
    from mcp_accept.hosts.own_client import OwnClient

    return OwnClient(opts.client, opts.api or "", cwd)


def host_version(adapter: HostAdapter, binary: str, folder: Path, prefix: list[str]) -> str | None:
    """What the host says its version is; ``HostInterrupted`` if a stop signal comes meanwhile
    (the check is stopped first: in a session of its own, a terminal's Ctrl-C is ours to pass on)."""
    text = _host_says(adapter.version_argv(binary), folder, prefix)
    found = re.search(r"\d+\.\d+(?:\.\d+)?(?:[-+][\w.]+)?", text or "")
    return found.group(0) if found else None


def host_flags(adapter: HostAdapter, binary: str, folder: Path, prefix: list[str]) -> list[str] | None:
    """The options the host's ``--help`` lists, where its adapter passes options not every version
    has (None: not asked, or no answer: the adapter then assumes the current version's); and, as
    ``--option=VALUE``, each value an option's help says it takes (``HostContext.takes``)."""
    argv = adapter.help_argv(binary)
    text = _host_says(argv, folder, prefix) if argv else None
    flags = set(re.findall(r"(?<![\w-])--[A-Za-z][\w-]*", text or ""))
    flags.update(option_choices(text or ""))
    return sorted(flags) or None


def option_choices(text: str) -> set[str]:
    """``--option=VALUE`` for each value of an option whose help lists its choices, as yargs
    writes them (``[choices: "text", "json"]``, after the option's words, wrapped or not)."""
    found = set()
    # an option's help runs from its line (``  -o, --output-format``) to the next option's
    for part in re.split(r"\n(?=\s*(?:-\w,\s+)?--[A-Za-z])", text):
        option = re.match(r"\s*(?:-\w,\s+)?(--[A-Za-z][\w-]*)", part)
        choices = re.search(r"\[choices: ([^\]]*)\]", part)
        if option and choices:
            found.update(f"{option.group(1)}={value}" for value in re.findall(r'"([^"]*)"', choices.group(1)))
    return found


# A version or a help text is a few KiB (Claude Code 2.1.332's --help, the longest asked for, is 22 KB); a
# host that prints more than this is taken as not answering, not read on into memory.
HOST_SAYS_BYTES = 1024 * 1024


def _host_says(argv: list[str], folder: Path, prefix: list[str]) -> str | None:
    """What the host prints on stdout for ``argv`` (its version, its help), in its private HOME."""
    ctx = HostContext(folder=folder, model_url="http://127.0.0.1:9", server_name=SERVER_NAME)
    try:
        proc = subprocess.Popen([*prefix, *argv], stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=ctx.base_env(), cwd=ctx.work,
                                start_new_session=True)
    except OSError:
        return None
    try:
        out = stop_signals.read_stdout(proc, 60, HOST_SAYS_BYTES)
    except subprocess.TimeoutExpired:
        return None
    finally:
        _stop(proc, signal.SIGKILL, 5)  # under unshare: SIGKILL ends its namespace, whatever it left there
        if proc.stdout is not None:
            proc.stdout.close()
    if out is None or proc.returncode != 0:
        return None
    return out.decode("utf-8", "replace").strip()


def default_folder(host: str) -> Path:
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    return Path("mcp-accept-runs") / f"host-{host}-{stamp}"


def host_test(opts: HostTestOptions) -> HostOutcome:
    """Check the inputs, make the run folder, run the host (in its namespace), read the result.
    A stop signal at any moment from here on ends it as ``HostRunInterrupted``, once the folder
    is written."""
    with stopping_on_signals(), ExitStack() as held:
        return _host_test(opts, held)


def _host_test(opts: HostTestOptions, held: ExitStack) -> HostOutcome:
    adapter = adapter_of(opts, os.getcwd())
    if opts.model_kind and opts.model_kind not in adapter.model_kinds:
        kinds = f"one of {', '.join(adapter.model_kinds)}" if adapter.model_kinds else \
            f"left out: {adapter.product}'s configuration names a model only"
        raise InputError(f"must be {kinds} (found {opts.model_kind!r})", field="--model-kind")
    if opts.profile:
        from mcp_accept.inputs.profile import load_profile

        load_profile(opts.profile)  # bad input is said before anything starts
    elsewhere = bool(opts.url) and not opts.server  # a server this run does not start
    if opts.url:
        from mcp_accept.transport.http import check_url

        problem = check_url(opts.url)
        if problem:
            raise InputError(problem, field="--url")
    elif opts.headers:
        raise InputError("headers are sent over HTTP only: give --url too", field="--header")
    if opts.server_env and not opts.server:
        raise InputError("a server started by mcp-accept is given an environment: give --server too",
                         field="--env")
    if elsewhere and not opts.proxy:
        raise InputError("with --url alone the host reaches the server through the recording proxy (the "
                         "host's network namespace has loopback only): --no-proxy needs --server too",
                         field="--no-proxy")
    if opts.host_version is not None:
        if opts.host_bin:
            raise InputError("give HOST@VERSION or --host-bin, not both", field="--host-bin")
        from mcp_accept.hosts.versions import cache_root, in_use

        # an install takes a while: a person watching is told; a script reads one line, if it fails
        say = (lambda text: print(f"mcp-accept: {text}", file=sys.stderr, flush=True)) if sys.stderr.isatty() else None
        # held until the run ends: a bound of the cache by another run leaves this version alone
        binary = held.enter_context(in_use(adapter, opts.host_version, cache_root(opts.host_cache), say=say,
                                           limit=opts.host_cache_max))
    else:
        binary = adapter.find(opts.host_bin)
    if binary is None and opts.client is None:
        where = f"at {opts.host_bin}" if opts.host_bin else f"on PATH ({adapter.binary})"
        how = adapter.install_hint()
        raise HostMissing(f"{adapter.product} is not installed {where}: install it with `{how}` "
                          "or give --host-bin PATH")
    if elsewhere:
        from mcp_accept.hosts.upstream_relay import reachable
        from mcp_accept.transport.http import shown_url

        why = reachable(opts.url)
        if why:
            raise ServerError(f"cannot reach the server at --url {shown_url(opts.url)}: {why}")
    folder = Path(opts.out) if opts.out else default_folder(adapter.name)
    fresh_folder(folder, opts.replace)
    folder = folder.resolve()
    lock = open_run_folder(folder)
    relay = gate = None
    try:
        try:
            # a signal that came before is seen here, with the folder to write
            stop_signals.check()
            prefix = netguard.unshare_argv() if opts.netns else None
            stop_signals.check()  # a Ctrl-C also ends the namespace probe: its answer is not taken
            # a program of the user's has no version to ask for; one not found is said in its folder
            version = host_version(adapter, binary, folder, prefix or []) if opts.client is None else None
            flags = host_flags(adapter, binary, folder, prefix or []) if opts.client is None else None
            try:
                if elsewhere and prefix:
                    from mcp_accept.hosts.upstream_relay import UpstreamRelay

                    relay = UpstreamRelay(opts.url).start()
                if opts.server_env:
                    from mcp_accept.hosts.job import env_values
                    from mcp_accept.hosts.server_env import EnvServer

                    gate = EnvServer(env_values(opts.server_env)).start()
                    if not prefix:  # the harness runs here: the run's processes are this one's
                        gate.expect_from(os.getpid())
            except OSError as exc:  # no private folder or socket could be made (a full or read-only TMPDIR)
                raise ServerError(f"cannot make the run's socket: {exc.strerror or exc}") from None
            job = HostJob(options=opts, cwd=os.getcwd(), binary=os.path.abspath(binary) if binary else "",
                          version=version, host_flags=flags,
                          guard=netguard.NETNS if prefix else netguard.SETTINGS_ONLY,
                          upstream_socket=relay.path if relay else None, env_socket=gate.path if gate else None)
            job.write(folder / "job.json")
            stop_signals.check()
        except HostInterrupted as exc:  # before the host started: nothing of it to stop
            write_interrupted_early(folder, adapter, exc.name)
            raise HostRunInterrupted(exc.signum, folder) from None
        started = time.monotonic()
        if prefix:
            def sockets_serve(pid: int) -> None:  # the run's processes are those of the namespace's first
                for side in (relay, gate):
                    if side is not None:
                        side.expect_from(pid)

            done = _run_harness([*prefix, sys.executable, "-m", "mcp_accept.hosts.harness",
                                 str(folder / "job.json")], opts.timeout + 60, folder, on_start=sockets_serve)
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
        # however the run ended: what they served is the run's evidence too
        if relay is not None:
            atomic_write_json(folder / "upstream-relay.json", relay.stop())
        if gate is not None:
            atomic_write_json(folder / "server-env.json", gate.stop())
        lock.release()
    if stop_signals.requested():  # it came after the host had finished: the folder is complete
        raise HostRunInterrupted(stop_signals.requested(), folder)
    from mcp_accept.output.exit_status import exit_status

    results = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    outcome = _outcome(folder)
    why_not = outcome.get("not_measured")
    # nothing was measured: the host run did not happen, as a server run that reached nothing
    # A host row is what the model was handed: every FAIL of it is the point of the test.
    status = exit_status(results, fail_on="app", not_measured=why_not)
    return HostOutcome(folder, results, status, wall, job.guard, not_measured=why_not,
                       forged_requests=outcome.get("forged_requests") or 0)


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


def _run_harness(argv: list[str], timeout: float, folder: Path, on_start=None) -> subprocess.CompletedProcess:
    """Run the harness in its namespaces and wait. It runs in a session of its own: a stop
    signal (a terminal's Ctrl-C or hang-up too) comes to this process, which passes it on to
    the harness once the harness listens for it; the harness stops the host and writes the
    folder. If it has not ended within a minute, ``unshare`` is killed, and with it every process
    of the namespace."""
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    if on_start is not None:
        on_start(proc.pid)
    try:
        out, err = stop_signals.communicate(proc, timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise ServerError(f"the host run did not end within {timeout:g} s") from None
    except HostInterrupted as exc:
        deadline = time.monotonic() + 60
        _tell_harness(proc, exc.signum, 60)
        try:
            proc.communicate(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
        raise HostRunInterrupted(exc.signum, folder) from None
    if proc.returncode - 128 in STOP_SIGNALS:
        # the harness itself was signalled (by another process than this one): it wrote its
        # folder, marked interrupted
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


def _outcome(folder: Path) -> dict:
    facts = json.loads((folder / "host-run.json").read_text(encoding="utf-8")) if \
        (folder / "host-run.json").is_file() else {}
    return facts.get("outcome") or {}


# --------------------------------------------------------------------------- inside the guard

def server_argv(job: HostJob, folder: Path) -> list[str]:
    if job.options.server:
        # the host starts the proxy, and the proxy the server, in the host's own working folder
        argv = anchored(command_words(job.options.server), job.cwd or os.getcwd())
        if job.env_socket:
            from mcp_accept.hosts.server_env import gated

            return gated(job.env_socket, argv)  # its --env values, had as it starts
        return argv
    return marker_argv(folder / "fixture-log")


def _proxy_url(proxy: subprocess.Popen, ready: Path, said: Path, seconds: float = 30) -> str:
    """The URL the recording proxy listens on, from the file it writes once listening (its
    ``--ready-file``, written whole or not at all)."""
    deadline = time.monotonic() + seconds
    while not ready.is_file():
        stop_signals.check()
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
        found = model_view.URI.search(block_text(exchange.result))
        return pick(offers, found.group(0).rstrip(".,;")) if found else None

    return step


def build_script(adapter: HostAdapter, profile, large: bool, fixture: bool = True,
                 sizes: list[int] | None = None, threshold_calls: int = 0, folder: Path | None = None) -> Script:
    """The stand-in's steps: each form the profile names, then (``large``) the large results, from
    the fixture's search_large or the profile's ``tools.large``, then at most ``threshold_calls``
    more of them that narrow the size where the host stops handing one whole (judged from what
    the run records in ``folder``)."""
    steps = []
    for form in ("text", "structured", "embedded", "link"):
        ref = profile.tools.get(form)
        if ref is not None:
            steps.append(Step(form, ref.name, dict(ref.arguments)))
            if form == "link":
                steps.append(Step("link-read", host_tool=link_reader(adapter, ref.name)))
    # image and blob before the large results: a host that gives up past its context limit
    # (or compacts its conversation) has then shown them already. The fixture's tools only: a
    # host whose server tools live inside a code tool (Mistral Vibe) would be asked to call them
    # on a server that has none; another server's media are found in whichever form carried them.
    if fixture:
        steps += [Step("image", "search_image", {}), Step("blob", "search_blob", {})]
    tool = ("search_large", {"bytes": "{bytes}"}) if fixture else \
        ((profile.tools["large"].name, profile.tools["large"].arguments) if "large" in profile.tools else None)
    if large and tool is not None:
        steps += [Step(f"large-{size}", tool[0], with_size(tool[1], size)) for size in sizes or LARGE_SIZES]
        if threshold_calls and folder is not None:
            steps += ThresholdSearch(folder, tool[0], tool[1], list(sizes or LARGE_SIZES), threshold_calls,
                                     adapter.naming(SERVER_NAME), fixture).steps()
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
        stop_signals.check()
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
    # a version that names the server's tools otherwise is judged by its own naming
    adapter = adapter_of(opts, job.cwd).for_flags(frozenset(job.host_flags) if job.host_flags else None, job.version)
    if job.guard == netguard.NETNS:
        netguard.loopback_up()
    profile = load_profile(opts.profile)
    fixture = not opts.server and not opts.url
    script = build_script(adapter, profile, large=opts.large, fixture=fixture, sizes=opts.large_sizes,
                          threshold_calls=opts.threshold_calls, folder=folder)
    if opts.url:
        from mcp_accept.running.execute import RunOptions, check_target

        # the header values and a token in the URL, masked wherever a host or server repeats them
        _, redactor = check_target(RunOptions(url=opts.url, headers=list(opts.headers or [])))
    else:
        redactor = Redactor()
    if job.env_socket:  # the server's --env values too
        from mcp_accept.hosts.env_gate import fetch_values

        for value in fetch_values(job.env_socket).values():
            redactor.add(value)
    server_proc = proxy_proc = watch = None
    budget = ByteBudget(opts.max_run_bytes)  # every byte the run writes, until the host has ended
    key = new_model_key()
    # the user's own program answered in the API it was said to speak only: another is refused
    stand_in = StandIn(script, folder / "model.jsonl", redactor, key=key, budget=budget,
                       api=adapter.api if opts.client else None).start()
    ctx = HostContext(folder=folder, model_url=stand_in.url, server_name=SERVER_NAME, model_key=key,
                      model_kind=opts.model_kind,
                      host_flags=frozenset(job.host_flags) if job.host_flags else None)
    logs = []
    host = None
    code, timed_out, host_seconds, interrupted = None, False, 0.0, None
    trace = folder / "connect-trace.txt"
    try:
        stop_signals.check()  # one that came while the harness started
        isolate = job.guard == netguard.NETNS
        if opts.over_http:
            url = opts.url
            if url is None or opts.server:
                if url is None:
                    url = free_port_url()
                    argv = server_argv(job, folder) + ["--http", url.rsplit(":", 1)[1].split("/")[0]]
                else:
                    argv = server_argv(job, folder)
                log = open(folder / "server-stderr.txt", "wb")
                logs.append(log)
                # It must share the loopback with the proxy: kept out of sight of the host's
                # processes, and of the files that hold the run's model key, instead.
                apart = netguard.isolation_argv(network=False, cover=(str(ctx.home), str(folder / "host-config"))) \
                    if isolate else None
                server_proc = subprocess.Popen([*(apart or []), *argv], stdin=subprocess.DEVNULL, stdout=log,
                                               stderr=log, start_new_session=True)
                _wait_port(url, 30)
            if opts.proxy:
                said = folder / "proxy-stdout.txt"
                out = open(said, "wb")
                logs.append(out)
                ready = folder / "proxy-ready.json"
                proxy_proc = subprocess.Popen(
                    proxy_command(folder / "proxy", SERVER_NAME, url=url, listen="127.0.0.1:0", ready_file=ready,
                                  upstream_socket=job.upstream_socket, headers=opts.headers or (),
                                  mask_socket=job.env_socket),
                    stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
                ctx.mcp_url = _proxy_url(proxy_proc, ready, said)
            else:
                ctx.mcp_url = url
        elif opts.proxy:
            ctx.mcp_command = proxy_command(folder / "proxy", SERVER_NAME, server=shlex.join(server_argv(job, folder)),
                                            isolate=isolate, mask_socket=job.env_socket)
        else:
            # Only to measure what the proxy costs: the rows still come from model.jsonl, the wire
            # facts (clientInfo, protocol, the host's own reads) are then unknown.
            ctx.mcp_command = server_argv(job, folder)
        launch = adapter.prepare(ctx, job.binary)
        prefix = netguard.strace_prefix(str(trace)) if opts.trace else None
        out, err = open(folder / "host-stdout.txt", "wb"), open(folder / "host-stderr.txt", "wb")
        logs += [out, err]
        stop_signals.check()
        started = time.monotonic()
        if job.binary:
            host = subprocess.Popen([*(prefix or []), *launch.argv], env=launch.env, cwd=launch.cwd,
                                    stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True)
        # what the host, its proxies and servers write into the folder counts too: past the
        # budget the host (its process group) is stopped
        # the lock file is the run's, not evidence: it is gone when the run ends
        watch = FolderWatch(folder, budget, {stand_in.log.path, folder / FolderLock.NAME},
                            on_reached=lambda: _stop(host))
        try:
            code = stop_signals.wait(host, opts.timeout) if host is not None else None
        except subprocess.TimeoutExpired:
            timed_out, code = True, None
            _stop(host)
        host_seconds = time.monotonic() - started
        _stop(proxy_proc, signal.SIGINT, 15)  # ours (HTTP): it completes its folder and ends
        wait_for_proxies(folder / "proxy", 20)
        _stop(host, wait=5)  # whatever the host left in its process group
    except HostInterrupted as exc:
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
        if watch is not None:
            watch.stop([Path(handle.name) for handle in logs])
    # the host has ended: what it did is written whole, whatever arrives now (a stop is only recorded)
    connects = netguard.connects(trace.read_text("utf-8", "replace")) if trace.is_file() else None
    if connects is not None:
        atomic_write_json(folder / "connects.json", connects)
    write_host_results(folder, adapter, job, profile, connects=connects,
                       host_exit=code, timed_out=timed_out, host_seconds=host_seconds, redactor=redactor,
                       interrupted=interrupted.name if interrupted else None, bound=budget.record())
    return interrupted.signum if interrupted else None


def main(argv: list[str]) -> int:
    job_file = Path(argv[0])
    with stopping_on_signals():
        stopped_by = run_inside(HostJob.read(job_file), job_file.parent)
    return 128 + stopped_by if stopped_by else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
