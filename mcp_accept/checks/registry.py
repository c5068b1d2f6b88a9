"""Running a check by name: the registry is filled by importing the check modules, which is
done here, on first use, so that :mod:`.base` (which they all import) imports none of them."""

from __future__ import annotations

from mcp_accept.checks.base import APP, REGISTRY, UNOBTAINABLE, Context, Verdict
from mcp_accept.checks.places import cite


def load_all() -> None:
    # Importing the modules registers their checks.
    from mcp_accept.checks import errors, meaning, sdk, session, types, wire  # noqa: F401



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
