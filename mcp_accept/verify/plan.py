"""Which runs of the fixture a verify makes: every break mode in every version over stdio, the
falsy modes with ``ALONE``, the combined modes, and HTTP_MODES over Streamable HTTP; and what
each mode is expected to leave (the versions it is for, the runs that pass)."""

from __future__ import annotations

from pathlib import Path

from mcp_accept.protocol import LATEST_LEGACY, LEGACY, MODERN, OLDEST, VERSIONS
from mcp_accept.verify.runs import HTTP, RunView

BASELINE = "none"
# The runs over Streamable HTTP: the baseline, and the modes whose behaviour rests on the
# transport (how a dead or silent server shows, how a body with NaN or a key twice is read
# from an HTTP answer, a retry and a refused server/discover as HTTP exchanges), by era.
HTTP_MODES = {
    BASELINE: VERSIONS,
    "crash": (MODERN, LATEST_LEGACY),
    "hang": (MODERN,),
    "nan": (MODERN,),
    "duplicate-key": (LATEST_LEGACY,),
    "mrtr": (MODERN,),
    "no-discover": (MODERN,),
    # the rules across a session and of the fields the schema leaves open (every era runs
    # them over stdio): over HTTP, where notifications and requests ride the answer's SSE
    # stream, in 2026-07-28 and in a legacy version each, or in the one version a mode is for
    "stray-progress": (MODERN, OLDEST),
    "stray-log": (MODERN, LATEST_LEGACY),
    "log-declared": (MODERN, OLDEST),
    "stray-request": (LATEST_LEGACY,),
    "stray-cancel": (MODERN, OLDEST),
    "undeclared-resources": (MODERN, LATEST_LEGACY),
    "undeclared-tools": (MODERN, OLDEST),
    "bad-image-data": (MODERN, LATEST_LEGACY),
    "bad-meta-key": (MODERN, OLDEST),
    "reserved-error-code": (MODERN, LATEST_LEGACY),
    "ttl-float": (MODERN,),
    "text-prose": (MODERN, OLDEST),
    "empty-cursor": (MODERN, LATEST_LEGACY),
}
# Runs with two break modes: a falsy structuredContent whose outputSchema stays an object in
# the legacy versions, so that only the value is wrong there.
ALONE = "legacy-object-schema"
# Modes that change nothing outside these versions (their runs there must pass as the
# baseline does).
ERA_MODES = {"no-discover": (MODERN,), "mrtr": (MODERN,), "mrtr-endless": (MODERN,),
             "legacy-32602": LEGACY, ALONE: LEGACY, "stray-request": LEGACY,
             "ttl-float": (MODERN,)}
# Modes whose runs pass every automated row (exit 0).
# (ALONE by itself keeps the fixture's object schema and value: nothing to fail.)
PASSING_MODES = (BASELINE, "preface-item", "ref-in-enum", "paged-resources", "mrtr", "mrtr-endless", ALONE,
                 "ttl-float", "empty-cursor")
# Modes that break a rule of some versions only and are allowed by the others (exit 0 there).
PASSES_IN = {"log-declared": LEGACY}
# Runs with two break modes for one rule: serving resources/read undeclared, answered with a
# result for an unknown URI, fails L03 on the capability's MUST in every version alike.
COMBOS = ("unknown-uri-empty+undeclared-resources",)
MAX_ROUNDS = 3  # --max-rounds of every run: mrtr-endless must stop at it
FALSY = {
    "structured-null": "null",
    "structured-false": "false",
    "structured-zero": "0",
    "structured-empty-string": '""',
    "structured-empty-array": "[]",
}
NO_LIVE_SDK = ("crash", "hang")
# Runs the SDK's own client cannot repeat: without server/discover it falls back to


def break_modes() -> list[str]:
    from mcp_accept import fixture

    return list(fixture.BREAK_MODES)


def mode_args(mode: str, canary_url: str) -> list[str]:
    """The fixture's arguments for a mode ("a+b" gives both break modes)."""
    if mode == BASELINE:
        return []
    args = [arg for name in mode.split("+") for arg in ("--break", name)]
    if mode in ("external-ref", "ref-in-enum"):
        args += ["--ref-url", canary_url]
    return args


def plan(folder: Path, canary_url: str) -> list[RunView]:
    """Every run: each mode alone in each version over stdio, the falsy modes with ALONE, and
    HTTP_MODES over Streamable HTTP."""
    modes = [BASELINE, *break_modes()] + [f"{m}+{ALONE}" for m in FALSY] + list(COMBOS)
    views = []
    for era in VERSIONS:
        for mode in modes:
            views.append(RunView(mode, era, folder / "runs" / era / mode, folder, mode_args(mode, canary_url)))
        for mode, eras in HTTP_MODES.items():
            if era in eras:
                views.append(RunView(mode, era, folder / "runs" / era / f"{mode}@{HTTP}", folder,
                                     mode_args(mode, canary_url), HTTP))
    return views
