"""What a run was asked to do, recorded in ``results.json`` as ``invocation`` so that the run
folder alone says how to repeat it (``mcp-accept rerun``) and ``diff`` can tell two runs of
different servers or inputs apart.

Inputs are recorded by content, not only by name: a profile, a sheet of one's own and a
conditions file are kept whole with their SHA-256, because the file on disk may have changed
by the time anyone repeats the run. A header is recorded by name (and by the environment
variable it was read from, when it was); its value never is. Everything here passes through
the run's Redactor with the rest of ``results.json``, so a URL's token or password is masked
as in ``wire.jsonl``.
"""

from __future__ import annotations

import base64
import os
from pathlib import Path

from mcp_accept import __version__
from mcp_accept.data import data_dir
from mcp_accept.schemas import sha256_hex as sha256  # not hashlib: see schemas.sha256_hex

# Reference files are kept whole up to this many bytes in all; past it only their hashes are,
# and a rerun reads them from disk after checking the hash (a run folder stays a readable size).
REFERENCE_BYTES_KEPT = 4 * 1024 * 1024


def shipped_name(path: Path, kind: str = "sheets") -> str | None:
    """The name of a shipped file (``default.yaml``) when ``path`` is one, else None."""
    try:
        return path.resolve().relative_to(data_dir(kind).resolve()).as_posix()
    except (ValueError, OSError):
        return None


def _text(data: bytes) -> str:
    text = data.decode("utf-8")
    return text[1:] if text.startswith("\ufeff") else text


def _file(path: Path, given: dict | None, *, content: bool) -> dict:
    """A file as recorded: where it was (as ``given`` recorded it, for a rerun's copy), its
    SHA-256 and (``content``) its text."""
    data = path.read_bytes()
    if given:
        out: dict = {"path": given["path"], "shipped": bool(given.get("shipped"))}
    else:
        shipped = shipped_name(path)
        out = {"path": shipped or str(path.resolve()), "shipped": shipped is not None}
    out["sha256"] = sha256(data)
    if content:
        out["content"] = _text(data)
    return out


def reference_entries(text: str) -> list[str]:
    """The ``reference_file`` values a profile gives, as written (relative to its folder)."""
    import yaml

    try:
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return []
    found = []
    if isinstance(data, dict):
        places = [data] + [ref for ref in (data.get("tools") or {}).values() if isinstance(ref, dict)]
        for place in places:
            value = place.get("reference_file")
            if isinstance(value, str) and value not in found:
                found.append(value)
    return found


def _references(profile, profile_path: Path, text: str) -> list[dict]:
    out, kept = [], 0
    if profile.reference_file is None and not any(
            e.origin.startswith("reference_file") for e in profile.expected.values()):
        return out  # most profiles: no second parse of the YAML (it takes longer than the rest)
    base = profile_path.resolve().parent
    for written in reference_entries(text):
        data = (base / written).read_bytes()
        entry: dict = {"path": written, "sha256": sha256(data), "bytes": len(data)}
        if kept + len(data) <= REFERENCE_BYTES_KEPT:
            kept += len(data)
            try:
                entry["content"] = data.decode("utf-8")
            except UnicodeDecodeError:
                entry["base64"] = base64.b64encode(data).decode("ascii")
        out.append(entry)
    return out


def capture(opts, sheet, profile, *, given_paths: dict | None = None) -> dict:
    """The ``invocation`` record of a run with these options, sheet and profile (as loaded).

    ``given_paths`` holds, for ``profile``, ``sheet`` and ``conditions``, the ``path`` and
    ``shipped`` the repeated run recorded, so that a rerun, which reads its inputs from
    copies, records the same invocation as the run it repeats; ``rerun_of`` is that run's
    folder. A shipped profile (the fixture's) is kept whole all the same: it is small."""
    given_paths = given_paths or {}
    profile_path = Path(profile.path)
    record_profile = {
        "name": profile.name,
        **_file(profile_path, given_paths.get("profile"), content=True),
        "guessed": [str(note) for note in profile.guessed],
    }
    # the references are read from the same bytes the hash and the kept text came from
    record_profile["references"] = _references(profile, profile_path, record_profile["content"])
    sheet_record = {"name": sheet.name, "version": sheet.version}
    sheet_record.update(_file(Path(sheet.path), given_paths.get("sheet"), content=True))
    if sheet_record["shipped"]:
        del sheet_record["content"]  # a shipped sheet is known by its name and hash
    conditions = None
    if opts.conditions is not None:
        conditions = _file(Path(opts.conditions), given_paths.get("conditions"), content=True)
    target: dict = {"server": opts.server, "url": opts.url,
                    "builtin_fixture": not opts.server and not opts.url}
    if opts.server:  # a started server resolves its relative paths here
        target["working_dir"] = str(Path(opts.cwd or os.getcwd()).resolve())
    if opts.server or not opts.url:  # a server was started: what it was given, by name
        from mcp_accept.transport.factory import started_env

        target["environment"] = started_env(opts).record()
    target["headers"] = header_names(opts.headers)
    layers = sorted({check.layer for row in sheet.rows for check in row.checks})
    return {
        "mcp_accept_version": __version__,
        "target": target,
        "profile": record_profile,
        "sheet": sheet_record,
        "conditions_file": conditions,
        "options": {
            "protocol": opts.protocol,
            "fail_on": opts.fail_on,
            "timeout": opts.timeout,
            "run_timeout": opts.run_timeout,
            "max_bytes": opts.max_bytes,
            "max_rounds": opts.max_rounds,
            "sets": list(opts.sets),
            "offline": bool(opts.offline),
            "schema_dir": str(Path(opts.schema_dir).resolve()) if opts.schema_dir else None,
            "lang": opts.lang,
            "sdk": _sdk_on(opts),
        },
        "layers": layers,
        **({"rerun_of": given_paths["rerun_of"]} if given_paths.get("rerun_of") else {}),
    }


def _sdk_on(opts) -> bool:
    """Whether the run had the sdk layer (``--sdk``, or ``MCP_ACCEPT_SDK=on``)."""
    from mcp_accept.running.sdk_replay import switched_off

    return switched_off(opts.sdk) is None


def header_names(items: list[str]) -> list[dict]:
    """``--header`` items by name, and by the variable of an ``env:VAR`` value; never a value."""
    out = []
    for item in items:
        name, _, value = item.partition(":")
        entry = {"name": name.strip()}
        value = value.strip()
        if value.startswith("env:"):
            entry["env"] = value[4:].strip()
        out.append(entry)
    return out
