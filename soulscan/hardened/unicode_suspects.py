"""Which invisible, tag, variation-selector, bidi and control characters are suspect.

The text is walked one extended grapheme cluster at a time, so the characters that make up a
legitimate emoji (ZWJ sequences, VS16, keycaps, skin tones, tag-sequence subdivision flags) are
recognised as such and never reported. Only the clusters holding a suspect are judged, each
once for all its repeats; text dense with suspects (emoji) is judged in C-level passes, and
where it repeats itself, once for each distinct space-separated chunk; where it does not, at
the few suspects that `legit_emoji`'s passes leave unproven.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from itertools import accumulate, compress, islice

import regex

from soulscan.hardened.emoji_data import RGI_TAG_SEQUENCES
from soulscan.hardened.legit_emoji import EMOJI as _EMOJI
from soulscan.hardened.legit_emoji import PICTOGRAPHIC as _PICTOGRAPHIC
from soulscan.hardened.legit_emoji import PREPEND_RANGES as _PREPEND_RANGES
from soulscan.hardened.legit_emoji import opens_a_cluster, without_legit_emoji_parts
from soulscan.hardened.unicode_kinds import (
    ANSI,
    BIDI_CONTROL,
    BIDI_MARK,
    CONTROL,
    INVISIBLE,
    SOFT_HYPHEN,
    TAG_SMUGGLING,
    VARIATION_PAYLOAD,
)

_GRAPHEME = regex.compile(r"\X")
_SUSPECT = regex.compile(
    r"[\p{Default_Ignorable_Code_Point}\p{Cf}\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\u2800\U000E0000-\U000E007F]"
)
# The ASCII members of `_SUSPECT` (no Default_Ignorable or Cf character is ASCII), for `re`.
_ASCII_SUSPECT = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")
# `_SUSPECT` as code point ranges for `re`, which scans for them several times faster than
# `regex` scans for the properties (tests/test_unicode_prefilter.py: the same characters).
SUSPECT_RANGES = (
    (0x0000, 0x0008), (0x000B, 0x000B), (0x000E, 0x001F), (0x007F, 0x009F), (0x00AD, 0x00AD),
    (0x034F, 0x034F), (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD), (0x070F, 0x070F),
    (0x0890, 0x0891), (0x08E2, 0x08E2), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F),
    (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x2800, 0x2800), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFFB), (0x110BD, 0x110BD),
    (0x110CD, 0x110CD), (0x13430, 0x1343F), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)  # fmt: skip
_SUSPECT_CHARS = re.compile(
    "[" + "".join(f"\\U{first:08x}-\\U{last:08x}" for first, last in SUSPECT_RANGES) + "]"
)
_BMP_SUSPECT_CHARS = re.compile(
    "["
    + "".join(f"\\U{first:08x}-\\U{last:08x}" for first, last in SUSPECT_RANGES if last < 0x10000)
    + "]"
)
# Scripts whose orthography uses ZWJ/ZWNJ between letters (Arabic, Persian, Indic, Sinhala, ...).
_JOINING_SCRIPT = regex.compile(
    r"[\p{L}\p{M}--[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Common}]]",
    regex.V1,
)
_BIDI_EMBEDDING = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_BIDI_MARKS = frozenset("\u200e\u200f\u061c")
_VARIATION = regex.compile(r"[\uFE00-\uFE0F\U000E0100-\U000E01EF]")
_CONTROL = regex.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_TAG = regex.compile(r"[\U000E0000-\U000E007F]")
_MOJIBAKE_NEIGHBOUR = regex.compile(
    r"[\u00a0-\u00ff\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192\u02c6\u02dc\u2013-\u2026\u2030\u2039\u203a\u20ac\u2122]"
)


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
    character extends, joins, prepends or is a regional indicator or pictograph (UAX #29);
    in emoji, a pictograph opens a cluster after most characters (`opens_a_cluster`).
    """
    position = index
    while position > floor and position > index - _MAX_WALK:
        before, at = text[position - 1], text[position]
        if before.isascii() and at.isascii():
            if not (before == "\r" and at == "\n"):
                return position
        elif opens_a_cluster(before, at):
            return position
        position -= 1
    return floor


# A cluster with the character either side of it ("" at the ends of the text).
ClusterKey = tuple[str, str, str]
Judged = dict[ClusterKey, tuple[tuple[int, str], ...]]


@functools.lru_cache(maxsize=4096)
def _judge(key: ClusterKey, suspect: re.Pattern[str]) -> tuple[tuple[int, str], ...]:
    """(offset, class) of the suspects of a cluster that are not legit.

    Whether a suspect is legit depends only on its cluster, the characters either side
    and whether the cluster opens the text (`_legit_in_emoji` reads no further), so a
    cluster is judged in the text made of those alone, and once for all its repeats (in
    every text: the same emoji and invisibles recur from one text to the next)."""
    before, cluster, _ = key
    around = "".join(key)
    return tuple(
        (offset, _classify(char))
        for offset, char in enumerate(cluster)
        if suspect.match(char) and not _legit_in_emoji(around, len(before) + offset, cluster)
    )


