"""The sdk layer's replay: the run's recorded answers replayed through the official MCP Python SDK.

The answers the run recorded are replayed to the SDK's ``Client`` through an in-memory
transport: the SDK negotiates (``initialize`` or ``server/discover``, answered with what
the server answered), lists the tools, then makes every ``tools/call`` and
``resources/read`` of the run. Each request is answered with the server's recorded
response for the same method and parameters, so the SDK judges exactly the bytes the
other layers judged, and nothing reaches the server a second time. What the SDK did is a
:class:`mcp_accept.checks.sdk.Replay`, which the sdk checks judge.

Importing the SDK takes longer than a whole run of the other layers, so a run started from
the command line replays in a process of its own (:mod:`mcp_accept.running.sdk_worker`),
started with the run so that the import overlaps the recording, and ended with the run; it
is handed the job (what to replay and the recorded answers) and says what the SDK did. A
process that has the SDK already (a fleet, ``verify``) replays itself. Both replay the same
job the same way.

A run has the layer only when asked (:func:`switched_off`): ``--sdk``, or ``MCP_ACCEPT_SDK=on``.
The SDK's import alone takes longer than a whole run of the other layers, and the default run
is held to half the official SDK client's time (benchmarks/README.md); without the layer its
verdicts are UNOBTAINABLE, saying how to turn it on.
"""

from __future__ import annotations

import functools
import json
import re
import threading
from typing import Any

from mcp_accept.checks.sdk import CALL_STEPS, LAYER, REPLAYED_STEPS, Outcome, Replay, SdkInfo
from mcp_accept.errors import InputError
from mcp_accept.reasons import Reason, reason

INSTALL = "pip install '.[sdk]'"
INSTALL_HINT = f"{INSTALL} in a clone of mcp-accept"
# An in-memory answer arrives at once; the SDK waits this long only for an answer it
# could not parse (as it would wait on a real connection).
REPLAY_TIMEOUT = 3.0
DETAIL_LIMIT = 300


SWITCH = "MCP_ACCEPT_SDK"  # on or off: whether a run has the sdk layer when no option says
ON = ("on", "1", "yes", "true")
OFF = ("off", "0", "no", "false")


def switched_off(option: bool | None, *, default: bool = False) -> Reason | None:
    """Why a run has no sdk layer, or None when it has one.

    The option (``--sdk`` True, ``--no-sdk`` False) wins; without it, ``MCP_ACCEPT_SDK`` (on
    or off) says; without that, ``default``: off for a run (importing the SDK costs more than
    the rest of the run), on for ``verify``, which checks the layer too. Any other value of
    ``MCP_ACCEPT_SDK`` is refused (InputError), rather than read as one or the other."""
    import os

    if option is not None:
        return None if option else reason("sdk.switched-off", by="--no-sdk")
    given = os.environ.get(SWITCH, "").strip()
    if given.lower() in ON:
        return None
    if given.lower() in OFF:
        return reason("sdk.switched-off", by=f"{SWITCH}={given}")
    if given:
        raise InputError(f"must be on or off, not {given!r}", field=SWITCH)
    if default:
        return None
    return reason("sdk.off", option="--sdk", env=f"{SWITCH}=on", install=INSTALL)


def not_replayed(why: Reason) -> Replay:
    """What the sdk checks are given when the run has no sdk layer: why."""
    return Replay(SdkInfo(False, None, why))


@functools.cache
def sdk_info() -> SdkInfo:
    """Import the SDK once; say which version it is, or why it cannot be used."""
    from importlib import metadata

    try:
        version = metadata.version("mcp")
    except metadata.PackageNotFoundError:
        version = None
    try:
        import mcp  # noqa: F401
    except ImportError as exc:
        if version is None:
            return SdkInfo(False, None, f"the MCP Python SDK is not installed ({INSTALL_HINT}): {exc}")
        return SdkInfo(False, version, f"mcp {version} is installed but cannot be imported: {exc}")
    except Exception as exc:  # a broken installation must not break the run
        return SdkInfo(False, version, f"the MCP Python SDK could not be imported: {type(exc).__name__}: {exc}")
    try:
        import mcp_types  # noqa: F401
        from mcp.client.client import Client  # noqa: F401
        from mcp.shared.memory import create_client_server_memory_streams  # noqa: F401
    except ImportError as exc:
        return SdkInfo(False, version, f"mcp {version} lacks the client this layer drives "
                                       f"(mcp>=2.3 is needed; {INSTALL_HINT}): {exc}")
    import logging

    logger = logging.getLogger("mcp")
    if not logger.handlers:
        # The SDK logs what it refuses; the verdicts carry that, so keep the terminal quiet.
        logger.addHandler(logging.NullHandler())
        logger.propagate = False
    return SdkInfo(True, version)


