"""Grapheme-aware analysis of invisible, tag, variation-selector, bidi and control characters.

The text is walked one extended grapheme cluster at a time, so the characters that make up a
legitimate emoji (ZWJ sequences, VS16, keycaps, skin tones, tag-sequence subdivision flags) are
recognised as such and never reported. Everything else that renders as nothing is reported once
per run, and the two known smuggling encodings are decoded:

* Unicode tag characters U+E0020..U+E007E spell ASCII ("ASCII smuggling");
* variation selectors carry one byte each (U+FE00..FE0F = 0..15, U+E0100..E01EF = 16..255).

A run of only two alternating invisible characters (e.g. U+2062/U+2064) is read as bits.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import regex

from soulscan.hardened.confusables_data import TO_ASCII
from soulscan.hardened.emoji_data import RGI_TAG_SEQUENCES

# Finding classes; each maps to one rule of rules/hardened/unicode.yaml.
TAG_SMUGGLING = "tag-smuggling"
VARIATION_PAYLOAD = "variation-selector-payload"
BIDI_CONTROL = "bidi-control"
BIDI_MARK = "bidi-mark"
INVISIBLE = "invisible-character"
WORD_SPLIT = "invisible-splits-word"
CONTROL = "control-character"
ANSI = "ansi-escape"
STACKED_MARKS = "stacked-combining-marks"
HOMOGLYPH = "mixed-script-homoglyph"
SOFT_HYPHEN = "soft-hyphen"


@dataclass(frozen=True)
class UnicodeIssue:
    kind: str
    start: int
    end: int
    decoded: str | None
    detail: str


_GRAPHEME = regex.compile(r"\X")
_SUSPECT = regex.compile(
    r"[\p{Default_Ignorable_Code_Point}\p{Cf}\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\u2800\U000E0000-\U000E007F]"
)
# The ASCII members of `_SUSPECT` (no Default_Ignorable or Cf character is ASCII), for `re`.
_ASCII_SUSPECT = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")
_EMOJI = regex.compile(
    r"[\p{Extended_Pictographic}\p{Emoji}\p{Emoji_Modifier}\p{Regional_Indicator}]"
)
_PICTOGRAPHIC = regex.compile(
    r"[\p{Extended_Pictographic}\p{Emoji_Presentation}\p{Regional_Indicator}]"
)
# Scripts whose orthography uses ZWJ/ZWNJ between letters (Arabic, Persian, Indic, Sinhala, ...).
_JOINING_SCRIPT = regex.compile(
    r"[\p{L}\p{M}--[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Common}]]",
    regex.V1,
)
_LETTER = regex.compile(r"[\p{L}\p{N}]")
_BIDI_EMBEDDING = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_BIDI_MARKS = frozenset("\u200e\u200f\u061c")
_VARIATION = regex.compile(r"[\uFE00-\uFE0F\U000E0100-\U000E01EF]")
_CONTROL = regex.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_TAG = regex.compile(r"[\U000E0000-\U000E007F]")
# "Zalgo" text: ASCII characters buried under three or more combining marks each.
_WORD = regex.compile(r"[\p{L}\p{M}]{2,64}")
_LATIN = regex.compile(r"\p{Latin}")
_FOREIGN_LOOKALIKE = frozenset(cp for cp in TO_ASCII if not regex.match(r"\p{Latin}", chr(cp)))
# One C-speed scan tells whether a text holds any foreign look-alike at all.
_ANY_FOREIGN_LOOKALIKE = regex.compile(
    "[" + "".join(regex.escape(chr(cp)) for cp in sorted(_FOREIGN_LOOKALIKE)) + "]"
)
_NOT_LETTER_OR_MARK = regex.compile(r"[^\p{L}\p{M}]")
_NOT_LETTER_OR_MARK_BACKWARDS = regex.compile(r"(?r)[^\p{L}\p{M}]")
_STACKED = regex.compile(r"(?:[\x21-\x7e\p{Latin}][\p{Mn}\p{Me}]{3,32}[ ]?){2,65536}")
# What every stacked run holds: a cheap scan spares the stacked pattern on ordinary text.
_THREE_MARKS = regex.compile(r"[\p{Mn}\p{Me}]{3}")
_MOJIBAKE_NEIGHBOUR = regex.compile(
    r"[\u00a0-\u00ff\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192\u02c6\u02dc\u2013-\u2026\u2030\u2039\u203a\u20ac\u2122]"
)


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


def _legit_in_emoji(text: str, index: int, cluster: str) -> bool:
    """Is the character at `index` part of a legitimate emoji or script-shaping sequence?"""
    char = text[index]
    before = text[index - 1] if index > 0 else ""
    after = text[index + 1] if index + 1 < len(text) else ""
    if char in "\ufe0e\ufe0f":
        return bool(before) and bool(_EMOJI.match(before)) and not _VARIATION.match(after or "a")
    if char == "\u200d":
        if _PICTOGRAPHIC.match(after or "a") and bool(_EMOJI.match(cluster[0])):
            return True
        return bool(
            before and after and _JOINING_SCRIPT.match(before) and _JOINING_SCRIPT.match(after)
        )
    if char == "\u200c":
        return bool(
            before and after and _JOINING_SCRIPT.match(before) and _JOINING_SCRIPT.match(after)
        )
    if _TAG.match(char):
        return cluster in RGI_TAG_SEQUENCES
    if 0xFE00 <= ord(char) <= 0xFE0D or 0xE0100 <= ord(char) <= 0xE01EF:
        # Standardised variants of CJK ideographs and mathematical symbols: one selector only.
        return (
            bool(before)
            and not before.isascii()
            and not _SUSPECT.match(before)
            and not _VARIATION.match(before)
            and not _VARIATION.match(after or "a")
        )
    if char == "\ufeff":
        return index == 0
    if "\x80" <= char <= "\x9f":
        # Mojibake (UTF-8 read as cp1252/Latin-1) leaves C1 controls between Latin-1 letters.
        return bool(
            _MOJIBAKE_NEIGHBOUR.match(before or "a") or _MOJIBAKE_NEIGHBOUR.match(after or "a")
        )
    return False


def _classify(char: str) -> str:
    if char == "\u00ad":
        return SOFT_HYPHEN  # a hyphenation hint: common in text pasted from the web
    if char in _BIDI_EMBEDDING:
        return BIDI_CONTROL
    if char in _BIDI_MARKS:
        return BIDI_MARK
    if _TAG.match(char):
        return TAG_SMUGGLING
    if _VARIATION.match(char):
        return VARIATION_PAYLOAD
    if char in "\x1b\x9b":
        return ANSI
    if _CONTROL.match(char):
        return CONTROL
    return INVISIBLE


_MAX_WALK = 64  # clusters further apart than this are not walked one by one


def _boundary_before(text: str, index: int, floor: int) -> int:
    """A grapheme cluster boundary in (floor, index], or `floor`.

    Two ASCII characters other than CR LF always have a boundary between them: no ASCII
    character extends, joins, prepends or is a regional indicator or pictograph (UAX #29).
    """
    position = index
    while position > floor and position > index - _MAX_WALK:
        before, at = text[position - 1], text[position]
        if before.isascii() and at.isascii() and not (before == "\r" and at == "\n"):
            return position
        position -= 1
    return floor


def _suspects(text: str) -> list[tuple[int, str]]:
    """(index, class) for each character that renders as nothing and is not a legit emoji part."""
    found: list[tuple[int, str]] = []
    if text.isascii():
        # Every ASCII cluster is one character (or CR LF, never suspect), and no ASCII
        # character is part of an emoji: each suspect stands alone.
        return [(m.start(), _classify(m.group())) for m in _ASCII_SUSPECT.finditer(text)]
    # Only the clusters holding a suspect are looked at, found from the suspects (the walk
    # just advances past the others). Whether a suspect is legit depends on its cluster and
    # the characters either side of it, so repeated clusters (emoji) are judged once.
    judged: dict[tuple[str, str, str, bool], list[tuple[int, str]]] = {}
    clusters = _GRAPHEME.finditer(text)
    cluster: regex.Match[str] | None = None
    suspect = _SUSPECT.search(text)
    while suspect is not None:
        index = suspect.start()
        walked_to = cluster.end() if cluster is not None else 0
        if index - walked_to > _MAX_WALK:
            # Far ahead: restart the walk at a cluster boundary just before the suspect.
            restart = _boundary_before(text, index, walked_to)
            if restart > walked_to:
                clusters, cluster = _GRAPHEME.finditer(text, restart), None
        while cluster is None or cluster.end() <= index:
            cluster = next(clusters)
        start, end = cluster.span()
        key = (text[start - 1 : start], cluster.group(), text[end : end + 1], start == 0)
        if key not in judged:
            judged[key] = [
                (offset, _classify(char))
                for offset, char in enumerate(key[1])
                if _SUSPECT.match(char) and not _legit_in_emoji(text, start + offset, key[1])
            ]
        found.extend((start + offset, kind) for offset, kind in judged[key])
        suspect = _SUSPECT.search(text, end)  # the next suspect past this cluster
    return found


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


def analyse_unicode(text: str) -> list[UnicodeIssue]:
    """One issue per run of adjacent suspect characters of the same class, in text order."""
    issues: list[UnicodeIssue] = []
    suspects = _suspects(text)
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
    for match in _STACKED.finditer(text) if _THREE_MARKS.search(text) else ():
        plain = "".join(ch for ch in match.group() if not regex.match(r"[\p{Mn}\p{Me}]", ch))
        issues.append(
            UnicodeIssue(
                STACKED_MARKS, match.start(), match.end(), plain, "stacked combining marks"
            )
        )
    return sorted(issues, key=lambda issue: issue.start)
