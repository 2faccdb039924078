"""Strings found through a text's distinct lines, and rules tried once per distinct window,
give exactly what a search of the whole text gives."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.searches import whole_pattern_search

from soulscan.engine.matcher import PreparedText
from soulscan.engine.prefilter import matches_at
from soulscan.hardened import branch_search, pattern_reading, reach, repeated_lines, token_places
from soulscan.hardened.reach import Reach, matches_at_by_window
from soulscan.hardened.repeated_lines import lines_of
from soulscan.hardened.view_rules import hardened_rules

V0, I = regex.V0, regex.V0 | regex.IGNORECASE


def _every(text: str, strings: list[str], limit: int, most: int, begin: int) -> list[int] | None:
    every = [i for s in strings for i in range(begin, limit) if text.startswith(s, i) and i + len(s) <= limit]
    return every if len(every) <= most else None


_LINES = st.lists(st.text("ab ", max_size=6), min_size=1, max_size=4)


@settings(max_examples=400, deadline=None)
@given(
    _LINES,
    st.lists(st.integers(0, 3), min_size=1, max_size=30),
    st.lists(st.text("ab \n", min_size=1, max_size=4), max_size=4),
    st.integers(0, 200),
    st.integers(0, 200),
    st.integers(0, 80),
)
def test_places_through_distinct_lines_are_every_occurrence(
    pool: list[str], picks: list[int], strings: list[str], limit: int, begin: int, most: int
) -> None:
    text = "\n".join(pool[pick % len(pool)] for pick in picks)
    lines = lines_of(text)
    assert lines is not None
    limit = min(limit, len(text))
    assert lines.places(strings, limit, most, begin) == _every(text, strings, limit, most, begin)
    for string in strings:
        if string:
            assert lines.every(string) == _every(text, [string], len(text), len(text), 0)


def test_a_text_of_mostly_distinct_lines_is_searched_whole() -> None:
    assert lines_of("a\nb\nc\na", most_chars=3) is None
    assert lines_of("a\na\na\na", most_chars=3) is not None
    assert repeated_lines.repeated_lines("ab\n" * 20_000) is not None
    assert repeated_lines.repeated_lines("".join(f"{n}\n" for n in range(20_000))) is None
    assert branch_search._repeated_lines("a\n" * 100) is None  # too short to pay
    # lines too short on average to pay a step each
    assert branch_search._repeated_lines(("print x" + "\n" * 45) * 1_000) is None
    assert branch_search._repeated_lines(("print x, then y, then z" + "\n") * 2_000) is not None


@pytest.fixture
def small_texts_repeat(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Texts of any length are read through their distinct lines and their windows, or
    their tokens."""
    monkeypatch.setattr(branch_search, "REPEATED_LINES_FROM", 0)
    monkeypatch.setattr(branch_search, "MIN_LINE_CHARS", 0)
    monkeypatch.setattr(branch_search, "MEMO_FROM_PLACES", 0)
    monkeypatch.setattr(branch_search, "MEMO_FROM_REACH", 0)
    monkeypatch.setattr(reach, "MEMO_PROBE", 4)
    monkeypatch.setattr(token_places, "BUILD_AFTER", 0)
    memos = (repeated_lines.repeated_lines, token_places.token_places, branch_search._long_lines)
    for memo in memos:
        memo.cache_clear()
    yield
    for memo in memos:
        memo.cache_clear()


