"""Unicode issues of a text: runs of suspect characters, look-alike letters, stacked marks.

Everything that renders as nothing and is not part of a legitimate emoji (`unicode_suspects`)
is reported once per run, and the two known smuggling encodings are decoded:

* Unicode tag characters U+E0020..U+E007E spell ASCII ("ASCII smuggling");
* variation selectors carry one byte each (U+FE00..FE0F = 0..15, U+E0100..E01EF = 16..255).

A run of only two alternating invisible characters (e.g. U+2062/U+2064) is read as bits.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass

import regex

from soulscan.hardened.confusables_data import TO_ASCII
from soulscan.hardened.text_characters import TextCharacters
from soulscan.hardened.unicode_kinds import (
    BIDI_MARK,
    HOMOGLYPH,
    INVISIBLE,
    STACKED_MARKS,
    TAG_SMUGGLING,
    VARIATION_PAYLOAD,
    WORD_SPLIT,
)
from soulscan.hardened.unicode_suspects import SUSPECT_RANGES, suspect_characters


@dataclass(frozen=True)
class UnicodeIssue:
    """A stretch of suspicious characters: its kind, span and what it hides."""
    kind: str
    start: int
    end: int
    decoded: str | None
    detail: str


_LETTER = regex.compile(r"[\p{L}\p{N}]")
# "Zalgo" text: ASCII characters buried under three or more combining marks each.
_WORD = regex.compile(r"[\p{L}\p{M}]{2,64}")
_LATIN = regex.compile(r"\p{Latin}")
_FOREIGN_LOOKALIKE = frozenset(cp for cp in TO_ASCII if not _LATIN.match(chr(cp)))
# One C-speed scan tells whether a text holds any foreign look-alike at all (`re` scans a
# set of characters several times faster than `regex`).
_ANY_FOREIGN_LOOKALIKE = re.compile(
    "[" + "".join(re.escape(chr(cp)) for cp in sorted(_FOREIGN_LOOKALIKE)) + "]"
)
_NOT_LETTER_OR_MARK = regex.compile(r"[^\p{L}\p{M}]")
_NOT_LETTER_OR_MARK_BACKWARDS = regex.compile(r"(?r)[^\p{L}\p{M}]")
_STACKED = regex.compile(r"(?:[\x21-\x7e\p{Latin}][\p{Mn}\p{Me}]{3,32}[ ]?){2,65536}")
# What every stacked run holds: a cheap scan spares the stacked pattern on ordinary text.
_MARK = regex.compile(r"[\p{Mn}\p{Me}]")
_THREE_MARKS = regex.compile(r"[\p{Mn}\p{Me}]{3}")
# ... and three marks in a row are three non-ASCII characters in a row, which `re` finds
# faster still: `_THREE_MARKS` is searched from there on.
_THREE_NON_ASCII = re.compile(r"[^\x00-\x7f][^\x00-\x7f][^\x00-\x7f]")


def _selector_byte(char: str) -> int:
    code = ord(char)
    return code - 0xFE00 if code <= 0xFE0F else code - 0xE0100 + 16


def _decode_tags(run: str) -> str:
    return "".join(chr(ord(c) - 0xE0000) for c in run if 0xE0020 <= ord(c) <= 0xE007E)


def _readability(text: str) -> int:
    if any(not ch.isprintable() for ch in text):
        return -1
    return sum(ch.isascii() and (ch.isalnum() or ch == " ") for ch in text)


def _decode_selectors(run: str) -> str:
    """Two byte layouts are in use: 0-15 on U+FE00.. and 16-255 on U+E0100.., or all on U+E0100.."""
    split = bytes(_selector_byte(c) for c in run).decode("utf-8", errors="replace")
    if all(ord(c) >= 0xE0100 for c in run):
        direct = "".join(chr(ord(c) - 0xE0100) for c in run)
        if _readability(direct) > _readability(split):
            return direct
    return split


def _decode_bits(run: str) -> str | None:
    """Two alternating invisibles read as 7- or 8-bit characters, trying both polarities."""
    symbols = sorted(set(run))
    if len(symbols) != 2 or len(run) < 14:
        return None
    best: str | None = None
    for width in (7, 8):
        if len(run) % width:
            continue
        for one in symbols:
            bits = "".join("1" if c == one else "0" for c in run)
            text = "".join(chr(int(bits[i : i + width], 2)) for i in range(0, len(bits), width))
            if _readability(text) > (_readability(best) if best is not None else 0):
                best = text
    return best


def _issue_for_run(text: str, kind: str, start: int, end: int) -> UnicodeIssue:
    run = text[start:end]
    names = ", ".join(sorted({f"U+{ord(c):04X}" for c in run})[:6])
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    inside_word = bool(_LETTER.match(before) and _LETTER.match(after))
    if kind == TAG_SMUGGLING:
        decoded = _decode_tags(run)
        return UnicodeIssue(
            kind, start, end, decoded or None, f"{len(run)} tag characters ({names})"
        )
    if kind == VARIATION_PAYLOAD:
        if len(run) >= 2:
            return UnicodeIssue(
                kind, start, end, _decode_selectors(run), f"{len(run)} variation selectors"
            )
        return UnicodeIssue(
            WORD_SPLIT if inside_word else INVISIBLE, start, end, None, f"stray {names}"
        )
    # Inside a word: any invisible, or a bidi mark between Latin letters (not in RTL text).
    if inside_word and (kind == INVISIBLE or (kind == BIDI_MARK and before.isascii())):
        return UnicodeIssue(WORD_SPLIT, start, end, None, f"{names} inside a word")
    if kind == INVISIBLE:
        return UnicodeIssue(kind, start, end, _decode_bits(run), f"{len(run)} invisible ({names})")
    return UnicodeIssue(kind, start, end, None, f"{len(run)} x {names}")


def _words_with_lookalikes(text: str) -> Iterator[regex.Match[str]]:
    """The `_WORD` matches of `text` that may hold a look-alike, as a scan of the whole text
    finds them: words are cut from each maximal run of letters and marks alone, so only the
    runs holding a look-alike (every look-alike is a letter) need cutting. Each run is found
    from one of its look-alikes and scanned once, so the work stays linear."""
    lookalike = _ANY_FOREIGN_LOOKALIKE.search(text)
    while lookalike is not None:
        before = _NOT_LETTER_OR_MARK_BACKWARDS.search(text, 0, lookalike.start())
        after = _NOT_LETTER_OR_MARK.search(text, lookalike.end())
        start = before.end() if before else 0
        end = after.start() if after else len(text)
        yield from _WORD.finditer(text, start, end)
        lookalike = _ANY_FOREIGN_LOOKALIKE.search(text, end)


def _homoglyph_words(text: str) -> list[UnicodeIssue]:
    """Words that mix Latin letters with look-alike letters of another script (`іgnore`)."""
    issues: list[UnicodeIssue] = []
    if text.isascii() or not _ANY_FOREIGN_LOOKALIKE.search(text):
        return issues  # no word can mix in a look-alike letter
    for match in _words_with_lookalikes(text):
        word = match.group()
        if word.isascii() or not _LATIN.search(word):
            continue
        lookalikes = [ch for ch in word if ord(ch) in _FOREIGN_LOOKALIKE]
        if lookalikes:
            folded = "".join(TO_ASCII.get(ord(ch), ch) for ch in word)
            names = ", ".join(sorted({f"U+{ord(ch):04X}" for ch in lookalikes}))
            issues.append(
                UnicodeIssue(HOMOGLYPH, match.start(), match.end(), folded, f"look-alike {names}")
            )
    return issues


# Past this many characters, a text that repeats its space-separated chunks is searched for
# three marks one distinct chunk at a time (a mark is never a space: three lie in one chunk).
_LONG_TEXT = 65_536
_REPEATS_PER_CHUNK = 4


def _has_three_marks(text: str) -> bool:
    if text.isascii():
        return False  # a mark is never ASCII
    three = _THREE_NON_ASCII.search(text)
    if three is None:
        return False
    if len(text) - three.start() > _LONG_TEXT:
        pieces = text.split(" ")
        distinct = set(pieces)
        if len(distinct) * _REPEATS_PER_CHUNK <= len(pieces):
            return any(_THREE_MARKS.search(piece) for piece in distinct)
    return _THREE_MARKS.search(text, three.start()) is not None


@functools.cache
def _issue_character() -> re.Pattern[str]:
    """A character every issue needs one of: a suspect, a foreign look-alike, a combining
    mark (of a stacked run), or any character above U+FFFF (`re` looks a set of the Basic
    Multilingual Plane up in one table, a set with astral members range by range). Built at
    the first non-ASCII text, from `regex`'s own tables (~10 ms)."""
    plane = "".join(map(chr, itertools.chain(range(0xD800), range(0xE000, 0x10000))))
    codes = {ord(mark) for mark in _MARK.findall(plane)}
    codes.update(code for code in _FOREIGN_LOOKALIKE if code < 0x10000)
    codes.update(code for first, last in SUSPECT_RANGES for code in range(first, last + 1))
    ranges: list[list[int]] = []
    for code in sorted(code for code in codes if code < 0x10000):
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1][1] = code
        else:
            ranges.append([code, code])
    members = "".join(f"\\U{first:08x}-\\U{last:08x}" for first, last in ranges)
    return re.compile(f"[{members}\\U00010000-\\U0010ffff]")


