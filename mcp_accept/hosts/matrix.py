"""``mcp-accept host matrix``: ``host test`` for every installed host (or those named), side by
side, and one table of what each host handed its model: one row per host and version, one
column per form and fact of H01-H03. A host that is not installed is a row that says so.

The table's cells are read from each run folder (``results.json``, ``rows/H0*.json``,
``host-run.json``), so the same table can be made again from the folders alone.
"""

from __future__ import annotations

import signal
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

from mcp_accept.errors import InputError, ServerError
from mcp_accept.evidence.files import atomic_write_json, atomic_write_text, utc_now
from mcp_accept.hosts.registry import ADAPTERS
from mcp_accept.hosts import stop_signals
from mcp_accept.hosts.harness import HostMissing, HostRunInterrupted, fresh_folder, host_test
from mcp_accept.hosts.job import HostTestOptions
from mcp_accept.hosts.versions import split_host
from mcp_accept.output.host_matrix import row_of

FORMAT = "mcp-accept/host-matrix/1"


def pick_hosts(names: str | None) -> list[str]:
    """The hosts of ``--hosts``, each ``HOST`` or ``HOST@VERSION``, checked (default: every one)."""
    if not names:
        return list(ADAPTERS)
    chosen = list(dict.fromkeys(n.strip() for n in names.split(",") if n.strip()))
    unknown = [n for n in chosen if split_host(n, "--hosts")[0] not in ADAPTERS]
    if unknown or not chosen:
        raise InputError(f"must name hosts among {', '.join(ADAPTERS)}, each optionally @VERSION "
                         f"(found {names!r})", field="--hosts")
    return chosen


def pick_models(names: str | None) -> list[str] | None:
    """The model kinds of ``--models`` (None: each host's default one), checked."""
    if names is None:
        return None
    known = sorted({kind for adapter in ADAPTERS.values() for kind in adapter.model_kinds})
    chosen = [n.strip() for n in names.split(",") if n.strip()]
    if not chosen or any(n not in known for n in chosen):
        raise InputError(f"must name model kinds among {', '.join(known)} (found {names!r})", field="--models")
    return list(dict.fromkeys(chosen))


def runs_of(hosts: list[str], models: list[str] | None) -> list[tuple[str, str | None]]:
    """(host, model kind) of each run: a host whose configuration declares what its model takes
    once per kind of ``models`` it can declare, any other host once."""
    runs = []
    for host in hosts:
        kinds = [k for k in models or [] if k in ADAPTERS[split_host(host)[0]].model_kinds]
        runs += [(host, kind) for kind in kinds] or [(host, None)]
    return runs


def run_matrix(base: HostTestOptions, hosts: list[str], out: Path, jobs: int = 1,
               models: list[str] | None = None) -> dict:
    """``host test`` of each host into ``out/<host>``, ``jobs`` at once; matrix.json, .md, .html.
    A stop signal stops the hosts running (each folder written, marked interrupted), starts no
    other, and the matrix of what was done is written with ``interrupted`` naming the signal."""
    with stop_signals.stopping_on_signals():  # the hosts run in worker threads: the handlers are set here
        return _run_matrix(base, hosts, out, jobs, models)


def _run_matrix(base: HostTestOptions, hosts: list[str], out: Path, jobs: int, models: list[str] | None) -> dict:
    fresh_folder(out, base.replace)
    base = replace(base, replace=False)  # each host's folder is new inside the emptied one
    out.mkdir(parents=True, exist_ok=True)

    def one(run: tuple[str, str | None]) -> dict:
        row = measure(*run)
        version = split_host(run[0])[1]
        if version is not None:
            row["version_asked"] = version
        if run[1] is not None:
            row["model_kind"] = run[1]
        return row

    def measure(asked: str, kind: str | None) -> dict:
        host, version = split_host(asked)
        folder = out / "-".join(filter(None, (host, version, kind)))
        product, host_kind = ADAPTERS[host].product, ADAPTERS[host].kind
        if stop_signals.requested():
            return row_of(host, None, error=f"not run: interrupted by {_name(stop_signals.requested())}",
                          product=product, kind=host_kind)
        try:
            outcome = host_test(replace(base, host=host, host_version=version, out=str(folder), host_bin=None,
                                        model_kind=kind))
        except HostMissing as exc:
            return row_of(host, None, error=f"not installed: {exc}", product=product, kind=host_kind)
        except (InputError, ServerError) as exc:
            return row_of(host, folder, error=str(exc), product=product, kind=host_kind)
        except HostRunInterrupted as exc:
            if not exc.finished:
                return row_of(host, folder, error=f"interrupted by {_name(exc.signum)}", product=product, kind=host_kind)
            return row_of(host, folder)
        if outcome.not_measured:
            return row_of(host, folder, error=f"measured nothing: {outcome.not_measured}", product=product, kind=host_kind)
        return row_of(host, folder)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        rows = list(pool.map(one, runs_of(hosts, models)))
    stopped_by = stop_signals.requested()
    matrix = {"format": FORMAT, "measured_at": utc_now(),
              "server": base.server or base.url or "the built-in fixture (marker mode)",
              "transport": base.transport, "rows": rows, "interrupted": _name(stopped_by) if stopped_by else None}
    from mcp_accept.output.host_matrix import advice, render_html, render_markdown

    matrix["advice"] = advice(matrix)
    atomic_write_json(out / "matrix.json", matrix)

    for lang in ("en", "ja"):
        suffix = "" if lang == "en" else ".ja"
        atomic_write_text(out / f"matrix{suffix}.md", render_markdown(matrix, lang))
        atomic_write_text(out / f"matrix{suffix}.html", render_html(matrix, lang))
    return matrix


def run_history(base: HostTestOptions, host: str, versions: list[str], out: Path) -> dict:
    """``host history``: ``host test`` of each published version of ``host`` (the matrix of them,
    in ``out``), and ``history.json`` and ``history.md``: a column per version, a row per cell."""
    from mcp_accept.output.host_diff import history, render_history

    if host not in ADAPTERS:
        raise InputError(f"must be one of {', '.join(ADAPTERS)} (found {host!r})", field="HOST")
    matrix = run_matrix(base, [f"{host}@{version}" for version in versions], out)
    table = history(matrix, host, versions)
    atomic_write_json(out / "history.json", table)
    atomic_write_text(out / "history.md", render_history(table))
    return table


def pick_versions(text: str) -> list[str]:
    """The versions of ``--versions``, each checked as a version."""
    versions = list(dict.fromkeys(v.strip() for v in text.split(",") if v.strip()))
    if len(versions) < 2:
        raise InputError(f"must name two versions or more, comma-separated (found {text!r})", field="--versions")
    for version in versions:
        split_host(f"x@{version}", "--versions")
    return versions


def _name(signum: int) -> str:
    return signal.Signals(signum).name
