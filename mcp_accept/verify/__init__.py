"""``mcp-accept verify``: show that the checks catch the defects they are for, and pass what is right.

The built-in fixture is run in every break mode, in every version (2026-07-28, 2025-11-25
and 2025-06-18), over stdio, through the ordinary ``run`` code; the baseline and the modes
whose behaviour rests on the transport run over Streamable HTTP too (HTTP_MODES). Each run
leaves its own run folder. Then every *condition* (``conditions``) is judged from those
folders: what was sent, what each layer said (wire, type, meaning, sdk), which rule kind the
failing check enforces (must, should, app), what was expected, PASS or FAIL. The conditions
are written to ``verify.json`` and ``verify.md``; the exit status is 0 only when every one
holds.

With the MCP Python SDK installed, the SDK also drives the fixture itself in every break
mode, and the sdk column of each run (a replay of the recorded answers) must say what
the SDK really did. Without it, the sdk column must say UNOBTAINABLE with the reason.

The package, by concern: ``plan`` (which runs to make, and what each mode is for), ``runs``
(one run, read back from its folder), ``canary`` (the listener that proves nothing was
fetched), ``drive`` (the runs made and the report written), ``conditions`` (what each
condition asserts) and ``report`` (verify.md and the console). The names the command line
and the tests use are the package's own, below.

May import every earlier stage; never ``mcp_accept.cli``, which calls it.
"""

from __future__ import annotations

from mcp_accept.verify.canary import Canary
from mcp_accept.verify.conditions import (NOT_COMPARABLE_LIVE, SDK_QUESTIONS, SDK_ROW_STEPS, SESSION_CONDITIONS,
                                          Condition, build_conditions)
from mcp_accept.verify.drive import FORMAT, VerifyOptions, VerifyOutcome, live_sdk, prepare, verify
from mcp_accept.verify.plan import (ALONE, BASELINE, COMBOS, ERA_MODES, FALSY, HTTP_MODES, MAX_ROUNDS,
                                    NO_LIVE_SDK, PASSES_IN, PASSING_MODES, break_modes, mode_args)
from mcp_accept.verify.report import STYLES, print_verify, render
from mcp_accept.verify.runs import HTTP, LAYER_NAMES, LIVE_FILE, STDIO, RunView, load_run, load_views

__all__ = ["ALONE", "BASELINE", "COMBOS", "ERA_MODES", "FALSY", "FORMAT", "HTTP", "HTTP_MODES", "LAYER_NAMES",
           "LIVE_FILE", "MAX_ROUNDS", "NOT_COMPARABLE_LIVE", "NO_LIVE_SDK", "PASSES_IN", "PASSING_MODES",
           "SDK_QUESTIONS", "SDK_ROW_STEPS", "SESSION_CONDITIONS", "STDIO", "STYLES", "Canary", "Condition",
           "RunView", "VerifyOptions", "VerifyOutcome", "break_modes", "build_conditions", "live_sdk",
           "load_run", "load_views", "mode_args", "prepare", "print_verify", "render", "verify"]
