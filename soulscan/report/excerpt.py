"""The offending line of a finding, made safe to print, split around the matched span.

A reporter shows ``before``, ``match`` and ``after`` on one line and a caret run under
``match``. Each piece is redacted and escaped on its own, so the caret still lines up
after escapes have widened the text; a secret that only shows up when the pieces are
read together hides the whole line behind one redaction instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from soulscan.report.escape import (
    EscapedText,
    escape_bounded,
    escape_bounded_left,
    shorten,
    shorten_left,
)

BEFORE_LIMIT = 40
MATCH_LIMIT = 80
AFTER_LIMIT = 40
# Longer than any secret format the redactor knows but a PEM private key.
REDACTION_MARGIN = 4096


@dataclass(frozen=True)
class Excerpt:
    before: str
    match: str
    after: str


def excerpt(line: str, start: int, end: int, redact: Callable[[str], str] | None) -> Excerpt:
    """Pieces of ``line`` around ``line[start:end]`` (0-based; ``end`` clipped to the line).

    ``redact`` None says the line holds no secret: only what is shown is then escaped.
    """
    end = min(max(end, start), len(line))
    if redact is None:
        return Excerpt(
            escape_bounded_left(line[max(0, start - BEFORE_LIMIT - 1) : start], BEFORE_LIMIT),
            escape_bounded(line[start : min(end, start + MATCH_LIMIT + 1)], MATCH_LIMIT),
            escape_bounded(line[end : end + AFTER_LIMIT + 1], AFTER_LIMIT),
        )
    # Only a bounded neighbourhood is ever shown; the margin lets redaction see a whole
    # secret that straddles the edge of what is shown.
    before = line[max(0, start - BEFORE_LIMIT - REDACTION_MARGIN) : start]
    match = line[start : min(end, start + MATCH_LIMIT + REDACTION_MARGIN)]
    after = line[end : end + AFTER_LIMIT + REDACTION_MARGIN]
    redacted = redact(before), redact(match), redact(after)
    if redact("".join(redacted)) != "".join(redacted):
        # A secret straddles the pieces: show the redacted text, caret at its start.
        return Excerpt("", escape_bounded(redact(before + match + after), MATCH_LIMIT), "")
    return Excerpt(
        escape_bounded_left(redacted[0], BEFORE_LIMIT),
        escape_bounded(redacted[1], MATCH_LIMIT),
        escape_bounded(redacted[2], AFTER_LIMIT),
    )


def escaped_excerpt(line: EscapedText, start: int, end: int) -> Excerpt:
    """``excerpt(text, start, end, None)`` of a line without secrets, already escaped."""
    end = min(max(end, start), line.length)
    return Excerpt(
        shorten_left(line.escaped_slice(max(0, start - BEFORE_LIMIT - 1), start), BEFORE_LIMIT),
        shorten(line.escaped_slice(start, min(end, start + MATCH_LIMIT + 1)), MATCH_LIMIT),
        shorten(line.escaped_slice(end, end + AFTER_LIMIT + 1), AFTER_LIMIT),
    )
