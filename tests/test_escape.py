"""escape_text: every hidden or dangerous character becomes a visible escape, nothing else changes."""

from __future__ import annotations

import unicodedata

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from soulscan.hardened.secrets import redact
from soulscan.report.escape import (
    _HIDDEN,
    _NEWEST_LETTER,
    _PRINTABLE_BUT_HIDDEN,
    _PRINTABLE_SHORTCUT,
    ASCII_HIDDEN,
    EscapedText,
    escape_char,
    escape_reach,
    escape_text,
    hidden_among,
    is_hidden,
    shorten,
    shorten_left,
    shorten_left_slices,
    shorten_slices,
)
from soulscan.report.excerpt import excerpt

REDACTED = "[REDACTED]"

_ESCAPE = regex.compile(r"\\u\{[0-9A-F]{4,6}\}|\\x\{[0-9A-F]{2}\}|\\[tnr]")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("plain text", "plain text", id="ascii-unchanged"),
        pytest.param("café 日本 😀 É", "café 日本 😀 É", id="visible-non-ascii-unchanged"),
        pytest.param("a\tb\nc\rd", "a\\tb\\nc\\rd", id="tab-newline-cr"),
        pytest.param("\x1b[31mred", "\\u{001B}[31mred", id="ansi-escape"),
        pytest.param("\x00\x7f\x85\x9b", "\\u{0000}\\u{007F}\\u{0085}\\u{009B}", id="c0-del-c1"),
        pytest.param("abc\u202edcba", "abc\\u{202E}dcba", id="bidi-override"),
        pytest.param("\u2066x\u2069", "\\u{2066}x\\u{2069}", id="bidi-isolates"),
        pytest.param("\u200e\u200f\u061c", "\\u{200E}\\u{200F}\\u{061C}", id="bidi-marks"),
        pytest.param("ig\u200bnore", "ig\\u{200B}nore", id="zero-width-space"),
        pytest.param("\u200c\u200d\u2060\ufeff", "\\u{200C}\\u{200D}\\u{2060}\\u{FEFF}", id="zw-joiners-bom"),
        pytest.param("ig\u2061nore", "ig\\u{2061}nore", id="invisible-operator"),
        pytest.param("soft\u00adhyphen", "soft\\u{00AD}hyphen", id="soft-hyphen"),
        pytest.param("x\U000e0069\U000e0067", "x\\u{E0069}\\u{E0067}", id="tag-characters"),
        pytest.param("ignore\ufe0f", "ignore\\u{FE0F}", id="variation-selector"),
        pytest.param("a\U000e0100", "a\\u{E0100}", id="variation-selector-supplement"),
        pytest.param("a\u034fb", "a\\u{034F}b", id="combining-grapheme-joiner"),
        pytest.param("\u3164\u115f\u1160\uffa0", "\\u{3164}\\u{115F}\\u{1160}\\u{FFA0}", id="hangul-fillers"),
        pytest.param("\u2800", "\\u{2800}", id="braille-blank"),
        pytest.param("\u17b4", "\\u{17B4}", id="khmer-inherent-vowel"),
        pytest.param("a\u00a0b\u3000c", "a\\u{00A0}b\\u{3000}c", id="non-ascii-spaces"),
        pytest.param("\u2028\u2029", "\\u{2028}\\u{2029}", id="line-paragraph-separators"),
        pytest.param("\ue000\U000f0000", "\\u{E000}\\u{F0000}", id="private-use"),
        pytest.param("\u0378", "\\u{0378}", id="unassigned"),
        pytest.param("name\udcff", "name\\x{FF}", id="undecodable-filename-byte"),
        pytest.param("\ud800", "\\u{D800}", id="other-lone-surrogate"),
        pytest.param("\\u{202E}", "\\u{202E}", id="literal-backslash-kept"),
    ],
)
def test_escape_text(text: str, expected: str) -> None:
    assert escape_text(text) == expected


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec=None, exclude_characters="\\")))
def test_escaped_text_is_safe_idempotent_and_keeps_visible_characters(text: str) -> None:
    escaped = escape_text(text)
    assert not any(is_hidden(char) for char in escaped)
    assert escape_text(escaped) == escaped
    visible = "".join(char for char in text if not is_hidden(char))
    assert _ESCAPE.sub("", escaped) == visible


@pytest.mark.parametrize(
    ("escaped", "limit", "expected"),
    [
        pytest.param("short", 10, "short", id="fits"),
        pytest.param("abcdefghij", 4, "abcd…", id="plain-cut"),
        pytest.param("ab\\u{202E}cd", 5, "ab…", id="never-inside-u-escape"),
        pytest.param("ab\\u{202E}cd", 3, "ab…", id="never-after-backslash"),
        pytest.param("ab\\u{202E}cd", 10, "ab\\u{202E}…", id="after-whole-escape"),
        pytest.param("ab\\ncd", 3, "ab…", id="never-splits-short-escape"),
    ],
)
def test_shorten(escaped: str, limit: int, expected: str) -> None:
    assert shorten(escaped, limit) == expected


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab\u202e\n\t\U000e0041 ")), st.integers(1, 30))
def test_shorten_never_leaves_a_broken_escape(text: str, limit: int) -> None:
    shortened = shorten(escape_text(text), limit).removesuffix("…")
    assert _ESCAPE.sub("", shortened).count("\\") == 0