# A text with more than one suspect every this many characters (in its first
# `_DENSITY_SAMPLE` characters from the first suspect) is judged cluster by cluster.
_DENSE = 16
_DENSITY_SAMPLE = 4096
_ASTRAL = re.compile(r"[\U00010000-\U0010ffff]")


def _suspect_pattern(text: str) -> re.Pattern[str]:
    """`_SUSPECT_CHARS`, or its part below U+10000 for a text with no character above (a
    class of the Basic Multilingual Plane alone is one table lookup a character in `re`)."""
    return _SUSPECT_CHARS if _ASTRAL.search(text) else _BMP_SUSPECT_CHARS


def suspect_characters(text: str) -> list[tuple[int, str]]:
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
        return _suspects_in_dense_text(text, pattern)
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


# The characters of Grapheme_Cluster_Break=Prepend (`_PREPEND_RANGES`), which alone keep a
# space in the cluster before it.
_PREPEND = re.compile(
    "[" + "".join(f"\\U{first:08x}-\\U{last:08x}" for first, last in _PREPEND_RANGES) + "]"
)
# Chunks are judged one by one when at most one in this many is new.
_REPEATS_PER_CHUNK = 4


def _suspects_in_dense_text(text: str, pattern: re.Pattern[str]) -> list[tuple[int, str]]:
    """`_suspects_in_every_cluster`, once for each distinct chunk when the text repeats itself.

    No cluster holds a space and the character before it unless that is a Prepend character
    (UAX #29: a space is no Extend, ZWJ, SpacingMark, regional indicator or pictograph), so
    the clusters of the text are those of its chunks, each from a space to the next. A
    suspect is judged by its cluster and the character either side: a chunk is judged with
    the space after it, and only the first chunk opens the text (a BOM there is legitimate)."""
    pieces = text.split(" ")
    distinct = set(pieces)
    if len(distinct) * _REPEATS_PER_CHUNK > len(pieces) or any(
        _PREPEND.match(piece, len(piece) - 1) for piece in distinct if piece
    ):  # (a Prepend character at the end of the last piece sends the text this way too)
        return _suspects_in_emoji(text, pattern)
    last = len(pieces) - 1
    first = pieces[0]
    found = _suspects_in_every_cluster(first + " " if last else first, pattern)
    judged = {piece: _suspects_in_every_cluster(" " + piece + " ", pattern) for piece in distinct}
    if any(judged.values()):  # else no chunk between the first and the last has a suspect
        start = len(first)  # where the chunk opens, at its space
        for piece in islice(pieces, 1, last):
            if judged[piece]:
                found += _shifted(judged[piece], start)
            start += 1 + len(piece)
    if last:  # no space after the last
        opens = len(text) - len(pieces[last]) - 1
        found += _shifted(_suspects_in_every_cluster(" " + pieces[last], pattern), opens)
    return found


# A text dense with suspects that does not repeat is judged at the suspects left unproven by
# `without_legit_emoji_parts`, when they are at most this many.
_MAX_UNPROVEN = 256


def _suspects_in_emoji(text: str, pattern: re.Pattern[str]) -> list[tuple[int, str]]:
    """`_suspects_in_every_cluster`, from the clusters of the suspects that C-level passes do
    not prove legitimate emoji parts (in an emoji text, a few or none): every other suspect
    is legitimate, or shares its cluster with one of those (`legit_emoji`)."""
    masked = without_legit_emoji_parts(text)
    unproven = [left.start() for left in islice(pattern.finditer(masked), _MAX_UNPROVEN + 1)]
    if len(unproven) <= _MAX_UNPROVEN:
        found = _suspects_in_clusters_at(text, pattern, unproven)
        if found is not None:
            return found
    return _suspects_in_every_cluster(text, pattern)


def _suspects_in_clusters_at(
    text: str, pattern: re.Pattern[str], indices: list[int]
) -> list[tuple[int, str]] | None:
    """The suspects judged not legit in the clusters holding `indices` (ascending); None where
    no cluster boundary is known within `_MAX_WALK` characters before one."""
    found: list[tuple[int, str]] = []
    end = 0
    for index in indices:
        if index < end:
            continue  # in the cluster just judged
        start = _boundary_before(text, index, end)
        if index - start > _MAX_WALK:
            return None
        cluster = next(c for c in _GRAPHEME.finditer(text, start) if c.end() > index)
        start, end = cluster.span()
        key = (text[start - 1 : start], cluster.group(), text[end : end + 1])
        found.extend((start + offset, kind) for offset, kind in _judge(key, pattern))
    return found


def _shifted(suspects: Sequence[tuple[int, str]], by: int) -> list[tuple[int, str]]:
    return [(by + offset, kind) for offset, kind in suspects]


def _suspects_in_every_cluster(text: str, pattern: re.Pattern[str]) -> list[tuple[int, str]]:
    """`suspect_characters` for a text dense with suspects (emoji): one `findall` splits it into
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
    reported: list[tuple[int, tuple[tuple[int, str], ...]]] = []
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
