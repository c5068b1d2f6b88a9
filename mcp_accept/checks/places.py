"""Which places of the specification exist in which version, from the coverage index that
ships beside the checks (``coverage.yaml``), so that a verdict never cites a page or section
its version does not have."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from mcp_accept.checks.base import spec, spec_for
from mcp_accept.protocol import VERSIONS

INDEX = Path(__file__).with_name("coverage.yaml")


@lru_cache(maxsize=1)
def held() -> frozenset[tuple[str, str, str]]:
    """(version, page, section) for every place the index holds. Read line by line rather than
    by a YAML parser: a run needs three fields of a file it ships, and parsing all of it would
    cost a tenth of a second (tests/test_coverage.py holds the two readings to agree)."""
    out = set()
    versions: list[str] = []
    page = None
    for line in INDEX.read_text(encoding="utf-8").splitlines():
        if line.startswith("- id: "):
            versions, page = [], None
        elif line.startswith("  versions: ["):
            versions = [v.strip(" '\"") for v in line.split("[", 1)[1].rstrip("]").split(",")]
        elif line.startswith("  page: "):
            page = line.split(": ", 1)[1].strip()
        elif line.startswith("  section: ") and page:
            section = line.split(": ", 1)[1].strip().strip("'\"")
            out.update((v, page, section) for v in versions)
    return frozenset(out)


def cite(version: str | None, page: str, section: str) -> str:
    """:func:`spec_for`, unless the version lacks that place: then the same section on the
    page where the version keeps it (2026-07-28 moved basic/utilities/ to basic/patterns/), else
    the place in the newest version that has it (a rule the version on the wire does not know,
    such as a legacy version's verdict on server/discover, cites where the rule is written)."""
    wanted = spec_for(version, page, section)
    places = held()
    version = wanted.split("/")[2]
    for candidate in (page, page.replace("basic/utilities/", "basic/patterns/"),
                      page.replace("basic/patterns/", "basic/utilities/")):
        if (version, candidate, section) in places:
            return spec(candidate, section, version)
    for other in VERSIONS:
        if (other, page, section) in places:
            return spec(page, section, other)
    return wanted
