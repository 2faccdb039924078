"""The emoji parts `legit_emoji` proves legitimate: its rules hold for `regex`'s `\\X`, and a
dense emoji text judged from the suspects it leaves is judged as over every cluster."""

from __future__ import annotations

import itertools

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from soulscan.hardened import legit_emoji, unicode_suspects

_CODE_POINTS = [cp for cp in range(0x110000) if not 0xD800 <= cp < 0xE000]
_EVERYTHING = "".join(map(chr, _CODE_POINTS))
_PICTOGRAPHS = "\U0001f468\u2764\U0001f3f4\u00a9\U0001fffd"
_FLAG = "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"


def _cluster_starts(text: str) -> set[int]:
    return {found.start() for found in regex.finditer(r"\X", text)}


@pytest.mark.parametrize("pictograph", list(_PICTOGRAPHS))
def test_a_pictograph_opens_a_cluster_after_all_but_prepend_and_zwj(pictograph: str) -> None:
    befores = [char for char in _EVERYTHING if not legit_emoji.opens_a_cluster(char, pictograph)]
    assert befores == regex.findall(r"[\p{Grapheme_Cluster_Break=Prepend}\u200d]", _EVERYTHING)
    text = "".join(char + pictograph for char in _EVERYTHING if char not in befores)
    assert set(range(1, len(text), 2)) <= _cluster_starts(text)


_EXTENDERS = ["\u200d", "\ufe0e", "\ufe0f", *map(chr, range(0x1F3FB, 0x1F400)),
              *map(chr, range(0xE0020, 0xE0080))]  # fmt: skip


@pytest.mark.parametrize("extender", _EXTENDERS)
def test_joiners_selectors_tones_and_tags_open_no_cluster_after_a_pictograph(
    extender: str,
) -> None:
    for before in _PICTOGRAPHS + "\ufe0f\U0001f3fd\u200d\U000e007f":
        text = "\U0001f468" + before + extender
        assert len(text) - 1 not in _cluster_starts(text)


def test_the_characters_proven_to_end_a_flag_end_its_cluster() -> None:
    ends = [char for char in _EVERYTHING if legit_emoji._masks()[0][0][0].match(_FLAG + char)]
    text = "".join(_FLAG + char for char in ends)
    assert set(range(len(_FLAG), len(text), len(_FLAG) + 1)) <= _cluster_starts(text)
    assert "a" in ends and "\U0001f468" in ends and "\u0301" not in ends


@pytest.mark.parametrize(
    ("name", "pattern"),
    [
        pytest.param("emoji", legit_emoji.EMOJI, id="emoji"),
        pytest.param("pictographic", legit_emoji.PICTOGRAPHIC, id="pictographic"),
        pytest.param("pictograph", legit_emoji._PICTOGRAPH, id="pictograph"),
    ],
)
def test_classes_read_from_the_emoji_stretches_are_the_whole_classes(
    name: str, pattern: regex.Pattern[str]
) -> None:
    import re

    built = re.compile(f"[{legit_emoji._members(pattern)}]")
    assert built.findall(_EVERYTHING) == pattern.findall(_EVERYTHING), name


def test_the_mask_and_the_characters_masked_before_the_parts_are_in_no_class_read() -> None:
    for char in " " + "".join(map(chr, range(0xE0000, 0xE0080))) + "\u200d\ufe0e\ufe0f":
        assert not legit_emoji.EMOJI.match(char) and not legit_emoji.PICTOGRAPHIC.match(char)
        assert legit_emoji.opens_a_cluster("a", char) is False


_EMOJI_PIECES = [
    "\U0001f468", "\U0001f469", "\u200d", "\ufe0f", "\ufe0e", "\U0001f3fd", "\u2764", "1",
    "\u20e3", "\U0001f1e9", _FLAG, _FLAG[:4], "\U000e0041", "\u0d4e", "\u0600", "\u0301",
    "\u0915", "\u094d", "\u0628", "\u200c", "\u200b", "\ufeff", "\r", "\n", " ", "a",
    "\U0001f9d1\u200d\U0001f4bb", "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466",
    "\U0001f44d\U0001f3fd\u200d", "\u2764\ufe0f", "\U000e0100", "\x85", "\u00e9",
]  # fmt: skip


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(_EMOJI_PIECES), min_size=1, max_size=120))
def test_emoji_text_judged_from_unproven_suspects_as_over_every_cluster(
    pieces: list[str],
) -> None:
    text = "".join(pieces)
    pattern = unicode_suspects._SUSPECT_CHARS
    expected = unicode_suspects._suspects_in_every_cluster(text, pattern)
    assert unicode_suspects._suspects_in_emoji(text, pattern) == expected


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("\u0d4e\U0001f468\u200d\U0001f469", id="prepend-before-the-chain"),
        pytest.param("\U0001f389\u0d4e\U0001f468\u200d\U0001f469", id="prepend-inside-a-walk"),
        pytest.param("\U0001f468\u200da", id="zwj-before-a-letter"),
        pytest.param("a\u200d\U0001f468", id="zwj-after-a-letter"),
        pytest.param("\U0001f468\u200d" + _FLAG, id="flag-after-a-zwj"),
        pytest.param(_FLAG + "\u0301", id="flag-before-a-mark"),
        pytest.param("a\ufe0f", id="selector-after-a-letter"),
        pytest.param("\u2764\ufe0f\ufe0f", id="two-selectors"),
    ],
)
def test_each_guard_keeps_its_suspect_judged(text: str) -> None:
    pattern = unicode_suspects._SUSPECT_CHARS
    expected = unicode_suspects._suspects_in_every_cluster(text, pattern)
    assert expected  # each holds a suspect that is not legitimate
    assert unicode_suspects._suspects_in_emoji(text, pattern) == expected


def test_a_long_emoji_text_with_a_cut_flag_at_its_end() -> None:
    pieces = itertools.cycle(["\U0001f468\u200d\U0001f469", _FLAG, "\u2764\ufe0f"])
    text = "".join(itertools.islice(pieces, 3000)) + _FLAG[:4]
    pattern = unicode_suspects._SUSPECT_CHARS
    found = unicode_suspects._suspects_in_emoji(text, pattern)
    assert found == unicode_suspects._suspects_in_every_cluster(text, pattern)
    assert [index for index, _ in found] == [len(text) - 3, len(text) - 2, len(text) - 1]


@pytest.mark.parametrize(
    ("text", "limit"),
    [
        pytest.param("\U0001f468\u200da" * 40, 3, id="more-unproven-than-the-limit"),
        pytest.param("\u00e9" * 200 + "\u200d\u00e9", 256, id="no-boundary-near-a-suspect"),
    ],
)
def test_falls_back_to_every_cluster(text: str, limit: int) -> None:
    from unittest.mock import patch

    pattern = unicode_suspects._SUSPECT_CHARS
    with patch.object(unicode_suspects, "_MAX_UNPROVEN", limit):
        found = unicode_suspects._suspects_in_emoji(text, pattern)
    assert found == unicode_suspects._suspects_in_every_cluster(text, pattern)
    assert found
