"""The sdk layer: what the official MCP Python SDK's client did with the server's answers.

The running stage replays the answers the run recorded to the SDK's ``Client``
(:mod:`mcp_accept.running.sdk_replay`): the SDK negotiates, lists the tools, then makes
every ``tools/call`` and ``resources/read`` of the run, each answered with the server's
recorded response, so the SDK judges exactly the bytes the other layers judged. Each call
either came back (the SDK accepted the result) or raised (what it raised is the detail). The
checks here judge that outcome (:class:`Replay`), which the recording hands them
(``recording.sdk_replay``, asked when a check first needs it, so that the replay may still be
under way while the other layers are judged).

The layer is advisory (see :data:`mcp_accept.checks.base.ADVISORY_LAYERS`): it tells how one
client library treats the answer, which is not a rule of the spec, so its verdicts are
reported in the row's ``layers.sdk`` and evidence but never change the row's status.

The layer is off unless the run asks for it (``--sdk``, or ``MCP_ACCEPT_SDK=on``: see
:func:`mcp_accept.running.sdk_replay.switched_off`); off, every sdk verdict is UNOBTAINABLE with
the reason ``sdk.off`` (or ``sdk.switched-off``), which says how to turn it on. On but without
the SDK (``pip install '.[sdk]'`` in a clone), every sdk verdict is UNOBTAINABLE, with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mcp_accept.checks.base import FAIL, PASS, UNOBTAINABLE, Context, Verdict, check
from mcp_accept.reasons import Reason, reason

LAYER = "sdk"

# The recorded steps the SDK replays, in the order the run made them.
CALL_STEPS = ("call:text", "call:structured", "call:embedded", "call:link")
READ_STEPS = ("read:link", "read:unknown")
REPLAYED_STEPS = CALL_STEPS + READ_STEPS


@dataclass
class SdkInfo:
    """Whether the SDK can be used here: its version, or why not."""

    available: bool
    version: str | None = None
    reason: str | Reason | None = None  # a Reason when the run has the layer off

    @property
    def label(self) -> str:
        return f"mcp {self.version}" if self.version else "the MCP Python SDK"


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
    """What the SDK did with the whole run replayed to it."""

    info: SdkInfo
    protocol_version: str | None = None  # what the SDK settled on
    connect: Outcome | None = None  # the handshake
    listing: Outcome | None = None  # tools/list
    outcomes: dict[str, Outcome] = field(default_factory=dict)


def _replayed(recording) -> Replay:
    ask = getattr(recording, "sdk_replay", None)
    if ask is None:
        return Replay(SdkInfo(False, None, "the run was not replayed through the SDK"))
    return ask()


# -- the checks -------------------------------------------------------------------------------


def _verdict(ctx: Context, name: str, step: str, *, want_error: bool = False) -> Verdict:
    form = step.split(":", 1)[1]
    if step in CALL_STEPS and form not in ctx.profile.tools:
        return Verdict(name, LAYER, UNOBTAINABLE, reason("profile.no-tool", form=form))
    result = _replayed(ctx.recording)
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
    reply = ctx.step(step).reply if ctx.step(step) else None
    if step in CALL_STEPS and outcome.error == "MCPError" and reply is not None and reply.error is not None:
        # The server answered the call with a JSON-RPC error (e.g. a tool it does not list), and
        # the SDK raised it, as a client should: there was no result for it to take or refuse.
        return Verdict(name, LAYER, UNOBTAINABLE, f"{who} raised the server's JSON-RPC error on {what} "
                       f"({result.protocol_version}): {outcome.detail}; no result to replay", seqs)
    return Verdict(name, LAYER, FAIL, f"{who} raised on {what} ({result.protocol_version}): {outcome.detail}",
                   seqs)


def _call_check(form: str):
    """The check of one form's tools/call result as the SDK's client session gives it."""
    name = f"sdk_call_{form}"

    @check(name, LAYER)
    def judged(ctx: Context) -> Verdict:
        return _verdict(ctx, name, f"call:{form}")

    judged.__name__ = judged.__qualname__ = name
    return judged


sdk_call_text = _call_check("text")
sdk_call_structured = _call_check("structured")
sdk_call_embedded = _call_check("embedded")
sdk_call_link = _call_check("link")


@check("sdk_read_link", LAYER)
def sdk_read_link(ctx: Context) -> Verdict:
    if "link" not in ctx.profile.tools:
        return Verdict("sdk_read_link", LAYER, UNOBTAINABLE, reason("profile.no-tool", form="link"))
    return _verdict(ctx, "sdk_read_link", "read:link")


@check("sdk_read_unknown", LAYER)
def sdk_read_unknown(ctx: Context) -> Verdict:
    """An unknown URI must reach the SDK's caller as an error, not as an empty success."""
    return _verdict(ctx, "sdk_read_unknown", "read:unknown", want_error=True)
