"""The sdk layer: what the official MCP Python SDK's client does with the server's answers.

The answers the run recorded are replayed to the SDK's ``Client`` through an in-memory
transport: the SDK negotiates (``initialize`` or ``server/discover``, answered with what
the server answered), lists the tools, then makes every ``tools/call`` and
``resources/read`` of the run. Each request is answered with the server's recorded
response for the same method and parameters, so the SDK judges exactly the bytes the
other layers judged, and nothing reaches the server a second time. Each call either
comes back (the SDK accepted the result) or raises (what it raised is the detail).

The layer is advisory (see :data:`mcp_accept.checks.ADVISORY_LAYERS`): it tells how one
client library treats the answer, which is not a rule of the spec, so its verdicts are
reported in the row's ``layers.sdk`` and evidence but never change the row's status.

Without the SDK (``pip install 'mcp-accept[sdk]'``) every sdk verdict is UNOBTAINABLE,
with the reason.
"""

from __future__ import annotations

import functools
import json
import logging
from dataclasses import dataclass, field
from typing import Any

from mcp_accept.checks import FAIL, PASS, UNOBTAINABLE, Context, Verdict, check

LAYER = "sdk"
INSTALL_HINT = "pip install 'mcp-accept[sdk]'"
# An in-memory answer arrives at once; the SDK waits this long only for an answer it
# could not parse (as it would wait on a real connection).
REPLAY_TIMEOUT = 3.0
DETAIL_LIMIT = 300

# The recorded steps the SDK replays, in the order the run made them.
CALL_STEPS = ("call:text", "call:structured", "call:embedded", "call:link")
READ_STEPS = ("read:link", "read:unknown")
REPLAYED_STEPS = CALL_STEPS + READ_STEPS


@dataclass
class SdkInfo:
    """Whether the SDK can be used here: its version, or why not."""

    available: bool
    version: str | None = None
    reason: str | None = None

    @property
    def label(self) -> str:
        return f"mcp {self.version}" if self.version else "the MCP Python SDK"


SWITCH = "MCP_ACCEPT_SDK"  # "off" skips the layer (importing the SDK takes about a second)


@functools.cache
def sdk_info() -> SdkInfo:
    """Import the SDK once; say which version it is, or why it cannot be used."""
    import os
    from importlib import metadata

    if os.environ.get(SWITCH, "").strip().lower() in ("off", "0", "no", "false"):
        return SdkInfo(False, None, f"the sdk layer is switched off ({SWITCH}={os.environ[SWITCH]})")
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
    logger = logging.getLogger("mcp")
    if not logger.handlers:
        # The SDK logs what it refuses; the verdicts carry that, so keep the terminal quiet.
        logger.addHandler(logging.NullHandler())
        logger.propagate = False
    return SdkInfo(True, version)


@dataclass
class Outcome:
    """What the SDK did with one replayed request."""

    step: str
    accepted: bool | None  # None: not replayed (no answer was recorded, or no SDK)
    detail: str
    error: str | None = None  # the exception's type name when the SDK raised
    code: int | None = None  # the JSON-RPC error code of an MCPError


@dataclass
class Replay:
    info: SdkInfo
    protocol_version: str | None = None  # what the SDK settled on
    connect: Outcome | None = None  # the handshake
    listing: Outcome | None = None  # tools/list
    outcomes: dict[str, Outcome] = field(default_factory=dict)


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


# -- answering the SDK from the recording ------------------------------------------------------


def _plain(params: Any) -> dict:
    """Request parameters without the envelope, for matching a request to a recorded one."""
    if not isinstance(params, dict):
        return {}
    return {k: v for k, v in params.items() if k != "_meta"}


