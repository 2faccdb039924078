"""Excerpts of the first places of one hidden character along one line
(``excerpt._one_character_places``: a file of emoji sequences lists a thousand joiners)
are each exactly what the finding's line shows, ``excerpt(line, ...)``: the escaped stretch
split at the character's escapes, the cuts moved out of the escapes they fall inside."""

from __future__ import annotations

import random
import re
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from soulscan.models import Location
from soulscan.report import excerpt as excerpt_module
from soulscan.report.escape import escape_char, escape_replacing, escape_text
from soulscan.report.excerpt import (
    AFTER_LIMIT,
    BEFORE_LIMIT,
    Excerpt,
    FileExcerpts,
    KnownCharacters,
)
from soulscan.textpos import LineIndex
from tests.test_file_excerpts import whole_line_excerpt

HIDDEN = ["\u200d", "\u200b", "\ufe0f", "\u202e", "\U000e0067", "\udc80", "\u3000", "\x7f"]
# Emoji sequences, hidden characters alone and in runs, what escapes are made of without
# their backslash (braces, ``u{200D}``), escapes' widths from 6 (``\x{80}``) to 9
# (``\u{E0067}``); backslashes, tabs and carriage returns turn the path away.
PIECES = [
    "a", " ", "}", "{", "u{200D}", "x{", "}}", "1\ufe0f\u20e3", "\U0001f468\u200d\U0001f469",
    "\U0001f3f4\U000e0067\U000e0062\U000e007f", "\U0001f44d\U0001f3fd", "é", "😀", "x" * 45,
    *HIDDEN, "\u200d" * 7, "\U000e0067" * 5,
]
TURNED_AWAY = ["\\", "\t", "\r"]
SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def places_of_one_character(draw: st.DrawFn) -> tuple[str, list[int], bool]:
    """A line (after other lines, at times) and the first places of one hidden character
    along it; at times a piece that turns the path away, or places that are not the first."""
    pieces = PIECES + TURNED_AWAY if draw(st.booleans()) else PIECES
    line = draw(st.lists(st.sampled_from(pieces), min_size=1, max_size=80).map("".join))
    char = draw(st.sampled_from(HIDDEN))
    line = draw(st.sampled_from(["", char, "ab"])) + line + char + "tail " * 10
    lead = draw(st.sampled_from(["", "first line\n", "x" * 60 + "\n\n"]))
    text = lead + line + draw(st.sampled_from(["", "\nnext line"]))
    places = [len(lead) + at for at, found in enumerate(line) if found == char]
    skipped = draw(st.sampled_from([0, 0, 0, 1]))  # (1: not the first places)
    count = draw(st.integers(1, len(places)))
    return text, places[skipped : skipped + count] or places[:1], skipped == 0


def _locations(text: str, starts: list[int]) -> list[Location]:
    index = LineIndex.of(text)
    return [index.location(start, start + 1) for start in starts]


@SETTINGS
@given(case=places_of_one_character())
def test_the_places_of_one_hidden_character_show_their_line_excerpts(
        case: tuple[str, list[int], bool]) -> None:
    """Every excerpt the path answers is what the finding's line shows; it answers whenever
    the places are the first ones in a dense stretch holding no backslash, tab or CR."""
    text, starts, first_places = case
    locations = _locations(text, starts)
    line_start = starts[0] - (locations[0].column - 1)
    reach = starts[-1] + 1 + AFTER_LIMIT + 1
    assert reach <= len(text)
    shown = excerpt_module._one_character_places(text, line_start, list(starts), reach)
    if shown is not None:
        assert shown == [whole_line_excerpt(text, location) for location in locations]
    # (told they are places of the character, as ``hidden_places`` finds them, or told the
    # characters of the text, and more: the same)
    pieces = excerpt_module.one_character_pieces(text, line_start, list(starts), reach)
    assert excerpt_module.one_character_pieces(text, line_start, list(starts), reach, places=True) == pieces
    known = KnownCharacters({char for char in text if not char.isascii()} | {"\u2060", "\U000e0001"},
                            0, len(text))
    assert excerpt_module.one_character_pieces(text, line_start, list(starts), reach, known=known) == pieces
    stretch = text[max(line_start, starts[0] - BEFORE_LIMIT - 1) : reach]
    dense = len(stretch) <= len(starts) * (BEFORE_LIMIT + AFTER_LIMIT + 2)
    if first_places and dense and not any(char in stretch for char in TURNED_AWAY):
        assert shown is not None
    # and through the one-line path (every line long), which asks it
    with mock.patch.object(excerpt_module, "LONG_LINE", 0):
        through = FileExcerpts(text, LineIndex.of(text))._inside_one_line(locations)
    if through is not None:
        assert through == [whole_line_excerpt(text, location) for location in locations]