def describe_exception(exc: BaseException) -> tuple[str, str | None, int | None]:
    """One line naming what the SDK raised, its type name and its JSON-RPC code if any."""
    inner = getattr(exc, "exceptions", None)  # an exception group (anyio wraps what it raises)
    if isinstance(inner, tuple) and len(inner) == 1 and isinstance(inner[0], BaseException):
        return describe_exception(inner[0])
    name = type(exc).__name__
    code = getattr(exc, "code", None)
    code = code if isinstance(code, int) and not isinstance(code, bool) else None
    text = " ".join(str(exc).split())
    if len(text) > DETAIL_LIMIT:
        text = text[:DETAIL_LIMIT - 3] + "..."
    label = f"{name} {code}" if code is not None else name
    return (f"{label}: {text}" if text else label), name, code


# -- what is replayed: a job made from the recording -------------------------------------------
#
# The replay works from a job, not from the recording, so that it can run in this process or
# in the worker process (mcp_accept.running.sdk_worker) alike: the requests to make, each
# step's reason when there is nothing to make, and the recorded answers as JSON text.

# Methods the replay can be asked (the handshake, listings, the calls and reads it makes);
# recorded answers to anything else would never be looked up, so they are not handed over.
ANSWERED_METHODS = ("initialize", "server/discover", "ping", "tools/call", "resources/read", "tools/list",
                    "resources/list", "resources/templates/list", "prompts/list")


def _plain(params: Any) -> dict:
    """Request parameters without the envelope, for matching a request to a recorded one."""
    if not isinstance(params, dict):
        return {}
    return {k: v for k, v in params.items() if k != "_meta"}


def _without_id(message: dict) -> dict:
    """A recorded response without its id (the replay gives it the SDK's). A shallow copy:
    the answer is turned into text only where it is read (:class:`Answers`) or handed over
    (:func:`write_job`), and a large one is never held as text by the run."""
    return {k: v for k, v in message.items() if k != "id"}


def _answer_text(answer: dict | str) -> str:
    if isinstance(answer, str):
        return answer
    return json.dumps(answer, ensure_ascii=False, separators=(",", ":"))


def _with_id(text: str, request_id: Any) -> str:
    head = '{"id":' + json.dumps(request_id)
    return head + "}" if text == "{}" else head + "," + text[1:]


def recorded_answers(recording) -> list[tuple[str, dict, dict]]:
    """(method, plain params, response without its id) of each request of the run the server answered."""
    requests: dict[str, dict] = {}
    pairs = []
    for entry in recording.entries:
        message = entry.get("message")
        if not isinstance(message, dict) or "id" not in message:
            continue
        key = json.dumps(message.get("id"))
        if entry.get("dir") == "out" and isinstance(message.get("method"), str):
            requests[key] = message
        elif entry.get("dir") == "in" and "method" not in message and key in requests:
            request = requests.pop(key)
            if request["method"] in ANSWERED_METHODS:
                pairs.append((request["method"], _plain(request.get("params")), _without_id(message)))
    return pairs


class Answers:
    """The server's recorded responses (JSON text), looked up by method and parameters."""

    def __init__(self, pairs):
        self.pairs = [(method, params, _answer_text(answer)) for method, params, answer in pairs]

    def find(self, method: str, params: dict) -> str | None:
        wanted = _plain(params)
        found = [t for meth, p, t in self.pairs if meth == method and self._matches(method, p, wanted)]
        if not found:
            return None
        if method == "initialize":
            good = [t for t in found if _is_result(t)]
            return (good or found)[-1]
        return found[0]

    @staticmethod
    def _matches(method: str, recorded: dict, wanted: dict) -> bool:
        if method == "tools/call":  # a retry after input_required carries the requestState it was given
            return recorded.get("name") == wanted.get("name") and \
                (recorded.get("arguments") or {}) == (wanted.get("arguments") or {}) and \
                recorded.get("requestState") == wanted.get("requestState")
        if method == "resources/read":
            return recorded.get("uri") == wanted.get("uri")
        if method in ("tools/list", "resources/list", "resources/templates/list", "prompts/list"):
            return recorded.get("cursor") == wanted.get("cursor")
        return method in ("server/discover", "initialize", "ping")