@pytest.mark.parametrize(
    ("source", "flags", "expected"),
    [
        pytest.param("abc", V0, Reach(0, 3), id="literal"),
        pytest.param(r"\babc\b", V0, Reach(1, 5), id="word-boundaries"),
        pytest.param("(?<=xy)abc", V0, Reach(2, 3), id="lookbehind"),
        pytest.param("(?<=x[^\n]{0,5})abc", V0, Reach(6, 6), id="variable-lookbehind"),
        pytest.param("abc(?=[^\n]{0,5}d)", V0, Reach(0, 9), id="lookahead"),
        pytest.param("a{2,4}?b(?:cd|e)", I, Reach(0, 7), id="repeat-and-branch"),
        pytest.param("(?:ab(?!cd)){0,3}xyz", V0, Reach(0, 9), id="lookahead-in-a-repeat"),
        pytest.param(r"a\w+", V0, None, id="unbounded"),
        pytest.param(r"(a)\1", V0, None, id="back-reference"),
        pytest.param("abc", V0 | regex.FULLCASE | regex.IGNORECASE, None, id="full-case-folding"),
        pytest.param("(?f)abc", V0, None, id="inline-full-case-folding"),
        pytest.param("(?iw)abc", V0, None, id="inline-word-boundaries"),
        pytest.param("(?V1)abc", V0, None, id="inline-version-1"),
        pytest.param(r"\p{L}ab", V0, None, id="regex-only-syntax"),
    ],
)
def test_reach(source: str, flags: int, expected: Reach | None) -> None:
    assert reach.reach(source, flags) == expected


def _bounded_rules() -> list[tuple[str, int]]:
    return sorted({
        (rule.regex_source, rule.regex_flags)
        for rule in hardened_rules()
        if rule.trusted and rule.exact_source is None
        and reach.reach(rule.regex_source, rule.regex_flags) is not None
    })


BOUNDED = _bounded_rules()
EXAMPLES = [text[:300] for rule in hardened_rules() for text in (*rule.examples.match, *rule.examples.no_match)]
_NOISE = st.text(st.sampled_from("ab \n<>-!.=@\"'/:x"), max_size=40)


def test_most_rules_outside_the_words_view_have_a_reach() -> None:
    assert len(BOUNDED) >= 30


def _own_examples() -> dict[tuple[str, int], list[str]]:
    own: dict[tuple[str, int], list[str]] = {}
    for rule in hardened_rules():
        if (rule.regex_source, rule.regex_flags) in BOUNDED:
            own.setdefault((rule.regex_source, rule.regex_flags), []).extend(rule.examples.match)
    return own


OWN_EXAMPLES = _own_examples()


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(BOUNDED), st.booleans(), _NOISE, _NOISE, _NOISE, _NOISE, st.data())
def test_a_try_reads_only_its_reach(
    rule: tuple[str, int], own: bool, before: str, after: str, other_before: str, other_after: str,
    data: st.DataObject,
) -> None:
    # the same window in other surroundings answers the same: at every match of an
    # example (mostly the rule's own) and at some other place
    example = data.draw(st.sampled_from(OWN_EXAMPLES.get(rule) if own and OWN_EXAMPLES.get(rule) else EXAMPLES))
    pattern = regex.compile(*rule)
    around = reach.reach(*rule)
    assert around is not None
    pad = "\n" * 3
    text = pad + before + example + after + pad
    places = [match.start() for match in pattern.finditer(text)]
    places.append(data.draw(st.integers(0, len(text) - 1)))
    for place in places:
        if place - around.behind < 2 or place + around.ahead + 2 > len(text):
            continue  # near the text's ends the anchors may answer otherwise
        window = text[place - around.behind : place + around.ahead]
        other = pad + other_before + window + other_after + pad
        moved = len(pad) + len(other_before) + around.behind
        found, again = pattern.match(text, place), pattern.match(other, moved)
        assert (found and found.end() - place) == (again and again.end() - moved)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(BOUNDED),
    st.lists(st.sampled_from(EXAMPLES), min_size=1, max_size=4),
    st.integers(1, 6),
    st.lists(st.integers(0, 2000), max_size=40),
)
def test_tries_once_a_window_find_what_each_try_finds(
    rule: tuple[str, int], pieces: list[str], repeat: int, extra: list[int]
) -> None:
    pattern = regex.compile(*rule)
    around = reach.reach(*rule)
    assert around is not None
    text = ("\n".join(pieces) + "\n") * repeat
    places = sorted({*range(0, len(text), 7), *(e % len(text) for e in extra)})
    lines = lines_of(text)
    assert lines is not None
    expected = list(matches_at(pattern, text, places))
    assert list(matches_at_by_window(pattern, lines, places, around)) == expected
    saved, reach.MAX_KEY_LINES = reach.MAX_KEY_LINES, 2  # windows over more lines are tried
    try:
        assert list(matches_at_by_window(pattern, lines, places, around)) == expected
    finally:
        reach.MAX_KEY_LINES = saved


