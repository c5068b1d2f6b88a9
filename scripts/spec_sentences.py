"""List the normative sentences of the MCP specification pages the sheet exercises.

Reads the pages straight from a git mirror of modelcontextprotocol/modelcontextprotocol (no
work tree needed) at the commit the schemas are pinned to, and prints one JSON object a line:
version, page, section anchor, keywords, a short fingerprint of the sentence and, with
``--text``, the sentence itself (for the person mapping it; the project keeps only the
fingerprint and its own paraphrase in ``mcp_accept/checks/coverage.yaml``).

    python scripts/spec_sentences.py --git-dir PATH [--commit SHA] [--text]
    python scripts/spec_sentences.py --git-dir PATH --check   # the index holds every sentence
    python scripts/spec_sentences.py --git-dir PATH --draft   # new sentences as entries to fill in

Section anchors follow the spec site: the heading lowercased, backticks and punctuation
dropped, spaces turned to hyphens, ``&`` and ``/`` kept as ``%26`` and ``%2F``, a leading
underscore dropped (the spec's own links use these anchors). A sentence above the first heading
takes the anchor of the page's title.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

PINNED = "b0f60ba5409db7a6582440a7b473cc0398890f15"
ROOT = "docs/specification"
KEYWORDS = ("MUST NOT", "SHOULD NOT", "MUST", "SHOULD", "REQUIRED")
_KEYWORD = re.compile(r"\b(MUST NOT|SHOULD NOT|MUST|SHOULD|REQUIRED)\b")

PAGES = {
    "2026-07-28": [
        "basic/index.mdx", "basic/versioning.mdx", "basic/transports/index.mdx",
        "basic/transports/stdio.mdx", "basic/transports/streamable-http.mdx",
        "server/tools.mdx", "server/resources.mdx", "server/utilities/pagination.mdx",
        "basic/patterns/progress.mdx", "basic/patterns/cancellation.mdx",
        "server/utilities/logging.mdx", "server/utilities/caching.mdx", "server/discover.mdx",
        "basic/patterns/mrtr.mdx",
    ],
    "2025-11-25": [
        "basic/index.mdx", "basic/lifecycle.mdx", "basic/transports.mdx", "server/tools.mdx",
        "server/resources.mdx", "server/utilities/pagination.mdx",
        "basic/utilities/progress.mdx", "basic/utilities/cancellation.mdx",
        "server/utilities/logging.mdx",
    ],
}
PAGES["2025-06-18"] = list(PAGES["2025-11-25"])


def anchor(heading: str) -> str:
    text = heading.strip().lower().replace("`", "")
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = text.replace("&", "%26").replace("/", "%2F")
    text = re.sub(r"[^\w\s%-]", "", text)
    # the site drops a leading underscore (`_meta` is linked as #meta)
    return re.sub(r"\s+", "-", text.strip()).strip("_-")


def fingerprint(sentence: str) -> str:
    plain = re.sub(r"\s+", " ", re.sub(r"[*_`]", "", sentence)).strip()
    return hashlib.sha256(plain.encode()).hexdigest()[:10]


def _blocks(text: str):
    """(section anchor, paragraph or list item) pairs, code fences and tables left out."""
    title = re.search(r"^title:\s*(.+)$", text, re.M)
    section = anchor(title.group(1).strip("'\"")) if title else ""
    seen: dict[str, int] = {}
    body = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.S)
    fence = False
    current: list[str] = []

    def flush():
        if current:
            yield section, " ".join(current)
            current.clear()

    for line in body.splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            yield from flush()
            fence = not fence
            continue
        if fence:
            continue
        heading = re.match(r"^(#{1,6})\s+(.*)$", stripped)
        if heading:
            yield from flush()
            base = anchor(heading.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            section = base if count == 0 else f"{base}-{count}"
            continue
        if not stripped or stripped.startswith("|") or stripped.startswith("<") and not stripped.startswith("<a"):
            yield from flush()
            continue
        if re.match(r"^([-*+]|\d+\.)\s+", stripped):
            yield from flush()
            stripped = re.sub(r"^([-*+]|\d+\.)\s+", "", stripped)
        current.append(stripped)
    yield from flush()


def sentences(text: str):
    for section, block in _blocks(text):
        block = re.sub(r"\[([^\]]*)\]\[[^\]]*\]", r"\1", block)
        block = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", block)
        for sentence in re.split(r"(?<=[.!?])\s+(?=[A-Z*_`\"(])", block):
            found = _KEYWORD.findall(sentence.replace("*", ""))
            if found:
                keywords = sorted(set(found), key=KEYWORDS.index)
                yield section, keywords, sentence.strip()


def extract(git_dir: str, commit: str):
    for version, pages in PAGES.items():
        for page in pages:
            text = subprocess.run(["git", "--git-dir", git_dir, "show", f"{commit}:{ROOT}/{version}/{page}"],
                                  check=True, capture_output=True, text=True).stdout
            for section, keywords, sentence in sentences(text):
                yield {"version": version, "page": page, "section": section, "keyword": keywords,
                       "sha": fingerprint(sentence), "text": sentence}


def grouped(found: list[dict]) -> list[dict]:
    """One entry per sentence: the same words in the same page and section of several
    versions share it."""
    entries: dict[tuple, dict] = {}
    for s in found:
        key = (s["page"], s["section"], s["sha"])
        if key not in entries:
            stem = s["page"].removesuffix(".mdx")
            entries[key] = {"id": f"{stem}#{s['section']}~{s['sha'][:6]}", "versions": [],
                            "page": s["page"], "section": s["section"], "keyword": s["keyword"],
                            "sha": s["sha"]}
        entries[key]["versions"].append(s["version"])
    return list(entries.values())


def _draft(found: list[dict]) -> int:
    """Print, as YAML, the sentences the index does not hold yet, each to be completed by hand
    with binds, a paraphrase and a check or an out-of-scope reason."""
    import yaml

    index = yaml.safe_load(INDEX.read_text()) if INDEX.exists() else {"entries": []}
    held = {(e["page"], e["section"], e.get("sha")) for e in index["entries"]}
    new = [dict(e, binds="TODO", says="TODO", out_of_scope="TODO") for e in grouped(found)
           if (e["page"], e["section"], e["sha"]) not in held]
    print(yaml.safe_dump(new, sort_keys=False, allow_unicode=True, width=120), end="")
    return 0


INDEX = Path(__file__).resolve().parents[1] / "mcp_accept/checks/coverage.yaml"


def _check(found: list[dict]) -> int:
    import yaml

    index = yaml.safe_load(INDEX.read_text())
    held = {(v, e["page"], e["section"], e.get("sha")) for e in index["entries"] for v in e["versions"]}
    missing = [s for s in found if (s["version"], s["page"], s["section"], s["sha"]) not in held]
    for s in missing:
        print(f"not in the index: {s['version']} {s['page']}#{s['section']} {s['sha']} {s['keyword']}")
    return 1 if missing else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--git-dir", required=True)
    parser.add_argument("--commit", default=PINNED)
    parser.add_argument("--text", action="store_true", help="include each sentence's words")
    parser.add_argument("--check", action="store_true", help="exit 1 when a sentence is missing from the index")
    parser.add_argument("--draft", action="store_true", help="print the sentences the index lacks, as entries")
    args = parser.parse_args()
    found = list(extract(args.git_dir, args.commit))
    if args.check:
        return _check(found)
    if args.draft:
        return _draft(found)
    for s in found:
        if not args.text:
            s = {k: v for k, v in s.items() if k != "text"}
        print(json.dumps(s, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