def _is_result(text: str) -> bool:
    try:
        return "result" in json.loads(text)
    except ValueError:
        return False


def _step_request(recording, step_name: str) -> dict | None:
    """The request a step sent (its last one), or None when it sent none."""
    step = recording.steps.get(step_name)
    if step is None:
        return None
    wanted = set(step.seqs)
    found = None
    for entry in recording.entries:
        message = entry.get("message")
        if (entry.get("seq") in wanted and entry.get("dir") == "out" and isinstance(message, dict)
                and "id" in message and isinstance(message.get("method"), str)):
            found = message
    return found


def _answered(recording, step_name: str) -> str | None:
    """Why a step has nothing to replay, or None when the server answered it."""
    step = recording.steps.get(step_name)
    if step is None:
        return "the run has no such step"
    if step.reply is None:
        return f"the step was not run ({step.skipped or 'no reason recorded'})"
    if step.reply.message is None:
        return f"the server gave no answer to replay ({step.reply.describe_failure()})"
    return None


def _held_back(recording, step_name: str, tool_name: Any) -> str | None:
    """Why a call is not handed to the SDK: validating its answer against the tool's
    outputSchema does not finish in bounded time (a pattern that backtracks without end,
    or a schema that blows up). The SDK validates with the standard library, which
    nothing can interrupt, so the replay would hang the run."""
    from mcp_accept.checks.types import runaway

    tool = recording.tools.get(tool_name) if isinstance(tool_name, str) else None
    step = recording.steps.get(step_name)
    result = step.reply.result if step is not None and step.reply is not None else None
    if not isinstance(tool, dict) or "outputSchema" not in tool or not isinstance(result, dict) \
            or "structuredContent" not in result:
        return None
    why = runaway(tool["outputSchema"], result["structuredContent"])
    if why is None:
        return None
    return (f"not replayed: validating the answer against outputSchema does not finish in bounded "
            f"time ({why}), and the SDK's validation could not be stopped")


def make_job(recording, timeout: float) -> dict:
    """What the replay needs from the recording: the era, each step's request or the reason
    it has none, and the recorded answers."""
    steps = []
    for name in REPLAYED_STEPS:
        why = _answered(recording, name)
        request = _step_request(recording, name)
        if why is None and request is None:
            why = "the step sent no request"
        params = (request or {}).get("params") or {}
        if why is None and name in CALL_STEPS:
            why = _held_back(recording, name, params.get("name"))
        if why is not None:
            steps.append({"step": name, "skip": why})
        elif name in CALL_STEPS:
            steps.append({"step": name, "tool": params.get("name"), "arguments": params.get("arguments")})
        else:
            steps.append({"step": name, "uri": params.get("uri")})
    return {"era": recording.negotiation.era, "timeout": timeout, "steps": steps,
            "answers": recorded_answers(recording)}


# -- replaying a job through the SDK's client ---------------------------------------------------


