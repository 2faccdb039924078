"""Strings of words found through a text's tokens are exactly those a search finds."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from soulscan.hardened import token_places
from soulscan.hardened.token_places import TokenPlaces


def _every(text: str, strings: list[str], limit: int, most: int, begin: int) -> list[int] | None:
    every = [i for s in strings for i in range(begin, limit) if text.startswith(s, i) and i + len(s) <= limit]
    return every if len(every) <= most else None


_TOKENS = st.sampled_from(["", "a", "ab", "ba", "abb", "b\nb", "\n"])
_STRINGS = st.lists(
    st.one_of(
        st.lists(_TOKENS, min_size=1, max_size=4).map(lambda pieces: " " + " ".join(pieces)),
        st.text("ab \n", min_size=1, max_size=4),
    ),
    max_size=4,
)


@pytest.mark.parametrize(
    ("most_tokens", "most_last_codes"),
    [(token_places.MOST_TOKENS, token_places.MOST_LAST_CODES), (2, 6), (100, 1)],
)
@settings(max_examples=300, deadline=None)
@given(
    st.lists(_TOKENS, min_size=1, max_size=40).map(" ".join),
    _STRINGS,
    st.integers(0, 200),
    st.integers(0, 200),
    st.integers(0, 60),
)
def test_places_through_tokens_are_every_occurrence(
    most_tokens: int, most_last_codes: int, text: str, strings: list[str], limit: int, begin: int,
    most: int,
) -> None:
    limit = min(limit, len(text))
    places = TokenPlaces(text)
    saved = token_places.BUILD_AFTER, token_places.MOST_TOKENS, token_places.MOST_LAST_CODES
    token_places.BUILD_AFTER, token_places.MOST_TOKENS, token_places.MOST_LAST_CODES = 0, most_tokens, most_last_codes
    try:
        assert places.places(strings, limit, most, begin) == _every(text, strings, limit, most, begin)
        assert places.places(strings, len(text), len(text), 0) == _every(text, strings, len(text), len(text), 0)
    finally:
        token_places.BUILD_AFTER, token_places.MOST_TOKENS, token_places.MOST_LAST_CODES = saved


def test_the_code_text_is_built_only_after_enough_strings() -> None:
    places = TokenPlaces(" ab ba " * 10)
    for asked in range(1, token_places.BUILD_AFTER):
        assert places.places([" ab "], 70, 70) == list(range(0, 70, 7))
        assert not places._codes, asked
    assert places.places([" ab "], 70, 70) == list(range(0, 70, 7))
    assert places._codes
    assert places.places([" ab", " b"], 70, 70) == [*range(0, 70, 7), *range(3, 70, 7)]