def test_a_thousand_joiners_among_shuffled_emoji_take_the_path() -> None:
    """Emoji sequences in no repeating order (flags, keycaps, tag sequences, skin tones,
    joined families): the thousand joiners' excerpts come from this path, as their line
    shows them."""
    units = ["\U0001f468\u200d\U0001f469\u200d\U0001f467", "1\ufe0f\u20e3", "\U0001f1e9\U0001f1ea",
             "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",
             "\U0001f44d\U0001f3fd", "\U0001f9d1\u200d\U0001f4bb", "\u2764\ufe0f", " "]
    text = "".join(random.Random(7).choices(units, k=4000))
    starts = [at for at, char in enumerate(text) if char == "\u200d"][:1000]
    locations = _locations(text, starts)
    with mock.patch.object(excerpt_module, "_EscapedWindows", side_effect=AssertionError("windows")):
        shown = FileExcerpts(text, LineIndex.of(text)).excerpts(locations)
    assert shown == [whole_line_excerpt(text, location) for location in locations]
    assert shown == excerpt_module._one_character_places(text, 0, starts, starts[-1] + 2 + AFTER_LIMIT)


@pytest.mark.parametrize("change", ["backslash", "tab", "another place", "sparse"])
def test_the_path_turns_away_what_it_cannot_show(change: str) -> None:
    text = ("\U0001f468\u200d\U0001f469 " * 300) + "tail" * 20
    starts = [at for at, char in enumerate(text) if char == "\u200d"][:200]
    if change == "backslash":
        text = text[:100] + "\\" + text[101:]
    elif change == "tab":
        text = text[:100] + "\t" + text[101:]
    elif change == "another place":
        starts = starts[1:]
    else:
        starts = [*starts[:20], starts[-1]]
        text = text[: starts[-1]] + " " * 10_000 + text[starts[-1] :]
        starts[-1] += 10_000
    reach = starts[-1] + 2 + AFTER_LIMIT
    assert excerpt_module._one_character_places(text, 0, starts, reach) is None
    locations = _locations(text, starts)
    assert FileExcerpts(text, LineIndex.of(text)).excerpts(locations) == [
        whole_line_excerpt(text, location) for location in locations]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES + TURNED_AWAY + ["\n", "\u2800", "\ue000"]), max_size=40).map("".join),
       st.integers(0, 40))
def test_escaping_by_replacement_is_escape_text(text: str, most: int) -> None:
    escaped = escape_replacing(text, set(text), most)
    if escaped is not None:
        assert escaped == escape_text(text)
    else:
        assert len({char for char in text if escape_text(char) != char}) > most


def test_excerpts_are_named_tuples() -> None:
    text = "\U0001f468\u200d\U0001f469 " * 100
    starts = [at for at, char in enumerate(text) if char == "\u200d"][:50]
    shown = excerpt_module._one_character_places(text, 0, starts, starts[-1] + 2 + AFTER_LIMIT)
    assert shown is not None and all(type(item) is Excerpt for item in shown)


def test_every_escape_is_braced_but_the_short_ones_the_path_turns_away() -> None:
    """The path tells a cut inside an escape by the last backslash and brace before it: it
    holds only while every escape but ``\\t``, ``\\n`` and ``\\r`` is ``\\u{HEX}`` or
    ``\\x{HEX}`` (one backslash, one closing brace at its end). A new short escape would
    make it cut one in two silently; this fails first."""
    braced = re.compile(r"\\[ux]\{[0-9A-F]{2,6}\}")
    short = {}
    for code_point in range(0x110000):
        char = chr(code_point)
        escaped = escape_char(char)
        if braced.fullmatch(escaped) is None:
            short[char] = escaped
    assert short == {"\t": "\\t", "\n": "\\n", "\r": "\\r"}
    # tab and CR turn the path away; a newline ends the line the places lie on
    assert {"\t", "\r"} <= set(TURNED_AWAY)
