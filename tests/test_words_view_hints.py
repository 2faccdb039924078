"""The words view skips a pass when a cheap hint finds nothing: every hint must find something
wherever its pass's pattern matches (a skipped pass that would have matched changes the view).

`tests/test_hardened_view_offsets.py` compares whole views with the per-character reference,
which runs every pass; these check each hint against its pattern, character by character.
"""

from __future__ import annotations

import re
import sys

import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from soulscan.hardened import words_view as w


def test_the_tag_hint_takes_every_character_a_tag_can_start_with() -> None:
    starts = [
        hex(code)
        for code in range(sys.maxunicode + 1)
        for opening in ("<", "</")
        if opening + chr(code) != "</"  # the start of a closing tag: its next character counts
        and (
            w._INLINE_TAG.match(opening + chr(code), partial=True)
            or w._BLOCK_TAG.match(opening + chr(code), partial=True)
        )
        and not w._TAG_START.match(opening + chr(code))
    ]
    assert starts == []


def test_the_empty_comment_hint_takes_every_character_an_empty_comment_holds() -> None:
    missed = [
        hex(code)
        for code in range(sys.maxunicode + 1)
        if w._EMPTY_COMMENT.fullmatch(f"<!--{chr(code)}-->")
        and not w._EMPTY_COMMENT_HINT.fullmatch(f"<!--{chr(code)}-->")
    ]
    assert missed == []


def test_no_character_a_broken_word_may_follow_is_ruled_out_before_a_break() -> None:
    """`_may_break_words` rules a hint out for a character before it that `regex`'s `[\\s-]`
    takes (the pattern's look-behind fails there), and the hint's last character class
    leaves out only such characters."""
    separator = regex.compile(r"[\s-]")
    assert all(separator.fullmatch(char) for char in w._NOT_BEFORE_A_BREAK)


_BREAK_ALPHABET = "a-- \t\t\r\n\n\x0b\x1c\x85\u2028\u00a0x"


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet=st.sampled_from(_BREAK_ALPHABET), max_size=30))
def test_a_text_with_a_broken_word_is_never_ruled_out(text: str) -> None:
    if w._LINE_BREAK_HYPHEN.search(text):
        assert w._may_break_words(text)


_OLD_LINE_BREAK_HINT = re.compile(r"-[ \t]{0,4}\r?\n[ \t]{0,4}[^ \t\n\r-]")


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet=st.sampled_from(_BREAK_ALPHABET + "-\n"), max_size=30))
def test_the_break_hint_reads_the_character_before_each_hyphen_as_a_step_did(text: str) -> None:
    """One search with the look-behind after the `-` finds a hint exactly where the hints
    found one by one, each with the character before it checked, found one."""
    one_by_one = any(
        hint.start() and text[hint.start() - 1] not in w._NOT_BEFORE_A_BREAK
        for hint in _OLD_LINE_BREAK_HINT.finditer(text)
    )
    assert w._may_break_words(text) == one_by_one


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet=st.sampled_from("a0z9Z_-. \u0660\u00e9\U0001d7ce1e"), max_size=40))
def test_leet_hints_are_the_hint_pattern_s_matches(text: str) -> None:
    assert list(w._leet_hints(text)) == [hint.start() for hint in w._LEET_HINT.finditer(text)]


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet=st.sampled_from("a Z0 \n\t.,-*\u00e9\u0416\u0301\u00a0\u3002\U0001f600"), max_size=40))
def test_separator_runs_are_the_separator_matches_that_change_length(text: str) -> None:
    """A span mapping lists the `_SEPARATOR_RUNS` matches as the replacements of the
    separator pass: they must be its matches of any other length than one."""
    resized = [m.span() for m in w._SEPARATORS.finditer(text) if m.end() - m.start() != 1]
    assert resized == [m.span() for m in w._SEPARATOR_RUNS.finditer(text)]


def test_a_hint_reads_a_text_once_and_any_other_text_again() -> None:
    """A pass that changed nothing hands on the same text object: a hint that found nothing
    in it is not asked again; a text that is another object is read, even if equal."""
    read: list[str] = []

    def hint(text: str) -> bool:
        read.append(text)
        return "<b>" in text

    unchanged = w._Unchanged()
    text = "a <!-- b"
    assert not unchanged.may_change(hint, text)
    assert not unchanged.may_change(hint, text)
    other = text[:2] + text[2:]  # equal, another object
    assert other == text and other is not text
    assert not unchanged.may_change(hint, other)
    assert unchanged.may_change(hint, "x <b> y")
    assert unchanged.may_change(hint, "x <b> y")  # found: asked again each time
    assert read == [text, other, "x <b> y", "x <b> y"]