@pytest.mark.parametrize(
    ("line", "start", "end", "expected"),
    [
        pytest.param("please ignore it", 7, 13, ("please ", "ignore", " it"), id="plain"),
        pytest.param("a\u202eb ignore", 4, 10, ("a\\u{202E}b ", "ignore", ""), id="escaped-before"),
        pytest.param("x" * 60 + "ignore", 60, 66, ("…" + "x" * 40, "ignore", ""), id="long-before"),
        pytest.param(
            'curl -H "token: ghp_' + "a" * 36 + '"', 0, 4,
            ("", "curl", ' -H "token: ghp_' + REDACTED + '"'),
            id="secret-after-match-redacted",
        ),
    ],
)
def test_excerpt(line: str, start: int, end: int, expected: tuple[str, str, str]) -> None:
    shown = excerpt(line, start, end, redact)
    assert (shown.before, shown.match, shown.after) == expected


def _escape_one_by_one(text: str) -> str:
    """The reference: every hidden character escaped on its own (the first implementation)."""
    return _HIDDEN.sub(lambda match: escape_char(match.group()), text)


# Runs of one hidden character, mixed runs, hidden characters between ASCII and other
# visible text, and the ASCII-only shortcut with and without controls.
_MIXED = "ab\u200b\u200b\u202e c\U000e0041\U000e0042\ud800\udcff\t\n\x7f\x00 d\u00e9\u3000\ufe0f\U0001f600"


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(_MIXED)) | st.text(alphabet=st.characters(codec=None)))
def test_escape_text_equals_the_one_by_one_reference(text: str) -> None:
    assert escape_text(text) == _escape_one_by_one(text)


def test_escape_text_equals_the_reference_on_every_code_point() -> None:
    every = "".join(map(chr, range(0x110000)))
    assert escape_text(every) == _escape_one_by_one(every)
    ascii_only = "".join(map(chr, range(0x80))) * 2
    assert escape_text(ascii_only) == _escape_one_by_one(ascii_only)


def test_printable_shortcut_knows_every_printable_hidden_character() -> None:
    """``escape_text`` returns printable text as is unless it holds one of these."""
    printable_hidden = [
        char for char in map(chr, range(0x110000)) if char.isprintable() and is_hidden(char)
    ]
    assert printable_hidden
    assert all(_PRINTABLE_BUT_HIDDEN.fullmatch(char) for char in printable_hidden)
    if unicodedata.unidata_version in _NEWEST_LETTER:
        assert _PRINTABLE_SHORTCUT


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("café \u034f ok", id="combining-grapheme-joiner"),
        pytest.param("日本\ufe0f", id="variation-selector"),
        pytest.param("\u3164x\U000e0100", id="hangul-filler-and-supplement-selector"),
        pytest.param("blank \u2800 braille", id="braille-blank"),
    ],
)
def test_printable_text_with_a_hidden_character_is_escaped(text: str) -> None:
    assert text.isprintable()
    assert escape_text(text) == _escape_one_by_one(text) != text


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=st.sampled_from("ab \\u{}\u200b\u202e\t\U000e0041é"), max_size=300),
    st.integers(0, 300),
    st.integers(0, 300),
)
def test_excerpt_of_a_secret_free_line_escapes_only_what_is_shown(line: str, start: int, end: int) -> None:
    """``redact=None`` (the line holds no secret) slices just the shown windows: the same
    pieces as redacting the whole neighbourhood with a redactor that changes nothing."""
    start = min(start, len(line))
    assert excerpt(line, start, end, None) == excerpt(line, start, end, lambda text: text)


_LINE_TEXT = st.text(alphabet=st.sampled_from("ab \\u{}\u200b\u2062\u2064\u202e\t\x00\U000e0041\udcffé"), max_size=200)


@settings(max_examples=300, deadline=None)
@given(_LINE_TEXT, st.integers(0, 220), st.integers(0, 220))
def test_escaped_text_slices_are_the_escapes_of_the_slices(text: str, start: int, end: int) -> None:
    escaped = EscapedText.of(text)
    assert escaped.escaped == escape_text(text)
    end = min(end, len(text))
    start = min(start, end)
    offsets = escaped.offsets or range(len(text) + 1)
    assert escaped.escaped[offsets[start] : offsets[end]] == escape_text(text[start:end])