class _ReplayTransport:
    """An SDK transport whose far end answers every request from the recording."""

    def __init__(self, answers: Answers):
        self.answers = answers
        self._stack = None

    async def __aenter__(self):
        import contextlib

        import anyio
        from mcp.shared.memory import create_client_server_memory_streams

        self._stack = contextlib.AsyncExitStack()
        client_streams, server_streams = await self._stack.enter_async_context(
            create_client_server_memory_streams())
        group = await self._stack.enter_async_context(anyio.create_task_group())
        self._stack.callback(group.cancel_scope.cancel)
        group.start_soon(self._serve, *server_streams)
        return client_streams

    async def __aexit__(self, *exc_info):
        return await self._stack.__aexit__(*exc_info)

    async def _serve(self, read_stream, write_stream) -> None:
        import anyio

        try:
            async for item in read_stream:
                if isinstance(item, Exception):
                    continue
                request = item.message.model_dump(by_alias=True, mode="json", exclude_none=True)
                if "id" not in request or "method" not in request:
                    continue  # notifications and responses need no answer
                await write_stream.send(self._answer(request))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
            return

    def _answer(self, request: dict):
        """The recorded response, under this request's id, parsed the way the SDK's stdio client does."""
        import mcp_types
        from mcp.shared.message import SessionMessage

        recorded = self.answers.find(request["method"], request.get("params") or {})
        if recorded is None:
            line = json.dumps({"jsonrpc": "2.0", "id": request["id"],
                               "error": {"code": -32601,
                                         "message": f"mcp-accept replay: the run recorded no answer to "
                                                    f"{request['method']}"}})
        else:
            line = _with_id(recorded, request["id"])
        try:
            return SessionMessage(mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False))
        except ValueError as exc:
            return exc


async def _replay(job: dict) -> Replay:
    from mcp.client.client import Client

    timeout = job["timeout"]
    replay = Replay(sdk_info())
    mode = "legacy" if job["era"] == "legacy" else "auto"
    client = Client(_ReplayTransport(Answers(job["answers"])), mode=mode, cache=None,
                    read_timeout_seconds=timeout)
    entered = False
    try:
        async with client:
            entered = True
            replay.protocol_version = client.protocol_version
            replay.connect = Outcome("connect", True, f"the SDK settled on {replay.protocol_version}")
            replay.listing = await _attempt(client.list_tools(), "tools/list", timeout)
            for step in job["steps"]:
                replay.outcomes[step["step"]] = await _replay_step(client, step, timeout)
    except Exception as exc:  # what the SDK raised is the finding
        if entered:
            raise
        detail, kind, code = describe_exception(exc)
        replay.connect = Outcome("connect", False, f"the SDK refused the handshake: {detail}", kind, code)
    return replay


async def _replay_step(client, step: dict, timeout: float) -> Outcome:
    name = step["step"]
    if "skip" in step:
        return Outcome(name, None, step["skip"])
    if "tool" in step:
        return await _attempt(client.call_tool(step["tool"], step["arguments"]), name, timeout)
    return await _attempt(client.read_resource(step["uri"]), name, timeout)


async def _attempt(coro, name: str, timeout: float) -> Outcome:
    import anyio

    try:
        with anyio.fail_after(timeout * 2):
            result = await coro
    except Exception as exc:  # what the SDK raised is the finding
        detail, kind, code = describe_exception(exc)
        return Outcome(name, False, detail, kind, code)
    return Outcome(name, True, f"accepted as {type(result).__name__}")


def replay_job(job: dict) -> Replay:
    """Replay a job in this process (the SDK is imported here if it is not yet)."""
    info = sdk_info()
    if not info.available:
        return Replay(info)
    if job["era"] is None:
        return Replay(info, connect=Outcome("connect", None, "no protocol version was agreed: nothing to replay"))
    import anyio

    try:
        return anyio.run(_replay, job)
    except Exception as exc:  # a fault in the replay must not crash the run
        detail, name, code = describe_exception(exc)
        return Replay(info, connect=Outcome("connect", None, f"the replay could not run: {detail}", name, code))


def replay(recording, timeout: float = REPLAY_TIMEOUT) -> Replay:
    """Replay the recording through the SDK once; later calls get the same outcome.

    When the run started a worker (:func:`start_worker`), the worker replays: it has been
    importing the SDK while the run recorded. Otherwise the replay runs here."""
    cached = getattr(recording, "_sdk_replay", None)
    if cached is not None:
        return cached
    early = getattr(recording, "_sdk_handover", None)
    if early is not None:
        early.join()
        if early.result:
            recording._sdk_replay = early.result[0]
            return early.result[0]
    worker = getattr(recording, "sdk_worker", None)
    if worker is not None:
        result = worker.replay(make_job(recording, timeout))
    elif not sdk_info().available:
        result = Replay(sdk_info())
    else:
        result = replay_job(make_job(recording, timeout))
    try:
        recording._sdk_replay = result
    except AttributeError:
        pass
    return result


