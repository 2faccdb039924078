"""The places a possessive run can start from hold every match start: the search in them
finds exactly what finditer finds."""

from __future__ import annotations

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from soulscan.engine.matcher import PreparedText
from soulscan.hardened.branch_search import BranchSearch
from soulscan.hardened.pattern_reading import leading_lookbehind, trailing_strings
from soulscan.hardened.possessive_runs import possessive_run
from soulscan.hardened.view_rules import hardened_rules

V0 = regex.V0


def _ss201() -> str:
    return next(rule.regex_source for rule in hardened_rules() if rule.id == "SS201")


RUNS = [
    pytest.param(_ss201(), id="SS201"),
    pytest.param(r"(?<=[ =])[^\s]{1,5}+(?<=abc|cde)", id="short-bound"),
    pytest.param(r"(?<=\s)\w{2,6}+(?<=xyz|env)(?=[ .])", id="lookahead-after"),
    pytest.param(r"(?<=[\s=])[^\s=]{3,4}+(?<=a\.bc|=abc)(?<!xa\.bc)", id="two-lookbehinds"),
]


@pytest.mark.parametrize("source", RUNS)
def test_a_possessive_run_is_read(source: str) -> None:
    run = possessive_run(source, V0)
    assert run is not None and 1 <= run.lo <= run.hi


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(r"[^\s]{1,5}+(?<=abc)", id="no-leading-lookbehind"),
        pytest.param(r"(?<=\s)[^\s]{1,5}(?<=abc)", id="greedy-gives-back"),
        pytest.param(r"(?<=\s)[^\s]{1,5}?(?<=abc)", id="lazy"),
        pytest.param(r"(?<=\s)[^\s]{0,5}+(?<=abc)", id="may-be-empty"),
        pytest.param(r"(?<=\s)[^\s]{1,5}+x(?<=abc)", id="consumes-after"),
        pytest.param(r"(?<=\s)(?:ab){1,5}+(?<=abc)", id="run-of-a-string"),
        pytest.param(r"(?<=\s)[^\s]{1,5}+|x(?<=abc)", id="alternation"),
        pytest.param(r"(?i)(?<=\s)[^\s]{1,5}+(?<=abc)", id="inline-case-flag"),
    ],
)
def test_other_patterns_are_not_read_as_a_run(source: str) -> None:
    assert possessive_run(source, V0) is None


def test_case_folding_is_not_read_as_a_run() -> None:
    assert possessive_run(r"(?<=\s)[^\s]{1,5}+(?<=abc)", V0 | regex.IGNORECASE) is None


def _search(source: str) -> BranchSearch:
    return BranchSearch(regex.compile(source, V0), None, ends=trailing_strings(source, V0),
                        after=leading_lookbehind(source, V0))


_TEXTS = st.lists(
    st.sampled_from([" ", "=", "\n", "a", "b", "c", "x", "y", "e", ".", "abc", "cde", "xyz", "a.bc", "=abc", "env", ".env",
                     "credentials", "curl -F f=@", " | nc h 1", "\"", "@", "é", "\u2028"]),
    max_size=60,
).map("".join)


@pytest.mark.parametrize("source", RUNS)
@settings(max_examples=300, deadline=None)
@given(text=_TEXTS)
def test_every_match_starts_at_a_place_of_the_run(source: str, text: str) -> None:
    search = _search(source)
    run = possessive_run(source, V0)
    assert run is not None and search.ends is not None
    closings = search._closings(text, len(text), len(text) + 1)
    assert closings is not None
    places = run.starts(text, closings, len(text) + 1)
    assert places is not None
    expected = [match.span() for match in search.pattern.finditer(text)]
    assert {start for start, _ in expected} <= set(places)
    assert places == sorted(set(places))
    assert search.spans(PreparedText(text)) == expected


@pytest.mark.parametrize("source", RUNS)
@pytest.mark.parametrize("cut", [0, 1, 2, 159, 160, 161])
def test_runs_cut_by_their_bound_find_every_match(source: str, cut: int) -> None:
    # a run longer than its bound: the match is the first `hi` characters, whatever follows
    search = _search(source)
    for text in (" " + "a" * cut + ".env x", "=" + "b" * cut + "xyz.env", "x" * cut + " abc cde=abc a.bc\n",
                 " " + "credentials" * (cut // 11 + 1) + " | nc h 1\n"):
        expected = [match.span() for match in search.pattern.finditer(text)]
        assert search.spans(PreparedText(text)) == expected, (source[:40], text[:80])


def test_ss201_tries_a_handful_of_places_a_file_name() -> None:
    search = _search(_ss201())
    text = "cp .env.example .env\nscp build.tar.gz host:/srv/\n" * 50
    places = search._window_places(PreparedText(text))
    assert places is not None and len(places) <= text.count(".env") * 2