class Answers:
    """The server's recorded responses, looked up by method and parameters."""

    def __init__(self, recording):
        requests: dict[str, dict] = {}
        self.pairs: list[tuple[str, dict, dict]] = []  # (method, params, response message)
        for entry in recording.entries:
            message = entry.get("message")
            if not isinstance(message, dict) or "id" not in message:
                continue
            key = json.dumps(message.get("id"))
            if entry.get("dir") == "out" and isinstance(message.get("method"), str):
                requests[key] = message
            elif entry.get("dir") == "in" and "method" not in message and key in requests:
                request = requests.pop(key)
                self.pairs.append((request["method"], _plain(request.get("params")), message))

    def find(self, method: str, params: dict) -> dict | None:
        wanted = _plain(params)
        found = [m for meth, p, m in self.pairs if meth == method and self._matches(method, p, wanted)]
        if not found:
            return None
        if method == "initialize":
            good = [m for m in found if "result" in m]
            return (good or found)[-1]
        return found[0]

    @staticmethod
    def _matches(method: str, recorded: dict, wanted: dict) -> bool:
        if method == "tools/call":
            return recorded.get("name") == wanted.get("name") and \
                (recorded.get("arguments") or {}) == (wanted.get("arguments") or {})
        if method == "resources/read":
            return recorded.get("uri") == wanted.get("uri")
        if method in ("tools/list", "resources/list", "resources/templates/list", "prompts/list"):
            return recorded.get("cursor") == wanted.get("cursor")
        return method in ("server/discover", "initialize", "ping")


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
            response = {"jsonrpc": "2.0", "id": request["id"],
                        "error": {"code": -32601,
                                  "message": f"mcp-accept replay: the run recorded no answer to "
                                             f"{request['method']}"}}
        else:
            response = {**recorded, "id": request["id"]}
        line = json.dumps(response, ensure_ascii=False, separators=(",", ":"))
        try:
            return SessionMessage(mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False))
        except ValueError as exc:
            return exc


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


async def _replay(recording, timeout: float) -> Replay:
    from mcp.client.client import Client

    replay = Replay(sdk_info())
    era = recording.negotiation.era
    mode = "legacy" if era == "legacy" else "auto"
    client = Client(_ReplayTransport(Answers(recording)), mode=mode, cache=None,
                    read_timeout_seconds=timeout)
    entered = False
    try:
        async with client:
            entered = True
            replay.protocol_version = client.protocol_version
            replay.connect = Outcome("connect", True, f"the SDK settled on {replay.protocol_version}")
            replay.listing = await _attempt(client.list_tools(), "tools/list", timeout)
            for name in REPLAYED_STEPS:
                replay.outcomes[name] = await _replay_step(client, recording, name, timeout)
    except Exception as exc:  # what the SDK raised is the finding
        if entered:
            raise
        detail, kind, code = describe_exception(exc)
        replay.connect = Outcome("connect", False, f"the SDK refused the handshake: {detail}", kind, code)
    return replay


async def _replay_step(client, recording, name: str, timeout: float) -> Outcome:
    why = _answered(recording, name)
    request = _step_request(recording, name)
    if why is None and request is None:
        why = "the step sent no request"
    if why is not None:
        return Outcome(name, None, why)
    params = request.get("params") or {}
    if name in CALL_STEPS:
        held = _held_back(recording, name, params.get("name"))
        if held is not None:
            return Outcome(name, None, held)
        return await _attempt(client.call_tool(params.get("name"), params.get("arguments")), name, timeout)
    return await _attempt(client.read_resource(params.get("uri")), name, timeout)


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


async def _attempt(coro, name: str, timeout: float) -> Outcome:
    import anyio

    try:
        with anyio.fail_after(timeout * 2):
            result = await coro
    except Exception as exc:  # what the SDK raised is the finding
        detail, kind, code = describe_exception(exc)
        return Outcome(name, False, detail, kind, code)
    return Outcome(name, True, f"accepted as {type(result).__name__}")


