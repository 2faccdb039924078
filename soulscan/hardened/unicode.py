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
from itertools import accumulate, compress

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
# `_SUSPECT` as code point ranges for `re`, which scans for them several times faster than
# `regex` scans for the properties (tests/test_unicode_prefilter.py: the same characters).
_SUSPECT_RANGES = (
    (0x0000, 0x0008), (0x000B, 0x000B), (0x000E, 0x001F), (0x007F, 0x009F), (0x00AD, 0x00AD),
    (0x034F, 0x034F), (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD), (0x070F, 0x070F),
    (0x0890, 0x0891), (0x08E2, 0x08E2), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F),
    (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x2800, 0x2800), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFFB), (0x110BD, 0x110BD),
    (0x110CD, 0x110CD), (0x13430, 0x1343F), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)  # fmt: skip
_SUSPECT_CHARS = re.compile(
    "[" + "".join(f"\\U{first:08x}-\\U{last:08x}" for first, last in _SUSPECT_RANGES) + "]"
)
_BMP_SUSPECT_CHARS = re.compile(
    "["
    + "".join(f"\\U{first:08x}-\\U{last:08x}" for first, last in _SUSPECT_RANGES if last < 0x10000)
    + "]"
)
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
            and not _SUSPECT_CHARS.match(before)
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


# A cluster with the character either side of it ("" at the ends of the text).
ClusterKey = tuple[str, str, str]
Judged = dict[ClusterKey, list[tuple[int, str]]]


def _judge(key: ClusterKey, suspect: re.Pattern[str]) -> list[tuple[int, str]]:
    """(offset, class) of the suspects of a cluster that are not legit.

    Whether a suspect is legit depends only on its cluster, the characters either side
    and whether the cluster opens the text (`_legit_in_emoji` reads no further), so a
    cluster is judged in the text made of those alone, and once for all its repeats."""
    before, cluster, _ = key
    around = "".join(key)
    return [
        (offset, _classify(char))
        for offset, char in enumerate(cluster)
        if suspect.match(char) and not _legit_in_emoji(around, len(before) + offset, cluster)
    ]


# A text with more than one suspect every this many characters (in its first
# `_DENSITY_SAMPLE` characters from the first suspect) is judged cluster by cluster.
_DENSE = 16
_DENSITY_SAMPLE = 4096
_ASTRAL = re.compile(r"[\U00010000-\U0010ffff]")


def _suspect_pattern(text: str) -> re.Pattern[str]:
    """`_SUSPECT_CHARS`, or its part below U+10000 for a text with no character above (a
    class of the Basic Multilingual Plane alone is one table lookup a character in `re`)."""
    return _SUSPECT_CHARS if _ASTRAL.search(text) else _BMP_SUSPECT_CHARS


def _suspects(text: str) -> list[tuple[int, str]]:
    """(index, class) for each character that renders as nothing and is not a legit emoji part."""
    if text.isascii():
        # Every ASCII cluster is one character (or CR LF, never suspect), and no ASCII
        # character is part of an emoji: each suspect stands alone.
        return [(m.start(), _classify(m.group())) for m in _ASCII_SUSPECT.finditer(text)]
    pattern = _suspect_pattern(text)
    suspect = pattern.search(text)
    if suspect is None:
        return []
    sample = pattern.findall(text, suspect.start(), suspect.start() + _DENSITY_SAMPLE)
    if len(sample) * _DENSE > min(_DENSITY_SAMPLE, len(text) - suspect.start()):
        return _suspects_in_every_cluster(text, pattern)
    # Only the clusters holding a suspect are looked at, found from the suspects (the walk
    # just advances past the others).
    found: list[tuple[int, str]] = []
    judged: Judged = {}
    clusters = _GRAPHEME.finditer(text)
    cluster: regex.Match[str] | None = None
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
        key = (text[start - 1 : start], cluster.group(), text[end : end + 1])
        if key not in judged:
            judged[key] = _judge(key, pattern)
        found.extend((start + offset, kind) for offset, kind in judged[key])
        suspect = pattern.search(text, end)  # the next suspect past this cluster
    return found


def _suspects_in_every_cluster(text: str, pattern: re.Pattern[str]) -> list[tuple[int, str]]:
    """`_suspects` for a text dense with suspects (emoji): one `findall` splits it into
    clusters and C-level passes pick the clusters to look at, where a walk from suspect to
    suspect takes Python steps per cluster.

    A suspect inside its cluster (neither first nor last) is judged by the cluster alone:
    `_legit_in_emoji` reads the characters either side, here both in the cluster. Only the
    clusters with a suspect at an edge are judged with their neighbours."""
    clusters = _GRAPHEME.findall(text)
    suspicious = [cluster for cluster in set(clusters) if pattern.search(cluster)]
    at_edge = {c for c in suspicious if pattern.match(c) or pattern.match(c, len(c) - 1)}
    judged: Judged = {
        ("", cluster, ""): _judge(("", cluster, ""), pattern)
        for cluster in suspicious
        if cluster not in at_edge
    }
    looked_at = at_edge | {cluster for (_, cluster, _), kinds in judged.items() if kinds}
    if not looked_at:
        return []
    last = len(clusters) - 1
    reported: list[tuple[int, list[tuple[int, str]]]] = []
    for index in compress(range(len(clusters)), map(looked_at.__contains__, clusters)):
        cluster = clusters[index]
        if cluster in at_edge:
            before = clusters[index - 1][-1] if index else ""
            key = (before, cluster, clusters[index + 1][0] if index < last else "")
            if key not in judged:
                judged[key] = _judge(key, pattern)
        else:
            key = ("", cluster, "")
        if judged[key]:
            reported.append((index, judged[key]))
    if not reported:
        return []
    starts = list(accumulate(map(len, clusters), initial=0))
    return [(starts[index] + offset, kind) for index, kinds in reported for offset, kind in kinds]


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


def _has_three_marks(text: str) -> bool:
    if text.isascii():
        return False  # a mark is never ASCII
    three = _THREE_NON_ASCII.search(text)
    return three is not None and _THREE_MARKS.search(text, three.start()) is not None


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
    for match in _STACKED.finditer(text) if _has_three_marks(text) else ():
        plain = _MARK.sub("", match.group())
        issues.append(
            UnicodeIssue(
                STACKED_MARKS, match.start(), match.end(), plain, "stacked combining marks"
            )
        )
    return sorted(issues, key=lambda issue: issue.start)