class _Handover(threading.Thread):
    def __init__(self, worker, job: dict):
        super().__init__(name="sdk-replay", daemon=True)
        self.worker, self.job, self.result = worker, job, []

    def run(self) -> None:
        self.result.append(self.worker.replay(self.job))


def hand_over(recording, timeout: float = REPLAY_TIMEOUT) -> None:
    """Give the recording to the run's replay process now, on a thread, so that the SDK
    replays while this process judges the other layers; :func:`replay` takes the answer.
    Nothing happens without a replay process (the replay is then made here, when asked)."""
    worker = getattr(recording, "sdk_worker", None)
    if worker is None or getattr(recording, "_sdk_handover", None) is not None:
        return
    recording._sdk_handover = _Handover(worker, make_job(recording, timeout))
    recording._sdk_handover.start()


# -- the worker process --------------------------------------------------------------------------


def wants_sdk(sheet) -> bool:
    return any(c.layer == LAYER for row in sheet.rows for c in row.checks)


def _spawn() -> "Worker | None":
    """A replay process for this run; it ends with the run (:meth:`Worker.close`)."""
    import importlib.util
    import subprocess
    import sys

    try:
        if importlib.util.find_spec("mcp") is None:
            return None  # not installed: sdk_info() says so here at no cost
    except (ImportError, ValueError):
        return None
    try:
        proc = subprocess.Popen([sys.executable, "-m", "mcp_accept.running.sdk_worker"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError:
        return None
    return Worker(proc)


_early: "Worker | None" = None  # started by prestart(), taken by the run's start_worker()
# "layer: sdk" in a sheet's text, as YAML or JSON writes it (the sheet is parsed only later)
SDK_CHECK_RE = re.compile(r"""\blayer["']?\s*:\s*["']?sdk\b""")


def prestart(args: list[str]) -> None:
    """Start the worker before the command line is even parsed, when ``mcp-accept run ARGS``
    will want it: the layer switched on (the last of ``--sdk``/``--no-sdk``, else
    ``MCP_ACCEPT_SDK``), one server (not --targets), and a sheet whose text names the sdk
    layer. :func:`start_worker` takes it, or ends it if the parsed run does not want it."""
    global _early
    if _early is not None or any(a in ("--targets", "--help") or a.startswith("--targets=") for a in args):
        return
    flags = [a for a in args if a in ("--sdk", "--no-sdk")]
    try:
        if switched_off(flags[-1] == "--sdk" if flags else None) is not None:
            return
    except InputError:  # an MCP_ACCEPT_SDK the run will refuse, saying why
        return
    sheet = None
    for n, arg in enumerate(args):
        if arg == "--sheet" and n + 1 < len(args):
            sheet = args[n + 1]
        elif arg.startswith("--sheet="):
            sheet = arg.split("=", 1)[1]
    try:
        if sheet is None:
            from mcp_accept.data import data_path

            sheet = data_path("sheets", "default.yaml")
        with open(sheet, encoding="utf-8") as handle:
            if not SDK_CHECK_RE.search(handle.read()):
                return
    except (OSError, UnicodeDecodeError):
        return  # the run will say what is wrong with the sheet
    _early = _spawn()


def start_worker(sheet, wanted: bool) -> "Worker | None":
    """Start the replay's process now, so that importing the SDK (most of the layer's cost)
    overlaps the recording on another core. None when there is no replay (the layer is off,
    ``wanted`` False, or the sheet has no sdk checks) or it is better made here: this process
    has the SDK already (a fleet imports it once before forking its runs)."""
    global _early
    early, _early = _early, None
    if not wanted or not wants_sdk(sheet) or sdk_info.cache_info().currsize:
        if early is not None:
            early.close()
        return None
    return early or _spawn()


def replay_limit(job: dict) -> float:
    """How long a replay of ``job`` may take: the SDK's import, then every wait, each bounded
    by :func:`_attempt` (the handshake, a listing, maybe a second listing, the steps)."""
    return 60 + 2 * job["timeout"] * (len(job["steps"]) + 3)


def _failed_replay(why: str) -> Replay:
    return Replay(SdkInfo(True, None), connect=Outcome("connect", None, f"the replay could not run: {why}"))


class Worker:
    """A replay process started early; it imports the SDK, reads one job, answers one Replay."""

    def __init__(self, proc):
        self.proc = proc
        self.peak_rss = 0  # bytes, as the worker reports it (the benchmark counts it)

    def replay(self, job: dict) -> Replay:
        import subprocess
        import threading

        limit = replay_limit(job)
        err = b""
        # The job is written by a thread, piece by piece, while communicate() waits (bounded)
        # for the answer: the worker reads it only once the SDK is imported.
        stdin, self.proc.stdin = self.proc.stdin, None
        failed: list[BaseException] = []

        def feed() -> None:
            try:
                with stdin:
                    write_job(stdin, job)
            except BrokenPipeError:
                pass  # the worker ended early: what it wrote on stderr says why
            except BaseException as exc:  # noqa: BLE001 - raised below, in the caller's thread
                failed.append(exc)

        feeder = threading.Thread(target=feed, name="sdk-job", daemon=True)
        feeder.start()
        try:
            out, err = self.proc.communicate(timeout=limit)
            feeder.join()
            if failed:
                err = b""
                raise failed[0]
            result, self.peak_rss = decode_replay(out)
            return result
        except subprocess.TimeoutExpired:
            self.close()
            why = f"the SDK's replay did not finish in {limit:.0f} s"
        except (OSError, ValueError, KeyError, TypeError) as exc:
            self.close()
            last = (err or b"").decode("utf-8", "replace").strip().splitlines()[-1:]
            why = f"the SDK's replay process failed: {last[0][:DETAIL_LIMIT] if last else type(exc).__name__}"
        return _failed_replay(why)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                if stream is not None:
                    stream.close()
            except (OSError, ValueError):
                pass


# One line of JSON for the job without its answers, then one line per answer (compact JSON
# has no raw line break). An answer is written in pieces (evidence.compact_pieces): a 16 MiB
# result is never held whole as text, nor as bytes, by the run.
def write_job(stream, job: dict) -> None:
    from mcp_accept.evidence.wirelog import compact_pieces

    head = {**job, "answers": [[method, params] for method, params, _ in job["answers"]]}
    # A lone surrogate (a server may send "\ud800") has no UTF-8 form: it sits in a JSON
    # string, so backslashreplace writes it back as the same escape the server sent.
    stream.write(json.dumps(head, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "backslashreplace")
                 + b"\n")
    for _, _, answer in job["answers"]:
        if isinstance(answer, str):
            stream.write(answer.encode("utf-8", "backslashreplace"))
        else:
            for piece in compact_pieces(answer):
                stream.write(piece.encode("utf-8", "backslashreplace"))
        stream.write(b"\n")
    stream.flush()


def encode_job(job: dict) -> bytes:
    """The job as :func:`write_job` writes it, in one piece."""
    import io

    buffer = io.BytesIO()
    write_job(buffer, job)
    return buffer.getvalue()


def read_job(stream) -> dict | None:
    first = stream.readline()
    if not first:
        return None
    job = json.loads(first)
    texts = []
    for _ in job["answers"]:
        line = stream.readline()
        end = len(line) - 1 if line.endswith(b"\n") else len(line)
        texts.append(str(memoryview(line)[:end], "utf-8"))  # no copy of the bytes without the newline
        del line
    job["answers"] = [(method, params, text) for (method, params), text in zip(job["answers"], texts)]
    return job


def encode_replay(replay: Replay, peak_rss: int = 0) -> bytes:
    from dataclasses import asdict

    return (json.dumps({**asdict(replay), "peak_rss": peak_rss}, ensure_ascii=False) + "\n").encode("utf-8")


def decode_replay(data: bytes) -> tuple[Replay, int]:
    """The Replay the worker wrote, and the worker's peak RSS in bytes."""
    raw = json.loads(data)

    def outcome(item):
        return Outcome(**item) if item is not None else None

    replay = Replay(SdkInfo(**raw["info"]), raw.get("protocol_version"), outcome(raw.get("connect")),
                    outcome(raw.get("listing")), {k: outcome(v) for k, v in (raw.get("outcomes") or {}).items()})
    return replay, int(raw.get("peak_rss") or 0)