def test_a_window_one_character_short_is_caught() -> None:
    # `(?<=x\ny)a`: a memo keyed one character short behind would answer "z\nya" as "x\nya"
    pattern = regex.compile("(?<=x\ny)a")
    text = "\n\nx\nya\nz\nya\nx\nya\n\n"
    lines = lines_of(text)
    assert lines is not None
    places = [index for index, char in enumerate(text) if char == "a"]
    expected = list(matches_at(pattern, text, places))
    assert list(matches_at_by_window(pattern, lines, places, Reach(3, 1))) == expected
    assert list(matches_at_by_window(pattern, lines, places, Reach(1, 1))) != expected


@settings(max_examples=300, deadline=None)
@given(_LINES, st.lists(st.integers(0, 3), min_size=1, max_size=30), st.data())
def test_windows_with_the_same_key_read_the_same(pool: list[str], picks: list[int], data: st.DataObject) -> None:
    text = "\n".join(pool[pick % len(pool)] for pick in picks)
    lines = lines_of(text)
    assert lines is not None
    if not text:
        return
    width = data.draw(st.integers(1, len(text)))
    firsts = range(len(text) - width + 1)
    by_key: dict[tuple[int, tuple[int, ...]], str] = {}
    for first in firsts:
        read = text[first : first + width]
        assert by_key.setdefault(lines.window(first, first + width - 1), read) == read


def _searches() -> list[tuple[str, int]]:
    return sorted({
        (rule.regex_source, rule.regex_flags)
        for rule in hardened_rules()
        if rule.view in ("raw", "nfkc", "skeleton", "words") and rule.trusted and rule.exact_source is None
    })


SEARCHES = _searches()


@pytest.mark.usefixtures("small_texts_repeat")
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.sampled_from(SEARCHES),
    st.lists(st.sampled_from(EXAMPLES), min_size=1, max_size=4),
    st.integers(2, 5),
    st.sampled_from([str, str.lower]),
    st.sampled_from(["\n", " "]),
)
def test_branch_search_of_repeated_lines_or_tokens_equals_finditer(
    rule: tuple[str, int], pieces: list[str], repeat: int, case: object, glue: str
) -> None:
    # lines repeated (read through the distinct lines), or one line (through its tokens)
    source, flags = rule
    search = whole_pattern_search(source, flags)
    text = case((glue.join(pieces) + glue) * repeat + pieces[0])  # type: ignore[operator]
    if glue == " ":
        text = " " + " ".join(text.split())  # words only, as in the words view
    expected = [match.span() for match in search.pattern.finditer(text)]
    assert search.spans(PreparedText(text)) == expected


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    _LINES,
    st.lists(st.integers(0, 3), min_size=1, max_size=30),
    st.lists(st.text("ab \n", min_size=1, max_size=3), min_size=1, max_size=3),
    st.lists(st.tuples(st.integers(1, 30), st.integers(0, 12)), max_size=5),
    st.integers(0, 3),
    st.integers(0, 3),
    st.integers(0, 60),
)
def test_places_in_windows_through_distinct_lines(
    monkeypatch: pytest.MonkeyPatch, pool: list[str], picks: list[int], strings: list[str],
    gaps: list[tuple[int, int]], lo: int, spread: int, most: int,
) -> None:
    text = "\n".join(pool[pick % len(pool)] for pick in picks)
    windows, at = [], 0
    for gap, width in gaps:  # in order, apart: as BranchSearch._windows gives them
        windows.append((at + gap, at + gap + width))
        at += gap + width + 1
    starts = pattern_reading.Starts(tuple(strings), lo, lo + spread)
    found = {}
    for name, lines in (("whole", lambda haystack, unfolded=None: None),
                        ("lines", lambda haystack, unfolded=None: lines_of(haystack))):
        monkeypatch.setattr(branch_search, "_repeated_lines", lines)
        found[name] = branch_search._places_in(windows, starts, strings, text, len(text), most)
    assert found["lines"] == found["whole"]
