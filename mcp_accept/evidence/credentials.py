"""What counts as a credential, so that none is ever recorded.

Condition values, notes and evidence text pass through :func:`looks_like_credential`;
one that looks like a bearer token, a JWT, an API key, a password assignment, a private
key, a user:password URL or a long random token is refused without being repeated.
(Secrets the user hands over on purpose, such as ``--header`` values, are masked by
:class:`mcp_accept.evidence.files.Redactor` instead.)
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from mcp_accept.errors import InputError


def _basic_header(match: re.Match) -> bool:
    token = match.group(1)
    try:
        decoded = base64.b64decode(token + "=" * (-len(token) % 4), validate=True)
        return ":" in decoded.decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return False


def _bearer(match: re.Match) -> bool:
    token = match.group(1)
    return len(token) >= 20 or bool(re.search(r"[0-9._~+/=]", token))


_PLACEHOLDER = re.compile(
    r"(?i)^(?:|none|null|nil|n/?a|redacted|\[redacted\]|\(none\)|<[^>]*>|\*+|x+|\.\.\.|-|"
    r"empty|unset|omitted|hidden|false|no)$")


def _assignment(match: re.Match) -> bool:
    value = match.group(2).strip("'\"`,;()[]{}")
    if _PLACEHOLDER.match(value):
        return False
    if "token" in match.group(1).lower() and value.isdigit():
        return False  # a count such as "token: 4096", not a secret
    return True


def _ANY(match: re.Match) -> bool:
    return True

_API_KEY = (
    r"sk-[A-Za-z0-9_-]{16,}|(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}|gh[pousr]_[A-Za-z0-9]{20,}"
    r"|github_pat_[A-Za-z0-9_]{20,}|xox[abposre]-[A-Za-z0-9-]{10,}|(?:AKIA|ASIA)[0-9A-Z]{16}"
    r"|AIza[0-9A-Za-z_-]{35}|glpat-[A-Za-z0-9_-]{20,}|npm_[A-Za-z0-9]{30,}|hf_[A-Za-z0-9]{30,}"
)

_SECRET_WORDS = {
    "password assignment": r"password|passwd|passphrase|pwd",
    "API key assignment": r"(?:x-)?api[_-]?key|apikey|access[_-]?key|secret[_-]?key",
    "token assignment": r"(?:access|auth|refresh|id|session|bearer)[_-]?token|token",
    "secret assignment": r"client[_-]?secret|secret|private[_-]?key|authorization|cookie"
                         r"|session[_-]?id",
}

_CREDENTIAL_PATTERNS: tuple[tuple[str, re.Pattern, Any], ...] = (
    ("private key", re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----"), _ANY),
    ("basic auth in URL",
     re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#@:]+:[^\s/?#@]+@"), _ANY),
    ("bearer token", re.compile(r"(?i)\bbearer\s+([A-Za-z0-9._~+/-]{8,}=*)"), _bearer),
    ("basic auth header", re.compile(r"\bBasic\s+([A-Za-z0-9+/]{6,}={0,2})"), _basic_header),
    ("JWT",
     re.compile(r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*"),
     _ANY),
    ("API key", re.compile(rf"(?<![A-Za-z0-9])(?:{_API_KEY})"), _ANY),
) + tuple(
    (label, re.compile(rf"(?i)(?<![A-Za-z0-9_-])({words})\s*[:=]\s*(\S*)"), _assignment)
    for label, words in _SECRET_WORDS.items()
)


def _char_class(ch: str) -> int:
    return 0 if ch.isdigit() else 1 if ch.islower() else 2


def _random_looking(token: str) -> bool:
    """A long run of letters and digits that changes class often, as random keys do;
    hex-only strings (commit ids, SHA-256 sums, UUIDs) do not count."""
    core = token.replace("-", "").replace("_", "")
    if len(core) < 24 or re.fullmatch(r"[0-9A-Fa-f]+", core):
        return False
    if not (re.search(r"[0-9]", core) and re.search(r"[A-Za-z]", core)):
        return False
    changes = sum(_char_class(a) != _char_class(b) for a, b in zip(core, core[1:]))
    return changes / (len(core) - 1) >= 0.25


def looks_like_credential(value: str) -> str | None:
    """What ``value`` looks like if it holds a credential ("bearer token", "JWT",
    "API key", "password assignment", "private key", "basic auth in URL",
    "high-entropy token", ...), else None."""
    if not isinstance(value, str):
        return None
    for label, pattern, confirm in _CREDENTIAL_PATTERNS:
        if any(confirm(m) for m in pattern.finditer(value)):
            return label
    if any(_random_looking(m.group()) for m in re.finditer(r"[A-Za-z0-9_-]{32,}", value)):
        return "high-entropy token"
    return None


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def check_condition_value(key: str, value: Any, *, source: str | None = None, line: int | None = None) -> None:
    """Refuse a condition value that looks like a credential, without repeating it."""
    kind = looks_like_credential(value) if isinstance(value, str) else None
    if kind:
        raise InputError(f"the value looks like {_article(kind)} {kind}; credentials are never "
                         f"recorded (give tenant and role only)", file=source, line=line,
                         field=key)
