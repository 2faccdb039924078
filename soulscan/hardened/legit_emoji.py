"""The suspects of a text that C-level passes prove legitimate emoji parts.

`unicode_suspects` judges a suspect by its extended grapheme cluster (`_legit_in_emoji`): in a
text dense with emoji that do not repeat, splitting it all into clusters and picking out those
to judge is most of the Unicode analysis. Most suspects there are emoji parts that the
characters just around them prove legitimate, by rules of UAX #29 that `regex`'s `\\X` keeps
(tests/test_legit_emoji.py checks each against it):

* VS15/VS16 is legitimate after an emoji character unless a variation selector follows: its
  neighbours alone decide. A selector after it follows no emoji character, stays unproven and
  extends the same cluster, which the caller judges: only the one before needs proving.
* A ZWJ before a pictograph is legitimate when an emoji character opens its cluster. A
  pictograph opens a cluster after anything but a Prepend character or a ZWJ; after a ZWJ it
  opens one or joins that ZWJ's cluster; a ZWJ, VS16 or skin tone after it opens none. So a
  ZWJ after a pictograph (with at most one VS16 or skin tone between) that follows no Prepend
  character has a pictograph opening its cluster, or shares it with a ZWJ left unproven,
  whose cluster the caller judges.
* The tags of an RGI subdivision flag are legitimate when the flag is a cluster of its own:
  after no Prepend character or ZWJ, and before the end, an ASCII character, a pictograph or a
  regional indicator (none of which extends a cluster).

Each proven suspect is masked with a space, at its offset: the suspects left in the masked
text are the ones whose clusters must still be judged.
"""

from __future__ import annotations

import functools
import itertools
import re

import regex

from soulscan.hardened.emoji_data import RGI_TAG_SEQUENCES

EMOJI = regex.compile(
    r"[\p{Extended_Pictographic}\p{Emoji}\p{Emoji_Modifier}\p{Regional_Indicator}]"
)
PICTOGRAPHIC = regex.compile(
    r"[\p{Extended_Pictographic}\p{Emoji_Presentation}\p{Regional_Indicator}]"
)
_PICTOGRAPH = regex.compile(r"\p{Extended_Pictographic}")
# The characters of Grapheme_Cluster_Break=Prepend (tests/test_hardened_unicode.py: the
# same as `regex`'s class), which alone keep a space in the cluster before it.
PREPEND_RANGES = (
    (0x0600, 0x0605), (0x06DD, 0x06DD), (0x070F, 0x070F), (0x0890, 0x0891), (0x08E2, 0x08E2),
    (0x0D4E, 0x0D4E), (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x111C2, 0x111C3),
    (0x113D1, 0x113D1), (0x1193F, 0x1193F), (0x11941, 0x11941), (0x11A84, 0x11A89),
    (0x11D46, 0x11D46), (0x11F02, 0x11F02),
)  # fmt: skip
_PREPEND_OR_ZWJ = frozenset(
    itertools.chain("\u200d", *(map(chr, range(first, last + 1)) for first, last in PREPEND_RANGES))
)
# Where the emoji classes have members (tests/test_legit_emoji.py: all of them): a class
# built from these stretches alone is read from `regex` in milliseconds, once per process.
_EMOJI_STRETCHES = ((0x0000, 0x33FF), (0x1F000, 0x1FFFF))
_SELECTOR_OR_TONE = "\ufe0f\U0001f3fb-\U0001f3ff"  # each extends the cluster before it
_REGIONAL_INDICATORS = "\U0001f1e6-\U0001f1ff"
_MASK = " "


def opens_a_cluster(before: str, char: str) -> bool:
    """Is there a cluster boundary between `before` and `char`, a pictograph?"""
    return before not in _PREPEND_OR_ZWJ and _PICTOGRAPH.match(char) is not None


def without_legit_emoji_parts(text: str) -> str:
    """`text` with each suspect proven a legitimate emoji part replaced by a space."""
    flags, parts = _masks()
    for flag, masked_flag in flags:
        text = flag.sub(masked_flag, text)
    return parts.sub(_MASK, text)


def _members(pattern: regex.Pattern[str]) -> str:
    """The members of a one-character `regex` class in `_EMOJI_STRETCHES`, as `re` ranges,
    the longest first: `re` tests a character against a class's ranges above U+FFFF one by
    one, in order, and emoji lie mostly in the long ones."""
    ranges: list[tuple[int, int]] = []
    for first, last in _EMOJI_STRETCHES:
        stretch = "".join(map(chr, range(first, last + 1)))
        for run in regex.finditer(pattern.pattern + "+", stretch):
            ranges.append((first + run.start(), first + run.end() - 1))
    ranges.sort(key=lambda bounds: bounds[0] - bounds[1])
    return "".join(f"\\U{start:08x}-\\U{end:08x}" for start, end in ranges)


@functools.cache
def _masks() -> tuple[list[tuple[re.Pattern[str], str]], re.Pattern[str]]:
    """The flags' patterns with their masked forms (one for each form), and the pattern of
    the ZWJs and selectors proven legitimate. Built at the first text that needs them."""
    emoji, pictographic, pictograph = map(_members, (EMOJI, PICTOGRAPHIC, _PICTOGRAPH))
    prepend = "".join(f"\\U{first:08x}-\\U{last:08x}" for first, last in PREPEND_RANGES)
    # (a lookbehind is of fixed width: ".." and "..." reach back past the pictograph)
    joiner = (
        f"\u200d(?=[{pictographic}])"
        f"(?:(?<=[{pictograph}]\u200d)(?<![{prepend}]..)"
        f"|(?<=[{pictograph}][{_SELECTOR_OR_TONE}]\u200d)(?<![{prepend}]...))"
    )
    selector = f"[\ufe0e\ufe0f](?<=[{emoji}].)"
    ends_cluster = f"(?![^\\x00-\\x7f{pictograph}{_REGIONAL_INDICATORS}])"
    by_mask: dict[str, list[str]] = {}
    for flag in sorted(RGI_TAG_SEQUENCES):
        escaped = re.escape(flag)
        by_mask.setdefault(flag[0] + _MASK * (len(flag) - 1), []).append(
            f"{escaped}(?<![{prepend}\u200d]{escaped})"
        )
    flags = [
        (re.compile(f"(?:{'|'.join(alternatives)}){ends_cluster}", re.DOTALL), masked)
        for masked, alternatives in by_mask.items()
    ]
    return flags, re.compile(f"{joiner}|{selector}", re.DOTALL)