def _may_hold_an_issue(text: str, characters: TextCharacters | None) -> bool:
    """False only when `text` holds no `_issue_character`. Where its characters are known,
    the search reads its non-ASCII ones alone (a few, in most texts), and the text's ASCII
    ones are ruled out by what is known of them: every ASCII character of the set is an
    ASCII invisible (tests/test_unicode_prefilter.py)."""
    if characters is None:
        return _issue_character().search(text) is not None
    if _issue_character().search(characters.rare) is not None:
        return True
    return characters.ascii_invisible


def analyse_unicode(text: str, characters: TextCharacters | None = None) -> list[UnicodeIssue]:
    """One issue per run of adjacent suspect characters of the same class, in text order.
    `characters`: those of the text, when they are known (the views worked them out)."""
    if not text.isascii() and not _may_hold_an_issue(text, characters):
        return []  # one scan instead of one for each kind of issue
    issues: list[UnicodeIssue] = []
    suspects = suspect_characters(text)
    index = 0
    while index < len(suspects):
        start, kind = suspects[index]
        end = start + 1
        index += 1
        while index < len(suspects) and suspects[index][0] == end and suspects[index][1] == kind:
            end += 1
            index += 1
        issues.append(_issue_for_run(text, kind, start, end))
    issues.extend(_homoglyph_words(text))
    for match in _STACKED.finditer(text) if _has_three_marks(text) else ():
        plain = _MARK.sub("", match.group())
        issues.append(
            UnicodeIssue(
                STACKED_MARKS, match.start(), match.end(), plain, "stacked combining marks"
            )
        )
    return sorted(issues, key=lambda issue: issue.start)
