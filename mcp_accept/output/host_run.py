"""What ``mcp-accept host test`` prints: the host and how it was kept offline, one line per host
row with its status and reason, and where the evidence is."""

from __future__ import annotations

import json
from pathlib import Path

from mcp_accept.output.console import Environment, default_environment, plain_columns
from mcp_accept.untrusted import plain_line


def print_host_test(outcome, env: Environment | None = None) -> None:
    env = env or default_environment()
    results = outcome.results
    c = results["conditions"]
    title = (f"mcp-accept host test: {c.get('host_product')} {c.get('host_version')} "
             f"({c.get('transport')}, {c.get('protocol_version_on_wire') or 'no version'}); "
             f"network: {outcome.guard}")
    rows = [("id", "status", "what the model was handed")]
    for row in results["rows"]:
        reason = row.get("reason") or ""
        if len(reason) > 600 and not env.verbose:
            reason = reason[:597] + "..."
        rows.append((row["id"], row["status"], reason))
    counts = results["summary"]
    summary = (f"{len(results['rows'])} host rows: " + ", ".join(f"{counts.get(s, 0)} {s}" for s in
                                                              ("PASS", "FAIL", "UNOBTAINABLE"))
               + f" in {outcome.wall_seconds:.1f} s. Evidence: {outcome.folder}")
    if env.quiet:
        env.echo(plain_line(summary))
        return
    env.stdout.write(plain_line(title) + "\n" + "".join(
        line + "\n" for line in plain_columns([tuple(plain_line(x) for x in r) for r in rows], env.width)))
    facts = _facts(outcome.folder)
    quirks = host_quirks(outcome.folder, facts)
    if quirks:
        env.echo(plain_line("host quirks (tolerated, recorded in host-run.json): " + "; ".join(quirks)))
    media = media_outcomes(facts)
    if media:
        env.echo(plain_line("media: " + "; ".join(media)))
    env.echo(plain_line(summary))


def _facts(folder) -> dict:
    try:
        return json.loads((Path(folder) / "host-run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def host_quirks(folder, facts: dict | None = None) -> list[str]:
    """What the host did that the spec tolerates (a refused version probe, a killed server, late
    cancellations), in a few words each, from the run's host-run.json."""
    facts = _facts(folder) if facts is None else facts
    return [str(q.get("quirk")) + (f" ({q['detail']})" if q.get("detail") else "")
            for q in facts.get("host_quirks") or [] if isinstance(q, dict)]


def media_outcomes(facts: dict, lang: str = "en") -> list[str]:
    """What became of the result's image and embedded blob, each kind of bytes (png, pdf, ...)
    once, from host-run.json's ``extra_forms``."""
    from mcp_accept.reasons import Reason

    said = []
    for found in (facts.get("extra_forms") or {}).values():
        for kind, outcome in ((found or {}).get("outcome") or {}).items():
            said.append(f"{kind}: {Reason.from_json(outcome).render(lang)}")
    return said
