"""Running a check by name, and the options a row may set for its checks: the registry is
filled by importing the check modules (which declare their reasons too), done here on first
use, so that :mod:`.base` (which they all import) imports none of them."""

from __future__ import annotations

from typing import Any, Iterable

from mcp_accept.checks.base import APP, REGISTRY, UNOBTAINABLE, Context, Verdict
from mcp_accept.checks.places import cite


def load_all() -> None:
    # Importing the modules registers their checks.
    from mcp_accept.checks import errors, meaning, sdk, session, types, wire  # noqa: F401


def row_option_problem(checks: Iterable[str], option: str, value: Any) -> str | None:
    """Why a row whose checks are ``checks`` cannot take ``option=value``, or None."""
    load_all()
    allowed: dict[str, tuple[str, ...]] = {}
    for name in checks:
        if name in REGISTRY:
            allowed.update(REGISTRY[name].options)
    if option not in allowed:
        takes = ", ".join(sorted(allowed)) if allowed else "none"
        return f"the row has no option {option!r} (it takes: {takes})"
    if value not in allowed[option]:
        return f"{option} must be one of {', '.join(allowed[option])} (found {value!r})"
    return None


def run_check(name: str, ctx: "Context") -> list[Verdict]:
    load_all()
    if name not in REGISTRY:
        return [Verdict(name, "meaning", UNOBTAINABLE, f"no check named {name!r} in this version",
                        rule=APP)]
    found = REGISTRY[name]
    out = found.fn(ctx)
    verdicts = [out] if isinstance(out, Verdict) else list(out)
    for v in verdicts:
        v.check = v.check or name
        v.layer = v.layer or found.layer
        v.rule = v.rule or found.rule
        # An app verdict of a must/should check (e.g. a fault of the runner's own request) is
        # not what the section says; an app check that cites a section keeps the citation.
        if v.source is None and found.source is not None and (v.rule != APP or found.rule == APP):
            # a place the version on the wire has (checks.places), never one it lacks
            v.source = cite(ctx.version, *found.source)
    return verdicts
