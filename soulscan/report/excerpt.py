"""The offending line of a finding, made safe to print, split around the matched span.

A reporter shows ``before``, ``match`` and ``after`` on one line and a caret run under
``match``. Each piece is redacted and escaped on its own, so the caret still lines up
after escapes have widened the text; a secret that only shows up when the pieces are
read together hides the whole line behind one redaction instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from soulscan.report.escape import ELLIPSIS, escape_text, shorten

BEFORE_LIMIT = 40
MATCH_LIMIT = 80
AFTER_LIMIT = 40


@dataclass(frozen=True)
class Excerpt:
    before: str
    match: str
    after: str


def excerpt(line: str, start: int, end: int, redact: Callable[[str], str]) -> Excerpt:
    """Pieces of ``line`` around ``line[start:end]`` (0-based; ``end`` clipped to the line)."""
    end = min(max(end, start), len(line))
    before, match, after = line[:start], line[start:end], line[end:]
    redacted = redact(before), redact(match), redact(after)
    if redact("".join(redacted)) != "".join(redacted):
        # A secret straddles the pieces: show the redacted line, caret at its start.
        return Excerpt("", shorten(escape_text(redact(line)), MATCH_LIMIT), "")
    return Excerpt(
        _shorten_left(escape_text(redacted[0]), BEFORE_LIMIT),
        shorten(escape_text(redacted[1]), MATCH_LIMIT),
        shorten(escape_text(redacted[2]), AFTER_LIMIT),
    )


def _shorten_left(escaped: str, limit: int) -> str:
    """Keep the last ``limit`` characters, never starting inside an escape sequence."""
    if len(escaped) <= limit:
        return escaped
    cut = len(escaped) - limit
    opener = max(escaped.rfind("\\u{", 0, cut + 2), escaped.rfind("\\x{", 0, cut + 2))
    if opener != -1 and opener < cut and escaped.find("}", opener) >= cut:
        cut = escaped.find("}", opener) + 1
    elif escaped[cut - 1 : cut] == "\\" and escaped[cut : cut + 1] in ("t", "n", "r"):
        cut += 1
    return ELLIPSIS + escaped[cut:]
