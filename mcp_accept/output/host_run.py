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
    quirks = host_quirks(outcome.folder)
    if quirks:
        env.echo(plain_line("host quirks (tolerated, recorded in host-run.json): " + "; ".join(quirks)))
    env.echo(plain_line(summary))


def host_quirks(folder) -> list[str]:
    """What the host did that the spec tolerates (a refused version probe, a killed server, late
    cancellations), in a few words each, from the run's host-run.json."""
    try:
        facts = json.loads((Path(folder) / "host-run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [str(q.get("quirk")) + (f" ({q['detail']})" if q.get("detail") else "")
            for q in facts.get("host_quirks") or [] if isinstance(q, dict)]
