"""The cross-host table of ``mcp-accept host matrix``, in Markdown and HTML, English and Japanese:
one row per host and version, one column per form and fact. Every cell is made inert (server and
host text never becomes markup)."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from mcp_accept.output.words import Words
from mcp_accept.untrusted import markdown_cell, plain_line

COLUMNS = Words("matrix", {
    "host": "Host", "version": "Version", "client": "clientInfo", "protocol": "Protocol", "tool_names": "Tool names",
    "text": "Text", "structured_seen": "Structured: model saw", "embedded": "Embedded",
    "link": "resource_link", "image": "Image", "blob": "Blob (PDF)", "large": "Large results",
    "cost": "Tokens (turns)", "rows": "H01 / H02 / H03", "offline": "Network",
})
TITLE = Words("matrix", "What each host hands its model")
NOTE = Words("matrix", "Measured by `mcp-accept host test` with the stand-in model, offline; server: {server}; "
                       "transport: {transport}; measured at {at}.")
MISSING = Words("matrix", "not measured")
INTERRUPTED = Words("matrix", "Interrupted by {signal}: the host it stopped and those it left unrun say so.")


def is_host_test(folder: Path) -> bool:
    return (Path(folder) / "host-run.json").is_file()


def _read(folder: Path, name: str):
    try:
        return json.loads((folder / name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def row_of(host: str | None, folder: Path | None, error: str | None = None, product: str | None = None,
           kind: str | None = None) -> dict:
    """One line of the table, from a host-test folder (or why there is none). ``kind``: "host" (a
    program) or "framework" (a library run by a driver), as host-run.json says where it was run."""
    results = (_read(folder, "results.json") or {}) if folder else {}
    facts = (_read(folder, "host-run.json") or {}) if folder else {}
    row = {"host": host or facts.get("host"), "folder": str(folder) if folder else None,
           "product": product or facts.get("product") or (results.get("conditions") or {}).get("host_product"),
           "kind": kind or facts.get("kind")}
    if error is not None:
        row["error"] = error
        return row
    statuses = {r["id"]: r["status"] for r in results.get("rows") or []}
    h01 = ((_read(folder, "rows/H01.json") or {}).get("observed") or {}).get("forms") or {}
    h02 = (_read(folder, "rows/H02.json") or {}).get("observed") or {}
    h03 = (_read(folder, "rows/H03.json") or {}).get("observed") or {}
    extra = facts.get("extra_forms") or {}
    sizes = h03.get("sizes") or []
    handling = sorted({s.get("handling") for s in sizes if s.get("handling") and s.get("handling") != "whole"})
    row.update({
        "version": facts.get("version"),
        "protocol": facts.get("protocol_version"),
        "client": (facts.get("client_info") or {}).get("name"),
        "client_version": (facts.get("client_info") or {}).get("version"),
        "refused_versions": refused_versions(facts.get("protocol_attempts") or []),
        "tool_names": facts.get("tool_name_scheme"),
        "api": facts.get("api"),
        "text": (h01.get("text") or {}).get("reached"),
        "structured": (h01.get("structured") or {}).get("reached"),
        "structured_seen": ", ".join((h01.get("structured") or {}).get("model_saw") or []) or None,
        "embedded": (h01.get("embedded") or {}).get("reached"),
        "link_handed": h02.get("body_in_link_result"),
        "link_read_by_host": h02.get("host_read_by_itself"),
        "link_read_tool": h02.get("read_tool_offered"),
        "link_body_via_tool": h02.get("body_via_read_tool"),
        "image": _extra(extra.get("image"), "png"),
        "blob": _extra(extra.get("blob"), "pdf"),
        "cost": {form: found["cost"] for form, found in (("text", h01.get("text")), ("structured", h01.get("structured")),
                                                         ("embedded", h01.get("embedded")), ("link", h02))
                 if isinstance(found, dict) and isinstance(found.get("cost"), dict)},
        "large_bracket": h03.get("threshold_bracket_bytes"),
        "large_search": h03.get("threshold_search"),
        "model_declared": facts.get("model_declared"),
        "large_handling": handling or (["whole"] if sizes else []),
        "H01": statuses.get("H01"), "H02": statuses.get("H02"), "H03": statuses.get("H03"),
        "guard": facts.get("network_guard"),
        "other_connects": sorted(((facts.get("connects") or {}).get("other") or {})),
        "seconds": facts.get("host_seconds"),
    })
    return row


def refused_versions(attempts: list[dict]) -> list[str]:
    """The versions the host asked for (``server/discover`` or ``initialize``) that the server
    refused with an error, and that the session did not go on to speak."""
    spoken = {a.get("version") for a in attempts if a.get("outcome") == "result" and a.get("method") == "initialize"}
    out = []
    for attempt in attempts:
        version = attempt.get("version")
        if isinstance(version, str) and attempt.get("outcome", "").startswith("error") and version not in spoken \
                and version not in out:
            out.append(version)
    return out


def _extra(found: dict | None, kind: str) -> str | None:
    if not found or found.get("handed") is None:
        return None
    # the routes host test recorded: a media part, or base64 characters the model reads as text
    # (files written before it recorded them say "bytes handed" as they did)
    if found.get(f"{kind}_data_handed"):
        return "bytes handed" if _as_part(found.get(f"{kind}_routes")) else AS_TEXT
    if found.get(f"{kind}_data_in_request"):
        return "bytes attached beside the result" if _as_part(found.get(f"{kind}_beside_routes")) else AS_TEXT
    return "text only" if found.get("token") == "whole" else "not handed"


AS_TEXT = "bytes as text (base64 in JSON)"


def _as_part(routes: list | None) -> bool:
    return routes is None or any(r.get("as") == "media part" for r in routes)


# Every fixed word a cell may hold, translated by the catalog; what a host or server wrote (a tool
# name, a version, a clientInfo) is carried over as it is, and a value not listed here stays English.
VALUES = Words("matrix value", (
    "whole", "cut", "cut in the middle", "absent", "neither", "text twin", "structuredContent", "unknown",
    "bytes handed", "bytes attached beside the result", AS_TEXT, "text only", "not handed", "saved to a file",
    "saved to a file with a preview", "saved to a file with a head-and-tail preview",
    "replaced by an error, saved to a file", "replaced", "replaced by an error", "never handed to the model",
    "yes", "no", "none", "not called", "loopback only", "not installed",
))
PHRASES = Words("matrix", {
    "body in result": "body in result: {0}", "host read": "host read it: {0}", "read tool": "read tool: {0}",
    "via tool": "body through it: {0}", "between": " (threshold between {0} and {1} bytes)",
    "found": " (whole up to {0} bytes, not at {1}: found in {2} extra calls)",
    "model": ", {0} model",
    "at or below": " (at or below {0} bytes)", "also tried": "also tried: {0}", "seconds": "; {0} s",
    "refused": "{0}; refused {1}", "client": "{0} {1}", "framework": "; framework"
})


def value(text, lang: str) -> str:
    """One fixed value of a cell in LANG (one of :data:`VALUES` translated, any other as it is)."""
    return VALUES.word("" if text is None else str(text), lang)


def cells(row: dict, lang: str) -> dict[str, str]:
    phrase = PHRASES.get(lang, PHRASES["en"])
    mark = phrase["framework"] if row.get("kind") == "framework" else ""
    host = f"{row['product']} ({row['host']}{mark})" + (phrase["model"].format(row["model_kind"]) if row.get("model_kind") else "")
    if row.get("error"):
        return {"host": host, "version": value(row["error"], lang)}
    link = [phrase["body in result"].format(value(row.get("link_handed") or "unknown", lang)),
            phrase["host read"].format(value("yes" if row.get("link_read_by_host") else "no", lang)),
            phrase["read tool"].format(row.get("link_read_tool") or value("none", lang))]
    if row.get("link_read_tool"):  # a tool offered and never used leaves nothing to say "through it"
        link.append(phrase["via tool"].format(value(row.get("link_body_via_tool") or "not called", lang)))
    bracket = row.get("large_bracket")
    large = ", ".join(value(h, lang) for h in row.get("large_handling") or []) or "-"
    search = row.get("large_search") or {}
    if search.get("found"):
        large += phrase["found"].format(search["whole_up_to_bytes"], search["not_whole_from_bytes"],
                                        search["extra_calls"])
    elif bracket:
        large += phrase["between"].format(*bracket) if bracket[0] else phrase["at or below"].format(bracket[1])
    other = row.get("other_connects") or []
    protocol = row.get("protocol") or ""
    if row.get("refused_versions"):
        protocol = phrase["refused"].format(protocol or "-", ", ".join(row["refused_versions"]))
    saw = ", ".join(value(s, lang) for s in (row.get("structured_seen") or "").split(", ") if s) or "-"
    return {
        "host": host, "version": row.get("version") or "",
        "client": phrase["client"].format(row.get("client") or "-", row.get("client_version") or "").strip(),
        "protocol": protocol, "tool_names": row.get("tool_names") or "",
        "text": value(row.get("text"), lang),
        "structured_seen": f"{saw} ({value(row.get('structured'), lang)})",
        "embedded": value(row.get("embedded"), lang), "link": "; ".join(link),
        "image": value(row.get("image"), lang) or "-", "blob": value(row.get("blob"), lang) or "-", "large": large,
        "cost": cost_cell(row.get("cost") or {}, lang),
        "rows": " / ".join(str(row.get(k) or "-") for k in ("H01", "H02", "H03")),
        "offline": (value("loopback only", lang) if not other else phrase["also tried"].format(", ".join(other)))
                   + (phrase["seconds"].format(row.get("seconds")) if row.get("seconds") is not None else ""),
    }


FORM_LABEL = Words("matrix", {"text": "text", "structured": "structured", "embedded": "embedded", "link": "link"})


def cost_cell(costs: dict, lang: str) -> str:
    """Each form's tokens (characters where tokens were not counted) and, when the body took
    more than one model turn or never arrived, the turns."""
    parts = []
    for form in ("text", "structured", "embedded", "link"):
        found = costs.get(form)
        if not found:
            continue
        amount = str(found["tokens"]) if found.get("tokens") is not None else f"{found.get('characters')} ch"
        turns = found.get("turns")
        if turns is None:
            amount += " (" + value("absent", lang) + ")"
        elif turns > 1:
            amount += f" ({turns})"
        parts.append(f"{FORM_LABEL.get(lang, FORM_LABEL['en'])[form]} {amount}")
    return ", ".join(parts) or "-"


def by_host(rows: list[dict], measure) -> dict[str, Any]:
    """``measure(row)`` for each host, under the host's name; a host measured with several stand-in
    models (``--models text,vision``) is named once where they agree, and once per model, as
    ``host (kind)``, where they differ."""
    grouped: dict[str, list[dict]] = {}
    for row in rows:
        grouped.setdefault(row.get("host") or "?", []).append(row)
    found: dict[str, Any] = {}
    for host, runs in grouped.items():
        values = [measure(row) for row in runs]
        if all(v == values[0] for v in values):
            found[host] = values[0]
        else:
            found.update({f"{host} ({row.get('model_kind') or '?'})": v for row, v in zip(runs, values)})
    return found


def _link_route(row: dict) -> str:
    if row.get("link_handed") == "whole":
        return "inline"
    return "read_tool" if row.get("link_body_via_tool") == "whole" else "never"


def _link_cost(row: dict) -> dict | None:
    cost = row.get("cost") or {}
    link, embedded = cost.get("link") or {}, cost.get("embedded") or {}
    if link.get("turns") and embedded.get("turns") and link.get("tokens") is not None \
            and embedded.get("tokens") is not None:
        return {"link": link["tokens"], "link_turns": link["turns"], "embedded": embedded["tokens"]}
    return None


def advice(matrix: dict) -> list[dict]:
    """What the measured rows say to a server author, per form: data (an id and its parameters),
    derived from the cells alone, each host counted once (see :func:`by_host`);
    :func:`advice_lines` words it."""
    rows = [r for r in matrix.get("rows") or [] if not r.get("error")]
    if not rows:
        return []
    found: list[dict] = []
    hosts = lambda subset: len({r.get("host") for r in subset})  # noqa: E731 - a host of two models counts once
    for form in ("text", "embedded"):
        subset = [r for r in rows if r.get(form) not in (None, "unobtainable", "nothing to look for")]
        measured = by_host(subset, lambda r: r[form])
        if measured:
            found.append({"id": "form.whole", "form": form, "whole": [h for h, v in measured.items() if v == "whole"],
                          "not": {h: v for h, v in measured.items() if v != "whole"}, "m": hosts(subset)})
    seen = by_host([r for r in rows if r.get("structured_seen")],
                   lambda r: frozenset(r["structured_seen"].split(", ")) - {""})
    if seen:
        found.append({"id": "structured.seen", "both": sorted(h for h, s in seen.items() if {"structuredContent", "text twin"} <= s),
                      "twin_only": sorted(h for h, s in seen.items() if s == {"text twin"}),
                      "structured_only": sorted(h for h, s in seen.items() if s == {"structuredContent"}),
                      "neither": sorted(h for h, s in seen.items() if s in ({"neither"}, set()))})
    subset = [r for r in rows if r.get("link_handed") is not None]
    links = by_host(subset, _link_route)
    if links:
        found.append({"id": "link.reached", "inline": [h for h, v in links.items() if v == "inline"],
                      "read_tool": [h for h, v in links.items() if v == "read_tool"],
                      "never": sorted(h for h, v in links.items() if v == "never"), "m": hosts(subset)})
    subset = [r for r in rows if r.get("image")]
    images = by_host(subset, lambda r: r["image"])
    if images:
        part = ("bytes handed", "bytes attached beside the result")
        found.append({"id": "image.bytes", "part": [h for h, v in images.items() if v in part],
                      "as_text": [h for h, v in images.items() if v == AS_TEXT],
                      "not": [h for h, v in images.items() if v not in part and v != AS_TEXT], "m": hosts(subset)})
    costs = {h: c for h, c in by_host(rows, _link_cost).items() if c is not None}
    if costs:
        found.append({"id": "link.cost", "hosts": costs})
    return found


ADVICE_TEXT = Words("matrix", {
    "form.whole": "{form}: handed whole by {n} of {m} hosts{others}.",
    "structured.twin_only": "structuredContent: {n} hosts show their model only the text twin ({hosts}): "
    "keep the twin equal to structuredContent.",
    "structured.structured_only": "{n} hosts show only structuredContent ({hosts}): a text twin alone does not "
    "reach their model.",
    "link.reached": "resource_link: the body reached the model on {n} of {m} hosts (in the result: {inline}; "
    "through the host's read tool: {tool}){never}.",
    "link.never": "; never on {hosts}: hand the body inline too where the model needs it",
    "link.cost": "Does a resource_link save tokens? Against the same body embedded: {hosts}.",
    "link.cost.host": "{host} {link} tokens in {turns} turns against {embedded} in one",
    "image.bytes": "image: its bytes reached the model as an image on {n} of {m} hosts ({part}){as_text}{never}.",
    "image.as_text": "; as base64 text inside JSON on {hosts}: that model reads characters, not a picture, and "
    "pays for them in tokens",
    "image.never": "; not at all on {hosts}: say what the image shows in a text item too",
    "others": "; not by {hosts}", "none": "none"
})


def advice_lines(items: list[dict], lang: str = "en") -> list[str]:
    words = ADVICE_TEXT.get(lang, ADVICE_TEXT["en"])
    listed = lambda hosts: ", ".join(hosts) or words["none"]  # noqa: E731
    lines = []
    for item in items:
        if item["id"] == "form.whole":
            m = item.get("m", len(item["whole"]) + len(item["not"]))
            others = words["others"].format(hosts=", ".join(f"{h} ({value(v, lang)})" for h, v in item["not"].items())) \
                if item["not"] else ""
            lines.append(words["form.whole"].format(form=item["form"], n=len(item["whole"]), m=m, others=others))
        elif item["id"] == "structured.seen":
            for key in ("twin_only", "structured_only"):
                if item[key]:
                    lines.append(words[f"structured.{key}"].format(n=len(item[key]), hosts=listed(item[key])))
        elif item["id"] == "link.reached":
            n = len(item["inline"]) + len(item["read_tool"])
            never = words["link.never"].format(hosts=listed(item["never"])) if item["never"] else ""
            lines.append(words["link.reached"].format(n=n, m=item.get("m", n + len(item["never"])), inline=listed(item["inline"]),
                                                      tool=listed(item["read_tool"]), never=never))
        elif item["id"] == "image.bytes":
            n = len(item["part"])
            as_text = words["image.as_text"].format(hosts=listed(item["as_text"])) if item["as_text"] else ""
            never = words["image.never"].format(hosts=listed(item["not"])) if item["not"] else ""
            lines.append(words["image.bytes"].format(n=n, m=item.get("m", n + len(item["as_text"]) + len(item["not"])),
                                                     part=listed(item["part"]), as_text=as_text, never=never))
        elif item["id"] == "link.cost":
            hosts = "; ".join(words["link.cost.host"].format(host=h, link=c["link"], turns=c["link_turns"],
                                                             embedded=c["embedded"]) for h, c in item["hosts"].items())
            lines.append(words["link.cost"].format(hosts=hosts))
    return lines


ADVICE_TITLE = Words("matrix", "What the table says to a server author")
def _interrupted(matrix: dict, lang: str) -> str:
    """What the note adds for a matrix a stop signal cut short."""
    stopped_by = matrix.get("interrupted")
    return (" " if lang == "en" else "") + INTERRUPTED[lang].format(signal=stopped_by) if stopped_by else ""


def render_markdown(matrix: dict, lang: str = "en") -> str:
    columns = COLUMNS[lang]
    lines = [f"# {TITLE[lang]}", "",
             NOTE[lang].format(server=markdown_cell(matrix.get("server")), transport=matrix.get("transport"),
                               at=matrix.get("measured_at")) + _interrupted(matrix, lang), "",
             "| " + " | ".join(columns.values()) + " |",
             "| " + " | ".join("---" for _ in columns) + " |"]
    for row in matrix["rows"]:
        found = cells(row, lang)
        lines.append("| " + " | ".join(markdown_cell(found.get(key, MISSING[lang] if row.get("error") else ""))
                                       for key in columns) + " |")
    said = advice_lines(advice(matrix), lang)
    if said:
        lines += ["", f"## {ADVICE_TITLE[lang]}", "", *(f"- {markdown_cell(line)}" for line in said)]
    return "\n".join(lines) + "\n"


def render_html(matrix: dict, lang: str = "en") -> str:
    columns = COLUMNS[lang]
    body = []
    for row in matrix["rows"]:
        found = cells(row, lang)
        body.append([found.get(key, "") for key in columns])
    note = NOTE[lang].format(server=matrix.get("server"), transport=matrix.get("transport"),
                             at=matrix.get("measured_at")) + _interrupted(matrix, lang)
    said = advice_lines(advice(matrix), lang)
    return html_page(TITLE[lang], note, list(columns.values()), body, lang,
                     [(ADVICE_TITLE[lang], said)] if said else [])


def html_page(title: str, note: str, head: list[str], body: list[list[str]], lang: str = "en",
              sections: list[tuple[str, list[str]]] = (), marked: list[bool] | None = None) -> str:
    """A page of one table (``host matrix``, ``host history``): every cell, title and line made
    inert; each of ``sections`` a heading and a list of lines after the table; a row whose
    ``marked`` is true is shown bold."""
    def cell(text: str, tag: str = "td") -> str:
        return f"<{tag}>{html.escape(plain_line(text))}</{tag}>"

    opened = ['<tr class="changed">' if marked and marked[i] else "<tr>" for i in range(len(body))]
    rows = "".join(opened[i] + "".join(cell(c) for c in row) + "</tr>" for i, row in enumerate(body))
    after = "".join(f"<h2>{html.escape(heading)}</h2><ul>"
                    + "".join(f"<li>{html.escape(plain_line(line))}</li>" for line in lines) + "</ul>"
                    for heading, lines in sections)
    return (f"<!doctype html><html lang=\"{lang}\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}"
            "</title><style>body{font-family:sans-serif;max-width:1280px;margin:1em auto}"
            ".wrap{overflow-x:auto}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px;"
            "vertical-align:top;font-size:13px}tr.changed td{font-weight:bold}</style></head><body>"
            f"<h1>{html.escape(title)}</h1><p>{html.escape(plain_line(note))}</p>"
            f"<div class=\"wrap\"><table><thead><tr>{''.join(cell(h, 'th') for h in head)}</tr></thead>"
            f"<tbody>{rows}</tbody></table></div>{after}</body></html>\n")