def replay(recording, timeout: float = REPLAY_TIMEOUT) -> Replay:
    """Replay the recording through the SDK once; later calls get the same outcome."""
    cached = getattr(recording, "_sdk_replay", None)
    if cached is not None:
        return cached
    info = sdk_info()
    if not info.available:
        result = Replay(info)
    elif recording.negotiation.era is None:
        result = Replay(info, connect=Outcome("connect", None, "no protocol version was agreed: nothing to replay"))
    else:
        import anyio

        try:
            result = anyio.run(_replay, recording, timeout)
        except Exception as exc:  # a fault in the replay must not crash the run
            detail, name, code = describe_exception(exc)
            result = Replay(info, connect=Outcome("connect", None, f"the replay could not run: {detail}", name, code))
    try:
        recording._sdk_replay = result
    except AttributeError:
        pass
    return result


# -- the checks -------------------------------------------------------------------------------


def _verdict(ctx: Context, name: str, step: str, *, want_error: bool = False) -> Verdict:
    form = step.split(":", 1)[1]
    if step in CALL_STEPS and form not in ctx.profile.tools:
        return Verdict(name, LAYER, UNOBTAINABLE, f"the profile names no {form} tool")
    result = replay(ctx.recording)
    seqs = list(ctx.step(step).seqs) if ctx.step(step) else []
    if not result.info.available:
        return Verdict(name, LAYER, UNOBTAINABLE, result.info.reason or "the MCP Python SDK is unavailable")
    who = result.info.label
    if result.connect is None or result.connect.accepted is None:
        why = result.connect.detail if result.connect else "nothing was replayed"
        return Verdict(name, LAYER, UNOBTAINABLE, f"{who}: {why}")
    if not result.connect.accepted:
        return Verdict(name, LAYER, FAIL, f"{who}: {result.connect.detail}", seqs)
    outcome = result.outcomes.get(step)
    if outcome is None or outcome.accepted is None:
        return Verdict(name, LAYER, UNOBTAINABLE,
                       f"{who}: {outcome.detail if outcome else 'the step was not replayed'}", seqs)
    what = "resources/read" if step in READ_STEPS else "tools/call"
    if want_error:
        if outcome.accepted:
            return Verdict(name, LAYER, FAIL, f"{who} took the answer to {what} as a successful "
                           f"result ({outcome.detail}), not an error", seqs)
        if outcome.error == "MCPError":
            return Verdict(name, LAYER, PASS, f"{who} raised the server's error: {outcome.detail}", seqs)
        return Verdict(name, LAYER, PASS, f"{who} raised, though not the server's error: {outcome.detail}",
                       seqs)
    if outcome.accepted:
        return Verdict(name, LAYER, PASS, f"{who} {outcome.detail} ({what}, {result.protocol_version})", seqs)
    return Verdict(name, LAYER, FAIL, f"{who} raised on {what} ({result.protocol_version}): {outcome.detail}",
                   seqs)


@check("sdk_call_text", LAYER)
def sdk_call_text(ctx: Context) -> Verdict:
    return _verdict(ctx, "sdk_call_text", "call:text")


@check("sdk_call_structured", LAYER)
def sdk_call_structured(ctx: Context) -> Verdict:
    return _verdict(ctx, "sdk_call_structured", "call:structured")


@check("sdk_call_embedded", LAYER)
def sdk_call_embedded(ctx: Context) -> Verdict:
    return _verdict(ctx, "sdk_call_embedded", "call:embedded")


@check("sdk_call_link", LAYER)
def sdk_call_link(ctx: Context) -> Verdict:
    return _verdict(ctx, "sdk_call_link", "call:link")


@check("sdk_read_link", LAYER)
def sdk_read_link(ctx: Context) -> Verdict:
    if "link" not in ctx.profile.tools:
        return Verdict("sdk_read_link", LAYER, UNOBTAINABLE, "the profile names no link tool")
    return _verdict(ctx, "sdk_read_link", "read:link")


@check("sdk_read_unknown", LAYER)
def sdk_read_unknown(ctx: Context) -> Verdict:
    """An unknown URI must reach the SDK's caller as an error, not as an empty success."""
    return _verdict(ctx, "sdk_read_unknown", "read:unknown", want_error=True)
