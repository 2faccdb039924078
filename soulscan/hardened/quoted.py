"""Where a text quotes rather than says: fenced code blocks, inline code and short quotations.

Documentation that explains prompt injection quotes the trigger phrases; the injection rules
(SS1xx) report a phrase found entirely inside such a region as SS100 (low severity, "quoted
as an example") instead of as an instruction. A phrase that only starts or ends inside a
quote, like `` `ignore` previous instructions ``, is not quoted, and neither is a bare
"quoted string" (a tool argument or JSON value is read as an instruction all the same).
"""

from __future__ import annotations

import bisect
import re

import regex

from soulscan.engine.anchors import fold, folds_to_ascii
from soulscan.engine.text_memos import text_memo

_CODE_SOURCE = (
    r"(?ms)^[ \t]{0,3}(```|~~~)[^\n]{0,200}\n.{0,200000}?^[ \t]{0,3}\1[ \t]*$"  # fenced block
    r"|(?<!`)`[^`\n]{1,400}`(?!`)"  # inline code
)
# A quotation introduced as an example ("phrases like ...", "e.g. ..."); a bare quoted string
# may be a tool argument or a JSON value the model acts on, so it is not enough.
_QUOTATION_SOURCE = (
    r"(?i:\b(?:like|such as|e\.g\.|for example|for instance|phrases?|strings?|patterns?|says?|"
    r"reject|rejects|detect|detects|block|blocks|flag|flags|example|examples|attacks?|payloads?)\b"
    r"[ \t:,]{0,4}(?:[a-z]{1,12}[ \t]){0,3}?)(?:\"[^\"\n]{1,300}\"|\u201c[^\u201d\n]{1,300}\u201d)"
)
# The regions are the matches of QUOTED; CODE and QUOTATION are its two halves, each searched
# alone where the text holds nothing the other needs (a fence or backtick, a quotation mark).
QUOTED = regex.compile(_CODE_SOURCE + "|" + _QUOTATION_SOURCE)
_CODE = regex.compile(_CODE_SOURCE)
_QUOTATION = regex.compile(_QUOTATION_SOURCE)


_OPENING_QUOTE = regex.compile('["\u201c]')
# How far a quotation starts before its opening quote: the longest introducing word ("for
# instance", 12), 4 separators and 3 words of up to 12 letters and a space (each pattern
# character matches one text character: no full case folding); and how far it ends after it.
_INTRODUCTION = 12 + 4 + 3 * 13
_QUOTED_STRING = 1 + 300 + 1
# Quotes rarer than one in this many characters are searched around one by one.
_SPARSE_QUOTES = 400


class _Quotations:
    """`_QUOTATION.search(text, position)`; where quotes are sparse, tried only in the window
    before and after each opening quote (every match holds one), not at every character."""

    def __init__(self, text: str) -> None:
        self.text = text
        quotes = text.count('"') + text.count("\u201c")
        self.windowed = quotes * _SPARSE_QUOTES < len(text)

    def search(self, position: int) -> regex.Match[str] | None:
        if not self.windowed:
            return _QUOTATION.search(self.text, position)
        while (opening := _OPENING_QUOTE.search(self.text, position)) is not None:
            quote = opening.start()
            # A match starting in [start, quote] opens at this quote (an introduction holds
            # none), so it ends by `end`; none starts before `start` (it would open earlier).
            start = max(position, quote - _INTRODUCTION)
            end = quote + _QUOTED_STRING
            match = _QUOTATION.search(self.text, start, end)
            if match is not None and match.start() <= quote:
                return match
            position = quote + 1
        return None

    def spans(self) -> list[tuple[int, int]]:
        spans, position = [], 0
        while (match := self.search(position)) is not None:
            spans.append(match.span())
            position = match.end()
        return spans


def _may_hold_code(text: str) -> bool:
    return "`" in text or "~~~" in text