def _shorten_with_escapes_checked(escaped: str, limit: int, *, keep_end: bool) -> str:
    """The cut with every escape sequence checked: the reference for the short cuts that text
    without a backslash, or with a ``}`` just before the cut, takes."""
    if len(escaped) <= limit:
        return escaped
    cut = len(escaped) - limit if keep_end else limit
    opener = max(escaped.rfind("\\u{", 0, cut + 2), escaped.rfind("\\x{", 0, cut + 2))
    if opener != -1 and opener < cut and escaped.find("}", opener) >= cut:
        cut = escaped.find("}", opener) + 1 if keep_end else opener
    elif escaped[cut - 1 : cut] == "\\" and escaped[cut : cut + 1] in ("t", "n", "r"):
        cut += 1 if keep_end else -1
    return "…" + escaped[cut:] if keep_end else escaped[:cut] + "…"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab {}\\u\u202e\n\t\U000e0041")), st.integers(0, 40))
def test_shortening_plain_text_takes_the_cut_escaped_text_would(text: str, limit: int) -> None:
    for escaped in (text, escape_text(text)):
        assert shorten(escaped, limit) == _shorten_with_escapes_checked(escaped, limit, keep_end=False)
        assert shorten_left(escaped, limit) == _shorten_with_escapes_checked(escaped, limit, keep_end=True)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["\u2062", "\u2064", "\u200b", "\t", "}", "\\u{", "x"]), max_size=60).map("".join),
       st.integers(0, 60))
def test_shortening_runs_of_hidden_bits_takes_the_cut_escaped_text_would(text: str, limit: int) -> None:
    """Escapes of one length (hidden bits) cut at an escape's end, and literal braces and
    openers near the cut."""
    escaped = escape_text(text)
    assert shorten(escaped, limit) == _shorten_with_escapes_checked(escaped, limit, keep_end=False)
    assert shorten_left(escaped, limit) == _shorten_with_escapes_checked(escaped, limit, keep_end=True)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("plain words only", id="printable-ascii"),
        pytest.param("café 日本 😀", id="printable-non-ascii"),
        pytest.param("", id="empty"),
    ],
)
def test_text_without_hidden_characters_is_its_own_escape(text: str) -> None:
    escaped = EscapedText.of(text)
    assert (escaped.escaped, escaped.offsets) == (text, None)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["\u2062", "\u2064", "\u200b", "\t", "}", "\\u{", "x"]), max_size=40).map("".join),
       st.data(), st.integers(1, 50))
def test_slices_shorten_in_place_as_cut_out(text: str, data: st.DataObject, limit: int) -> None:
    """Slices of an escaped run of hidden bits (cut at an escape's end or inside one, near
    literal braces and openers) shorten as the same slices cut out do."""
    escaped = escape_text(text)
    bounds = st.integers(0, len(escaped))
    slices = data.draw(st.lists(st.tuples(bounds, bounds).map(sorted), max_size=10))
    lows, highs = [low for low, _ in slices], [high for _, high in slices]
    assert shorten_slices(escaped, lows, highs, limit) == [
        shorten(escaped[low:high], limit) for low, high in slices]
    assert shorten_left_slices(escaped, lows, highs, limit) == [
        shorten_left(escaped[low:high], limit) for low, high in slices]



# Hidden characters whose escapes are 2 to 10 characters wide (``\t`` to ``\u{10FFFD}``),
# visible ones, and what escapes are made of without their backslash.
REACH_PIECES = ["\t", "\n", "\u200d", "\ufe0f", "\U000e0067", "\U0010fffd", "\x00", "\u3000",
                "a", "1", "}", "{", "u{200D}", "x", "\U0001f468", "é", " "]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(REACH_PIECES), max_size=40).map("".join))
def test_escape_reach_tells_each_position_its_escape(text: str) -> None:
    """Each position of the escaped text is 0 and 0 outside escapes and at an escape's
    start, and inside one how far its escape goes on and how far back it started."""
    escaped = escape_text(text)
    to_end, from_start = escape_reach(escaped, hidden_among(set(text)))
    expected_to_end, expected_from_start = [], []
    for char in text:
        width = len(escape_text(char)) if escape_text(char) != char else 1
        expected_to_end += [0, *range(width - 1, 0, -1)] if width > 1 else [0]
        expected_from_start += list(range(width))
    assert list(to_end) == expected_to_end and list(from_start) == expected_from_start


def test_every_escape_is_two_to_ten_characters_wide() -> None:
    """``escape_reach`` has a code for each place in escapes up to 10 characters wide."""
    widths = {len(escape_char(chr(code_point))) for code_point in range(0x110000)}
    assert max(widths) == 10 and min(widths - {1}) == 2


def test_ascii_hidden_are_the_ascii_characters_escaped() -> None:
    ascii_chars = [chr(code) for code in range(128)]
    assert [char for char in ascii_chars if ASCII_HIDDEN.fullmatch(char)] == [
        char for char in ascii_chars if is_hidden(char)]
