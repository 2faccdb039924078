"""Where a text quotes rather than says: fenced code blocks, inline code and short quotations.

Documentation that explains prompt injection quotes the trigger phrases; the injection rules
(SS1xx) report a phrase found entirely inside such a region as SS100 (low severity, "quoted
as an example") instead of as an instruction. A phrase that only starts or ends inside a
quote, like `` `ignore` previous instructions ``, is not quoted, and neither is a bare
"quoted string" (a tool argument or JSON value is read as an instruction all the same).
"""

from __future__ import annotations

import bisect

import regex

_QUOTED = regex.compile(
    r"(?ms)^[ \t]{0,3}(```|~~~)[^\n]{0,200}\n.{0,200000}?^[ \t]{0,3}\1[ \t]*$"  # fenced block
    r"|(?<!`)`[^`\n]{1,400}`(?!`)"  # inline code
    # a quotation introduced as an example ("phrases like ...", "e.g. ..."); a bare quoted
    # string may be a tool argument or a JSON value the model acts on, so it is not enough
    r"|(?i:\b(?:like|such as|e\.g\.|for example|for instance|phrases?|strings?|patterns?|says?|"
    r"reject|rejects|detect|detects|block|blocks|flag|flags|example|examples|attacks?|payloads?)\b"
    r"[ \t:,]{0,4}(?:[a-z]{1,12}[ \t]){0,3}?)(?:\"[^\"\n]{1,300}\"|\u201c[^\u201d\n]{1,300}\u201d)"
)


_CODE = regex.compile(
    r"(?ms)^[ \t]{0,3}(```|~~~)[^\n]{0,200}\n.{0,200000}?^[ \t]{0,3}\1[ \t]*$|(?<!`)`[^`\n]{1,400}`(?!`)"
)


class QuotedRegions:
    """Quoted regions of a text; with `code_only`, just fenced blocks and inline code."""

    def __init__(self, text: str, *, code_only: bool = False) -> None:
        spans = [m.span() for m in (_CODE if code_only else _QUOTED).finditer(text)]
        self._starts = [a for a, _ in spans]
        self._ends = [b for _, b in spans]

    def contains(self, start: int, end: int) -> bool:
        """Is [start, end) wholly inside one quoted region?"""
        index = bisect.bisect_right(self._starts, start) - 1
        return index >= 0 and end <= self._ends[index]