# What every quotation holds, read backwards from its opening quote on the text case-folded
# one byte a character (a non-ASCII character, such as the opening \u201c, is "?"): up to
# three words, up to four separators and an introducing word, maybe with an "s" (any case
# variant `regex` matches of a letter `fold` turns into it: tests/test_hardened_quoted.py).
# Reversed, `re` jumps from one quote to the next, where the pattern would try every word.
_INTRODUCING_WORDS = (
    "like", "such as", "e.g.", "for instance", "phrase", "string", "pattern", "say", "reject",
    "detect", "block", "flag", "example", "attack", "payload",
)  # fmt: skip
_QUOTATION_BACKWARDS = re.compile(
    rb'["?](?:[ \t][a-z]{1,12}){0,3}[ \t:,]{0,4}s?(?:'
    + b"|".join(re.escape(word[::-1]).encode() for word in _INTRODUCING_WORDS)
    + rb")"
)


def _may_hold_quotation(text: str) -> bool:
    if '"' not in text and "\u201c" not in text:
        return False
    folded = fold(text) if folds_to_ascii(text) else text
    backwards = folded.encode("ascii", "replace").lower()[::-1]
    return _QUOTATION_BACKWARDS.search(backwards) is not None


# Where a code match can start: at a backtick (inline code), or at most three spaces or tabs
# before the backtick or tilde that opens a fence; on `re`, which jumps from one to the next.
_CODE_HINT = re.compile("[`~]")
_MOST_BEFORE_A_FENCE = 3
# Backticks and tildes rarer than one in this many characters are tried from one by one.
_SPARSE_HINTS = 64


@text_memo(maxsize=2)
def _code_spans(text: str) -> tuple[tuple[int, int], ...]:
    """The matches of CODE (asked twice a text: the quoted and the code-only regions). A text
    with few backticks and tildes is tried only where a match can start: from each one, at
    the places up to a fence's indent before it, in order (none earlier holds one within
    reach), as `finditer` would find them."""
    if (text.count("`") + text.count("~")) * _SPARSE_HINTS > len(text):
        return tuple(match.span() for match in _CODE.finditer(text))
    spans: list[tuple[int, int]] = []
    position = 0
    while (hint := _CODE_HINT.search(text, position)) is not None:
        at = hint.start()
        for start in range(max(position, at - _MOST_BEFORE_A_FENCE), at + 1):
            match = _CODE.match(text, start)
            if match is not None:
                spans.append(match.span())
                position = match.end()
                break
        else:
            position = at + 1
    return tuple(spans)


def _code_or_quotation_spans(text: str) -> list[tuple[int, int]]:
    """The matches of QUOTED from the two halves' own searches: at each step the leftmost
    match, code first where both start (QUOTED tries the code alternatives first)."""
    spans = []
    quotations = _Quotations(text)
    code, quotation = _CODE.search(text), quotations.search(0)
    while code or quotation:
        first_code = code is not None and (quotation is None or code.start() <= quotation.start())
        chosen = code if first_code else quotation
        assert chosen is not None
        spans.append(chosen.span())
        position = chosen.end()
        if code and code.start() < position:
            code = _CODE.search(text, position)
        if quotation and quotation.start() < position:
            quotation = quotations.search(position)
    return spans


def quoted_spans(text: str, *, code_only: bool = False) -> list[tuple[int, int]]:
    """Spans of the quoted regions (the matches of QUOTED, or of its code half alone)."""
    code = _may_hold_code(text)
    if code_only or not _may_hold_quotation(text):
        return list(_code_spans(text)) if code else []
    return _code_or_quotation_spans(text) if code else _Quotations(text).spans()


class QuotedRegions:
    """Quoted regions of a text; with `code_only`, just fenced blocks and inline code."""

    def __init__(self, text: str, *, code_only: bool = False) -> None:
        spans = quoted_spans(text, code_only=code_only)
        self._starts = [a for a, _ in spans]
        self._ends = [b for _, b in spans]

    def contains(self, start: int, end: int) -> bool:
        """Is [start, end) wholly inside one quoted region?"""
        index = bisect.bisect_right(self._starts, start) - 1
        return index >= 0 and end <= self._ends[index]
